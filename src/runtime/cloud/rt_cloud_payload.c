/*
 * A message's payload, CBOR from the cloud (docs/cloud-protocol.md), straight to the app's values
 * (rt_cloud_payload_value in rt_cloud.h): no JSON text of it is ever made, and what JSON could not
 * hold is refused with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_cloud.h"
#include "rt_cloud_proto.h"

/* 2^53 - 1: larger integers have no exact number (the cloud sends none: docs/cloud-protocol.md). */
#define MAX_SAFE_INT 9007199254740991ull

typedef struct {
	rt_cbor_dec_t d;
	const char *why; /* why the payload was refused */
} payload_reader_t;

/*
 * Properties are defined as JSON.parse defines them (eng_define_data): no setter of the app's
 * runs, not even one on Object.prototype or Array.prototype, and a "__proto__" key is an own
 * property, not the object's prototype. So no app code runs while a payload is decoded.
 */
static eng_value_t payload_item(payload_reader_t *r, unsigned depth)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(&r->d, &it) != RT_CBOR_OK) {
		r->why = "payload is not well-formed CBOR";
		return eng_undefined();
	}
	switch (it.type) {
	case RT_CBOR_UINT:
		if (it.u > MAX_SAFE_INT) {
			break;
		}
		return eng_number((double)it.u);
	case RT_CBOR_NEGATIVE:
		if (it.u >= MAX_SAFE_INT) {
			break;
		}
		return eng_number(-1.0 - (double)it.u);
	case RT_CBOR_FLOAT:
		if (it.f != it.f || it.f - it.f != 0.0) {
			break; /* NaN or an infinity: JSON has neither */
		}
		return eng_number(it.f);
	case RT_CBOR_TEXT:
		return eng_string((const char *)it.data, it.len);
	case RT_CBOR_TRUE:
		return eng_boolean(true);
	case RT_CBOR_FALSE:
		return eng_boolean(false);
	case RT_CBOR_NULL:
		return eng_null();
	case RT_CBOR_ARRAY:
	case RT_CBOR_MAP: {
		if (depth == 0) {
			r->why = "payload nested too deep for this device";
			return eng_undefined();
		}
		/* Every item takes a byte at least: a count beyond the bytes left is a lie, refused
		 * before the engine is asked for an array that long. */
		if (it.u > r->d.len - r->d.pos) {
			r->why = "payload is not well-formed CBOR";
			return eng_undefined();
		}
		bool map = it.type == RT_CBOR_MAP;
		eng_value_t out = map ? eng_object() : eng_array(0);
		for (uint64_t i = 0; i < it.u && r->why == NULL; i++) {
			const char *key;
			size_t key_len;
			char index[12];
			if (map) {
				rt_cbor_item_t k;
				if (rt_cbor_next(&r->d, &k) != RT_CBOR_OK || k.type != RT_CBOR_TEXT) {
					r->why = "payload has a map key that is not text";
					break;
				}
				key = (const char *)k.data;
				key_len = k.len;
			} else {
				key_len = (size_t)snprintf(index, sizeof(index), "%u", (unsigned)i);
				key = index;
			}
			eng_value_t v = payload_item(r, depth - 1);
			if (r->why == NULL && !eng_define_data(out, key, key_len, v)) {
				r->why = "payload too large for this device";
			}
			eng_release(v);
		}
		if (r->why != NULL) {
			eng_release(out);
			return eng_undefined();
		}
		return out;
	}
	default:
		r->why = "payload has a byte string, tag or other value JSON has not";
		return eng_undefined();
	}
	r->why = "payload has a number JSON cannot hold exactly";
	return eng_undefined();
}

eng_value_t rt_cloud_payload_value(const uint8_t *cbor, size_t len, const char **why)
{
	payload_reader_t r;
	memset(&r, 0, sizeof(r));
	rt_cbor_dec_init(&r.d, cbor, len);
	eng_value_t v = payload_item(&r, RT_CLOUD_PAYLOAD_DEPTH);
	if (r.why == NULL && !rt_cbor_at_end(&r.d)) {
		r.why = "payload has bytes after its value";
	}
	if (r.why != NULL) {
		eng_release(v);
		v = eng_undefined();
	}
	*why = r.why;
	return v;
}

/*
 * ble: packet objects (BlePacket, ScanRecord) to and from the AD codec (rt_ble_ad), for the
 * builders, the parser, advertisers and scans. A packet object that cannot be encoded is refused
 * with a TypeError or RangeError naming the field, before anything is sent.
 */
#include "rt_ble_internal.h"
#include "rt_errors.h"

#include <math.h>
#include <string.h>

#include "hal_ble.h"

eng_value_t rt_ble_js_buffer(const uint8_t *data, size_t len)
{
	return eng_arraybuffer(data, len);
}

void rt_ble_js_set(eng_value_t object, const char *key, eng_value_t v)
{
	eng_set(object, key, v);
	eng_release(v);
}

void rt_ble_js_fields_of(const rt_ble_ad_t *ad, rt_ble_js_fields_t *f)
{
	memset(f, 0, sizeof(*f));
	if (ad->present & RT_BLE_HAS_NAME) {
		f->has_name = true;
		f->name = eng_string((const char *)rt_ble_ad_bytes(ad, ad->name), ad->name.len);
	}
	if ((ad->present & RT_BLE_HAS_MANUF) && ad->manuf.len <= RT_BYTES_MAX) {
		f->has_manuf = true;
		f->manuf.len = ad->manuf.len;
		memcpy(f->manuf.data, rt_ble_ad_bytes(ad, ad->manuf), ad->manuf.len);
	}
	if (ad->service_data_count) {
		f->has_sd = true;
		f->sd = eng_object();
		for (uint8_t i = 0; i < ad->service_data_count; i++) {
			const rt_ble_service_data_t *e = &ad->service_data[i];
			char key[RT_BLE_UUID_HEX_MAX + 1];
			rt_ble_ad_uuid_to_hex(&e->uuid, key);
			rt_ble_js_set(f->sd, key, rt_ble_js_buffer(rt_ble_ad_bytes(ad, e->data), e->data.len));
		}
	}
	if (ad->uuid_count) {
		f->has_uuids = true;
		f->uuids = eng_array(0);
		for (uint8_t i = 0; i < ad->uuid_count; i++) {
			eng_value_t b = rt_ble_js_buffer(ad->uuids[i].bytes, ad->uuids[i].len);
			eng_set_index(f->uuids, i, b);
			eng_release(b);
		}
	}
	if (ad->present & RT_BLE_HAS_TX_POWER) {
		f->has_tx = true;
		f->tx = ad->tx_power;
	}
	if (ad->present & RT_BLE_HAS_FLAGS) {
		f->has_flags = true;
		f->flags = ad->flags;
	}
}

void rt_ble_js_fields_release(rt_ble_js_fields_t *f)
{
	if (f->has_name) {
		eng_release(f->name);
	}
	if (f->has_sd) {
		eng_release(f->sd);
	}
	if (f->has_uuids) {
		eng_release(f->uuids);
	}
}

eng_value_t rt_ble_js_packet(const rt_ble_ad_t *ad)
{
	rt_ble_js_fields_t f;
	rt_ble_js_fields_of(ad, &f);
	rt_BlePacket_t p = {
		.has_name = f.has_name, .name = f.name,
		.has_manufData = f.has_manuf, .manufData = f.manuf,
		.has_serviceData = f.has_sd, .serviceData = f.sd,
		.has_serviceUUIDs = f.has_uuids, .serviceUUIDs = f.uuids,
		.has_txPower = f.has_tx, .txPower = f.tx,
		.has_flags = f.has_flags, .flags = f.flags,
	};
	eng_value_t v = api_make_BlePacket(&p);
	rt_ble_js_fields_release(&f);
	return v;
}

/* Why a packet object was refused: a TypeError or RangeError naming the field (thrown). */
static eng_value_t refuse(eng_error_kind_t kind, const char *fn, const char *what)
{
	return rt_throw_arg(kind, "%s: %s", fn, what);
}

static eng_value_t bytes_of(eng_value_t v, const uint8_t **data, size_t *len)
{
	eng_type_t t = eng_typeof(v);
	if (t != ENG_TYPE_ARRAYBUFFER && t != ENG_TYPE_TYPEDARRAY) {
		return eng_boolean(false);
	}
	*data = eng_buffer_data(v, len);
	if (*data == NULL && *len) {
		return eng_boolean(false);
	}
	return eng_boolean(true);
}

static eng_value_t add_service_data(rt_ble_ad_t *ad, eng_value_t sd, const char *fn)
{
	if (!eng_is_object(sd) || eng_typeof(sd) == ENG_TYPE_ARRAY || eng_typeof(sd) == ENG_TYPE_FUNCTION) {
		return refuse(ENG_ERROR_TYPE, fn, "serviceData must be an object of ArrayBuffers by UUID");
	}
	eng_value_t keys = eng_keys(sd);
	if (eng_is_exception(keys)) {
		return keys;
	}
	eng_value_t result = eng_undefined();
	uint32_t n = eng_array_length(keys);
	for (uint32_t i = 0; i < n && !eng_is_exception(result); i++) {
		eng_value_t key = eng_get_index(keys, i);
		char text[48];
		size_t klen = eng_string_copy(key, text, sizeof(text));
		eng_release(key);
		rt_ble_uuid_t uuid;
		if (klen >= sizeof(text) || rt_ble_ad_uuid_from_hex(text, klen, &uuid) != RT_BLE_OK) {
			result = rt_throw_arg(ENG_ERROR_RANGE,
					   "%s: serviceData key '%s' is not a UUID of 4, 8 or 32 hex digits", fn,
					   klen < sizeof(text) ? text : "(too long)");
			break;
		}
		eng_value_t v = eng_get(sd, text);
		if (eng_is_exception(v)) {
			result = v;
			break;
		}
		const uint8_t *data = NULL;
		size_t len = 0;
		if (!eng_get_boolean(bytes_of(v, &data, &len))) {
			result = rt_throw_arg(ENG_ERROR_TYPE, "%s: serviceData['%s'] must be an ArrayBuffer", fn,
					   text);
		} else if (rt_ble_ad_add_service_data(ad, &uuid, data, len) != RT_BLE_OK) {
			result = rt_throw_arg(ENG_ERROR_RANGE, "%s: serviceData['%s'] does not fit a packet", fn,
					   text);
		}
		eng_release(v);
	}
	eng_release(keys);
	return result;
}

static eng_value_t add_uuids(rt_ble_ad_t *ad, eng_value_t list, const char *fn)
{
	if (eng_typeof(list) != ENG_TYPE_ARRAY) {
		return refuse(ENG_ERROR_TYPE, fn, "serviceUUIDs must be an array of ArrayBuffers");
	}
	uint32_t n = eng_array_length(list);
	eng_value_t result = eng_undefined();
	for (uint32_t i = 0; i < n && !eng_is_exception(result); i++) {
		eng_value_t v = eng_get_index(list, i);
		const uint8_t *data = NULL;
		size_t len = 0;
		rt_ble_uuid_t uuid;
		if (eng_is_exception(v)) {
			return v;
		}
		if (!eng_get_boolean(bytes_of(v, &data, &len)) ||
		    rt_ble_ad_uuid_from_bytes(data, len, &uuid) != RT_BLE_OK) {
			result = rt_throw_arg(ENG_ERROR_TYPE,
					   "%s: serviceUUIDs[%u] must be an ArrayBuffer of 2, 4 or 16 bytes", fn,
					   (unsigned)i);
		} else if (rt_ble_ad_add_uuid(ad, &uuid) != RT_BLE_OK) {
			result = rt_throw_arg(ENG_ERROR_RANGE, "%s: more than %d serviceUUIDs", fn,
					   RT_BLE_AD_MAX_UUIDS);
		}
		eng_release(v);
	}
	return result;
}

/* Fill ad from the fields of a packet object; undefined or the exception to throw. */
eng_value_t rt_ble_js_to_ad(rt_ble_ad_t *ad, const rt_ble_js_fields_t *f, const uint8_t *manuf,
			    size_t manuf_len, const char *fn)
{
	rt_ble_ad_init(ad);
	if (f->has_flags) {
		if (!(f->flags >= 0 && f->flags <= 255) || f->flags != floor(f->flags)) {
			return refuse(ENG_ERROR_RANGE, fn, "flags must be a whole number from 0 to 255");
		}
		rt_ble_ad_set_flags(ad, (uint8_t)f->flags);
	}
	if (f->has_tx) {
		if (!(f->tx >= -127 && f->tx <= 127)) {
			return refuse(ENG_ERROR_RANGE, fn, "txPower must be from -127 to 127 dBm");
		}
		rt_ble_ad_set_tx_power(ad, (int8_t)lround(f->tx));
	}
	if (f->has_uuids) {
		eng_value_t r = add_uuids(ad, f->uuids, fn);
		if (eng_is_exception(r)) {
			return r;
		}
	}
	if (f->has_sd) {
		eng_value_t r = add_service_data(ad, f->sd, fn);
		if (eng_is_exception(r)) {
			return r;
		}
	}
	if (f->has_manuf) {
		if (manuf_len < 2 || rt_ble_ad_set_manuf(ad, manuf, manuf_len) != RT_BLE_OK) {
			return refuse(ENG_ERROR_RANGE, fn,
				      "manufData must hold the 2-byte company identifier and fit a packet");
		}
	}
	if (f->has_name) {
		if (eng_typeof(f->name) != ENG_TYPE_STRING) {
			return refuse(ENG_ERROR_TYPE, fn, "name must be a string");
		}
		char name[RT_BLE_AD_LEGACY_MAX + 2];
		size_t len = eng_string_copy(f->name, name, sizeof(name));
		if (len > RT_BLE_AD_LEGACY_MAX - 2) {
			return refuse(ENG_ERROR_RANGE, fn, "name does not fit a packet (at most 29 bytes)");
		}
		rt_ble_ad_set_name(ad, name, len, true);
	}
	return eng_undefined();
}

/* Encode for legacy advertising; a packet that does not fit is a RangeError saying which part
 * is the largest (docs/ble-packets.md). */
eng_value_t rt_ble_js_encode(const rt_ble_ad_t *ad, uint8_t *out, uint8_t *out_len, const char *fn)
{
	size_t len = 0;
	rt_ble_ad_fit_t fit;
	if (rt_ble_ad_encode(ad, out, HAL_BLE_AD_MAX, &len, &fit) != RT_BLE_OK) {
		char msg[160];
		rt_ble_ad_fit_message(&fit, msg, sizeof(msg));
		return rt_throw_arg(ENG_ERROR_RANGE, "%s: %s", fn, msg);
	}
	*out_len = (uint8_t)len;
	return eng_undefined();
}

/* A packet object returned by an advertise callback, read property by property. */
eng_value_t rt_ble_js_object_to_ad(eng_value_t obj, rt_ble_ad_t *ad, const char *fn)
{
	if (!eng_is_object(obj) || eng_typeof(obj) == ENG_TYPE_ARRAY || eng_typeof(obj) == ENG_TYPE_FUNCTION) {
		return refuse(ENG_ERROR_TYPE, fn, "the callback must return a packet object");
	}
	rt_ble_js_fields_t f;
	memset(&f, 0, sizeof(f));
	static const char *const keys[] = {"name", "manufData", "serviceData", "serviceUUIDs", "txPower", "flags"};
	eng_value_t v[6];
	for (int i = 0; i < 6; i++) {
		v[i] = eng_get(obj, keys[i]);
		if (eng_is_exception(v[i])) {
			for (int k = 0; k < i; k++) {
				eng_release(v[k]);
			}
			return v[i];
		}
	}
	const uint8_t *manuf = NULL;
	size_t manuf_len = 0;
	eng_value_t result = eng_undefined();
	f.has_name = eng_typeof(v[0]) != ENG_TYPE_UNDEFINED;
	f.name = v[0];
	if (eng_typeof(v[1]) != ENG_TYPE_UNDEFINED) {
		f.has_manuf = true;
		if (!eng_get_boolean(bytes_of(v[1], &manuf, &manuf_len))) {
			result = refuse(ENG_ERROR_TYPE, fn, "manufData must be an ArrayBuffer");
		}
	}
	f.has_sd = eng_typeof(v[2]) != ENG_TYPE_UNDEFINED;
	f.sd = v[2];
	f.has_uuids = eng_typeof(v[3]) != ENG_TYPE_UNDEFINED;
	f.uuids = v[3];
	for (int i = 4; i < 6; i++) {
		if (eng_typeof(v[i]) == ENG_TYPE_UNDEFINED) {
			continue;
		}
		if (eng_typeof(v[i]) != ENG_TYPE_NUMBER && !eng_is_exception(result)) {
			result = rt_throw_arg(ENG_ERROR_TYPE, "%s: %s must be a number", fn, keys[i]);
		}
	}
	f.has_tx = eng_typeof(v[4]) == ENG_TYPE_NUMBER;
	f.tx = eng_get_number(v[4]);
	f.has_flags = eng_typeof(v[5]) == ENG_TYPE_NUMBER;
	f.flags = eng_get_number(v[5]);
	if (!eng_is_exception(result)) {
		result = rt_ble_js_to_ad(ad, &f, manuf, manuf_len, fn);
	}
	for (int i = 0; i < 6; i++) {
		eng_release(v[i]);
	}
	return result;
}

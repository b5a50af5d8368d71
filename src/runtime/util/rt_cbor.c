/*
 * rt_cbor.c: see rt_cbor.h. Floats are handled as IEEE 754 bit patterns (memcpy into integers)
 * so that no soft-float library routine beyond double<->float conversion is pulled in on the
 * device, and so that the shortest-form choice is exact rather than approximate.
 */
#include "rt_cbor.h"

#include <float.h>
#include <string.h>

enum {
	MAJOR_UINT = 0,
	MAJOR_NEG = 1,
	MAJOR_BYTES = 2,
	MAJOR_TEXT = 3,
	MAJOR_ARRAY = 4,
	MAJOR_MAP = 5,
	MAJOR_TAG = 6,
	MAJOR_SIMPLE = 7,
};

void rt_cbor_enc_init(rt_cbor_enc_t *e, uint8_t *buf, size_t cap)
{
	e->buf = buf;
	e->cap = buf ? cap : 0;
	e->len = 0;
	e->overflow = false;
}

bool rt_cbor_enc_ok(const rt_cbor_enc_t *e)
{
	return !e->overflow;
}

static bool put(rt_cbor_enc_t *e, const void *data, size_t len)
{
	if (e->overflow || len > e->cap - e->len) {
		e->overflow = true;
		return false;
	}
	if (len > 0) {
		memcpy(e->buf + e->len, data, len);
	}
	e->len += len;
	return true;
}

/* A head with the shortest argument encoding (RFC 8949 section 4.2.1). */
static bool put_head(rt_cbor_enc_t *e, unsigned major, uint64_t v)
{
	uint8_t h[9];
	size_t n;
	uint8_t ib = (uint8_t)(major << 5);

	if (v < 24) {
		h[0] = (uint8_t)(ib | v);
		n = 1;
	} else if (v <= 0xff) {
		h[0] = ib | 24;
		h[1] = (uint8_t)v;
		n = 2;
	} else if (v <= 0xffff) {
		h[0] = ib | 25;
		n = 3;
	} else if (v <= 0xffffffffu) {
		h[0] = ib | 26;
		n = 5;
	} else {
		h[0] = ib | 27;
		n = 9;
	}
	for (size_t i = 1; n > 2 && i < n; i++) {
		h[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	}
	return put(e, h, n);
}

bool rt_cbor_enc_uint(rt_cbor_enc_t *e, uint64_t v)
{
	return put_head(e, MAJOR_UINT, v);
}

bool rt_cbor_enc_int(rt_cbor_enc_t *e, int64_t v)
{
	if (v >= 0) {
		return put_head(e, MAJOR_UINT, (uint64_t)v);
	}
	/* -1 - v without overflow for INT64_MIN. */
	return put_head(e, MAJOR_NEG, (uint64_t)(-(v + 1)));
}

bool rt_cbor_enc_negative(rt_cbor_enc_t *e, uint64_t n)
{
	return put_head(e, MAJOR_NEG, n);
}

/* A string goes in whole or not at all, so a failed write leaves no head without its bytes. */
static bool put_string(rt_cbor_enc_t *e, unsigned major, const void *data, size_t len)
{
	size_t start = e->len;
	if (put_head(e, major, len) && put(e, data, len)) {
		return true;
	}
	e->len = start;
	return false;
}

bool rt_cbor_enc_bytes(rt_cbor_enc_t *e, const void *data, size_t len)
{
	return put_string(e, MAJOR_BYTES, data, len);
}

bool rt_cbor_enc_text(rt_cbor_enc_t *e, const char *text, size_t len)
{
	return put_string(e, MAJOR_TEXT, text, len);
}

bool rt_cbor_enc_str(rt_cbor_enc_t *e, const char *text)
{
	return rt_cbor_enc_text(e, text, strlen(text));
}

bool rt_cbor_enc_array(rt_cbor_enc_t *e, uint64_t count)
{
	return put_head(e, MAJOR_ARRAY, count);
}

bool rt_cbor_enc_map(rt_cbor_enc_t *e, uint64_t pairs)
{
	return put_head(e, MAJOR_MAP, pairs);
}

bool rt_cbor_enc_tag(rt_cbor_enc_t *e, uint64_t tag)
{
	return put_head(e, MAJOR_TAG, tag);
}

static bool put_simple(rt_cbor_enc_t *e, uint8_t ai)
{
	uint8_t b = (uint8_t)(MAJOR_SIMPLE << 5 | ai);
	return put(e, &b, 1);
}

bool rt_cbor_enc_bool(rt_cbor_enc_t *e, bool v)
{
	return put_simple(e, v ? 21 : 20);
}

bool rt_cbor_enc_null(rt_cbor_enc_t *e)
{
	return put_simple(e, 22);
}

bool rt_cbor_enc_undefined(rt_cbor_enc_t *e)
{
	return put_simple(e, 23);
}

bool rt_cbor_enc_simple(rt_cbor_enc_t *e, uint8_t v)
{
	if (v >= 20 && v < 32) {
		if (v >= 24) {
			return false;
		}
		return put_simple(e, v);
	}
	if (v < 20) {
		return put_simple(e, v);
	}
	uint8_t h[2] = {(uint8_t)(MAJOR_SIMPLE << 5 | 24), v};
	return put(e, h, 2);
}

static bool put_bits(rt_cbor_enc_t *e, uint8_t ai, uint64_t bits, size_t n)
{
	uint8_t h[9];
	h[0] = (uint8_t)(MAJOR_SIMPLE << 5 | ai);
	for (size_t i = 0; i < n; i++) {
		h[1 + i] = (uint8_t)(bits >> (8 * (n - 1 - i)));
	}
	return put(e, h, n + 1);
}

bool rt_cbor_enc_float64(rt_cbor_enc_t *e, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	return put_bits(e, 27, bits, 8);
}

/* The float16 bit pattern of a float32 value, if it holds the value exactly. */
static bool half_of_float(uint32_t fb, uint16_t *out)
{
	uint16_t sign = (uint16_t)((fb >> 16) & 0x8000u);
	uint32_t exp = (fb >> 23) & 0xffu;
	uint32_t mant = fb & 0x7fffffu;

	if (exp == 0xff) { /* infinities; NaN is handled by the caller */
		if (mant != 0) {
			return false;
		}
		*out = sign | 0x7c00u;
		return true;
	}
	if (exp == 0) { /* zero, or a float32 subnormal: far below float16's range */
		if (mant != 0) {
			return false;
		}
		*out = sign;
		return true;
	}
	int32_t e = (int32_t)exp - 127;
	if (e >= -14 && e <= 15) {
		if (mant & 0x1fffu) {
			return false;
		}
		*out = (uint16_t)(sign | (uint16_t)((uint32_t)(e + 15) << 10) | (uint16_t)(mant >> 13));
		return true;
	}
	if (e >= -24 && e < -14) {
		/* A float16 subnormal m * 2^-24: m = (1.mant) * 2^(e + 24). */
		uint32_t full = mant | 0x800000u;
		uint32_t shift = (uint32_t)(-(e + 1)); /* 14..23 */
		if (full & ((1u << shift) - 1u)) {
			return false;
		}
		*out = (uint16_t)(sign | (uint16_t)(full >> shift));
		return true;
	}
	return false;
}

bool rt_cbor_enc_double(rt_cbor_enc_t *e, double v)
{
	if (v != v) {
		return put_bits(e, 25, 0x7e00u, 2);
	}
	/* Outside float32's finite range (infinities aside) a float cast is not exact anyway, and
	 * range-checking first keeps the conversion defined. */
	bool is_inf = v > DBL_MAX || v < -DBL_MAX;
	if (is_inf || (v <= (double)FLT_MAX && v >= -(double)FLT_MAX)) {
		float f = (float)v;
		if (is_inf || (double)f == v) {
			uint32_t fb;
			uint16_t hb;
			memcpy(&fb, &f, sizeof(fb));
			if (half_of_float(fb, &hb)) {
				return put_bits(e, 25, hb, 2);
			}
			return put_bits(e, 26, fb, 4);
		}
	}
	return rt_cbor_enc_float64(e, v);
}

/* ---------------------------------------------------------------------------------------- */

void rt_cbor_dec_init(rt_cbor_dec_t *d, const uint8_t *buf, size_t len)
{
	d->buf = buf;
	d->len = buf ? len : 0;
	d->pos = 0;
	d->err = RT_CBOR_OK;
}

bool rt_cbor_at_end(const rt_cbor_dec_t *d)
{
	return d->err == RT_CBOR_OK && d->pos == d->len;
}

static rt_cbor_err_t fail(rt_cbor_dec_t *d, rt_cbor_err_t err)
{
	d->err = err;
	return err;
}

static double half_to_double(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t mant = h & 0x3ffu;
	uint32_t fb;

	if (exp == 0) {
		if (mant == 0) {
			fb = sign;
		} else {
			/* Subnormal: normalise into float32, which has room for it. */
			int32_t e = -14;
			while (!(mant & 0x400u)) {
				mant <<= 1;
				e--;
			}
			mant &= 0x3ffu;
			fb = sign | (uint32_t)(e + 127) << 23 | mant << 13;
		}
	} else if (exp == 0x1f) {
		fb = sign | 0x7f800000u | mant << 13;
	} else {
		fb = sign | (exp - 15 + 127) << 23 | mant << 13;
	}
	float f;
	memcpy(&f, &fb, sizeof(f));
	return (double)f;
}

rt_cbor_err_t rt_cbor_next(rt_cbor_dec_t *d, rt_cbor_item_t *it)
{
	if (d->err != RT_CBOR_OK) {
		return d->err;
	}
	if (d->pos >= d->len) {
		return fail(d, RT_CBOR_ERR_END);
	}
	uint8_t ib = d->buf[d->pos];
	unsigned major = ib >> 5;
	unsigned ai = ib & 31u;
	size_t pos = d->pos + 1;
	uint64_t val;

	if (ai < 24) {
		val = ai;
	} else if (ai <= 27) {
		size_t n = (size_t)1 << (ai - 24);
		if (n > d->len - pos) {
			return fail(d, RT_CBOR_ERR_END);
		}
		val = 0;
		for (size_t i = 0; i < n; i++) {
			val = val << 8 | d->buf[pos + i];
		}
		pos += n;
	} else if (ai <= 30) {
		return fail(d, RT_CBOR_ERR_MALFORMED);
	} else {
		/* 31: a break (major 7) outside an indefinite container, or an indefinite length,
		 * which integers and tags cannot have at all. */
		if (major == MAJOR_SIMPLE || major == MAJOR_UINT || major == MAJOR_NEG ||
		    major == MAJOR_TAG) {
			return fail(d, RT_CBOR_ERR_MALFORMED);
		}
		return fail(d, RT_CBOR_ERR_INDEFINITE);
	}

	memset(it, 0, sizeof(*it));
	it->u = val;
	switch (major) {
	case MAJOR_UINT:
		it->type = RT_CBOR_UINT;
		break;
	case MAJOR_NEG:
		it->type = RT_CBOR_NEGATIVE;
		break;
	case MAJOR_BYTES:
	case MAJOR_TEXT:
		if (val > d->len - pos) {
			return fail(d, RT_CBOR_ERR_END);
		}
		it->type = major == MAJOR_BYTES ? RT_CBOR_BYTES : RT_CBOR_TEXT;
		it->data = d->buf + pos;
		it->len = (size_t)val;
		pos += (size_t)val;
		break;
	case MAJOR_ARRAY:
		it->type = RT_CBOR_ARRAY;
		break;
	case MAJOR_MAP:
		it->type = RT_CBOR_MAP;
		break;
	case MAJOR_TAG:
		it->type = RT_CBOR_TAG;
		break;
	default: /* MAJOR_SIMPLE */
		if (ai < 20) {
			it->type = RT_CBOR_SIMPLE;
		} else if (ai == 20) {
			it->type = RT_CBOR_FALSE;
		} else if (ai == 21) {
			it->type = RT_CBOR_TRUE;
		} else if (ai == 22) {
			it->type = RT_CBOR_NULL;
		} else if (ai == 23) {
			it->type = RT_CBOR_UNDEFINED;
		} else if (ai == 24) {
			/* RFC 8949 3.3: simple values below 32 must use the one-byte form. */
			if (val < 32) {
				return fail(d, RT_CBOR_ERR_MALFORMED);
			}
			it->type = RT_CBOR_SIMPLE;
		} else {
			it->type = RT_CBOR_FLOAT;
			if (ai == 25) {
				it->f = half_to_double((uint16_t)val);
				it->u = 2;
			} else if (ai == 26) {
				uint32_t fb = (uint32_t)val;
				float f;
				memcpy(&f, &fb, sizeof(f));
				it->f = (double)f;
				it->u = 4;
			} else {
				memcpy(&it->f, &val, sizeof(it->f));
				it->u = 8;
			}
		}
		break;
	}
	d->pos = pos;
	return RT_CBOR_OK;
}

rt_cbor_err_t rt_cbor_skip(rt_cbor_dec_t *d)
{
	/* Items still to read at each open level; iterative, so hostile nesting costs no stack. */
	uint64_t left[RT_CBOR_MAX_DEPTH + 1];
	size_t depth = 0;
	rt_cbor_item_t it;

	left[0] = 1;
	for (;;) {
		while (left[depth] == 0) {
			if (depth == 0) {
				return RT_CBOR_OK;
			}
			depth--;
		}
		rt_cbor_err_t err = rt_cbor_next(d, &it);
		if (err != RT_CBOR_OK) {
			return err;
		}
		left[depth]--;
		uint64_t inner = 0;
		if (it.type == RT_CBOR_ARRAY) {
			inner = it.u;
		} else if (it.type == RT_CBOR_MAP) {
			/* More pairs than bytes left cannot be well-formed; saturate, the end of the
			 * buffer reports it. */
			inner = it.u > UINT64_MAX / 2 ? UINT64_MAX : it.u * 2;
		} else if (it.type == RT_CBOR_TAG) {
			inner = 1;
		}
		if (inner > 0) {
			if (depth == RT_CBOR_MAX_DEPTH) {
				return fail(d, RT_CBOR_ERR_DEPTH);
			}
			left[++depth] = inner;
		}
	}
}

rt_cbor_err_t rt_cbor_check(const uint8_t *buf, size_t len)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	rt_cbor_err_t err = rt_cbor_skip(&d);
	if (err != RT_CBOR_OK) {
		return err;
	}
	return d.pos == d.len ? RT_CBOR_OK : RT_CBOR_ERR_MALFORMED;
}

const char *rt_cbor_strerror(rt_cbor_err_t err)
{
	switch (err) {
	case RT_CBOR_OK:
		return "ok";
	case RT_CBOR_ERR_END:
		return "CBOR ends in the middle of an item";
	case RT_CBOR_ERR_MALFORMED:
		return "malformed CBOR";
	case RT_CBOR_ERR_INDEFINITE:
		return "indefinite-length CBOR items are not supported";
	case RT_CBOR_ERR_DEPTH:
		return "CBOR nested too deeply";
	case RT_CBOR_ERR_TYPE:
		return "unexpected CBOR type";
	}
	return "unknown CBOR error";
}

/* Read one item; when it is not of `type`, consume the rest of it and report TYPE. */
static rt_cbor_err_t read_typed(rt_cbor_dec_t *d, rt_cbor_type_t type, rt_cbor_item_t *it)
{
	size_t start = d->pos;
	rt_cbor_err_t err = rt_cbor_next(d, it);
	if (err != RT_CBOR_OK) {
		return err;
	}
	if (it->type == type) {
		return RT_CBOR_OK;
	}
	d->pos = start;
	err = rt_cbor_skip(d);
	return err != RT_CBOR_OK ? err : RT_CBOR_ERR_TYPE;
}

rt_cbor_err_t rt_cbor_read_uint(rt_cbor_dec_t *d, uint64_t *out)
{
	rt_cbor_item_t it;
	rt_cbor_err_t err = read_typed(d, RT_CBOR_UINT, &it);
	if (err == RT_CBOR_OK) {
		*out = it.u;
	}
	return err;
}

rt_cbor_err_t rt_cbor_read_int(rt_cbor_dec_t *d, int64_t *out)
{
	size_t start = d->pos;
	rt_cbor_item_t it;
	rt_cbor_err_t err = rt_cbor_next(d, &it);
	if (err != RT_CBOR_OK) {
		return err;
	}
	if ((it.type == RT_CBOR_UINT || it.type == RT_CBOR_NEGATIVE) && it.u <= (uint64_t)INT64_MAX) {
		*out = it.type == RT_CBOR_UINT ? (int64_t)it.u : -1 - (int64_t)it.u;
		return RT_CBOR_OK;
	}
	d->pos = start;
	err = rt_cbor_skip(d);
	return err != RT_CBOR_OK ? err : RT_CBOR_ERR_TYPE;
}

rt_cbor_err_t rt_cbor_read_text(rt_cbor_dec_t *d, const char **text, size_t *len)
{
	rt_cbor_item_t it;
	rt_cbor_err_t err = read_typed(d, RT_CBOR_TEXT, &it);
	if (err == RT_CBOR_OK) {
		*text = (const char *)it.data;
		*len = it.len;
	}
	return err;
}

rt_cbor_err_t rt_cbor_read_bytes(rt_cbor_dec_t *d, const uint8_t **data, size_t *len)
{
	rt_cbor_item_t it;
	rt_cbor_err_t err = read_typed(d, RT_CBOR_BYTES, &it);
	if (err == RT_CBOR_OK) {
		*data = it.data;
		*len = it.len;
	}
	return err;
}

bool rt_cbor_text_is(const rt_cbor_item_t *it, const char *s)
{
	size_t n = strlen(s);
	return it->type == RT_CBOR_TEXT && it->len == n && (n == 0 || memcmp(it->data, s, n) == 0);
}

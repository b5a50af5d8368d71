/*
 * rt_cbor.h: a small CBOR (RFC 8949) encoder into a caller's buffer and a bounds-checked pull
 * decoder over a byte buffer, for the SMP (MCUmgr) server (rt_smp.h).
 *
 * Why not a library: the same SMP server runs on the device (Zephyr, Cortex-M) and on the
 * bare-metal emulated image (no OS at all). Zephyr's zcbor is not available outside a Zephyr
 * tree, and libcbor (Debian's libcbor-dev) is host-only and allocates a tree of items per
 * decoded value. This module needs no heap, no OS header and no float library beyond IEEE 754
 * bit twiddling; libcbor is still used, in the tests only, as the reference decoder.
 *
 * Subset:
 *  - unsigned and negative integers over the whole 64-bit range of each major type (a negative
 *    integer is -1 - n with n up to 2^64 - 1, so it is reported as that n, not as an int64_t);
 *  - definite-length byte and text strings (text is not checked for UTF-8: SMP only compares
 *    it), arrays and maps, tags (reported as an item before the tagged item);
 *  - false, true, null, undefined, other simple values; float16/32/64 decoding; encoding of a
 *    double in the shortest form that keeps its value (half, single or double precision), as
 *    RFC 8949 section 4.2.2 prefers.
 *  - Indefinite-length strings, arrays and maps (additional information 31) are refused with
 *    RT_CBOR_ERR_INDEFINITE: SMP clients send definite lengths, and supporting them would need
 *    a stack of open containers in every caller.
 *
 * The encoder is sticky: once a write does not fit, every later one fails too and
 * rt_cbor_enc_ok() says false, so a caller checks once at the end. The decoder never reads past
 * its buffer; every error is final for that decoder (it keeps returning the first error).
 */
#ifndef RT_CBOR_H
#define RT_CBOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How deep rt_cbor_skip() and rt_cbor_check() follow nested arrays, maps and tags. */
#define RT_CBOR_MAX_DEPTH 16u

typedef struct {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
} rt_cbor_enc_t;

void rt_cbor_enc_init(rt_cbor_enc_t *e, uint8_t *buf, size_t cap);
bool rt_cbor_enc_ok(const rt_cbor_enc_t *e);

bool rt_cbor_enc_uint(rt_cbor_enc_t *e, uint64_t v);
bool rt_cbor_enc_int(rt_cbor_enc_t *e, int64_t v);
/* The negative integer -1 - n (reaches -2^64, which no int64_t holds). */
bool rt_cbor_enc_negative(rt_cbor_enc_t *e, uint64_t n);
bool rt_cbor_enc_bytes(rt_cbor_enc_t *e, const void *data, size_t len);
bool rt_cbor_enc_text(rt_cbor_enc_t *e, const char *text, size_t len);
/* A NUL-terminated text string. */
bool rt_cbor_enc_str(rt_cbor_enc_t *e, const char *text);
bool rt_cbor_enc_array(rt_cbor_enc_t *e, uint64_t count);
bool rt_cbor_enc_map(rt_cbor_enc_t *e, uint64_t pairs);
bool rt_cbor_enc_tag(rt_cbor_enc_t *e, uint64_t tag);
bool rt_cbor_enc_bool(rt_cbor_enc_t *e, bool v);
bool rt_cbor_enc_null(rt_cbor_enc_t *e);
bool rt_cbor_enc_undefined(rt_cbor_enc_t *e);
/* Another simple value: 0..19 or 32..255 (20..23 are the four above; 24..31 are reserved). */
bool rt_cbor_enc_simple(rt_cbor_enc_t *e, uint8_t v);
/* Shortest of float16, float32 and float64 that holds the value exactly; NaN as f9 7e00. */
bool rt_cbor_enc_double(rt_cbor_enc_t *e, double v);
/* Always float64 (major 7, additional information 27). */
bool rt_cbor_enc_float64(rt_cbor_enc_t *e, double v);

typedef enum {
	RT_CBOR_UINT,      /* value in .u */
	RT_CBOR_NEGATIVE,  /* the integer -1 - .u */
	RT_CBOR_BYTES,     /* .data, .len */
	RT_CBOR_TEXT,      /* .data, .len (not NUL-terminated) */
	RT_CBOR_ARRAY,     /* .u items follow */
	RT_CBOR_MAP,       /* .u key/value pairs follow */
	RT_CBOR_TAG,       /* tag number in .u; the tagged item follows */
	RT_CBOR_FALSE,
	RT_CBOR_TRUE,
	RT_CBOR_NULL,
	RT_CBOR_UNDEFINED,
	RT_CBOR_SIMPLE,    /* another simple value, in .u */
	RT_CBOR_FLOAT,     /* .f; .u holds the encoded width in bytes (2, 4 or 8) */
} rt_cbor_type_t;

typedef enum {
	RT_CBOR_OK = 0,
	RT_CBOR_ERR_END,        /* no more bytes: the buffer ends before the item does */
	RT_CBOR_ERR_MALFORMED,  /* reserved additional information, a stray break, bad simple */
	RT_CBOR_ERR_INDEFINITE, /* an indefinite length, not supported (see above) */
	RT_CBOR_ERR_DEPTH,      /* nested deeper than RT_CBOR_MAX_DEPTH */
	RT_CBOR_ERR_TYPE,       /* a helper found another type than the one asked for */
} rt_cbor_err_t;

typedef struct {
	rt_cbor_type_t type;
	uint64_t u;
	double f;
	const uint8_t *data;
	size_t len;
} rt_cbor_item_t;

typedef struct {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	rt_cbor_err_t err;
} rt_cbor_dec_t;

void rt_cbor_dec_init(rt_cbor_dec_t *d, const uint8_t *buf, size_t len);
/* Read the next item's head (and a string's bytes). Arrays, maps and tags report their count or
 * number; their contents are the next items. */
rt_cbor_err_t rt_cbor_next(rt_cbor_dec_t *d, rt_cbor_item_t *it);
/* Skip one whole item, nested contents included. */
rt_cbor_err_t rt_cbor_skip(rt_cbor_dec_t *d);
/* Whether buf holds exactly one well-formed item of the subset (nothing after it). */
rt_cbor_err_t rt_cbor_check(const uint8_t *buf, size_t len);
bool rt_cbor_at_end(const rt_cbor_dec_t *d);
const char *rt_cbor_strerror(rt_cbor_err_t err);

/* Decoding helpers for map values. Each reads one item; the wrong type is RT_CBOR_ERR_TYPE (the
 * item is consumed all the same, nested contents included). */
rt_cbor_err_t rt_cbor_read_uint(rt_cbor_dec_t *d, uint64_t *out);
rt_cbor_err_t rt_cbor_read_int(rt_cbor_dec_t *d, int64_t *out); /* TYPE when out of int64 */
rt_cbor_err_t rt_cbor_read_text(rt_cbor_dec_t *d, const char **text, size_t *len);
rt_cbor_err_t rt_cbor_read_bytes(rt_cbor_dec_t *d, const uint8_t **data, size_t *len);
/* Whether a text item equals a NUL-terminated string. */
bool rt_cbor_text_is(const rt_cbor_item_t *it, const char *s);

#endif /* RT_CBOR_H */

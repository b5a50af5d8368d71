/*
 * rt_cbor: the examples of RFC 8949 Appendix A decoded and encoded byte for byte; libcbor
 * (Debian's libcbor-dev) as the reference decoder for random values in both directions; and a
 * fuzz of the decoder (fixed seed; CI runs it under AddressSanitizer, which catches any read
 * past the exactly-sized buffers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cbor.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cbor.h"

/* ------------------------------------------------------------------------------------------- */
/* Helpers */

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex) / 2;
	assert_true(n <= cap);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

typedef struct {
	char *buf;
	size_t cap;
	size_t len;
} str_t;

static void sput(str_t *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < s->cap - s->len);
	s->len += (size_t)n;
}

/* RFC 8949 diagnostic notation of one item (floats are compared separately, by value). */
static rt_cbor_err_t diag(rt_cbor_dec_t *d, str_t *s)
{
	rt_cbor_item_t it;
	rt_cbor_err_t err = rt_cbor_next(d, &it);
	if (err != RT_CBOR_OK) {
		return err;
	}
	switch (it.type) {
	case RT_CBOR_UINT:
		sput(s, "%llu", (unsigned long long)it.u);
		break;
	case RT_CBOR_NEGATIVE:
		if (it.u == UINT64_MAX) {
			sput(s, "-18446744073709551616");
		} else {
			sput(s, "-%llu", (unsigned long long)it.u + 1);
		}
		break;
	case RT_CBOR_BYTES:
		sput(s, "h'");
		for (size_t i = 0; i < it.len; i++) {
			sput(s, "%02x", it.data[i]);
		}
		sput(s, "'");
		break;
	case RT_CBOR_TEXT:
		sput(s, "\"%.*s\"", (int)it.len, (const char *)it.data);
		break;
	case RT_CBOR_ARRAY:
	case RT_CBOR_MAP:
		sput(s, it.type == RT_CBOR_ARRAY ? "[" : "{");
		for (uint64_t i = 0; i < it.u; i++) {
			if (i > 0) {
				sput(s, ", ");
			}
			if ((err = diag(d, s)) != RT_CBOR_OK) {
				return err;
			}
			if (it.type == RT_CBOR_MAP) {
				sput(s, ": ");
				if ((err = diag(d, s)) != RT_CBOR_OK) {
					return err;
				}
			}
		}
		sput(s, it.type == RT_CBOR_ARRAY ? "]" : "}");
		break;
	case RT_CBOR_TAG:
		sput(s, "%llu(", (unsigned long long)it.u);
		if ((err = diag(d, s)) != RT_CBOR_OK) {
			return err;
		}
		sput(s, ")");
		break;
	case RT_CBOR_FALSE:
		sput(s, "false");
		break;
	case RT_CBOR_TRUE:
		sput(s, "true");
		break;
	case RT_CBOR_NULL:
		sput(s, "null");
		break;
	case RT_CBOR_UNDEFINED:
		sput(s, "undefined");
		break;
	case RT_CBOR_SIMPLE:
		sput(s, "simple(%llu)", (unsigned long long)it.u);
		break;
	case RT_CBOR_FLOAT:
		sput(s, "float");
		break;
	}
	return RT_CBOR_OK;
}

/* Re-encode every item of a decoded buffer with the encoder, in the preferred forms. */
static size_t reencode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	rt_cbor_dec_t d;
	rt_cbor_enc_t e;
	rt_cbor_item_t it;
	rt_cbor_dec_init(&d, in, len);
	rt_cbor_enc_init(&e, out, cap);
	while (!rt_cbor_at_end(&d)) {
		assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
		switch (it.type) {
		case RT_CBOR_UINT:
			rt_cbor_enc_uint(&e, it.u);
			break;
		case RT_CBOR_NEGATIVE:
			rt_cbor_enc_negative(&e, it.u);
			break;
		case RT_CBOR_BYTES:
			rt_cbor_enc_bytes(&e, it.data, it.len);
			break;
		case RT_CBOR_TEXT:
			rt_cbor_enc_text(&e, (const char *)it.data, it.len);
			break;
		case RT_CBOR_ARRAY:
			rt_cbor_enc_array(&e, it.u);
			break;
		case RT_CBOR_MAP:
			rt_cbor_enc_map(&e, it.u);
			break;
		case RT_CBOR_TAG:
			rt_cbor_enc_tag(&e, it.u);
			break;
		case RT_CBOR_FALSE:
			rt_cbor_enc_bool(&e, false);
			break;
		case RT_CBOR_TRUE:
			rt_cbor_enc_bool(&e, true);
			break;
		case RT_CBOR_NULL:
			rt_cbor_enc_null(&e);
			break;
		case RT_CBOR_UNDEFINED:
			rt_cbor_enc_undefined(&e);
			break;
		case RT_CBOR_SIMPLE:
			assert_true(rt_cbor_enc_simple(&e, (uint8_t)it.u));
			break;
		case RT_CBOR_FLOAT:
			rt_cbor_enc_double(&e, it.f);
			break;
		}
	}
	assert_true(rt_cbor_enc_ok(&e));
	return e.len;
}

/* ------------------------------------------------------------------------------------------- */
/* RFC 8949 Appendix A */

typedef struct {
	const char *hex;
	const char *diag; /* NULL for a float: then `f` is the value */
	double f;
	bool encode; /* the RFC's bytes are this encoder's (preferred) form */
} rfc_example_t;

#define F(hex, v, enc) {hex, NULL, v, enc}
#define D(hex, text) {hex, text, 0, true}

static const rfc_example_t RFC_EXAMPLES[] = {
	D("00", "0"),
	D("01", "1"),
	D("0a", "10"),
	D("17", "23"),
	D("1818", "24"),
	D("1819", "25"),
	D("1864", "100"),
	D("1903e8", "1000"),
	D("1a000f4240", "1000000"),
	D("1b000000e8d4a51000", "1000000000000"),
	D("1bffffffffffffffff", "18446744073709551615"),
	D("c249010000000000000000", "2(h'010000000000000000')"),
	D("3bffffffffffffffff", "-18446744073709551616"),
	D("c349010000000000000000", "3(h'010000000000000000')"),
	D("20", "-1"),
	D("29", "-10"),
	D("3863", "-100"),
	D("3903e7", "-1000"),
	F("f90000", 0.0, true),
	F("f98000", -0.0, true),
	F("f93c00", 1.0, true),
	F("fb3ff199999999999a", 1.1, true),
	F("f93e00", 1.5, true),
	F("f97bff", 65504.0, true),
	F("fa47c35000", 100000.0, true),
	F("fa7f7fffff", 3.4028234663852886e+38, true),
	F("fb7e37e43c8800759c", 1.0e+300, true),
	F("f90001", 5.960464477539063e-8, true),
	F("f90400", 0.00006103515625, true),
	F("f9c400", -4.0, true),
	F("fbc010666666666666", -4.1, true),
	F("f97c00", INFINITY, true),
	F("f97e00", NAN, true),
	F("f9fc00", -INFINITY, true),
	F("fa7f800000", INFINITY, false),
	F("fa7fc00000", NAN, false),
	F("faff800000", -INFINITY, false),
	F("fb7ff0000000000000", INFINITY, false),
	F("fb7ff8000000000000", NAN, false),
	F("fbfff0000000000000", -INFINITY, false),
	D("f4", "false"),
	D("f5", "true"),
	D("f6", "null"),
	D("f7", "undefined"),
	D("f0", "simple(16)"),
	D("f8ff", "simple(255)"),
	D("c074323031332d30332d32315432303a30343a30305a", "0(\"2013-03-21T20:04:00Z\")"),
	D("c11a514b67b0", "1(1363896240)"),
	D("d74401020304", "23(h'01020304')"),
	D("d818456449455446", "24(h'6449455446')"),
	D("d82076687474703a2f2f7777772e6578616d706c652e636f6d", "32(\"http://www.example.com\")"),
	D("40", "h''"),
	D("4401020304", "h'01020304'"),
	D("60", "\"\""),
	D("6161", "\"a\""),
	D("6449455446", "\"IETF\""),
	D("62225c", "\"\"\\\""),
	D("62c3bc", "\"\xc3\xbc\""),
	D("63e6b0b4", "\"\xe6\xb0\xb4\""),
	D("64f0908591", "\"\xf0\x90\x85\x91\""),
	D("80", "[]"),
	D("83010203", "[1, 2, 3]"),
	D("8301820203820405", "[1, [2, 3], [4, 5]]"),
	D("98190102030405060708090a0b0c0d0e0f101112131415161718181819",
	  "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]"),
	D("a0", "{}"),
	D("a201020304", "{1: 2, 3: 4}"),
	D("a26161016162820203", "{\"a\": 1, \"b\": [2, 3]}"),
	D("826161a161626163", "[\"a\", {\"b\": \"c\"}]"),
	D("a56161614161626142616361436164614461656145",
	  "{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}"),
};

/* 1(1363896240.5): a tag around a float. */
static const char TAGGED_FLOAT_HEX[] = "c1fb41d452d9ec200000";

/* The indefinite-length examples, which this subset refuses. */
static const char *const RFC_INDEFINITE[] = {
	"5f42010243030405ff",
	"7f657374726561646d696e67ff",
	"9fff",
	"9f018202039f0405ffff",
	"9f01820203820405ff",
	"83018202039f0405ff",
	"83019f0203ff820405",
	"9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
	"bf61610161629f0203ffff",
	"826161bf61626163ff",
	"bf6346756ef563416d7421ff",
};

static void test_rfc_examples_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(RFC_EXAMPLES) / sizeof(RFC_EXAMPLES[0]); i++) {
		const rfc_example_t *ex = &RFC_EXAMPLES[i];
		uint8_t buf[64];
		size_t n = unhex(ex->hex, buf, sizeof(buf));
		rt_cbor_dec_t d;
		rt_cbor_dec_init(&d, buf, n);
		if (ex->diag) {
			char text[256];
			str_t s = {text, sizeof(text), 0};
			assert_int_equal(diag(&d, &s), RT_CBOR_OK);
			if (strcmp(text, ex->diag) != 0) {
				fail_msg("%s decodes as %s, expected %s", ex->hex, text, ex->diag);
			}
		} else {
			rt_cbor_item_t it;
			assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
			assert_int_equal(it.type, RT_CBOR_FLOAT);
			assert_int_equal(it.u, (n - 1)); /* width */
			if (isnan(ex->f)) {
				assert_true(isnan(it.f));
			} else {
				assert_true(it.f == ex->f);
				assert_int_equal(signbit(it.f) != 0, signbit(ex->f) != 0);
			}
		}
		assert_true(rt_cbor_at_end(&d));
		assert_int_equal(rt_cbor_check(buf, n), RT_CBOR_OK);
	}

	uint8_t buf[16];
	size_t n = unhex(TAGGED_FLOAT_HEX, buf, sizeof(buf));
	rt_cbor_dec_t d;
	rt_cbor_item_t it;
	rt_cbor_dec_init(&d, buf, n);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(it.type, RT_CBOR_TAG);
	assert_int_equal(it.u, 1);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(it.type, RT_CBOR_FLOAT);
	assert_true(it.f == 1363896240.5);
}

static void test_rfc_examples_encode(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(RFC_EXAMPLES) / sizeof(RFC_EXAMPLES[0]); i++) {
		const rfc_example_t *ex = &RFC_EXAMPLES[i];
		if (!ex->encode) {
			continue;
		}
		uint8_t in[64], out[64];
		size_t n = unhex(ex->hex, in, sizeof(in));
		size_t m = reencode(in, n, out, sizeof(out));
		if (m != n || memcmp(in, out, n) != 0) {
			fail_msg("example %s is not encoded byte for byte", ex->hex);
		}
	}
	/* Values the encoder takes directly, not through the decoder. */
	uint8_t out[32];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out, sizeof(out));
	rt_cbor_enc_int(&e, INT64_MIN);
	rt_cbor_enc_int(&e, -1000);
	rt_cbor_enc_double(&e, 1363896240.5);
	const uint8_t expect[] = {0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x39, 0x03, 0xe7};
	assert_true(rt_cbor_enc_ok(&e));
	assert_memory_equal(out, expect, sizeof(expect));
	uint8_t tf[16];
	unhex(TAGGED_FLOAT_HEX + 2, tf, sizeof(tf));
	assert_memory_equal(out + sizeof(expect), tf, 9);
}

static void test_rfc_indefinite_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(RFC_INDEFINITE) / sizeof(RFC_INDEFINITE[0]); i++) {
		uint8_t buf[64];
		size_t n = unhex(RFC_INDEFINITE[i], buf, sizeof(buf));
		assert_int_equal(rt_cbor_check(buf, n), RT_CBOR_ERR_INDEFINITE);
	}
	assert_string_equal(rt_cbor_strerror(RT_CBOR_ERR_INDEFINITE),
			    "indefinite-length CBOR items are not supported");
}

static void test_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *hex;
		rt_cbor_err_t err;
	} CASES[] = {
		{"", RT_CBOR_ERR_END},
		{"18", RT_CBOR_ERR_END},             /* argument missing */
		{"1b0000", RT_CBOR_ERR_END},
		{"1c", RT_CBOR_ERR_MALFORMED},       /* reserved additional information */
		{"ff", RT_CBOR_ERR_MALFORMED},       /* stray break */
		{"1f", RT_CBOR_ERR_MALFORMED},       /* an integer cannot be indefinite */
		{"f818", RT_CBOR_ERR_MALFORMED},     /* two-byte simple below 32 */
		{"6461", RT_CBOR_ERR_END},           /* text shorter than its length */
		{"5bffffffffffffffff00", RT_CBOR_ERR_END},
		{"82 01", RT_CBOR_ERR_END},
		{"a16161", RT_CBOR_ERR_END},         /* map without its value */
		{"0000", RT_CBOR_ERR_MALFORMED},     /* more than one item */
	};
	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		char hex[64];
		size_t k = 0;
		for (const char *p = CASES[i].hex; *p; p++) {
			if (*p != ' ') {
				hex[k++] = *p;
			}
		}
		hex[k] = '\0';
		uint8_t buf[32];
		size_t n = unhex(hex, buf, sizeof(buf));
		/* An exactly sized heap copy, so ASan sees any read past it. */
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		if (rt_cbor_check(copy, n) != CASES[i].err) {
			fail_msg("%s: expected %s, got %s", CASES[i].hex, rt_cbor_strerror(CASES[i].err),
				 rt_cbor_strerror(rt_cbor_check(copy, n)));
		}
		free(copy);
	}
}

static void test_nesting_limit(void **state)
{
	(void)state;
	uint8_t buf[64];
	/* RT_CBOR_MAX_DEPTH nested arrays are fine; one more is refused. */
	for (size_t depth = RT_CBOR_MAX_DEPTH; depth <= RT_CBOR_MAX_DEPTH + 1; depth++) {
		memset(buf, 0x81, depth);
		buf[depth] = 0x00;
		rt_cbor_err_t want = depth == RT_CBOR_MAX_DEPTH ? RT_CBOR_OK : RT_CBOR_ERR_DEPTH;
		assert_int_equal(rt_cbor_check(buf, depth + 1), want);
	}
	/* Tags nest too. */
	memset(buf, 0xc1, 40);
	buf[40] = 0x00;
	assert_int_equal(rt_cbor_check(buf, 41), RT_CBOR_ERR_DEPTH);
}

static void test_encoder_overflow_is_sticky(void **state)
{
	(void)state;
	uint8_t buf[4];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, buf, sizeof(buf));
	assert_true(rt_cbor_enc_map(&e, 1));
	assert_false(rt_cbor_enc_str(&e, "long key")); /* does not fit */
	assert_false(rt_cbor_enc_uint(&e, 1));          /* would fit, but the map is broken */
	assert_false(rt_cbor_enc_ok(&e));
	assert_int_equal(e.len, 1);
}

static void test_read_helpers(void **state)
{
	(void)state;
	/* {"off": 5, "data": h'0102', "name": "x", "neg": -3, "big": 2^64-1} */
	uint8_t buf[64];
	size_t n = unhex("a5636f6666056464617461420102646e616d6561786"
			 "36e656722636269671bffffffffffffffff",
			 buf, sizeof(buf));
	rt_cbor_dec_t d;
	rt_cbor_item_t it;
	uint64_t u;
	int64_t i;
	const uint8_t *data;
	const char *text;
	size_t len;
	rt_cbor_dec_init(&d, buf, n);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(it.type, RT_CBOR_MAP);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_true(rt_cbor_text_is(&it, "off"));
	assert_int_equal(rt_cbor_read_uint(&d, &u), RT_CBOR_OK);
	assert_int_equal(u, 5);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_text(&d, &text, &len), RT_CBOR_ERR_TYPE); /* bytes, not text */
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_true(rt_cbor_text_is(&it, "name"));
	assert_int_equal(rt_cbor_read_bytes(&d, &data, &len), RT_CBOR_ERR_TYPE);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_int(&d, &i), RT_CBOR_OK);
	assert_int_equal(i, -3);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_int(&d, &i), RT_CBOR_ERR_TYPE); /* beyond int64 */
	assert_true(rt_cbor_at_end(&d));
}

/* ------------------------------------------------------------------------------------------- */
/* libcbor as the reference */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: fixed seed, so every run checks the same values. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t rnd_uint(void)
{
	/* Values near every width boundary, not just huge ones. */
	switch (rnd() % 6) {
	case 0:
		return rnd() % 24;
	case 1:
		return rnd() % 256;
	case 2:
		return rnd() % 65536;
	case 3:
		return rnd() & 0xffffffffu;
	case 4:
		return rnd() % 4 == 0 ? UINT64_MAX - rnd() % 3 : rnd();
	default:
		return 23 + rnd() % 3;
	}
}

static double rnd_double(void)
{
	static const double SPECIAL[] = {0.0, -0.0, 1.0, 1.5, 65504.0, 65505.0, 5.960464477539063e-8,
					 3.4028234663852886e+38, 1e300, -4.1, 1.0 / 3.0};
	switch (rnd() % 4) {
	case 0:
		return SPECIAL[rnd() % (sizeof(SPECIAL) / sizeof(SPECIAL[0]))];
	case 1:
		return (double)(int32_t)rnd() / 1024.0; /* often exact in half or single */
	case 2:
		return (double)(float)((double)(int64_t)rnd() / 65536.0);
	default: {
		uint64_t bits = rnd();
		double d;
		memcpy(&d, &bits, sizeof(d));
		return d != d ? 0.25 : d; /* NaN payloads are not kept by either side */
	}
	}
}

/* A random value built in libcbor and encoded with rt_cbor at the same time. */
static cbor_item_t *random_value(rt_cbor_enc_t *e, int depth)
{
	int kind = (int)(rnd() % (depth >= 4 ? 9 : 12));
	cbor_item_t *item = NULL;
	switch (kind) {
	case 0: {
		uint64_t v = rnd_uint();
		rt_cbor_enc_uint(e, v);
		item = cbor_build_uint64(v);
		break;
	}
	case 1: {
		uint64_t v = rnd_uint();
		rt_cbor_enc_negative(e, v);
		item = cbor_build_negint64(v);
		break;
	}
	case 2: {
		uint8_t data[40];
		size_t n = rnd() % sizeof(data);
		for (size_t i = 0; i < n; i++) {
			data[i] = (uint8_t)rnd();
		}
		rt_cbor_enc_bytes(e, data, n);
		item = cbor_build_bytestring(data, n);
		break;
	}
	case 3: {
		char text[40];
		size_t n = rnd() % sizeof(text);
		for (size_t i = 0; i < n; i++) {
			text[i] = (char)(' ' + rnd() % 95);
		}
		rt_cbor_enc_text(e, text, n);
		item = cbor_build_stringn(text, n);
		break;
	}
	case 4: {
		bool v = rnd() & 1;
		rt_cbor_enc_bool(e, v);
		item = cbor_build_bool(v);
		break;
	}
	case 5:
		rt_cbor_enc_null(e);
		item = cbor_new_null();
		break;
	case 6:
		rt_cbor_enc_undefined(e);
		item = cbor_new_undef();
		break;
	case 7:
	case 8: {
		double v = rnd_double();
		rt_cbor_enc_double(e, v);
		item = cbor_build_float8(v);
		break;
	}
	case 9: {
		size_t n = rnd() % 6;
		rt_cbor_enc_array(e, n);
		item = cbor_new_definite_array(n);
		for (size_t i = 0; i < n; i++) {
			assert_true(cbor_array_push(item, cbor_move(random_value(e, depth + 1))));
		}
		break;
	}
	case 10: {
		size_t n = rnd() % 5;
		rt_cbor_enc_map(e, n);
		item = cbor_new_definite_map(n);
		for (size_t i = 0; i < n; i++) {
			cbor_item_t *k = random_value(e, depth + 1);
			cbor_item_t *v = random_value(e, depth + 1);
			assert_true(cbor_map_add(item, (struct cbor_pair){.key = cbor_move(k), .value = cbor_move(v)}));
		}
		break;
	}
	default: {
		uint64_t tag = rnd_uint();
		if (tag >= 6 && tag <= 20) {
			tag += 15; /* see libcbor_refuses() */
		}
		rt_cbor_enc_tag(e, tag);
		item = cbor_build_tag(tag, cbor_move(random_value(e, depth + 1)));
		break;
	}
	}
	assert_non_null(item);
	return item;
}

static bool same_double(double a, double b)
{
	return (a != a && b != b) || (a == b && signbit(a) == signbit(b));
}

/* Walk a libcbor tree and rt_cbor's decoding side by side; they must agree item for item. */
static void assert_same(const cbor_item_t *item, rt_cbor_dec_t *d)
{
	rt_cbor_item_t it;
	assert_int_equal(rt_cbor_next(d, &it), RT_CBOR_OK);
	switch (cbor_typeof(item)) {
	case CBOR_TYPE_UINT:
		assert_int_equal(it.type, RT_CBOR_UINT);
		assert_true(it.u == cbor_get_int(item));
		break;
	case CBOR_TYPE_NEGINT:
		assert_int_equal(it.type, RT_CBOR_NEGATIVE);
		assert_true(it.u == cbor_get_int(item));
		break;
	case CBOR_TYPE_BYTESTRING:
		assert_int_equal(it.type, RT_CBOR_BYTES);
		assert_int_equal(it.len, cbor_bytestring_length(item));
		assert_true(it.len == 0 || memcmp(it.data, cbor_bytestring_handle(item), it.len) == 0);
		break;
	case CBOR_TYPE_STRING:
		assert_int_equal(it.type, RT_CBOR_TEXT);
		assert_int_equal(it.len, cbor_string_length(item));
		assert_true(it.len == 0 || memcmp(it.data, cbor_string_handle(item), it.len) == 0);
		break;
	case CBOR_TYPE_ARRAY: {
		assert_int_equal(it.type, RT_CBOR_ARRAY);
		assert_int_equal(it.u, cbor_array_size(item));
		cbor_item_t **items = cbor_array_handle(item);
		for (size_t i = 0; i < cbor_array_size(item); i++) {
			assert_same(items[i], d);
		}
		break;
	}
	case CBOR_TYPE_MAP: {
		assert_int_equal(it.type, RT_CBOR_MAP);
		assert_int_equal(it.u, cbor_map_size(item));
		struct cbor_pair *pairs = cbor_map_handle(item);
		for (size_t i = 0; i < cbor_map_size(item); i++) {
			assert_same(pairs[i].key, d);
			assert_same(pairs[i].value, d);
		}
		break;
	}
	case CBOR_TYPE_TAG: {
		assert_int_equal(it.type, RT_CBOR_TAG);
		assert_true(it.u == cbor_tag_value(item));
		cbor_item_t *inner = cbor_tag_item(item);
		assert_same(inner, d);
		cbor_decref(&inner);
		break;
	}
	case CBOR_TYPE_FLOAT_CTRL:
		if (cbor_float_get_width(item) != CBOR_FLOAT_0) {
			assert_int_equal(it.type, RT_CBOR_FLOAT);
			assert_true(same_double(it.f, cbor_float_get_float(item)));
		} else if (cbor_is_null(item)) {
			assert_int_equal(it.type, RT_CBOR_NULL);
		} else if (cbor_is_undef(item)) {
			assert_int_equal(it.type, RT_CBOR_UNDEFINED);
		} else if (cbor_is_bool(item)) {
			assert_int_equal(it.type, cbor_get_bool(item) ? RT_CBOR_TRUE : RT_CBOR_FALSE);
		} else {
			assert_int_equal(it.type, RT_CBOR_SIMPLE);
			assert_int_equal(it.u, cbor_ctrl_value(item));
		}
		break;
	}
}

static void test_libcbor_reference(void **state)
{
	(void)state;
	static uint8_t buf[1 << 16];
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (int round = 0; round < 3000; round++) {
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, buf, sizeof(buf));
		cbor_item_t *tree = random_value(&e, 0);
		assert_true(rt_cbor_enc_ok(&e));

		/* rt_cbor's encoding, read by libcbor: one item, all bytes, the same value. */
		struct cbor_load_result res;
		cbor_item_t *loaded = cbor_load(buf, e.len, &res);
		if (!loaded) {
			fail_msg("libcbor refuses rt_cbor's encoding (error %d at %zu of %zu)", (int)res.error.code,
				 res.error.position, e.len);
		}
		assert_int_equal(res.error.code, CBOR_ERR_NONE);
		assert_int_equal(res.read, e.len);
		rt_cbor_dec_t d;
		rt_cbor_dec_init(&d, buf, e.len);
		assert_same(loaded, &d);
		assert_true(rt_cbor_at_end(&d));
		rt_cbor_dec_init(&d, buf, e.len);
		assert_same(tree, &d);

		/* libcbor's encoding (its own argument widths), read by rt_cbor. */
		unsigned char *theirs = NULL;
		size_t theirs_cap = 0;
		size_t theirs_len = cbor_serialize_alloc(tree, &theirs, &theirs_cap);
		assert_true(theirs_len > 0);
		rt_cbor_dec_init(&d, theirs, theirs_len);
		assert_same(tree, &d);
		assert_true(rt_cbor_at_end(&d));
		free(theirs);
		cbor_decref(&loaded);
		cbor_decref(&tree);
	}
}

/* ------------------------------------------------------------------------------------------- */
/* Fuzz */

static bool valid_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t more = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
		if (more > 3 || i + more >= n) {
			return false;
		}
		for (size_t k = 1; k <= more; k++) {
			if ((s[i + k] & 0xc0) != 0x80) {
				return false;
			}
		}
		i += more + 1;
	}
	return true;
}

/* libcbor 0.8 (Debian's) refuses the well-formed but unassigned tags 6 to 20 (heads c6 to d4),
 * simple values other than false, true, null and undefined, and text that is not UTF-8 (which
 * rt_cbor leaves to its callers); where it refuses an input, that must be the reason. */
static bool libcbor_refuses(const uint8_t *buf, size_t len)
{
	rt_cbor_dec_t d;
	rt_cbor_item_t it;
	rt_cbor_dec_init(&d, buf, len);
	while (rt_cbor_next(&d, &it) == RT_CBOR_OK) {
		if ((it.type == RT_CBOR_TAG && it.u >= 6 && it.u <= 20) || it.type == RT_CBOR_SIMPLE ||
		    (it.type == RT_CBOR_TEXT && !valid_utf8(it.data, it.len))) {
			return true;
		}
	}
	return false;
}

static void walk_all(const uint8_t *buf, size_t len)
{
	rt_cbor_dec_t d;
	rt_cbor_item_t it;
	rt_cbor_dec_init(&d, buf, len);
	while (rt_cbor_next(&d, &it) == RT_CBOR_OK) {
		assert_true(d.pos <= len);
		if (it.type == RT_CBOR_BYTES || it.type == RT_CBOR_TEXT) {
			assert_true(it.data >= buf && it.data + it.len <= buf + len);
		}
	}
	assert_true(d.err != RT_CBOR_OK);
}

static void test_fuzz_decoder(void **state)
{
	(void)state;
	uint8_t valid[512];
	rng_state = 12345;
	size_t accepted = 0;
	for (int round = 0; round < 60000; round++) {
		size_t n;
		uint8_t *buf;
		if (round % 2 == 0) {
			n = rnd() % 48;
			buf = malloc(n ? n : 1);
			for (size_t i = 0; i < n; i++) {
				/* Bias towards heads, so that more than the first byte gets parsed. */
				buf[i] = rnd() % 3 == 0 ? (uint8_t)(rnd() % 0x20 | (rnd() % 8) << 5) : (uint8_t)rnd();
			}
		} else {
			/* A valid value, mutated and cut. */
			rt_cbor_enc_t e;
			rt_cbor_enc_init(&e, valid, sizeof(valid));
			cbor_item_t *tree = random_value(&e, 1);
			cbor_decref(&tree);
			n = e.overflow ? 0 : e.len;
			for (int k = (int)(rnd() % 4); k > 0 && n > 0; k--) {
				valid[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
			}
			if (n > 0 && rnd() % 2) {
				n = rnd() % n;
			}
			buf = malloc(n ? n : 1);
			memcpy(buf, valid, n);
		}
		rt_cbor_err_t err = rt_cbor_check(buf, n);
		walk_all(buf, n);
		if (err == RT_CBOR_OK) {
			/* Whatever rt_cbor accepts, the reference reads the same way, to the byte. */
			struct cbor_load_result res;
			cbor_item_t *loaded = cbor_load(buf, n, &res);
			if (loaded) {
				assert_int_equal(res.read, n);
				rt_cbor_dec_t d;
				rt_cbor_dec_init(&d, buf, n);
				assert_same(loaded, &d);
				cbor_decref(&loaded);
				accepted++;
			} else {
				assert_true(libcbor_refuses(buf, n));
			}
		}
		free(buf);
	}
	/* The mutations must leave enough valid inputs for the comparison to mean something. */
	assert_true(accepted > 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc_examples_decode),
		cmocka_unit_test(test_rfc_examples_encode),
		cmocka_unit_test(test_rfc_indefinite_refused),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_encoder_overflow_is_sticky),
		cmocka_unit_test(test_read_helpers),
		cmocka_unit_test(test_libcbor_reference),
		cmocka_unit_test(test_fuzz_decoder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

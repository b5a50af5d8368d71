/*
 * NDEF messages of nfc.setMsg / nfc.onWrite (rt_ndef): byte vectors written from the NFC Forum
 * documents, the four errors of nfc.setMsg, the tag's capacity, decoding of foreign bytes, round
 * trips and a fuzz of the decoder (run under ASan/UBSan by scripts/test-all.sh).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt_ndef.h"

static rt_ndef_str_t str(const char *s)
{
	rt_ndef_str_t r = {s, s != NULL ? strlen(s) : 0};
	return r;
}

static rt_ndef_record_in_t text_rec(const char *text)
{
	rt_ndef_record_in_t r = {.record_type = RT_NDEF_RECORD_TEXT, .text = str(text)};
	return r;
}

static rt_ndef_record_in_t uri_rec(const char *uri)
{
	rt_ndef_record_in_t r = {.record_type = RT_NDEF_RECORD_URI, .uri = str(uri)};
	return r;
}

static rt_ndef_record_in_t ext_rec(const char *type, const char *data)
{
	rt_ndef_record_in_t r = {.record_type = RT_NDEF_RECORD_EXTERNAL, .type = str(type),
				 .data = str(data)};
	return r;
}

static void assert_encodes(const rt_ndef_record_in_t *recs, size_t n, const uint8_t *want,
			   size_t want_len)
{
	uint8_t out[RT_NDEF_MAX_MESSAGE];
	size_t len = 99;
	rt_ndef_fault_t fault;
	rt_ndef_error_t e = rt_ndef_encode(recs, n, out, sizeof(out), &len, &fault);
	if (e != RT_NDEF_OK) {
		fail_msg("encode failed: %s (%s)", rt_ndef_error_message(e), fault.detail);
	}
	assert_int_equal(len, want_len);
	assert_memory_equal(out, want, want_len);
}

/*
 * URI RTD 1.0 (NFC Forum, 2006), Appendix A, example 1: "http://www.nfc.com" is the identifier
 * code 0x01 ("http://www.") and "nfc.com"; in a short, single-record message (NDEF 1.0, sec.
 * 3.2): header 0xD1 (MB, ME, SR, TNF 1), type length 1, payload length 8, type 'U'.
 */
static void test_uri_rtd_example(void **state)
{
	static const uint8_t want[] = {0xD1, 0x01, 0x08, 0x55, 0x01, 0x6E,
				       0x66, 0x63, 0x2E, 0x63, 0x6F, 0x6D};
	rt_ndef_record_in_t r = uri_rec("http://www.nfc.com");
	assert_encodes(&r, 1, want, sizeof(want));
}

/* URI RTD 1.0, Appendix A, example 2: the telephone number "+35891234567" with code 0x05
 * ("tel:"): payload length 13. */
static void test_uri_rtd_tel_example(void **state)
{
	static const uint8_t want[] = {0xD1, 0x01, 0x0D, 0x55, 0x05, 0x2B, 0x33, 0x35, 0x38,
				       0x39, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37};
	rt_ndef_record_in_t r = uri_rec("tel:+35891234567");
	assert_encodes(&r, 1, want, sizeof(want));
}

/*
 * A Text record (Text RTD 1.0, sec. 3.2.1) of "Hello, world!" in English, UTF-8: status byte
 * 0x02 (bit 7 clear: UTF-8; length of "en"), "en", the text; payload 16 bytes; type 'T' (0x54).
 */
static void test_text_rtd_hello_world(void **state)
{
	static const uint8_t want[] = {0xD1, 0x01, 0x10, 0x54, 0x02, 0x65, 0x6E, 'H', 'e', 'l',
				       'l',  'o',  ',',  ' ',  'w',  'o',  'r',  'l', 'd', '!'};
	rt_ndef_record_in_t r = text_rec("Hello, world!");
	assert_encodes(&r, 1, want, sizeof(want));
}

/* Three records: MB only on the first (0x91), none in the middle (0x11), ME on the last, which
 * is an external type (TNF 4: 0x54). Written out by hand from NDEF 1.0, sec. 3.2. */
static void test_three_records_flags(void **state)
{
	static const uint8_t want[] = {
		0x91, 0x01, 0x05, 'T',  0x02, 'e', 'n', 'H', 'i', /* TEXT "Hi" */
		0x11, 0x01, 0x0E, 'U',  0x04, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.',
		'c',  'o',  'm',  '/',  'x',                      /* "https://" + example.com/x */
		0x54, 0x0D, 0x03, 'e',  'x',  'a', 'm', 'p', 'l', 'e', '.', 'c', 'o',
		'm',  ':',  't',  0x01, 0x02, 0xFF,                /* example.com:t, 0102ff */
	};
	rt_ndef_record_in_t recs[] = {text_rec("Hi"), uri_rec("https://example.com/x"),
				      ext_rec("example.com:t", "0102fF")};
	assert_encodes(recs, 3, want, sizeof(want));
}

/* A payload over 255 bytes needs a normal record: SR clear, four length bytes. */
static void test_normal_record(void **state)
{
	char text[301];
	memset(text, 'a', 300);
	text[300] = '\0';
	rt_ndef_record_in_t r = text_rec(text);
	uint8_t out[RT_NDEF_MAX_MESSAGE];
	size_t len;
	assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, NULL), RT_NDEF_OK);
	assert_int_equal(len, 1 + 1 + 4 + 1 + 303);
	static const uint8_t head[] = {0xC1, 0x01, 0x00, 0x00, 0x01, 0x2F, 'T', 0x02, 'e', 'n'};
	assert_memory_equal(out, head, sizeof(head));
	/* 255 bytes of payload is still a short record. */
	text[252] = '\0';
	r = text_rec(text);
	assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, NULL), RT_NDEF_OK);
	assert_int_equal(out[0], 0xD1);
	assert_int_equal(out[2], 255);
	assert_int_equal(len, 3 + 1 + 255);
}

static void test_uri_abbreviations(void **state)
{
	static const struct {
		const char *uri;
		uint8_t code;
		const char *rest;
	} cases[] = {
		{"http://www.a", 0x01, "a"},
		{"https://www.a", 0x02, "a"},
		{"http://a", 0x03, "a"},
		{"https://a", 0x04, "a"},
		{"mailto:x@y", 0x06, "x@y"},
		{"ftp://anonymous:anonymous@h", 0x07, "h"}, /* longer than "ftp://" (0x0D) */
		{"ftp://ftp.h", 0x08, "h"},
		{"ftp://h", 0x0D, "h"},
		{"urn:epc:id:sgtin:1", 0x1E, "sgtin:1"}, /* longest of urn:, urn:epc:, urn:epc:id: */
		{"urn:epc:raw:1", 0x21, "1"},
		{"urn:epc:x", 0x22, "x"},
		{"urn:nfc:sn", 0x23, "sn"},
		{"urn:isbn:1", 0x13, "isbn:1"},
		{"file:///f", 0x1D, "/f"},
		{"HTTP://A", 0x00, "HTTP://A"}, /* prefixes are exact bytes */
		{"geo:1,2", 0x00, "geo:1,2"},
		{"http://www.", 0x01, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rt_ndef_record_in_t r = uri_rec(cases[i].uri);
		uint8_t out[64];
		size_t len;
		assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, NULL), RT_NDEF_OK);
		size_t rest = strlen(cases[i].rest);
		if (out[4] != cases[i].code || len != 5 + rest ||
		    memcmp(out + 5, cases[i].rest, rest) != 0) {
			fail_msg("%s: code 0x%02x, want 0x%02x", cases[i].uri, out[4], cases[i].code);
		}
		/* And back. */
		rt_ndef_record_t rec;
		size_t n;
		assert_int_equal(rt_ndef_decode(out, len, &rec, 1, &n, NULL), RT_NDEF_DECODE_OK);
		char back[64];
		size_t back_len;
		assert_true(rt_ndef_uri(&rec, back, sizeof(back), &back_len));
		assert_string_equal(back, cases[i].uri);
	}
	assert_string_equal(rt_ndef_uri_prefix(0x23), "urn:nfc:");
	assert_null(rt_ndef_uri_prefix(0x24));
	assert_null(rt_ndef_uri_prefix(0xFF));
}

static void expect_error(const rt_ndef_record_in_t *recs, size_t n, rt_ndef_error_t want,
			 size_t want_record)
{
	uint8_t out[RT_NDEF_MAX_MESSAGE];
	size_t len = 1;
	rt_ndef_fault_t fault;
	rt_ndef_error_t e = rt_ndef_encode(recs, n, out, sizeof(out), &len, &fault);
	if (e != want || fault.record != want_record || len != 0 || fault.detail == NULL) {
		fail_msg("got '%s' at record %zu (%s), want '%s' at record %zu",
			 rt_ndef_error_message(e), fault.record, fault.detail ? fault.detail : "-",
			 rt_ndef_error_message(want), want_record);
	}
}

static void test_set_msg_errors(void **state)
{
	assert_string_equal(rt_ndef_error_message(RT_NDEF_ERR_INVALID_FORMAT), "Invalid format");
	assert_string_equal(rt_ndef_error_message(RT_NDEF_ERR_TOO_BIG), "Too big");
	assert_string_equal(rt_ndef_error_message(RT_NDEF_ERR_INVALID_RECORD_TYPE),
			    "Invalid record type");
	assert_string_equal(rt_ndef_error_message(RT_NDEF_ERR_MISSING_FIELD), "Missing field");

	/* Invalid record type: anything but 1, 2, 3. */
	const double bad_types[] = {0, 4, -1, 1.5, NAN, INFINITY};
	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		rt_ndef_record_in_t r = text_rec("x");
		r.record_type = bad_types[i];
		expect_error(&r, 1, RT_NDEF_ERR_INVALID_RECORD_TYPE, 0);
	}
	/* Missing field: what the record type needs; other fields do not stand in for it. */
	rt_ndef_record_in_t r = text_rec(NULL);
	r.uri = str("http://x");
	expect_error(&r, 1, RT_NDEF_ERR_MISSING_FIELD, 0);
	r = uri_rec(NULL);
	r.text = str("x");
	expect_error(&r, 1, RT_NDEF_ERR_MISSING_FIELD, 0);
	r = ext_rec("a.b:c", NULL);
	expect_error(&r, 1, RT_NDEF_ERR_MISSING_FIELD, 0);
	r = ext_rec(NULL, "00");
	expect_error(&r, 1, RT_NDEF_ERR_MISSING_FIELD, 0);
	/* Invalid format: fields present but unusable. */
	const rt_ndef_record_in_t bad[] = {
		ext_rec("a.b:c", "abc"),   ext_rec("a.b:c", "zz"),   ext_rec("a.b:c", "0x00"),
		ext_rec("nocolon", "00"),  ext_rec(":c", "00"),      ext_rec("a.b:", "00"),
		ext_rec("a b:c", "00"),    ext_rec("a.b:c d", "00"), ext_rec("", "00"),
		uri_rec(""),               uri_rec("http://a\nb"),   text_rec("\xff"),
		text_rec("\xed\xa0\x80"), /* a UTF-16 surrogate in UTF-8 */
		text_rec("\xc0\xaf"),      /* an overlong '/' */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		expect_error(&bad[i], 1, RT_NDEF_ERR_INVALID_FORMAT, 0);
	}
	/* An empty list is a mistake (setMsg(null) restores the initial message). */
	expect_error(NULL, 0, RT_NDEF_ERR_INVALID_FORMAT, 0);
	/* Allowed: empty text, empty data, non-ASCII text, case kept in external types. */
	const rt_ndef_record_in_t good[] = {text_rec(""), ext_rec("Example.COM:Ab", ""),
					    text_rec("gr\xc3\xbc\xc3\x9f \xf0\x9f\x91\x8b"),
					    uri_rec("https://\xc3\xa4.example/")};
	uint8_t out[RT_NDEF_MAX_MESSAGE];
	size_t len;
	assert_int_equal(rt_ndef_encode(good, 4, out, sizeof(out), &len, NULL), RT_NDEF_OK);
	/* The first bad record is the one reported, and the record type is judged first. */
	rt_ndef_record_in_t mixed[] = {text_rec("ok"), ext_rec("a.b:c", NULL), uri_rec("")};
	expect_error(mixed, 3, RT_NDEF_ERR_MISSING_FIELD, 1);
	mixed[1].record_type = 9;
	expect_error(mixed, 3, RT_NDEF_ERR_INVALID_RECORD_TYPE, 1);
}

/* An EXTERNAL record "a.b:c" with n payload bytes: 2 + 4 + 5 + n bytes (n > 255). */
static rt_ndef_record_in_t big_ext(char *hex, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++) {
		hex[i] = "0123456789abcdef"[i % 16];
	}
	hex[2 * n] = '\0';
	return ext_rec("a.b:c", hex);
}

static void test_capacity(void **state)
{
	static char hex[2 * 1000 + 1];
	uint8_t out[RT_NDEF_MAX_MESSAGE];
	uint8_t area[RT_NDEF_TAG_DATA_AREA];
	size_t len;
	/* 868 bytes fit exactly: 6 + 5 + 857. */
	rt_ndef_record_in_t r = big_ext(hex, 857);
	assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, NULL), RT_NDEF_OK);
	assert_int_equal(len, RT_NDEF_MAX_MESSAGE);
	/* In the tag: 03 FF 03 64, the message, and no room left for the Terminator. */
	assert_int_equal(rt_ndef_tlv_wrap(out, len, area, sizeof(area)), RT_NDEF_TAG_DATA_AREA);
	static const uint8_t tlv_head[] = {0x03, 0xFF, 0x03, 0x64};
	assert_memory_equal(area, tlv_head, 4);
	assert_memory_equal(area + 4, out, len);
	/* One more byte is Too big; the fault names the count of records. */
	r = big_ext(hex, 858);
	rt_ndef_fault_t fault;
	assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, &fault), RT_NDEF_ERR_TOO_BIG);
	assert_int_equal(len, 0);
	assert_int_equal(fault.record, 1);
	/* Far too big, spread over records: the sum cannot wrap. */
	rt_ndef_record_in_t many[4];
	for (int i = 0; i < 4; i++) {
		many[i] = big_ext(hex, 1000);
	}
	assert_int_equal(rt_ndef_encode(many, 4, out, sizeof(out), &len, &fault), RT_NDEF_ERR_TOO_BIG);
	assert_int_equal(fault.record, 4);
	/* A smaller buffer than the message is also Too big, never an overrun. */
	r = text_rec("Hello, world!");
	assert_int_equal(rt_ndef_encode(&r, 1, out, 19, &len, NULL), RT_NDEF_ERR_TOO_BIG);
	assert_int_equal(rt_ndef_encode(&r, 1, out, 20, &len, NULL), RT_NDEF_OK);

	/* 867 bytes leave one byte for the Terminator. */
	r = big_ext(hex, 856);
	assert_int_equal(rt_ndef_encode(&r, 1, out, sizeof(out), &len, NULL), RT_NDEF_OK);
	assert_int_equal(rt_ndef_tlv_wrap(out, len, area, sizeof(area)), RT_NDEF_TAG_DATA_AREA);
	assert_int_equal(area[RT_NDEF_TAG_DATA_AREA - 1], 0xFE);
	/* A short message: one length byte, then the Terminator (Type 2 Tag 1.0, sec. 2.3). */
	static const uint8_t msg[] = {0xD1, 0x01, 0x08, 0x55, 0x01, 0x6E,
				      0x66, 0x63, 0x2E, 0x63, 0x6F, 0x6D};
	assert_int_equal(rt_ndef_tlv_wrap(msg, sizeof(msg), area, sizeof(area)), 2 + 12 + 1);
	assert_int_equal(area[0], 0x03);
	assert_int_equal(area[1], 12);
	assert_int_equal(area[14], 0xFE);
	/* An area too small for it. */
	assert_int_equal(rt_ndef_tlv_wrap(msg, sizeof(msg), area, 13), 0);
}

static void test_tlv_find(void **state)
{
	/* NULL TLVs and a Lock Control TLV before the message, as on a formatted NTAG. */
	static const uint8_t area[] = {0x00, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x03,
				       0xD0, 0x00, 0x00, 0xFE, 0x00};
	const uint8_t *msg;
	size_t len;
	assert_true(rt_ndef_tlv_find(area, sizeof(area), &msg, &len));
	assert_ptr_equal(msg, area + 9);
	assert_int_equal(len, 3);
	/* A Terminator before any NDEF TLV, a length past the end, a cut three-byte length. */
	static const uint8_t term[] = {0x00, 0xFE, 0x03, 0x00};
	assert_false(rt_ndef_tlv_find(term, sizeof(term), &msg, &len));
	static const uint8_t past[] = {0x03, 0x05, 0xD0, 0x00};
	assert_false(rt_ndef_tlv_find(past, sizeof(past), &msg, &len));
	static const uint8_t cut[] = {0x03, 0xFF, 0x01};
	assert_false(rt_ndef_tlv_find(cut, sizeof(cut), &msg, &len));
	assert_false(rt_ndef_tlv_find(area, 0, &msg, &len));
	/* An empty NDEF TLV (an initialised tag): found, length 0. */
	static const uint8_t empty[] = {0x03, 0x00, 0xFE};
	assert_true(rt_ndef_tlv_find(empty, sizeof(empty), &msg, &len));
	assert_int_equal(len, 0);
}

static void test_decode(void **state)
{
	static const uint8_t three[] = {
		0x91, 0x01, 0x05, 'T',  0x02, 'e', 'n', 'H', 'i', 0x19, 0x01, 0x0E, 0x02, 'U', 'i',
		'd',  0x04, 'e',  'x',  'a',  'm', 'p', 'l', 'e', '.',  'c',  'o',  'm',  '/', 'x',
		0x54, 0x0D, 0x03, 'e',  'x',  'a', 'm', 'p', 'l', 'e',  '.',  'c',  'o',  'm', ':',
		't',  0x01, 0x02, 0xFF,
	};
	rt_ndef_record_t recs[3];
	size_t n, off;
	assert_int_equal(rt_ndef_decode(three, sizeof(three), recs, 3, &n, &off), RT_NDEF_DECODE_OK);
	assert_int_equal(n, 3);
	assert_true(recs[0].mb && !recs[0].me && recs[2].me);
	rt_ndef_text_t t;
	assert_true(rt_ndef_text(&recs[0], &t));
	assert_false(t.utf16);
	assert_int_equal(t.lang_len, 2);
	assert_memory_equal(t.lang, "en", 2);
	assert_int_equal(t.text_len, 2);
	assert_memory_equal(t.text, "Hi", 2);
	/* The second record has an ID (IL). */
	assert_int_equal(recs[1].id_len, 2);
	assert_memory_equal(recs[1].id, "id", 2);
	char uri[32];
	size_t ulen;
	assert_true(rt_ndef_uri(&recs[1], uri, sizeof(uri), &ulen));
	assert_string_equal(uri, "https://example.com/x");
	assert_false(rt_ndef_uri(&recs[1], uri, 21, &ulen)); /* no room for the NUL */
	assert_int_equal(ulen, 21);
	assert_false(rt_ndef_text(&recs[1], &t));
	assert_false(rt_ndef_uri(&recs[0], uri, sizeof(uri), &ulen));
	assert_int_equal(recs[2].tnf, RT_NDEF_TNF_EXTERNAL);
	assert_int_equal(recs[2].type_len, 13);
	assert_int_equal(recs[2].payload_len, 3);
	assert_null(recs[2].id);
	/* Counting only. */
	assert_int_equal(rt_ndef_decode(three, sizeof(three), NULL, 0, &n, NULL), RT_NDEF_DECODE_OK);
	assert_int_equal(n, 3);
	/* Too small an array: an error, not an overrun. */
	assert_int_equal(rt_ndef_decode(three, sizeof(three), recs, 2, &n, &off),
			 RT_NDEF_DECODE_TOO_MANY);
	/* Every shorter prefix is an error. */
	for (size_t cut = 0; cut < sizeof(three); cut++) {
		rt_ndef_decode_error_t e = rt_ndef_decode(three, cut, recs, 3, &n, &off);
		if (e != RT_NDEF_DECODE_TRUNCATED && e != RT_NDEF_DECODE_NO_END &&
		    e != RT_NDEF_DECODE_EMPTY) {
			fail_msg("prefix of %zu bytes: %s", cut, rt_ndef_decode_error_message(e));
		}
	}
}

static void test_decode_malformed(void **state)
{
	static const struct {
		uint8_t bytes[16];
		size_t len;
		rt_ndef_decode_error_t want;
		size_t offset;
	} cases[] = {
		{{0x11, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_NO_BEGIN, 0},
		{{0x91, 0x01, 0x00, 'T', 0xD1, 0x01, 0x00, 'T'}, 8, RT_NDEF_DECODE_EXTRA_BEGIN, 4},
		{{0xB1, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_CHUNKED, 0},
		{{0xD7, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_BAD_TNF, 0},
		{{0xD0, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_BAD_TNF, 0}, /* empty with a type */
		{{0xD5, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_BAD_TNF, 0}, /* unknown with a type */
		{{0xD6, 0x00, 0x00}, 3, RT_NDEF_DECODE_BAD_TNF, 0},      /* unchanged outside chunks */
		{{0xD1, 0x00, 0x00}, 3, RT_NDEF_DECODE_BAD_TNF, 0},      /* well known, no type */
		{{0xD1, 0x01, 0x00, 'T', 0x00}, 5, RT_NDEF_DECODE_TRAILING, 4},
		{{0x91, 0x01, 0x00, 'T'}, 4, RT_NDEF_DECODE_NO_END, 4},
		{{0xC1, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 'T'}, 7, RT_NDEF_DECODE_TRUNCATED, 0},
		{{0xD9, 0x01, 0x00, 0x05, 'T'}, 5, RT_NDEF_DECODE_TRUNCATED, 0}, /* ID past the end */
		{{0xD1, 0x01}, 2, RT_NDEF_DECODE_TRUNCATED, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rt_ndef_record_t recs[4];
		size_t n, off;
		rt_ndef_decode_error_t e = rt_ndef_decode(cases[i].bytes, cases[i].len, recs, 4, &n, &off);
		if (e != cases[i].want || off != cases[i].offset) {
			fail_msg("case %zu: %s at %zu, want %s at %zu", i, rt_ndef_decode_error_message(e),
				 off, rt_ndef_decode_error_message(cases[i].want), cases[i].offset);
		}
	}
	/* The empty record (TNF 0 and no lengths) is a valid message of its own. */
	static const uint8_t empty[] = {0xD0, 0x00, 0x00};
	size_t n;
	assert_int_equal(rt_ndef_decode(empty, 3, NULL, 0, &n, NULL), RT_NDEF_DECODE_OK);
	assert_int_equal(rt_ndef_decode(empty, 0, NULL, 0, &n, NULL), RT_NDEF_DECODE_EMPTY);
	/* A Text record whose language length overruns its payload, or with bit 6 set. */
	static const uint8_t bad_text[] = {0xD1, 0x01, 0x02, 'T', 0x05, 'e'};
	rt_ndef_record_t rec;
	rt_ndef_text_t t;
	assert_int_equal(rt_ndef_decode(bad_text, sizeof(bad_text), &rec, 1, &n, NULL),
			 RT_NDEF_DECODE_OK);
	assert_false(rt_ndef_text(&rec, &t));
	static const uint8_t bit6[] = {0xD1, 0x01, 0x01, 'T', 0x40};
	assert_int_equal(rt_ndef_decode(bit6, sizeof(bit6), &rec, 1, &n, NULL), RT_NDEF_DECODE_OK);
	assert_false(rt_ndef_text(&rec, &t));
	/* A URI record with a reserved identifier code. */
	static const uint8_t rfu[] = {0xD1, 0x01, 0x02, 'U', 0x24, 'x'};
	char uri[8];
	size_t ulen;
	assert_int_equal(rt_ndef_decode(rfu, sizeof(rfu), &rec, 1, &n, NULL), RT_NDEF_DECODE_OK);
	assert_false(rt_ndef_uri(&rec, uri, sizeof(uri), &ulen));
}

/* Deterministic pseudo-random numbers (xorshift64*), so a failure repeats. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static void random_text(char *buf, size_t n)
{
	/* Printable ASCII and a two-byte UTF-8 letter now and then. */
	size_t i = 0;
	while (i < n) {
		if (rnd() % 10 == 0 && i + 2 <= n) {
			buf[i++] = (char)0xC3;
			buf[i++] = (char)(0xA0 + rnd() % 0x1F);
		} else {
			buf[i++] = (char)(0x20 + rnd() % 0x5F);
		}
	}
	buf[n] = '\0';
}

static void test_round_trip(void **state)
{
	static const char *const uris[] = {"http://www.", "https://", "tel:", "urn:epc:id:",
					   "geo:", "mailto:", "ftp://ftp.", ""};
	for (int round = 0; round < 2000; round++) {
		size_t count = 1 + rnd() % 4;
		rt_ndef_record_in_t recs[4];
		char bufs[4][400];
		char hex[4][602];
		char want_uri[4][420];
		for (size_t i = 0; i < count; i++) {
			size_t n = rnd() % (rnd() % 8 == 0 ? 300 : 40);
			switch (rnd() % 3) {
			case 0:
				random_text(bufs[i], n);
				recs[i] = text_rec(bufs[i]);
				break;
			case 1:
				random_text(bufs[i], n + 1);
				{
					const char *pre = uris[rnd() % 8];
					size_t pl = strlen(pre);
					memcpy(want_uri[i], pre, pl);
					memcpy(want_uri[i] + pl, bufs[i], n + 2);
				}
				recs[i] = uri_rec(want_uri[i]);
				break;
			default:
				for (size_t k = 0; k < n; k++) {
					hex[i][2 * k] = "0123456789abcdef"[rnd() % 16];
					hex[i][2 * k + 1] = "0123456789ABCDEF"[rnd() % 16];
				}
				hex[i][2 * n] = '\0';
				recs[i] = ext_rec("beacon.example:rec", hex[i]);
			}
		}
		uint8_t out[RT_NDEF_MAX_MESSAGE];
		size_t len;
		rt_ndef_fault_t fault;
		rt_ndef_error_t e = rt_ndef_encode(recs, count, out, sizeof(out), &len, &fault);
		if (e == RT_NDEF_ERR_TOO_BIG) {
			continue;
		}
		if (e != RT_NDEF_OK) {
			fail_msg("round %d: %s: %s", round, rt_ndef_error_message(e), fault.detail);
		}
		rt_ndef_record_t dec[4];
		size_t n;
		assert_int_equal(rt_ndef_decode(out, len, dec, 4, &n, NULL), RT_NDEF_DECODE_OK);
		assert_int_equal(n, count);
		for (size_t i = 0; i < count; i++) {
			if (recs[i].record_type == RT_NDEF_RECORD_TEXT) {
				rt_ndef_text_t t;
				assert_true(rt_ndef_text(&dec[i], &t));
				assert_int_equal(t.text_len, recs[i].text.len);
				assert_memory_equal(t.text, recs[i].text.ptr, t.text_len);
			} else if (recs[i].record_type == RT_NDEF_RECORD_URI) {
				char uri[RT_NDEF_MAX_MESSAGE + 40];
				size_t ulen;
				assert_true(rt_ndef_uri(&dec[i], uri, sizeof(uri), &ulen));
				assert_string_equal(uri, recs[i].uri.ptr);
			} else {
				assert_int_equal(dec[i].tnf, RT_NDEF_TNF_EXTERNAL);
				assert_memory_equal(dec[i].type, "beacon.example:rec", 18);
				assert_int_equal(dec[i].payload_len, recs[i].data.len / 2);
				for (size_t k = 0; k < dec[i].payload_len; k++) {
					unsigned v;
					char two[3] = {recs[i].data.ptr[2 * k], recs[i].data.ptr[2 * k + 1], 0};
					sscanf(two, "%x", &v);
					assert_int_equal(dec[i].payload[k], v);
				}
			}
			assert_int_equal(dec[i].sr, dec[i].payload_len <= 255);
		}
		/* And through the tag's TLVs. */
		uint8_t area[RT_NDEF_TAG_DATA_AREA];
		size_t area_len = rt_ndef_tlv_wrap(out, len, area, sizeof(area));
		assert_true(area_len > len);
		const uint8_t *msg;
		size_t msg_len;
		assert_true(rt_ndef_tlv_find(area, area_len, &msg, &msg_len));
		assert_int_equal(msg_len, len);
		assert_memory_equal(msg, out, len);
	}
}

/* Every record a decode returns lies inside the bytes given. */
static void check_views(const uint8_t *buf, size_t len, const rt_ndef_record_t *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rt_ndef_record_t *r = &recs[i];
		assert_true(r->type >= buf && r->type_len <= (size_t)(buf + len - r->type));
		assert_true(r->payload >= buf && r->payload_len <= (size_t)(buf + len - r->payload));
		if (r->id != NULL) {
			assert_true(r->id >= buf && r->id_len <= (size_t)(buf + len - r->id));
		}
	}
}

static void test_decoder_fuzz(void **state)
{
	static const uint8_t seed_msg[] = {
		0x91, 0x01, 0x05, 'T',  0x02, 'e', 'n', 'H', 'i', 0x19, 0x01, 0x0E, 0x02, 'U', 'i',
		'd',  0x04, 'e',  'x',  'a',  'm', 'p', 'l', 'e', '.',  'c',  'o',  'm',  '/', 'x',
		0x54, 0x0D, 0x03, 'e',  'x',  'a', 'm', 'p', 'l', 'e',  '.',  'c',  'o',  'm', ':',
		't',  0x01, 0x02, 0xFF,
	};
	size_t ok = 0;
	for (int round = 0; round < 200000; round++) {
		/* Exactly-sized heap-like buffers are what let ASan see a read one byte past. */
		uint8_t buf[96];
		size_t len;
		if (round % 2 == 0) {
			len = rnd() % 40;
			for (size_t i = 0; i < len; i++) {
				buf[i] = (uint8_t)rnd();
			}
			/* Bias the first byte towards plausible headers. */
			if (len > 0 && rnd() % 2) {
				buf[0] = (uint8_t)(0x80 | (rnd() & 0x5F));
			}
		} else {
			len = sizeof(seed_msg) - rnd() % 4;
			memcpy(buf, seed_msg, len);
			for (int k = 1 + rnd() % 3; k > 0; k--) {
				buf[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
			}
		}
		uint8_t *exact = test_malloc(len > 0 ? len : 1);
		memcpy(exact, buf, len);
		rt_ndef_record_t recs[8];
		size_t n = 0, off = 0;
		rt_ndef_decode_error_t e = rt_ndef_decode(exact, len, recs, 8, &n, &off);
		assert_true(n <= 8 && off <= len);
		check_views(exact, len, recs, n);
		if (e == RT_NDEF_DECODE_OK) {
			ok++;
			assert_true(n >= 1 && recs[0].mb && recs[n - 1].me);
			for (size_t i = 0; i < n; i++) {
				rt_ndef_text_t t;
				char uri[512];
				size_t ulen;
				if (rt_ndef_text(&recs[i], &t)) {
					assert_true(t.text + t.text_len == recs[i].payload + recs[i].payload_len);
				}
				rt_ndef_uri(&recs[i], uri, sizeof(uri), &ulen);
			}
		}
		const uint8_t *msg;
		size_t msg_len;
		if (rt_ndef_tlv_find(exact, len, &msg, &msg_len)) {
			assert_true(msg >= exact && msg_len <= (size_t)(exact + len - msg));
		}
		test_free(exact);
	}
	/* The mutations reach valid messages too, so the success path was fuzzed as well. */
	assert_true(ok > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri_rtd_example),
		cmocka_unit_test(test_uri_rtd_tel_example),
		cmocka_unit_test(test_text_rtd_hello_world),
		cmocka_unit_test(test_three_records_flags),
		cmocka_unit_test(test_normal_record),
		cmocka_unit_test(test_uri_abbreviations),
		cmocka_unit_test(test_set_msg_errors),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_tlv_find),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_decoder_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * A cloud message's payload, decoded from CBOR straight into the app's values
 * (rt_cloud_payload_value), on each engine: the app must get what JSON.parse of the payload's
 * JSON text gave it before (the same value, compared by its JSON), no setter of the app's may
 * run, and a payload JSON cannot hold must be refused whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rt_cbor.h"
#include "rt_cloud.h"
#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"
#include "rt_scratch.h"

static int setup(void **state)
{
	(void)state;
	eng_config_t config = {1024u * 1024u, 200000u};
	if (eng_init(&config) != 0) {
		return -1;
	}
	eng_scope_enter();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	eng_scope_leave();
	eng_deinit();
	return 0;
}

/* JSON.stringify of a value, as C text. */
static void stringify(eng_value_t v, char *out, size_t cap)
{
	eng_value_t s = eng_json_stringify(v);
	assert_int_equal(eng_typeof(s), ENG_TYPE_STRING);
	size_t n = eng_string_copy(s, out, cap);
	assert_true(n < cap);
	eng_release(s);
}

static void same_as_json_parse(const char *json)
{
	static uint8_t cbor[RT_CLOUD_PAYLOAD_MAX];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, cbor, sizeof(cbor));
	assert_int_equal(rt_cloud_json_to_cbor(json, strlen(json), &e, RT_CLOUD_PAYLOAD_DEPTH),
			 RT_CLOUD_JSON_OK);
	const char *why = "not set";
	eng_value_t got = rt_cloud_payload_value(cbor, e.len, &why);
	assert_null(why);
	assert_null(rt_scratch_holder());
	eng_value_t want = eng_json_parse(json, strlen(json));
	assert_false(eng_is_exception(want));
	static char a[4096], b[4096];
	stringify(got, a, sizeof(a));
	stringify(want, b, sizeof(b));
	assert_string_equal(a, b);
	eng_release(got);
	eng_release(want);
}

static void values_are_json_parse_s(void **state)
{
	(void)state;
	same_as_json_parse("{\"n\":1,\"s\":\"x\",\"ok\":true,\"no\":false,\"z\":null}");
	same_as_json_parse("[0,-1,1.5,-2.25,1e21,9007199254740991,-9007199254740991,-0,3.141592653589793]");
	same_as_json_parse("{\"nested\":{\"a\":[1,[2,[3,{\"deep\":\"yes\"}]]],\"b\":{}},\"empty\":[]}");
	same_as_json_parse("{\"\\u00e9t\\u00e9\":\"caf\\u00e9 \\ud83d\\ude00\",\"ctl\":\"a\\nb\\u0001\\\"\"}");
	same_as_json_parse("{\"k\":1,\"k\":2}");
	same_as_json_parse("\"just a string\"");
	same_as_json_parse("42");
	same_as_json_parse("{\"0\":\"zero\",\"10\":\"ten\",\"b\":[true,null]}");
	/* Sibling maps: each level's key survives the levels below it. */
	same_as_json_parse("{\"outer\":{\"inner\":{\"x\":1},\"after\":2},\"last\":{\"y\":[{\"z\":3}]}}");
	/* Keys JSON.parse makes own properties of: a NUL inside, "__proto__". */
	same_as_json_parse("{\"a\\u0000b\":1,\"__proto__\":{\"x\":1}}");
}

/* The app's setters never run while a payload is decoded (it may hold no buffer then, and the
 * value must be what JSON.parse gives): one on Object.prototype and one on Array.prototype. */
static void no_app_setter_runs(void **state)
{
	(void)state;
	const char *trap = "Object.defineProperty(Object.prototype, 'k', { set: function () {"
			   " throw new Error('setter ran'); }, configurable: true });"
			   "Object.defineProperty(Array.prototype, '0', { set: function () {"
			   " throw new Error('setter ran'); }, configurable: true }); undefined";
	eng_release(eng_eval(trap, strlen(trap), "trap.js"));
	same_as_json_parse("{\"k\":[7,8]}");
	const char *untrap = "delete Object.prototype.k; delete Array.prototype[0]; undefined";
	eng_release(eng_eval(untrap, strlen(untrap), "untrap.js"));
}

static void refused(const uint8_t *cbor, size_t len)
{
	const char *why = NULL;
	eng_value_t v = rt_cloud_payload_value(cbor, len, &why);
	assert_non_null(why);
	assert_int_equal(eng_typeof(v), ENG_TYPE_UNDEFINED);
	assert_null(rt_scratch_holder());
}

static void what_json_has_not_is_refused(void **state)
{
	(void)state;
	/* {"a": h'01'}: a byte string. */
	static const uint8_t bytes[] = {0xa1, 0x61, 0x61, 0x41, 0x01};
	refused(bytes, sizeof(bytes));
	/* [tag 1 (0)]: a tag. */
	static const uint8_t tag[] = {0x81, 0xc1, 0x00};
	refused(tag, sizeof(tag));
	/* 2^53: an integer with no exact number. */
	static const uint8_t big[] = {0x1b, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	refused(big, sizeof(big));
	/* NaN (f9 7e00), and undefined. */
	static const uint8_t nan[] = {0x81, 0xf9, 0x7e, 0x00};
	refused(nan, sizeof(nan));
	static const uint8_t undef[] = {0xf7};
	refused(undef, sizeof(undef));
	/* {1: 2}: a key that is not text. */
	static const uint8_t intkey[] = {0xa1, 0x01, 0x02};
	refused(intkey, sizeof(intkey));
	/* Bytes after the value; a value cut short; an array that claims 2^32 items. */
	static const uint8_t trailing[] = {0x01, 0x02};
	refused(trailing, sizeof(trailing));
	static const uint8_t cut[] = {0x82, 0x01};
	refused(cut, sizeof(cut));
	static const uint8_t liar[] = {0x9a, 0xff, 0xff, 0xff, 0xff, 0x01};
	refused(liar, sizeof(liar));
}

static void nesting_is_bounded(void **state)
{
	(void)state;
	uint8_t cbor[64];
	/* RT_CLOUD_PAYLOAD_DEPTH arrays nest: taken; one more: refused. */
	for (unsigned depth = RT_CLOUD_PAYLOAD_DEPTH; depth <= RT_CLOUD_PAYLOAD_DEPTH + 1; depth++) {
		memset(cbor, 0x81, depth);
		cbor[depth] = 0x01;
		const char *why = NULL;
		eng_value_t v = rt_cloud_payload_value(cbor, depth + 1, &why);
		if (depth == RT_CLOUD_PAYLOAD_DEPTH) {
			assert_null(why);
			assert_int_equal(eng_typeof(v), ENG_TYPE_ARRAY);
		} else {
			assert_non_null(why);
		}
		eng_release(v);
		assert_null(rt_scratch_holder());
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(values_are_json_parse_s, setup, teardown),
		cmocka_unit_test_setup_teardown(what_json_has_not_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(nesting_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(no_app_setter_runs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

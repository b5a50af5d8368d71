/*
 * Engine-layer tests, written against engine.h only so that every backend runs them.
 *
 * The test provides the eng_port_* functions: a settable UTC clock (Date must follow it) and
 * the real monotonic clock for the watchdog.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine.h"

#define TEST_HEAP_SIZE (1024u * 1024u)
/* Loop iterations a callback may run (eng_config_t.exec_budget). */
#define TEST_EXEC_BUDGET 200000u

/* ------------------------------------------------------------------ port */

static double fake_utc_ms = 1600000000000.0;

double eng_port_utc_now_ms(void)
{
	return fake_utc_ms;
}

/* Math.random's seed: settable, so a test can prove that the seed alone decides the sequence. */
static uint8_t fake_random_byte = 1;

void eng_port_random(void *buf, size_t len)
{
	memset(buf, fake_random_byte, len);
}


/* A test that expects a fatal error sets fatal_expected and a jump back; anything else is a bug. */
static jmp_buf fatal_jump;
static bool fatal_expected;
static char fatal_message[128];

void eng_port_fatal(const char *message)
{
	if (fatal_expected) {
		fatal_expected = false;
		snprintf(fatal_message, sizeof(fatal_message), "%s", message);
		longjmp(fatal_jump, 1);
	}
	fprintf(stderr, "engine fatal error: %s\n", message);
	abort();
}

/* ------------------------------------------------------------------ helpers */

static int setup(void **state)
{
	eng_config_t config = { TEST_HEAP_SIZE, TEST_EXEC_BUDGET };

	(void) state;
	if (eng_init(&config) != 0) {
		return -1;
	}
	eng_scope_enter();
	return 0;
}

static int teardown(void **state)
{
	(void) state;
	eng_scope_leave();
	eng_deinit();
	return 0;
}

static bool is_duktape(void)
{
	return eng_id() == ENG_ID_DUKTAPE;
}

/* Fails the test with the engine's description when v is an exception. */
static eng_value_t check_ok(eng_value_t v, const char *what)
{
	if (eng_is_exception(v)) {
		char text[256];

		eng_describe(v, text, sizeof(text));
		fail_msg("%s threw: %s", what, text);
	}
	return v;
}

static eng_value_t eval(const char *source)
{
	return eng_eval(source, strlen(source), "test.js");
}

static eng_value_t eval_ok(const char *source)
{
	return check_ok(eval(source), source);
}

static void assert_string_value(eng_value_t v, const char *expected)
{
	char buf[512];

	assert_int_equal(eng_typeof(v), ENG_TYPE_STRING);
	assert_int_equal(eng_string_copy(v, buf, sizeof(buf)), strlen(expected));
	assert_string_equal(buf, expected);
}

/* Evaluates an expression that must give a string. */
static void assert_eval_string(const char *source, const char *expected)
{
	assert_string_value(eval_ok(source), expected);
}

static void assert_eval_number(const char *source, double expected)
{
	eng_value_t v = eval_ok(source);

	assert_int_equal(eng_typeof(v), ENG_TYPE_NUMBER);
	assert_true(eng_get_number(v) == expected);
}

static double eval_number_global(const char *name)
{
	eng_value_t v = eval_ok(name);

	assert_int_equal(eng_typeof(v), ENG_TYPE_NUMBER);
	return eng_get_number(v);
}

static void set_global(const char *name, eng_value_t value)
{
	eng_value_t global = eng_global();

	assert_true(eng_set(global, name, value));
	eng_release(global);
}

static void assert_exception_code(eng_value_t v, const char *code)
{
	eng_value_t error, c;

	assert_true(eng_is_exception(v));
	assert_int_equal(eng_typeof(v), ENG_TYPE_EXCEPTION);
	error = eng_exception_value(v);
	assert_false(eng_is_exception(error));
	c = check_ok(eng_get(error, "code"), "error.code");
	assert_string_value(c, code);
}

/* ------------------------------------------------------------------ parity */

/* Math.random is the engine layer's generator, seeded from eng_port_random when the context is
 * made: the same seed gives the same numbers (on both engines, as the same test runs on each),
 * another seed others. */
static void test_random_is_seeded_by_the_port(void **state)
{
	(void)state;
	assert_eval_string("var a = Math.random(), b = Math.random(); (a >= 0 && a < 1 && a !== b) + ''", "true");
	double first = eval_number_global("a");
	teardown(NULL);
	assert_int_equal(setup(NULL), 0);
	assert_true(eval_number_global("Math.random()") == first);
	teardown(NULL);
	fake_random_byte = 2;
	assert_int_equal(setup(NULL), 0);
	assert_true(eval_number_global("Math.random()") != first);
	fake_random_byte = 1;
}

/* The built-ins the layer replaces: a stable sort, exact digits, an exact remainder. */
static void test_parity_builtins(void **state)
{
	(void)state;
	assert_eval_string("var l = []; for (var i = 0; i < 12; i++) l.push({ k: i % 3, i: i });"
			   "l.sort(function (x, y) { return x.k - y.k; }).map(function (o) { return o.i; }).join()",
			   "0,3,6,9,1,4,7,10,2,5,8,11");
	assert_eval_string("[(1.005).toFixed(2), (123456789012345680000).toFixed(2), (5e-324).toPrecision(4),"
			   " (1e-7).toPrecision(21), (0.5).toString(2), String(98 % -(1 / 3)),"
			   " String(Math.pow(2, 60)), String(-1 / 9007199254740992)].join(' ')",
			   "1.00 123456789012345683968.00 4.941e-324 9.99999999999999954748e-8 0.1 "
			   "5.440092820663267e-15 1152921504606847000 -1.1102230246251565e-16");
	assert_eval_string("String(new Date(1709211909007)) + ' | ' + String(function () {})",
			   "Thu Feb 29 2024 13:05:09 GMT+0000 | function () { /* ecmascript */ }");
}

/* ------------------------------------------------------------------ identity */

static void test_identity(void **state)
{
	(void) state;
	assert_true(eng_id() == ENG_ID_DUKTAPE || eng_id() == ENG_ID_JERRYSCRIPT);
	assert_non_null(eng_name());
	assert_true(strlen(eng_name()) > 0);
	assert_true(eng_version() >= 10000);
	assert_int_equal(eng_config_hash(), eng_config_hash());
	if (is_duktape()) {
		assert_string_equal(eng_name(), "Duktape");
		assert_true(eng_version() >= 20700 && eng_version() < 30000);
	}
}

/* ------------------------------------------------------------------ values */

static void test_primitives(void **state)
{
	eng_value_t one, obj_a, obj_b, obj_a2, nan;

	(void) state;
	assert_int_equal(eng_typeof(eng_undefined()), ENG_TYPE_UNDEFINED);
	assert_int_equal(eng_typeof(eng_null()), ENG_TYPE_NULL);
	assert_int_equal(eng_typeof(eng_boolean(true)), ENG_TYPE_BOOLEAN);
	assert_true(eng_get_boolean(eng_boolean(true)));
	assert_false(eng_get_boolean(eng_boolean(false)));
	assert_false(eng_get_boolean(eng_number(1)));

	one = eng_number(1.5);
	assert_int_equal(eng_typeof(one), ENG_TYPE_NUMBER);
	assert_true(eng_get_number(one) == 1.5);
	assert_true(isnan(eng_get_number(eng_string_z("1"))));
	assert_true(isnan(eng_get_number(eng_undefined())));
	assert_false(eng_is_exception(one));
	assert_false(eng_is_object(one));
	assert_false(eng_is_callable(one));

	/* ToBoolean */
	assert_false(eng_to_boolean(eng_undefined()));
	assert_false(eng_to_boolean(eng_null()));
	assert_false(eng_to_boolean(eng_number(0)));
	assert_false(eng_to_boolean(eng_number(-0.0)));
	assert_false(eng_to_boolean(eng_number(NAN)));
	assert_false(eng_to_boolean(eng_string_z("")));
	assert_true(eng_to_boolean(eng_string_z("0")));
	assert_true(eng_to_boolean(eng_number(-2)));
	assert_true(eng_to_boolean(eng_object()));
	assert_true(eng_to_boolean(eng_array(0)));

	/* === */
	assert_true(eng_strict_equals(eng_number(1), eval_ok("1")));
	assert_false(eng_strict_equals(eng_number(1), eval_ok("'1'")));
	assert_true(eng_strict_equals(eng_string_z("abc"), eval_ok("'ab' + 'c'")));
	nan = eng_number(NAN);
	assert_false(eng_strict_equals(nan, nan));
	obj_a = eval_ok("var shared = {}; shared");
	obj_b = eng_object();
	obj_a2 = eval_ok("shared");
	assert_true(eng_strict_equals(obj_a, obj_a2));
	assert_false(eng_strict_equals(obj_a, obj_b));
	assert_true(eng_strict_equals(eng_undefined(), eval_ok("undefined")));
	assert_true(eng_strict_equals(eng_null(), eval_ok("null")));
}

static void test_typeof(void **state)
{
	static const struct {
		const char *source;
		eng_type_t type;
		bool object;
		bool callable;
	} cases[] = {
		{ "undefined", ENG_TYPE_UNDEFINED, false, false },
		{ "null", ENG_TYPE_NULL, false, false },
		{ "false", ENG_TYPE_BOOLEAN, false, false },
		{ "1.5", ENG_TYPE_NUMBER, false, false },
		{ "'text'", ENG_TYPE_STRING, false, false },
		{ "Symbol('s')", ENG_TYPE_SYMBOL, false, false },
		{ "(function () {})", ENG_TYPE_FUNCTION, true, true },
		{ "Math.max", ENG_TYPE_FUNCTION, true, true },
		{ "(function () {}).bind(null)", ENG_TYPE_FUNCTION, true, true },
		{ "[1, 2]", ENG_TYPE_ARRAY, true, false },
		{ "new ArrayBuffer(4)", ENG_TYPE_ARRAYBUFFER, true, false },
		{ "new Uint8Array(2)", ENG_TYPE_TYPEDARRAY, true, false },
		{ "new Float64Array(2)", ENG_TYPE_TYPEDARRAY, true, false },
		{ "new DataView(new ArrayBuffer(2))", ENG_TYPE_TYPEDARRAY, true, false },
		{ "Promise.resolve(1)", ENG_TYPE_PROMISE, true, false },
		{ "new Promise(function () {})", ENG_TYPE_PROMISE, true, false },
		{ "Object.create(Promise.resolve(1))", ENG_TYPE_OBJECT, true, false },
		{ "new Date(0)", ENG_TYPE_DATE, true, false },
		{ "new Error('e')", ENG_TYPE_ERROR, true, false },
		{ "new TypeError('e')", ENG_TYPE_ERROR, true, false },
		{ "new RangeError('e')", ENG_TYPE_ERROR, true, false },
		{ "({ a: 1 })", ENG_TYPE_OBJECT, true, false },
		{ "Object.create(null)", ENG_TYPE_OBJECT, true, false },
		{ "/x/", ENG_TYPE_OBJECT, true, false },
		{ "new String('boxed')", ENG_TYPE_OBJECT, true, false },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		eng_value_t v = eval_ok(cases[i].source);

		if (eng_typeof(v) != cases[i].type) {
			fail_msg("typeof %s: %d, expected %d", cases[i].source, (int) eng_typeof(v),
				 (int) cases[i].type);
		}
		assert_int_equal(eng_is_object(v), cases[i].object);
		assert_int_equal(eng_is_callable(v), cases[i].callable);
		eng_release(v);
	}
}

static void test_release_and_scopes(void **state)
{
	eng_value_t a, b, c, kept;
	eng_mem_stats_t before, after;

	(void) state;
	a = eng_number(1);
	b = eng_number(2);
	eng_release(b);
	c = eng_number(3);
	assert_true(eng_get_number(a) == 1);
	assert_true(eng_get_number(c) == 3);
	/* Releasing a value that is not the newest is allowed and must not disturb others. */
	eng_release(a);
	assert_true(eng_get_number(c) == 3);

	kept = eng_string_z("outer");
	eng_scope_enter();
	for (int i = 0; i < 100; i++) {
		eng_value_t inner = eng_number(i);

		assert_true(eng_get_number(inner) == i);
	}
	eng_scope_enter();
	(void) eng_object();
	eng_scope_leave();
	eng_scope_leave();
	assert_string_value(kept, "outer");

	/* Values made in scopes are dropped with them: a long loop does not grow the heap. */
	eng_gc();
	eng_mem_stats(&before);
	for (int i = 0; i < 20000; i++) {
		eng_scope_enter();
		(void) eng_object();
		(void) eng_string_z("some text that has to be allocated");
		(void) eng_number(i);
		eng_scope_leave();
	}
	eng_gc();
	eng_mem_stats(&after);
	assert_true(after.used <= before.used + 4096);
}

/* ------------------------------------------------------------------ strings */

static void test_strings_utf8(void **state)
{
	char buf[64];
	eng_value_t s, js, nul, bad, lone;
	const uint8_t emoji[] = { 'a', 0xF0, 0x9F, 0x98, 0x80, 'b', 0 };

	(void) state;
	s = eng_string_z("h\xC3\xA9llo");
	assert_int_equal(eng_typeof(s), ENG_TYPE_STRING);
	assert_int_equal(eng_string_size(s), 6);
	assert_int_equal(eng_string_length(s), 5);
	assert_int_equal(eng_string_copy(s, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "h\xC3\xA9llo");

	/* Outside the BMP: one character, two UTF-16 code units, four UTF-8 bytes. */
	s = eng_string_z((const char *) emoji);
	assert_int_equal(eng_string_length(s), 4);
	assert_int_equal(eng_string_size(s), 6);
	assert_int_equal(eng_string_copy(s, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, emoji, 7);
	js = eval_ok("'a\\uD83D\\uDE00b'");
	assert_true(eng_strict_equals(s, js));
	assert_int_equal(eng_string_copy(js, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, emoji, 7);
	set_global("emoji", s);
	assert_eval_number("emoji.length", 4);
	assert_eval_number("emoji.charCodeAt(1)", 0xD83D);

	/* Embedded NUL */
	nul = eng_string("a\0b", 3);
	assert_int_equal(eng_string_length(nul), 3);
	assert_int_equal(eng_string_size(nul), 3);
	assert_int_equal(eng_string_copy(nul, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "a\0b", 4);

	/* Invalid UTF-8 becomes U+FFFD, never a corrupt or hidden engine string. */
	bad = eng_string("\xFF" "x", 2);
	assert_int_equal(eng_string_length(bad), 2);
	assert_int_equal(eng_string_copy(bad, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "\xEF\xBF\xBD" "x");

	/* A lone surrogate from JavaScript has no UTF-8 form: U+FFFD as well. */
	lone = eval_ok("'\\uD800!'");
	assert_int_equal(eng_string_length(lone), 2);
	assert_int_equal(eng_string_size(lone), 4);
	assert_int_equal(eng_string_copy(lone, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "\xEF\xBF\xBD!");

	/* Non-strings */
	assert_int_equal(eng_string_size(eng_number(5)), 0);
	assert_int_equal(eng_string_length(eng_object()), 0);
	buf[0] = 'x';
	assert_int_equal(eng_string_copy(eng_null(), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_string_copy_truncation(void **state)
{
	char buf[16];
	eng_value_t s = eng_string_z("h\xC3\xA9llo"); /* h, 2-byte e-acute, llo: 6 bytes */
	eng_value_t e = eng_string_z("\xF0\x9F\x98\x80z");

	(void) state;
	memset(buf, 'X', sizeof(buf));
	/* Room for 2 bytes: "h" fits, the 2-byte character would not; never half a character. */
	assert_int_equal(eng_string_copy(s, buf, 3), 6);
	assert_string_equal(buf, "h");
	assert_int_equal(eng_string_copy(s, buf, 4), 6);
	assert_string_equal(buf, "h\xC3\xA9");
	assert_int_equal(eng_string_copy(s, buf, 6), 6);
	assert_string_equal(buf, "h\xC3\xA9ll");
	assert_int_equal(eng_string_copy(s, buf, 7), 6);
	assert_string_equal(buf, "h\xC3\xA9llo");
	assert_int_equal(eng_string_copy(s, buf, 1), 6);
	assert_string_equal(buf, "");
	assert_int_equal(eng_string_copy(s, NULL, 0), 6);
	assert_int_equal(eng_string_copy(e, buf, 4), 5);
	assert_string_equal(buf, "");
	assert_int_equal(eng_string_copy(e, buf, 5), 5);
	assert_string_equal(buf, "\xF0\x9F\x98\x80");
}

static void test_to_string(void **state)
{
	eng_value_t v;

	(void) state;
	assert_string_value(check_ok(eng_to_string(eng_number(42)), "42"), "42");
	assert_string_value(check_ok(eng_to_string(eng_boolean(false)), "false"), "false");
	assert_string_value(check_ok(eng_to_string(eng_null()), "null"), "null");
	assert_string_value(check_ok(eng_to_string(eval_ok("[1, [2, 3]]")), "array"), "1,2,3");
	v = eval_ok("({ toString: function () { return 'custom'; } })");
	assert_string_value(check_ok(eng_to_string(v), "custom"), "custom");

	v = eval_ok("({ toString: function () { throw new Error('no text'); } })");
	v = eng_to_string(v);
	assert_true(eng_is_exception(v));
	assert_int_equal(eng_typeof(eng_exception_value(v)), ENG_TYPE_ERROR);

	/* ToString of a symbol is a TypeError. */
	assert_true(eng_is_exception(eng_to_string(eval_ok("Symbol('s')"))));
}

/* ------------------------------------------------------------------ objects */

static void test_objects(void **state)
{
	eng_value_t obj, v, keys, arr, proto, child, global;

	(void) state;
	obj = eng_object();
	assert_int_equal(eng_typeof(obj), ENG_TYPE_OBJECT);
	assert_true(eng_set(obj, "a", eng_number(1)));
	assert_true(eng_set(obj, "b", eng_string_z("two")));
	assert_true(eng_get_number(check_ok(eng_get(obj, "a"), "get a")) == 1);
	assert_string_value(check_ok(eng_get(obj, "b"), "get b"), "two");
	assert_int_equal(eng_typeof(check_ok(eng_get(obj, "missing"), "get missing")), ENG_TYPE_UNDEFINED);
	assert_true(eng_has_own(obj, "a"));
	assert_false(eng_has_own(obj, "missing"));
	assert_false(eng_has_own(obj, "toString")); /* inherited */
	assert_true(eng_set(obj, "k\xC3\xA9y", eng_number(3)));
	set_global("obj", obj);
	assert_eval_number("obj['k\\u00e9y']", 3);

	keys = check_ok(eng_keys(obj), "keys");
	assert_int_equal(eng_typeof(keys), ENG_TYPE_ARRAY);
	assert_int_equal(eng_array_length(keys), 3);
	assert_string_value(check_ok(eng_get_index(keys, 0), "keys[0]"), "a");
	assert_string_value(check_ok(eng_get_index(keys, 1), "keys[1]"), "b");

	/* Read-only, non-enumerable constants */
	assert_true(eng_define_const(obj, "K", eng_number(7)));
	assert_true(eng_get_number(check_ok(eng_get(obj, "K"), "get K")) == 7);
	assert_false(eng_set(obj, "K", eng_number(8)));
	assert_true(eng_get_number(check_ok(eng_get(obj, "K"), "get K")) == 7);
	assert_int_equal(eng_array_length(check_ok(eng_keys(obj), "keys")), 3);
	assert_eval_string("(function () { 'use strict';"
			   " try { obj.K = 1; return 'no'; } catch (e) { return e.name; } })()",
			   "TypeError");

	/* Frozen objects refuse changes without leaving an exception behind */
	eng_freeze(obj);
	assert_false(eng_set(obj, "a", eng_number(100)));
	assert_false(eng_set(obj, "new", eng_number(1)));
	assert_true(eng_get_number(check_ok(eng_get(obj, "a"), "get a")) == 1);
	assert_eval_number("obj.a", 1);
	assert_eval_string("Object.isFrozen(obj) ? 'frozen' : 'not'", "frozen");

	/* Arrays */
	arr = eng_array(3);
	assert_int_equal(eng_typeof(arr), ENG_TYPE_ARRAY);
	assert_int_equal(eng_array_length(arr), 3);
	assert_true(eng_set_index(arr, 0, eng_string_z("x")));
	assert_true(eng_set_index(arr, 4, eng_number(5)));
	assert_int_equal(eng_array_length(arr), 5);
	assert_string_value(check_ok(eng_get_index(arr, 0), "arr[0]"), "x");
	assert_int_equal(eng_typeof(check_ok(eng_get_index(arr, 1), "arr[1]")), ENG_TYPE_UNDEFINED);
	assert_int_equal(eng_array_length(obj), 0);
	assert_int_equal(eng_array_length(eng_number(3)), 0);

	/* Prototypes */
	proto = eval_ok("({ greet: function () { return 'hi ' + this.name; } })");
	child = eng_object();
	assert_true(eng_set(child, "name", eng_string_z("bob")));
	assert_true(eng_set_prototype(child, proto));
	set_global("child", child);
	assert_eval_string("child.greet()", "hi bob");
	assert_false(eng_set_prototype(proto, child)); /* a cycle */
	assert_true(eng_set_prototype(child, eng_null()));
	assert_eval_string("typeof child.greet", "undefined");
	assert_false(eng_set_prototype(obj, proto)); /* frozen */
	assert_false(eng_set_prototype(eng_number(1), proto));

	/* Non-objects */
	assert_false(eng_set(eng_number(1), "x", eng_number(1)));
	assert_false(eng_has_own(eng_undefined(), "x"));
	v = eng_get(eng_undefined(), "x");
	assert_true(eng_is_exception(v));
	assert_int_equal(eng_typeof(eng_exception_value(v)), ENG_TYPE_ERROR);
	assert_int_equal(eng_get_number(check_ok(eng_get(eng_string_z("abc"), "length"), "length")), 3);

	/* The global object */
	global = eng_global();
	assert_true(eng_set(global, "fromC", eng_number(11)));
	assert_eval_number("fromC", 11);
	eval_ok("var fromJs = 'js';");
	assert_string_value(check_ok(eng_get(global, "fromJs"), "fromJs"), "js");
}

static void test_getters_and_setters_that_throw(void **state)
{
	eng_value_t obj, v;
	char text[128];

	(void) state;
	obj = eval_ok("({ get bad() { throw new RangeError('getter says no'); },"
		      "   set bad(v) { throw new Error('setter says no'); } })");
	v = eng_get(obj, "bad");
	assert_true(eng_is_exception(v));
	eng_describe(v, text, sizeof(text));
	assert_true(strncmp(text, "RangeError: getter says no", 26) == 0);
	assert_false(eng_set(obj, "bad", eng_number(1)));
	/* Nothing is left pending: the engine goes on normally. */
	assert_eval_number("1 + 1", 2);

	obj = eval_ok("({ toJSON: function () { throw new Error('no json'); } })");
	v = eng_json_stringify(obj);
	assert_true(eng_is_exception(v));
}

static void test_buffers(void **state)
{
	const uint8_t bytes[4] = { 1, 2, 3, 250 };
	size_t len = 99;
	uint8_t *data;
	eng_value_t ab, view, fn, args[1], r;

	(void) state;
	ab = eng_arraybuffer(bytes, sizeof(bytes));
	assert_int_equal(eng_typeof(ab), ENG_TYPE_ARRAYBUFFER);
	data = eng_buffer_data(ab, &len);
	assert_non_null(data);
	assert_int_equal(len, 4);
	assert_memory_equal(data, bytes, 4);
	data[0] = 9; /* writes through to JavaScript */

	fn = eval_ok("(function (b) { var u = new Uint8Array(b); return u[0] + u[3]; })");
	args[0] = ab;
	r = check_ok(eng_call(fn, eng_undefined(), args, 1), "call");
	assert_true(eng_get_number(r) == 259);

	view = eval_ok("new Uint8Array([10, 20, 30, 40]).subarray(1, 3)");
	data = eng_buffer_data(view, &len);
	assert_non_null(data);
	assert_int_equal(len, 2);
	assert_int_equal(data[0], 20);
	assert_int_equal(data[1], 30);

	assert_null(eng_buffer_data(eng_object(), &len));
	assert_int_equal(len, 0);
	assert_null(eng_buffer_data(eng_string_z("abc"), &len));

	ab = eng_arraybuffer(NULL, 0);
	assert_int_equal(eng_typeof(ab), ENG_TYPE_ARRAYBUFFER);
	(void) eng_buffer_data(ab, &len);
	assert_int_equal(len, 0);
}

/* ------------------------------------------------------------------ functions */

static int data_marker;

static eng_value_t native_add(const eng_call_t *call)
{
	double sum = 0;

	assert_ptr_equal(call->data, &data_marker);
	for (uint32_t i = 0; i < call->argc; i++) {
		sum += eng_get_number(call->argv[i]);
	}
	return eng_number(sum);
}

static eng_value_t native_this(const eng_call_t *call)
{
	return call->this_value;
}

static eng_value_t native_argc(const eng_call_t *call)
{
	return eng_number(call->argc);
}

static eng_value_t native_fail(const eng_call_t *call)
{
	(void) call;
	return eng_throw(ENG_ERROR_TYPE, "ESR0004", "Not enough %s", "resources");
}

static eng_value_t native_throw_string(const eng_call_t *call)
{
	(void) call;
	return eng_throw_value(eng_string_z("plain string"));
}

static void register_native(const char *name, eng_native_fn_t fn, void *data)
{
	eng_value_t f = check_ok(eng_function(fn, data, name), name);

	assert_int_equal(eng_typeof(f), ENG_TYPE_FUNCTION);
	assert_true(eng_is_callable(f));
	set_global(name, f);
}

static void test_native_functions(void **state)
{
	(void) state;
	register_native("add", native_add, &data_marker);
	register_native("thisOf", native_this, NULL);
	register_native("argc", native_argc, NULL);
	register_native("fail", native_fail, NULL);
	register_native("throwString", native_throw_string, NULL);

	assert_eval_number("add(2, 3)", 5);
	assert_eval_number("add(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)", 78);
	assert_eval_number("argc()", 0);
	assert_eval_number("argc(undefined, undefined, 1)", 3);
	assert_eval_string("add.name", "add");
	assert_eval_string("var o = { f: thisOf, tag: 'me' }; o.f().tag", "me");
	assert_eval_string("[1, 2].map(function (x) { return add(x, 10); }).join()", "11,12");
	assert_eval_string("try { fail(); 'no' } catch (e) {"
			   " e.code + '|' + e.message + '|' + (e instanceof TypeError) }",
			   "ESR0004|ESR0004 Not enough resources|true");
	assert_eval_string("try { throwString(); 'no' } catch (e) { typeof e + ':' + e }",
			   "string:plain string");
}

static void test_eng_call(void **state)
{
	eng_value_t fn, args[2], r, obj;
	char text[256];

	(void) state;
	fn = eval_ok("(function (a, b) { return this.base + a * b; })");
	obj = eval_ok("({ base: 100 })");
	args[0] = eng_number(6);
	args[1] = eng_number(7);
	r = check_ok(eng_call(fn, obj, args, 2), "call");
	assert_true(eng_get_number(r) == 142);

	r = eng_call(eng_number(3), eng_undefined(), NULL, 0);
	assert_true(eng_is_exception(r));
	assert_int_equal(eng_typeof(eng_exception_value(r)), ENG_TYPE_ERROR);

	fn = eval_ok("(function () {\n  throw new Error('boom');\n})");
	r = eng_call(fn, eng_undefined(), NULL, 0);
	assert_true(eng_is_exception(r));
	eng_describe(r, text, sizeof(text));
	assert_true(strncmp(text, "Error: boom", 11) == 0);
	if (is_duktape()) {
		assert_string_equal(text, "Error: boom (test.js:2)");
	}
	eng_describe(eng_exception_value(r), text, sizeof(text));
	assert_true(strncmp(text, "Error: boom", 11) == 0);
}

/* Nested native -> JavaScript -> native calls: handles of the outer native stay valid while the
 * inner one runs and after it returns, even when the inner native uses them. */
static eng_value_t outer_local = 0;
static int inner_calls;

static eng_value_t native_inner(const eng_call_t *call)
{
	eng_value_t tag, junk;

	inner_calls++;
	/* The outer native's value, used from the inner frame */
	tag = check_ok(eng_get(outer_local, "tag"), "outer tag");
	assert_string_value(tag, "outer");
	for (int i = 0; i < 50; i++) {
		junk = eng_string_z("inner junk");
		(void) junk;
	}
	assert_int_equal(call->argc, 1);
	return check_ok(eng_to_string(call->argv[0]), "inner arg");
}

static eng_value_t native_outer(const eng_call_t *call)
{
	eng_value_t local_str = eng_string_z("kept across the call");
	eng_value_t local_obj = eng_object();
	eng_value_t args[1], r;

	assert_true(eng_set(local_obj, "tag", eng_string_z("outer")));
	outer_local = local_obj;
	args[0] = eng_number(41);
	r = eng_call(call->argv[0], eng_undefined(), args, 1);
	outer_local = 0;
	if (eng_is_exception(r)) {
		return r;
	}
	assert_string_value(local_str, "kept across the call");
	assert_string_value(check_ok(eng_get(local_obj, "tag"), "tag"), "outer");
	assert_string_value(call->argv[1], "second argument");
	return r;
}

static eng_value_t native_recurse(const eng_call_t *call)
{
	double n = eng_get_number(call->argv[0]);
	eng_value_t mark = eng_number(n * 1000);
	eng_value_t args[1], r;

	if (n <= 0) {
		return eng_number(0);
	}
	args[0] = eng_number(n - 1);
	r = eng_call(call->argv[1], eng_undefined(), args, 1);
	if (eng_is_exception(r)) {
		return r;
	}
	assert_true(eng_get_number(mark) == n * 1000);
	return eng_number(eng_get_number(r) + 1);
}

static void test_nested_native_calls(void **state)
{
	(void) state;
	register_native("outer", native_outer, NULL);
	register_native("inner", native_inner, NULL);
	register_native("recurse", native_recurse, NULL);

	inner_calls = 0;
	assert_eval_string("outer(function (x) { return inner(x + 1) + '!'; }, 'second argument')", "42!");
	assert_int_equal(inner_calls, 1);

	assert_eval_number("function step(n) { return recurse(n, step); } step(40)", 40);

	/* An exception crossing two native frames arrives unchanged. */
	assert_eval_string("var thrown = new Error('deep');"
			   "try { outer(function () { throw thrown; }, 'second argument'); 'no' }"
			   "catch (e) { e === thrown ? 'same' : 'other' }",
			   "same");
}

/* ------------------------------------------------------------------ references */

static void test_references(void **state)
{
	eng_ref_t ref, refs[200];
	eng_value_t v;

	(void) state;
	assert_int_equal(eng_ref_count(), 0);
	eng_scope_enter();
	ref = eng_ref_new(eval_ok("({ name: 'kept' })"));
	assert_int_not_equal(ref, 0);
	eng_scope_leave();
	eng_gc();
	assert_int_equal(eng_ref_count(), 1);

	v = eng_ref_get(ref);
	assert_string_value(check_ok(eng_get(v, "name"), "name"), "kept");
	assert_true(eng_strict_equals(v, eng_ref_get(ref)));

	eng_ref_free(ref);
	assert_int_equal(eng_ref_count(), 0);
	eng_ref_free(ref); /* twice is harmless */
	eng_ref_free(0);
	assert_int_equal(eng_ref_count(), 0);
	assert_int_equal(eng_typeof(eng_ref_get(0)), ENG_TYPE_UNDEFINED);

	for (int i = 0; i < 200; i++) {
		refs[i] = eng_ref_new(eng_number(i));
		assert_int_not_equal(refs[i], 0);
	}
	assert_int_equal(eng_ref_count(), 200);
	for (int i = 0; i < 200; i += 2) {
		eng_ref_free(refs[i]);
	}
	assert_int_equal(eng_ref_count(), 100);
	for (int i = 1; i < 200; i += 2) {
		assert_true(eng_get_number(eng_ref_get(refs[i])) == i);
		eng_ref_free(refs[i]);
	}
	assert_int_equal(eng_ref_count(), 0);

	/* A callback kept by reference and called from a later scope */
	eng_scope_enter();
	ref = eng_ref_new(eval_ok("(function (x) { return x * 2; })"));
	eng_scope_leave();
	eng_scope_enter();
	{
		eng_value_t args[1] = { eng_number(21) };

		v = check_ok(eng_call(eng_ref_get(ref), eng_undefined(), args, 1), "callback");
		assert_true(eng_get_number(v) == 42);
	}
	eng_scope_leave();
	eng_ref_free(ref);
	assert_int_equal(eng_ref_count(), 0);
}

/* ------------------------------------------------------------------ native handles */

static int finalized_count;
static void *finalized_ptr;

static void timer_finalize(void *ptr)
{
	finalized_count++;
	finalized_ptr = ptr;
}

static const eng_native_type_t timer_type = { "TimerHandle", timer_finalize };
static const eng_native_type_t other_type = { "OtherHandle", NULL };

static void test_native_handles(void **state)
{
	static int timer_a, timer_b, timer_c;
	eng_value_t h, derived;
	eng_ref_t ref;

	(void) state;
	finalized_count = 0;
	finalized_ptr = NULL;

	eng_scope_enter();
	h = eng_object();
	eng_set_native(h, &timer_type, &timer_a);
	assert_ptr_equal(eng_get_native(h, &timer_type), &timer_a);
	assert_null(eng_get_native(h, &other_type));
	assert_null(eng_get_native(eng_object(), &timer_type));
	assert_null(eng_get_native(eng_number(1), &timer_type));
	/* Invisible to JavaScript */
	set_global("handle", h);
	assert_eval_string("Object.keys(handle).length + JSON.stringify(handle)", "0{}");
	/* An object inheriting from a handle is not the handle */
	derived = eval_ok("Object.create(handle)");
	assert_null(eng_get_native(derived, &timer_type));
	eval_ok("handle = undefined; var d = Object.create({}); undefined");
	eng_scope_leave();
	eng_gc();
	assert_int_equal(finalized_count, 1);
	assert_ptr_equal(finalized_ptr, &timer_a);

	/* Kept alive by a reference: not finalized until the reference goes */
	eng_scope_enter();
	h = eng_object();
	eng_set_native(h, &timer_type, &timer_b);
	ref = eng_ref_new(h);
	eng_scope_leave();
	eng_gc();
	assert_int_equal(finalized_count, 1);
	eng_scope_enter();
	assert_ptr_equal(eng_get_native(eng_ref_get(ref), &timer_type), &timer_b);
	eng_scope_leave();
	eng_ref_free(ref);
	eng_gc();
	assert_int_equal(finalized_count, 2);
	assert_ptr_equal(finalized_ptr, &timer_b);

	/* Cleared: the native side died first, no finalizer */
	eng_scope_enter();
	h = eng_object();
	eng_set_native(h, &timer_type, &timer_c);
	eng_clear_native(h, &other_type); /* wrong type: no effect */
	assert_ptr_equal(eng_get_native(h, &timer_type), &timer_c);
	eng_clear_native(h, &timer_type);
	assert_null(eng_get_native(h, &timer_type));
	eng_scope_leave();
	eng_gc();
	assert_int_equal(finalized_count, 2);

	/* Still alive at shutdown: finalized by eng_deinit() */
	eng_scope_enter();
	ref = eng_ref_new(h = eng_object());
	eng_set_native(h, &timer_type, &timer_a);
	eng_scope_leave();
	eng_scope_leave();
	eng_deinit();
	assert_int_equal(finalized_count, 3);
	assert_int_equal(setup(NULL), 0);
}

static void test_internal_properties(void **state)
{
	static int timer_d;
	eng_value_t obj, v, derived;

	(void) state;
	obj = eng_object();
	assert_int_equal(eng_typeof(eng_get_internal(obj, "cb")), ENG_TYPE_UNDEFINED);
	assert_true(eng_set_internal(obj, "cb", eng_string_z("secret")));
	assert_string_value(eng_get_internal(obj, "cb"), "secret");
	assert_true(eng_set_internal(obj, "cb", eng_number(2)));
	assert_true(eng_get_number(eng_get_internal(obj, "cb")) == 2);
	assert_false(eng_set_internal(eng_number(1), "cb", eng_number(1)));
	assert_int_equal(eng_typeof(eng_get_internal(eng_number(1), "cb")), ENG_TYPE_UNDEFINED);

	/* Invisible to JavaScript, whatever it tries */
	set_global("holder", obj);
	assert_eval_string("Object.getOwnPropertyNames(holder).length + ':' +"
			   "(Object.getOwnPropertySymbols ? Object.getOwnPropertySymbols(holder).length : 0) +"
			   "':' + JSON.stringify(holder) + ':' + holder.cb + ':' + holder['eng.cb']",
			   "0:0:{}:undefined:undefined");
	eval_ok("holder.cb = 'public';");
	assert_true(eng_get_number(eng_get_internal(obj, "cb")) == 2);

	/* Own only, and still writable after a freeze */
	derived = eval_ok("Object.create(holder)");
	assert_int_equal(eng_typeof(eng_get_internal(derived, "cb")), ENG_TYPE_UNDEFINED);
	eng_freeze(obj);
	assert_true(eng_set_internal(obj, "cb", eng_number(3)));
	assert_true(eng_get_number(eng_get_internal(obj, "cb")) == 3);

	/* A callback kept internally that refers back to its handle is a collectable cycle */
	finalized_count = 0;
	eng_scope_enter();
	obj = eng_object();
	eng_set_native(obj, &timer_type, &timer_d);
	set_global("cyclic", obj);
	v = eval_ok("(function (h) { return function () { return h; }; })(cyclic)");
	assert_true(eng_set_internal(obj, "callback", v));
	eval_ok("cyclic = undefined;");
	eng_scope_leave();
	eng_gc();
	assert_int_equal(finalized_count, 1);
	assert_ptr_equal(finalized_ptr, &timer_d);
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void **state)
{
	eng_value_t exc, err, v;
	char text[512], longtext[400];

	(void) state;
	exc = eng_throw(ENG_ERROR_TYPE, "ESR0004", "Not enough %s", "resources");
	assert_true(eng_is_exception(exc));
	assert_exception_code(exc, "ESR0004");
	err = eng_exception_value(exc);
	assert_int_equal(eng_typeof(err), ENG_TYPE_ERROR);
	assert_string_value(check_ok(eng_get(err, "message"), "message"), "ESR0004 Not enough resources");
	assert_string_value(check_ok(eng_get(err, "name"), "name"), "TypeError");
	eng_describe(exc, text, sizeof(text));
	assert_string_equal(text, "TypeError: ESR0004 Not enough resources");

	err = eng_error(ENG_ERROR_RANGE, NULL, "value %d out of range", 7);
	assert_false(eng_is_exception(err));
	assert_int_equal(eng_typeof(err), ENG_TYPE_ERROR);
	assert_false(eng_has_own(err, "code"));
	assert_string_value(check_ok(eng_get(err, "message"), "message"), "value 7 out of range");
	set_global("rangeErr", err);
	assert_eval_string("(rangeErr instanceof RangeError) + ':' + rangeErr.name", "true:RangeError");

	err = eng_error(ENG_ERROR_COMMON, "ESR0202", "No storage space");
	set_global("commonErr", err);
	assert_eval_string("commonErr.name + '|' + commonErr.code + '|' + commonErr.message",
			   "Error|ESR0202|ESR0202 No storage space");

	/* Long messages are kept whole */
	memset(longtext, 'm', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	err = eng_error(ENG_ERROR_COMMON, NULL, "%s", longtext);
	v = check_ok(eng_get(err, "message"), "message");
	assert_int_equal(eng_string_size(v), sizeof(longtext) - 1);

	/* Any value can be thrown and turned back */
	v = eng_throw_value(eng_number(5));
	assert_true(eng_is_exception(v));
	assert_true(eng_get_number(eng_exception_value(v)) == 5);
	eng_describe(v, text, sizeof(text));
	assert_string_equal(text, "5");
	eng_describe(eng_string_z("just text"), text, sizeof(text));
	assert_string_equal(text, "just text");
	eng_describe(eval_ok("({ toString: function () { throw 1; } })"), text, sizeof(text));
	assert_true(strlen(text) > 0);
	/* No message: just the name (and the location where the engine knows it) */
	eng_describe(eval_ok("new RangeError('')"), text, sizeof(text));
	assert_true(strncmp(text, "RangeError", 10) == 0);
	assert_true(text[10] == '\0' || text[10] == ' ');
	/* Truncated descriptions stay terminated */
	eng_describe(exc, text, 8);
	assert_string_equal(text, "TypeErr");
}

/* ------------------------------------------------------------------ promises */

static void run_jobs_ok(void)
{
	check_ok(eng_run_jobs(), "eng_run_jobs");
}

static void test_promise_from_c(void **state)
{
	eng_value_t p, q, r;

	(void) state;
	p = eng_promise_new();
	assert_int_equal(eng_typeof(p), ENG_TYPE_PROMISE);
	set_global("p", p);
	eval_ok("var log = []; p.then(function (v) { log.push('ok:' + v); return v + 1; })"
		".then(function (v) { log.push('then:' + v); });");
	assert_false(eng_has_pending_jobs());

	eng_promise_resolve(p, eng_number(5));
	/* Callbacks never run synchronously, only from eng_run_jobs() */
	assert_eval_string("log.join()", "");
	assert_true(eng_has_pending_jobs());
	run_jobs_ok();
	assert_eval_string("log.join()", "ok:5,then:6");
	assert_false(eng_has_pending_jobs());

	/* Settling twice: the first wins */
	q = eng_promise_new();
	set_global("q", q);
	eval_ok("q.then(function (v) { log.push('q:' + v); }, function (e) { log.push('q-err'); });");
	eng_promise_resolve(q, eng_string_z("first"));
	eng_promise_resolve(q, eng_string_z("second"));
	eng_promise_reject(q, eng_error(ENG_ERROR_COMMON, NULL, "late"));
	run_jobs_ok();
	assert_eval_string("log.join()", "ok:5,then:6,q:first");

	/* Rejected from C with a coded error */
	r = eng_promise_new();
	set_global("r", r);
	eval_ok("r['catch'](function (e) { log.push(e.code + '/' + (e instanceof RangeError)); });");
	eng_promise_reject(r, eng_error(ENG_ERROR_RANGE, "ESR0205", "Data store timeout"));
	run_jobs_ok();
	assert_eval_string("log[log.length - 1]", "ESR0205/true");
}

static void test_promise_js(void **state)
{
	eng_value_t p;

	(void) state;
	eval_ok("var out = [];"
		"Promise.resolve(1).then(function (v) { out.push('a' + v); });"
		"Promise.resolve(2).then(function (v) { out.push('b' + v); });"
		"new Promise(function (res) { res(3); }).then(function (v) { out.push('c' + v); });"
		"Promise.reject(new Error('x'))['catch'](function (e) { out.push('d' + e.message); });"
		"Promise.resolve(4).then(function () { throw new Error('in then'); })"
		"  ['catch'](function (e) { out.push('e:' + e.message); });"
		"out.push('sync');");
	assert_eval_string("out.join()", "sync");
	run_jobs_ok();
	assert_eval_string("out.join()", "sync,a1,b2,c3,dx,e:in then");

	/* Promise.all / race, with one promise settled from C */
	p = eng_promise_new();
	set_global("pc", p);
	eval_ok("var all = 'pending', race = 'pending';"
		"Promise.all([Promise.resolve(1), pc, 3]).then(function (v) { all = v.join('+'); });"
		"Promise.race([pc, new Promise(function () {})]).then(function (v) { race = v; });");
	run_jobs_ok();
	assert_eval_string("all + '/' + race", "pending/pending");
	eng_promise_resolve(p, eng_number(2));
	run_jobs_ok();
	assert_eval_string("all + '/' + race", "1+2+3/2");

	/* Resolving with a promise adopts its state */
	p = eng_promise_new();
	set_global("adopter", p);
	eval_ok("var adopted; adopter.then(function (v) { adopted = v; });");
	eng_promise_resolve(p, eval_ok("Promise.resolve('inner value')"));
	run_jobs_ok();
	assert_eval_string("adopted", "inner value");
}

static void test_promise_unhandled_rejection(void **state)
{
	eng_value_t p, reason, r;

	(void) state;
	p = eng_promise_new();
	reason = eng_error(ENG_ERROR_COMMON, "ESR0001", "Unknown");
	eng_promise_reject(p, reason);
	assert_true(eng_has_pending_jobs());
	r = eng_run_jobs();
	assert_true(eng_is_exception(r));
	assert_true(eng_strict_equals(eng_exception_value(r), reason));
	/* Reported once */
	assert_false(eng_is_exception(eng_run_jobs()));
	assert_false(eng_has_pending_jobs());

	/* From JavaScript, through a chain without a rejection handler */
	eval_ok("Promise.resolve(1).then(function () { throw new Error('lost'); });");
	r = eng_run_jobs();
	assert_true(eng_is_exception(r));
	assert_string_value(check_ok(eng_get(eng_exception_value(r), "message"), "message"), "lost");

	/* A handler attached before the jobs run counts */
	eval_ok("var late = Promise.reject(2); late['catch'](function () {});");
	run_jobs_ok();
	assert_false(eng_has_pending_jobs());
}

/* ------------------------------------------------------------------ JSON */

static void test_json(void **state)
{
	eng_value_t v, parsed;
	char text[64];
	const char *json = "{\"x\":[1,2,{\"y\":\"\xC3\xA9\xF0\x9F\x98\x80\"}],\"t\":true}";

	(void) state;
	v = eval_ok("({ a: 1, b: [true, null, 'x'], f: function () {} })");
	assert_string_value(check_ok(eng_json_stringify(v), "stringify"),
			    "{\"a\":1,\"b\":[true,null,\"x\"]}");
	v = check_ok(eng_json_stringify(eng_undefined()), "undefined");
	assert_int_equal(eng_typeof(v), ENG_TYPE_UNDEFINED);
	assert_int_equal(eng_typeof(check_ok(eng_json_stringify(eval_ok("(function () {})")), "function")),
			 ENG_TYPE_UNDEFINED);
	assert_true(eng_is_exception(eng_json_stringify(eval_ok("var c = {}; c.self = c; c"))));

	parsed = check_ok(eng_json_parse(json, strlen(json)), "parse");
	assert_int_equal(eng_typeof(parsed), ENG_TYPE_OBJECT);
	assert_true(eng_get_boolean(check_ok(eng_get(parsed, "t"), "t")));
	v = check_ok(eng_get(parsed, "x"), "x");
	assert_int_equal(eng_array_length(v), 3);
	v = check_ok(eng_get(check_ok(eng_get_index(v, 2), "x[2]"), "y"), "y");
	assert_int_equal(eng_string_length(v), 3);
	assert_int_equal(eng_string_copy(v, text, sizeof(text)), 6);
	assert_string_equal(text, "\xC3\xA9\xF0\x9F\x98\x80");
	assert_string_value(check_ok(eng_json_stringify(parsed), "roundtrip"), json);

	v = eng_json_parse("{bad json", 9);
	assert_true(eng_is_exception(v));
	assert_string_value(check_ok(eng_get(eng_exception_value(v), "name"), "name"), "SyntaxError");
	assert_true(eng_is_exception(eng_json_parse("", 0)));
	/* Only len bytes are read */
	v = check_ok(eng_json_parse("12345", 2), "prefix");
	assert_true(eng_get_number(v) == 12);
}

/* ------------------------------------------------------------------ code */

static void test_eval(void **state)
{
	eng_value_t v;
	char text[256];

	(void) state;
	assert_eval_number("var x = 40; x + 2", 42);
	assert_eval_number("x", 40);
	assert_eval_string("typeof this", "object");
	v = eval("var = ;");
	assert_true(eng_is_exception(v));
	assert_string_value(check_ok(eng_get(eng_exception_value(v), "name"), "name"), "SyntaxError");
	v = eval("\n\nundefinedFunction();");
	assert_true(eng_is_exception(v));
	eng_describe(v, text, sizeof(text));
	assert_true(strncmp(text, "ReferenceError", 14) == 0);
	if (is_duktape()) {
		assert_non_null(strstr(text, "(test.js:3)"));
	}
}

static void test_bytecode(void **state)
{
	const char *source = "var counter = 40;\nfunction bump() { return ++counter; }\ncounter + 2";
	uint8_t *bc = NULL;
	size_t len = 0;
	char err[256];
	eng_value_t v;

	(void) state;
	assert_int_equal(eng_compile(source, strlen(source), "app.js", &bc, &len, err, sizeof(err)), 0);
	assert_non_null(bc);
	assert_true(len > 0);

	v = check_ok(eng_run_bytecode(bc, len), "run bytecode");
	assert_true(eng_get_number(v) == 42);
	assert_eval_number("bump()", 41);

	/* Truncated bytecode is refused without crashing */
	for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : len / 16 + 1)) {
		eng_scope_enter();
		v = eng_run_bytecode(bc, cut);
		assert_true(eng_is_exception(v));
		eng_scope_leave();
	}
	assert_true(eng_is_exception(eng_run_bytecode(NULL, 0)));
	if (is_duktape()) {
		/* Corruption anywhere is detected before Duktape sees it */
		for (size_t i = 0; i < len; i += 7) {
			bc[i] ^= 0x5A;
			eng_scope_enter();
			assert_true(eng_is_exception(eng_run_bytecode(bc, len)));
			eng_scope_leave();
			bc[i] ^= 0x5A;
		}
	}
	/* Intact, it still runs (and resets the counter) */
	v = check_ok(eng_run_bytecode(bc, len), "run bytecode again");
	assert_true(eng_get_number(v) == 42);
	free(bc);

	/* Syntax errors come back as text */
	bc = NULL;
	assert_int_equal(eng_compile("var = 1;", 8, "bad.js", &bc, &len, err, sizeof(err)), -1);
	assert_null(bc);
	assert_non_null(strstr(err, "SyntaxError"));
}

/* ------------------------------------------------------------------ memory */

static void test_heap_stats(void **state)
{
	eng_mem_stats_t before, during, after;

	(void) state;
	eng_gc();
	eng_mem_stats(&before);
	assert_true(before.total > 0);
	assert_true(before.used > 0);
	assert_true(before.used <= before.total);
	assert_true(before.peak >= before.used);
	if (is_duktape()) {
		assert_int_equal(before.total, TEST_HEAP_SIZE);
	}

	/* 500 objects fit the device's 96 KB JerryScript heap as well as Duktape's. */
	eval_ok("var big = []; for (var i = 0; i < 500; i++) big.push({ i: i, s: 'item ' + i });");
	eng_mem_stats(&during);
	assert_true(during.used > before.used + 500 * 8);
	eval_ok("big = undefined;");
	eng_gc();
	eng_mem_stats(&after);
	assert_true(after.used < during.used);
	assert_true(after.peak >= during.used);
	eng_mem_reset_peak();
	eng_mem_stats(&after);
	assert_int_equal(after.peak, after.used);
}

/* An app that exhausts the heap stops the engine, on both engines as on the device: the port hears
 * a fatal error (the device resets), the context is abandoned without running anything in it, and
 * another context works. Under LeakSanitizer, abandoning gives every byte back. */
static void test_heap_exhaustion(void **state)
{
	eng_config_t config = { 96u * 1024u, TEST_EXEC_BUDGET };
	eng_context_t *outer = eng_selected();
	eng_context_t *volatile small;

	(void) state;
	small = eng_create(&config);
	assert_non_null(small);
	eng_heap_seal();
	eng_scope_enter();
	fatal_message[0] = '\0';
	if (setjmp(fatal_jump) == 0) {
		fatal_expected = true;
		(void) eval("(function () { var hog = [];"
			    " for (;;) hog.push(new Array(64).join('x') + hog.length); })()");
		fail_msg("the heap ran out without a fatal error");
	}
	assert_false(fatal_expected);
	assert_string_equal(fatal_message, "out of memory (JavaScript heap)");
	eng_abandon(small);
	assert_null(eng_selected());
	eng_select(outer);
	assert_eval_number("[1, 2, 3].length", 3);
}

/* ------------------------------------------------------------------ watchdog */

static eng_value_t native_swallow(const eng_call_t *call)
{
	/* Ignores whatever the callback threw and carries on */
	(void) eng_call(call->argv[0], eng_undefined(), NULL, 0);
	return eng_undefined();
}

static void test_watchdog(void **state)
{
	eng_value_t v, fn;

	(void) state;
	eng_watchdog_arm();
	v = eval("while (true) {}");
	eng_watchdog_disarm();
	assert_exception_code(v, "ESR0104");
	assert_eval_number("1 + 1", 2);

	/* JavaScript cannot catch its way out */
	eng_watchdog_arm();
	v = eval("for (;;) { try { while (true) {} } catch (e) {} }");
	eng_watchdog_disarm();
	assert_exception_code(v, "ESR0104");

	/* Nor can a native function that ignores the exception */
	register_native("swallow", native_swallow, NULL);
	eng_watchdog_arm();
	v = eval("for (;;) { swallow(function () { while (true) {} }); }");
	eng_watchdog_disarm();
	assert_exception_code(v, "ESR0104");

	/* eng_call and promise jobs are limited the same way */
	fn = eval_ok("(function () { for (;;) {} })");
	eng_watchdog_arm();
	v = eng_call(fn, eng_undefined(), NULL, 0);
	eng_watchdog_disarm();
	assert_exception_code(v, "ESR0104");

	eval_ok("Promise.resolve().then(function () { for (;;) {} });");
	eng_watchdog_arm();
	v = eng_run_jobs();
	eng_watchdog_disarm();
	assert_exception_code(v, "ESR0104");

	/* Disarmed, work that takes a while finishes */
	assert_eval_number("var n = 0; for (var i = 0; i < 1000000; i++) n += 1; n", 1000000);
}

/* The budget counts work, not time: the same loop is stopped at the same iteration every time,
 * after about as many iterations as the budget says. */
static void test_watchdog_is_deterministic(void **state)
{
	double stopped[2];

	(void) state;
	for (int run = 0; run < 2; run++) {
		eng_watchdog_arm();
		eng_value_t v = eval("var i = 0; for (;;) { i++; }");
		uint64_t units = eng_watchdog_units();
		eng_watchdog_disarm();
		assert_exception_code(v, "ESR0104");
		assert_true(units >= TEST_EXEC_BUDGET);
		stopped[run] = eval_number_global("i");
	}
	assert_true(stopped[0] == stopped[1]);
	/* One unit is about one iteration of a small loop on either engine. */
	assert_true(stopped[0] > TEST_EXEC_BUDGET / 4 && stopped[0] < TEST_EXEC_BUDGET * 4);
}

/* ------------------------------------------------------------------ time */

static void test_date_follows_port_clock(void **state)
{
	eng_value_t d;

	(void) state;
	fake_utc_ms = 1700000000000.0;
	assert_eval_number("Date.now()", 1700000000000.0);
	fake_utc_ms = 1234567890123.0;
	assert_eval_number("new Date().getTime()", 1234567890123.0);

	d = eval_ok("new Date(86400000)");
	assert_int_equal(eng_typeof(d), ENG_TYPE_DATE);
	assert_true(eng_date_value(d) == 86400000.0);
	assert_true(isnan(eng_date_value(eval_ok("new Date(NaN)"))));
	assert_true(isnan(eng_date_value(eng_object())));
	assert_true(isnan(eng_date_value(eng_number(5))));
}

/* ------------------------------------------------------------------ lifecycle */

static void test_reset(void **state)
{
	eng_value_t obj;

	(void) state;
	eval_ok("var survivor = 1;");
	obj = eng_object();
	(void) eng_ref_new(obj);
	assert_int_equal(eng_ref_count(), 1);
	eng_scope_leave();
	assert_int_equal(eng_reset(), 0);
	eng_scope_enter();
	assert_int_equal(eng_ref_count(), 0);
	assert_eval_string("typeof survivor", "undefined");
	assert_eval_string("typeof Promise", "function");
}

/* ------------------------------------------------------------------ contexts */

static int finalized_in_b;

static void count_finalize(void *ptr)
{
	(void) ptr;
	finalized_in_b++;
}

static const eng_native_type_t counted_type = { "counted", count_finalize };

static double eval_number(const char *src)
{
	eng_value_t v = check_ok(eng_eval(src, strlen(src), "ctx.js"), src);
	double n = eng_get_number(v);

	eng_release(v);
	return n;
}

/* Several engine instances in one process (one per simulated device): each has its own globals,
 * references, job queue and heap accounting, and destroying one leaves the others untouched. */
static void test_contexts(void **state)
{
	eng_config_t config = { TEST_HEAP_SIZE, TEST_EXEC_BUDGET };
	eng_context_t *a = eng_selected();
	static int marker;

	(void) state;
	assert_non_null(a);
	eval_number("var who = 1; who");
	eng_ref_t ref_a = eng_ref_new(eng_global());
	uint32_t refs_a = eng_ref_count();

	finalized_in_b = 0;
	eng_context_t *b = eng_create(&config);
	assert_non_null(b);
	assert_ptr_equal(eng_selected(), b);
	eng_scope_enter();
	assert_int_equal(eng_ref_count(), 0);
	assert_true(eval_number("typeof who === 'undefined' ? 2 : -1") == 2.0);
	eval_number("var who = 2; who");
	eng_value_t obj = eng_object();
	eng_set_native(obj, &counted_type, &marker);
	eng_ref_t keep = eng_ref_new(obj);
	eng_release(obj);
	eng_value_t p = eng_promise_new();
	eng_set(eng_global(), "p", p);
	eval_number("p.then(function () { who = 3; }); 0");
	eng_promise_resolve(p, eng_undefined());
	eng_scope_leave();

	/* Back to a: its globals, references and (empty) job queue are its own. */
	eng_select(a);
	assert_true(eval_number("who") == 1.0);
	assert_int_equal(eng_ref_count(), refs_a);
	assert_false(eng_has_pending_jobs());

	eng_select(b);
	eng_scope_enter();
	assert_true(eng_has_pending_jobs());
	eng_value_t r = eng_run_jobs();
	assert_false(eng_is_exception(r));
	assert_true(eval_number("who") == 3.0);
	assert_int_equal(eng_ref_count(), 1);
	eng_ref_free(keep);
	eng_scope_leave();

	/* Destroying b while a is selected finishes b's finalizers (the handle's ran once, when it
	 * was collected or at the latest now) and keeps a selected. */
	eng_select(a);
	eng_destroy(b);
	assert_int_equal(finalized_in_b, 1);
	assert_ptr_equal(eng_selected(), a);
	assert_true(eval_number("who") == 1.0);
	eng_ref_free(ref_a);
}

/* eng_define_data defines as JSON.parse does: own, enumerable, writable, configurable; no setter
 * runs (not an inherited one, not __proto__'s); an index extends an array; keys may hold NUL. */
static void test_define_data(void **state)
{
	(void) state;
	eval_ok("Object.defineProperty(Object.prototype, 'trap', { set: function (v) {"
		" throw new Error('setter ran'); }, configurable: true }); undefined");
	eng_value_t global = eng_global();
	eng_value_t o = eng_object();
	eng_value_t one = eng_number(1);
	eng_value_t two = eng_number(2);
	assert_true(eng_define_data(o, "trap", 4, one));
	assert_true(eng_define_data(o, "__proto__", 9, one));
	assert_true(eng_define_data(o, "a\0b", 3, one));
	assert_true(eng_define_data(o, "k", 1, one));
	assert_true(eng_define_data(o, "k", 1, two)); /* a repeated key: the last wins */
	eng_value_t a = eng_array(0);
	assert_true(eng_define_data(a, "0", 1, one));
	assert_true(eng_define_data(a, "1", 1, two));
	assert_false(eng_define_data(one, "x", 1, two));
	eng_set(global, "o", o);
	eng_set(global, "a", a);
	assert_eval_string("JSON.stringify(o)", "{\"trap\":1,\"__proto__\":1,\"a\\u0000b\":1,\"k\":2}");
	assert_eval_string("Object.getPrototypeOf(o) === Object.prototype && "
			   "Object.keys(o).length === 4 ? 'own' : 'not own'", "own");
	assert_eval_string("var d = Object.getOwnPropertyDescriptor(o, 'k');"
			   "'' + d.writable + d.enumerable + d.configurable", "truetruetrue");
	assert_eval_number("a.length", 2);
	assert_eval_string("JSON.stringify(a)", "[1,2]");
	eval_ok("delete Object.prototype.trap; undefined");
	eng_release(a);
	eng_release(o);
	eng_release(one);
	eng_release(two);
	eng_release(global);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_is_seeded_by_the_port, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parity_builtins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_primitives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_typeof, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_and_scopes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_string_copy_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_to_string, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_define_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getters_and_setters_that_throw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eng_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_native_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_references, setup, teardown),
		cmocka_unit_test_setup_teardown(test_native_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_internal_properties, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_promise_from_c, setup, teardown),
		cmocka_unit_test_setup_teardown(test_promise_js, setup, teardown),
		cmocka_unit_test_setup_teardown(test_promise_unhandled_rejection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytecode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heap_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heap_exhaustion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_is_deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_date_follows_port_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contexts, setup, teardown),
	};

	return cmocka_run_group_tests_name(eng_name(), tests, NULL, NULL);
}

/*
 * The argument converter (glue_core): tuples, coded refusals, null for records, OneOfEach
 * defaults, the choice of overload and the error of the overload that fits best. The tables of the
 * first tests are written the way the codegen emits them, so the converter is tested apart from
 * any one API declaration; the last tests call real generated bindings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api_glue.h"
#include "engine.h"
#include "glue_core.h"
#include "rt_ble.h"
#include "test_device.h"

/* ------------------------------------------------------------------ tables under test */

typedef struct {
	bool has_y;
	double y;
	double x;
} spot_t;

typedef struct {
	bool has_channels;
	uint32_t channels;
} scan_options_t;

typedef struct {
	uint8_t variant;
	rt_tuple_t rgb;
	bool has_spot;
	spot_t spot;
	bool has_options;
	scan_options_t options;
	double eventType;
	eng_value_t callback;
	bool has_extra;
	eng_value_t extra;
} args_t;

static const glue_param_t spot_fields[] = {
	{"y", GLUE_NUMBER, GLUE_OPTIONAL | GLUE_HAS_DEFAULT, 0x7, 0, offsetof(spot_t, y),
	 offsetof(spot_t, has_y), 0, -1.0, 1.0, 0.5, NULL},
	{"x", GLUE_NUMBER, 0, 0x7, 0, offsetof(spot_t, x), GLUE_NO_HAS, 0, -1.0, 1.0, 0.0, NULL},
};
static const glue_record_t spot_record = {"Spot", spot_fields, 2, sizeof(spot_t)};

static const double channel_values[] = {37.0, 38.0, 39.0};
static const glue_numlist_t channel_list = {channel_values, 3};
static const glue_param_t scan_fields[] = {
	/* default [37, 39]: bits 0 and 2 */
	{"channels", GLUE_ONE_OF_EACH, GLUE_OPTIONAL | GLUE_HAS_DEFAULT, 0x7, 0,
	 offsetof(scan_options_t, channels), offsetof(scan_options_t, has_channels), 0, 0.0, 0.0,
	 5.0, &channel_list},
};
static const glue_record_t scan_record = {"ScanOptions", scan_fields, 1, sizeof(scan_options_t)};

static const glue_param_t color_params[] = {
	{"rgb", GLUE_NUM_TUPLE, 0, 0xff, 3, offsetof(args_t, rgb), GLUE_NO_HAS, 0, 0.0, 1.0, 0.0,
	 NULL},
};
static const glue_overload_t color_overloads[] = {{0x7, 1, 1, color_params}};
static const glue_function_t color_fn = {"t.color", color_overloads, 1, GLUE_NO_HAS};

static const glue_param_t mock_params[] = {
	{"spot", GLUE_RECORD, GLUE_NULLABLE, 0xff, 0, offsetof(args_t, spot),
	 offsetof(args_t, has_spot), 0, 0.0, 0.0, 0.0, &spot_record},
};
static const glue_overload_t mock_overloads[] = {{0x7, 1, 1, mock_params}};
static const glue_function_t mock_fn = {"t.mock", mock_overloads, 1, GLUE_NO_HAS};

static const glue_param_t scan_params[] = {
	{"options", GLUE_RECORD, GLUE_OPTIONAL, 0xff, 0, offsetof(args_t, options),
	 offsetof(args_t, has_options), 0, 0.0, 0.0, 0.0, &scan_record},
};
static const glue_overload_t scan_overloads[] = {{0x7, 1, 0, scan_params}};
static const glue_function_t scan_fn = {"t.scan", scan_overloads, 1, GLUE_NO_HAS};

/* t.on(callback | null) and t.on(eventType, callback, extra?), as sensors.imu.onMotion. */
static const glue_param_t on_params_0[] = {
	{"callback", GLUE_FUNCTION, GLUE_NULLABLE, 0xff, 0, offsetof(args_t, callback), GLUE_NO_HAS,
	 0, 0.0, 0.0, 0.0, NULL},
};
static const glue_param_t on_params_1[] = {
	{"eventType", GLUE_INTEGER, 0, 0xff, 0, offsetof(args_t, eventType), GLUE_NO_HAS, 1801, 0.0,
	 8.0, 0.0, NULL},
	{"callback", GLUE_FUNCTION, GLUE_NULLABLE, 0xff, 0, offsetof(args_t, callback), GLUE_NO_HAS,
	 0, 0.0, 0.0, 0.0, NULL},
	{"extra", GLUE_OBJECT, GLUE_OPTIONAL, 0xff, 0, offsetof(args_t, extra),
	 offsetof(args_t, has_extra), 1802, 0.0, 0.0, 0.0, NULL},
};
static const glue_overload_t on_overloads[] = {
	{0x7, 1, 1, on_params_0},
	{0x7, 3, 2, on_params_1},
};
static const glue_function_t on_fn = {"t.on", on_overloads, 2, offsetof(args_t, variant)};

/* ------------------------------------------------------------------ helpers */

static int setup(void **state)
{
	return test_device_up(API_V_0_2_6, 1024u * 1024u);
}

static int teardown(void **state)
{
	test_device_down();
	return 0;
}

static eng_value_t noop(const eng_call_t *call)
{
	return eng_undefined();
}

static eng_value_t numbers(int n, const double *v)
{
	eng_value_t a = eng_array((uint32_t)n);
	for (int i = 0; i < n; i++) {
		eng_value_t x = eng_number(v[i]);
		eng_set_index(a, (uint32_t)i, x);
		eng_release(x);
	}
	return a;
}

static eng_value_t object_with(const char *key, eng_value_t value)
{
	eng_value_t o = eng_object();
	eng_set(o, key, value);
	eng_release(value);
	return o;
}

static bool call(const glue_function_t *fn, args_t *args, eng_value_t *error, uint32_t argc,
		 const eng_value_t *argv)
{
	eng_call_t c = {eng_undefined(), argv, argc, NULL};
	memset(args, 0xA5, sizeof(*args)); /* anything the converter leaves unset stands out */
	return glue_convert(&c, fn, args, error);
}

/* The text of the refusal in *error (consumed), e.g. "TypeError: t.color: ...". */
static void refused_with(eng_value_t error, const char *kind, const char *text)
{
	assert_true(eng_is_exception(error));
	eng_value_t thrown = eng_exception_value(error);
	char buf[300];
	eng_describe(thrown, buf, sizeof(buf));
	eng_release(thrown);
	if (strncmp(buf, kind, strlen(kind)) != 0 || strstr(buf, text) == NULL) {
		fail_msg("refused with '%s', expected %s ... '%s'", buf, kind, text);
	}
}

/* ------------------------------------------------------------------ tests */

static void test_tuple(void **state)
{
	args_t args;
	eng_value_t error;
	eng_value_t argv[1];

	argv[0] = numbers(3, (const double[]){1.0, 0.0, 0.5});
	assert_true(call(&color_fn, &args, &error, 1, argv));
	assert_int_equal(args.rgb.len, 3);
	assert_true(args.rgb.item[0] == 1.0 && args.rgb.item[1] == 0.0 && args.rgb.item[2] == 0.5);
	eng_release(argv[0]);

	argv[0] = numbers(2, (const double[]){1.0, 0.0});
	assert_false(call(&color_fn, &args, &error, 1, argv));
	refused_with(error, "RangeError", "t.color: rgb must be an array of 3 numbers (got 2 items)");
	eng_release(argv[0]);

	argv[0] = numbers(3, (const double[]){1.0, 2.0, 0.0});
	assert_false(call(&color_fn, &args, &error, 1, argv));
	refused_with(error, "RangeError", "t.color: rgb[1] must be a number from 0 to 1 (got 2)");
	eng_release(argv[0]);

	argv[0] = numbers(3, (const double[]){1.0, 0.0, 0.0});
	eng_value_t text = eng_string_z("x");
	eng_set_index(argv[0], 2, text);
	eng_release(text);
	assert_false(call(&color_fn, &args, &error, 1, argv));
	refused_with(error, "TypeError", "t.color: rgb[2] must be a number (got 'x')");
	eng_release(argv[0]);

	argv[0] = eng_string_z("red");
	assert_false(call(&color_fn, &args, &error, 1, argv));
	refused_with(error, "TypeError", "t.color: rgb must be an array of 3 numbers (got 'red')");
	eng_release(argv[0]);
}

static void test_null_record_clears_has(void **state)
{
	args_t args;
	eng_value_t error;
	eng_value_t argv[1] = {eng_null()};

	assert_true(call(&mock_fn, &args, &error, 1, argv));
	assert_false(args.has_spot);
	/* the record is cleared and filled with its defaults, never left as garbage */
	assert_true(args.spot.x == 0.0 && args.spot.y == 0.5 && args.spot.has_y);

	argv[0] = object_with("x", eng_number(0.25));
	assert_true(call(&mock_fn, &args, &error, 1, argv));
	assert_true(args.has_spot && args.spot.x == 0.25 && args.spot.y == 0.5);
	eng_release(argv[0]);

	argv[0] = object_with("y", eng_number(1.0));
	assert_false(call(&mock_fn, &args, &error, 1, argv));
	refused_with(error, "TypeError", "t.mock: spot.x must be a number (got undefined)");
	eng_release(argv[0]);

	argv[0] = eng_undefined();
	assert_false(call(&mock_fn, &args, &error, 1, argv));
	refused_with(error, "TypeError", "t.mock: spot must be an object (got undefined)");
}

static void test_one_of_each_default_is_a_mask(void **state)
{
	args_t args;
	eng_value_t error;

	assert_true(call(&scan_fn, &args, &error, 0, NULL));
	assert_false(args.has_options);
	assert_true(args.options.has_channels);
	assert_int_equal(args.options.channels, 5u);

	eng_value_t argv[1] = {eng_object()};
	assert_true(call(&scan_fn, &args, &error, 1, argv));
	assert_true(args.has_options && args.options.has_channels);
	assert_int_equal(args.options.channels, 5u);
	eng_release(argv[0]);

	argv[0] = object_with("channels", numbers(1, (const double[]){38.0}));
	assert_true(call(&scan_fn, &args, &error, 1, argv));
	assert_int_equal(args.options.channels, 2u);
	eng_release(argv[0]);
}

static void test_declared_code_replaces_type_and_range_errors(void **state)
{
	args_t args;
	eng_value_t error;
	eng_value_t fn = eng_function(noop, NULL, "cb");
	eng_value_t argv[3] = {eng_number(9), fn, eng_undefined()};

	/* API 0.2.6 is installed: the error is the declared coded one (an Error with code ESR1801),
	 * not a RangeError. */
	assert_false(call(&on_fn, &args, &error, 2, argv));
	refused_with(error, "Error: ESR1801 Unsupported event",
		     "t.on: eventType must be a whole number from 0 to 8 (got 9)");

	/* (1, fn, 5) fits no form; the second fits best, so its error names the argument. */
	argv[0] = eng_number(1);
	argv[2] = eng_number(5);
	assert_false(call(&on_fn, &args, &error, 3, argv));
	refused_with(error, "Error: ESR1802 Bad event options", "t.on: extra must be an object (got 5)");

	argv[2] = eng_object();
	assert_true(call(&on_fn, &args, &error, 3, argv));
	assert_int_equal(args.variant, 1);
	assert_true(args.eventType == 1.0 && args.has_extra);
	eng_release(argv[2]);

	eng_value_t null_only[1] = {eng_null()};
	assert_true(call(&on_fn, &args, &error, 1, null_only));
	assert_int_equal(args.variant, 0);
	assert_int_equal(eng_typeof(args.callback), ENG_TYPE_NULL);

	/* One argument: only the first form takes one, so its error names the argument. */
	eng_value_t text[1] = {eng_string_z("tap")};
	assert_false(call(&on_fn, &args, &error, 1, text));
	refused_with(error, "TypeError", "t.on: callback must be a function or null (got 'tap')");
	eng_release(text[0]);
	eng_release(fn);
}

/* t.paint(rgb) and t.paint(name): two forms of one argument, as io.setLedColor. */
static const glue_param_t paint_params_0[] = {
	{"rgb", GLUE_NUM_TUPLE, 0, 0xff, 3, offsetof(args_t, rgb), GLUE_NO_HAS, 0, 0.0, 1.0, 0.0,
	 NULL},
};
static const glue_param_t paint_params_1[] = {
	{"name", GLUE_STRING, 0, 0xff, 0, offsetof(args_t, callback), GLUE_NO_HAS, 0, 0.0, 20.0,
	 0.0, NULL},
};
static const glue_overload_t paint_overloads[] = {
	{0x7, 1, 1, paint_params_0},
	{0x7, 1, 1, paint_params_1},
};
static const glue_function_t paint_fn = {"t.paint", paint_overloads, 2, offsetof(args_t, variant)};

static void test_overloads_by_arity(void **state)
{
	args_t args;
	eng_value_t error;
	eng_value_t fn = eng_function(noop, NULL, "cb");

	/* Two forms take one argument and neither fits: the message lists what was passed. */
	eng_value_t five[1] = {eng_number(5)};
	assert_false(call(&paint_fn, &args, &error, 1, five));
	refused_with(error, "TypeError", "t.paint: no form of this function takes (5)");

	/* A form that fits wins whatever its place; the variant says which. */
	eng_value_t red[1] = {eng_string_z("red")};
	assert_true(call(&paint_fn, &args, &error, 1, red));
	assert_int_equal(args.variant, 1);

	/* No form takes two arguments: the extra one is ignored, as JavaScript does (and as a
	 * function with one form always does). */
	eng_value_t two[2] = {red[0], numbers(3, (const double[]){1.0, 0.0, 0.0})};
	assert_true(call(&paint_fn, &args, &error, 2, two));
	assert_int_equal(args.variant, 1);
	assert_true(call(&color_fn, &args, &error, 2, (eng_value_t[]){two[1], red[0]}));

	/* But a shorter form does not fit when a form takes all the arguments given: (fn, 'x') is
	 * not t.on(fn). Only the second form takes two, so it says what is wrong, with the code its
	 * declaration gives. */
	eng_value_t swapped[2] = {fn, eng_string_z("x")};
	assert_false(call(&on_fn, &args, &error, 2, swapped));
	refused_with(error, "Error: ESR1801 Unsupported event", "t.on: eventType must be a number (got a function)");

	eng_release(swapped[1]);
	eng_release(two[1]);
	eng_release(red[0]);
	eng_release(fn);
}

/* ------------------------------------------------------------------ the generated glue
 *
 * Advertiser handles and ble.startScan have no behaviour yet, so no app can see what their
 * generated bindings hand the runtime. The link swaps the runtime's functions for the recorders
 * below (-Wl,--wrap, see tests.cmake); the calls go through the real namespace and handle objects
 * glue_install makes, as an app's calls do. */

static struct {
	int calls;
	double power;
	double interval;
	rt_ble_startScan_args_t scan;
} seen;

eng_value_t __wrap_rt_advertiser_power(struct rt_advertiser *self, eng_value_t this_value,
				       const rt_advertiser_power_args_t *args);
eng_value_t __wrap_rt_advertiser_interval(struct rt_advertiser *self, eng_value_t this_value,
					  const rt_advertiser_interval_args_t *args);
eng_value_t __wrap_rt_ble_startScan(const rt_ble_startScan_args_t *args);

eng_value_t __wrap_rt_advertiser_power(struct rt_advertiser *self, eng_value_t this_value,
				       const rt_advertiser_power_args_t *args)
{
	seen.calls++;
	seen.power = args->power;
	return eng_undefined();
}

eng_value_t __wrap_rt_advertiser_interval(struct rt_advertiser *self, eng_value_t this_value,
					  const rt_advertiser_interval_args_t *args)
{
	seen.calls++;
	seen.interval = args->interval;
	return eng_undefined();
}

eng_value_t __wrap_rt_ble_startScan(const rt_ble_startScan_args_t *args)
{
	seen.calls++;
	seen.scan = *args;
	return eng_undefined();
}

/* The record behind the handles: the recorders never look at it, but the handle type's finalizer
 * (the runtime's) clears it when the handle is collected, so it must be a whole one. */
static struct rt_advertiser advertiser_record;

/* Call handle.method(arg) as an app does; returns the result or the exception. */
static eng_value_t call_method(eng_value_t handle, const char *method, eng_value_t arg)
{
	eng_value_t fn = eng_get(handle, method);
	assert_int_equal(eng_typeof(fn), ENG_TYPE_FUNCTION);
	eng_value_t r = eng_call(fn, handle, &arg, 1);
	eng_release(fn);
	return r;
}

static void test_advertiser_power_snaps_down(void **state)
{
	eng_value_t adv = rt_handle_new(API_PROTO_Advertiser, &advertiser_record);
	/* The spec's example (7 becomes 4), the allowed values themselves, and values between. */
	static const struct {
		double given, snapped;
	} snaps[] = {
		{7, 4}, {4, 4}, {20, 20}, {19.5, 8}, {-40, -40}, {-39.5, -40}, {-5, -8},
		{-4, -4}, {0.5, 0}, {-0.0, 0}, {8, 8}, {-17, -20},
	};
	for (size_t i = 0; i < sizeof(snaps) / sizeof(snaps[0]); i++) {
		seen.calls = 0;
		eng_value_t r = call_method(adv, "power", eng_number(snaps[i].given));
		if (eng_is_exception(r) || seen.calls != 1 || seen.power != snaps[i].snapped) {
			fail_msg("power(%g): expected %g, got %g (%d calls)", snaps[i].given,
				 snaps[i].snapped, seen.power, seen.calls);
		}
	}
	seen.calls = 0;
	refused_with(call_method(adv, "power", eng_number(21)), "RangeError",
		     "Advertiser.power: power must be a number from -40 to 20 (got 21)");
	refused_with(call_method(adv, "power", eng_number(-41)), "RangeError",
		     "Advertiser.power: power must be a number from -40 to 20 (got -41)");
	refused_with(call_method(adv, "power", eng_number(NAN)), "TypeError",
		     "Advertiser.power: power must be a number (got NaN)");
	refused_with(call_method(adv, "power", eng_string_z("4")), "TypeError",
		     "Advertiser.power: power must be a number (got '4')");
	assert_int_equal(seen.calls, 0);

	eng_value_t plain = eng_object();
	eng_value_t power = eng_get(adv, "power");
	eng_value_t four = eng_number(4);
	refused_with(eng_call(power, plain, &four, 1), "TypeError",
		     "Advertiser.power: called on an object that is not a");
	eng_release(power);
	eng_release(plain);
	eng_release(adv);
}

static void test_advertiser_interval(void **state)
{
	eng_value_t adv = rt_handle_new(API_PROTO_Advertiser, &advertiser_record);
	eng_value_t r = call_method(adv, "interval", eng_string_z("1s"));
	assert_false(eng_is_exception(r));
	assert_true(seen.interval == 1000.0);
	r = call_method(adv, "interval", eng_number(100));
	assert_false(eng_is_exception(r));
	assert_true(seen.interval == 100.0);
	refused_with(call_method(adv, "interval", eng_number(99)), "RangeError",
		     "Advertiser.interval: interval must be an interval in ms of at least 100 (got 99)");
	refused_with(call_method(adv, "interval", eng_string_z("soon")), "TypeError",
		     "Advertiser.interval: interval must be an interval such as");
	refused_with(call_method(adv, "interval", eng_undefined()), "TypeError",
		     "Advertiser.interval: interval must be a number of ms");
	eng_release(adv);
}

/* The methods of an advertiser in each version, as the spec's handle table gives them. */
static void test_advertiser_methods_per_version(void **state)
{
	static const struct {
		const char *name;
		uint8_t versions; /* bit i: version i (0.0.9, 0.1.5, 0.2.6) */
	} methods[] = {
		{"stop", 0x7}, {"pause", 0x4}, {"resume", 0x4}, {"interval", 0x7}, {"power", 0x7},
	};
	for (int v = 0; v < API_VERSION_COUNT; v++) {
		assert_int_equal(test_device_up(v, 1024u * 1024u), 0);
		eng_value_t adv = rt_handle_new(API_PROTO_Advertiser, &advertiser_record);
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
			eng_value_t m = eng_get(adv, methods[i].name);
			bool present = eng_typeof(m) == ENG_TYPE_FUNCTION;
			if (present != ((methods[i].versions >> v & 1u) != 0)) {
				fail_msg("advertiser.%s in %s: %s", methods[i].name, glue_api.versions[v],
					 present ? "present" : "missing");
			}
			eng_release(m);
		}
		eng_release(adv);
		test_device_down();
	}
}

static eng_value_t start_scan(const char *options_js)
{
	static const char head[] = "ble.startScan(function () {}, 1000";
	char source[256];
	snprintf(source, sizeof(source), "%s%s%s)", head, options_js ? ", " : "",
		 options_js ? options_js : "");
	seen.calls = 0;
	memset(&seen.scan, 0xA5, sizeof(seen.scan));
	return eng_eval(source, strlen(source), "scan.js");
}

static void test_scan_channels(void **state)
{
	/* No options: the record is absent, its fields hold their defaults (all three channels). */
	assert_false(eng_is_exception(start_scan(NULL)));
	assert_int_equal(seen.calls, 1);
	assert_false(seen.scan.has_options);
	assert_int_equal(seen.scan.options.channels, 7u);
	assert_true(seen.scan.options.interval == 150.0 && seen.scan.options.window == 100.0);

	/* Channels are a bit mask, bit i for the i-th of 37, 38, 39, in any order given. */
	assert_false(eng_is_exception(start_scan("{channels: [39, 37], window: '50ms'}")));
	assert_true(seen.scan.has_options && seen.scan.options.has_channels);
	assert_int_equal(seen.scan.options.channels, 5u);
	assert_true(seen.scan.options.window == 50.0 && seen.scan.options.interval == 150.0);
	assert_false(eng_is_exception(start_scan("{channels: [38, 38]}")));
	assert_int_equal(seen.scan.options.channels, 2u);

	seen.calls = 0;
	refused_with(start_scan("{channels: []}"), "RangeError",
		     "ble.startScan: options.channels must be a non-empty array of values from 37, 38, 39");
	refused_with(start_scan("{channels: [37, 40]}"), "RangeError",
		     "ble.startScan: options.channels must be an array of values from 37, 38, 39 (got 40)");
	refused_with(start_scan("{channels: ['37']}"), "RangeError",
		     "ble.startScan: options.channels must be an array of values from 37, 38, 39 (got '37')");
	refused_with(start_scan("{channels: 37}"), "TypeError",
		     "ble.startScan: options.channels must be an array (got 37)");
	assert_int_equal(seen.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tuple, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_record_clears_has, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_of_each_default_is_a_mask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_declared_code_replaces_type_and_range_errors,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_overloads_by_arity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_advertiser_power_snaps_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_advertiser_interval, setup, teardown),
		cmocka_unit_test(test_advertiser_methods_per_version),
		cmocka_unit_test_setup_teardown(test_scan_channels, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

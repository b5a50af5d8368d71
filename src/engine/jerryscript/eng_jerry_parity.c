/*
 * eng_jerry_parity.c: the built-ins JerryScript 3.0 gets from the engine layer, so that both
 * engines behave the same and as the specification says (see eng_duk_parity.c for Duktape's).
 *
 * - Math.random: JerryScript's calls the C library's rand(), which nobody seeds: the same
 *   sequence after every boot and on every device. The engine's rand() is replaced at link time
 *   (-Wl,--wrap=rand, jerryscript.cmake) by eng_random.h's generator, seeded once per engine
 *   instance from the port (the hardware's entropy on a device); JerryScript's own Math.random
 *   stays, so no function object is added to the heap for it.
 * - Number.prototype.toFixed, toExponential, toPrecision, toString: JerryScript rounds the
 *   shortest decimal form instead of the exact value and stops at 17 digits
 *   (eng_number_format.h).
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "eng_jerry_internal.h"
#include "eng_number_format.h"
#include "eng_random.h"

/* rand() as JerryScript's Math.random calls it: 31 bits of the instance's generator (the
 * engine's formula over RAND_MAX is reproduced on Duktape, eng_duk_parity.c). */
int __wrap_rand(void);

int __wrap_rand(void)
{
	return (int)eng_random_u31(&eng_jerry->random);
}

/* thisNumberValue into *x; a TypeError, or undefined. */
static jerry_value_t this_number(const jerry_call_info_t *call, double *x)
{
	if (jerry_value_is_number(call->this_value)) {
		*x = jerry_value_as_number(call->this_value);
		return jerry_undefined();
	}
	jerry_value_t v = jerry_call(eng_jerry->intrinsics.number_value_of, call->this_value, NULL, 0);
	if (jerry_value_is_exception(v)) {
		/* Worded as on Duktape (eng_duk_parity.c), not as JerryScript's valueOf words it. */
		jerry_value_free(v);
		return jerry_throw_sz(JERRY_ERROR_TYPE,
				      "Number.prototype method called on a value that is not a number");
	}
	*x = jerry_value_as_number(v);
	jerry_value_free(v);
	return jerry_undefined();
}

/* ToIntegerOrInfinity of args[0] (undefined when absent) into *out. */
static jerry_value_t arg_integer(const jerry_value_t args[], jerry_length_t argc, double *out)
{
	if (argc == 0 || jerry_value_is_undefined(args[0])) {
		*out = 0;
		return jerry_undefined();
	}
	jerry_value_t n = jerry_value_to_number(args[0]);
	if (jerry_value_is_exception(n)) {
		return n;
	}
	double v = jerry_value_as_number(n);
	jerry_value_free(n);
	*out = isnan(v) ? 0 : v < 0 ? ceil(v) : floor(v);
	return jerry_undefined();
}

static jerry_value_t number_string(double x)
{
	jerry_value_t n = jerry_number(x);
	jerry_value_t s = jerry_value_to_string(n);
	jerry_value_free(n);
	return s;
}

static bool arg_absent(const jerry_value_t args[], jerry_length_t argc)
{
	return argc == 0 || jerry_value_is_undefined(args[0]);
}

#define TRY(expr)                                                                                  \
	do {                                                                                       \
		jerry_value_t _r = (expr);                                                         \
		if (jerry_value_is_exception(_r)) {                                                \
			return _r;                                                                 \
		}                                                                                  \
	} while (0)

static jerry_value_t parity_to_fixed(const jerry_call_info_t *call, const jerry_value_t args[],
				     const jerry_length_t argc)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x, f;

	TRY(this_number(call, &x));
	TRY(arg_integer(args, argc, &f));
	if (!(f >= 0 && f <= 100)) {
		return jerry_throw_sz(JERRY_ERROR_RANGE, "toFixed() digits argument must be between 0 and 100");
	}
	if (!isfinite(x) || fabs(x) >= 1e21) {
		return number_string(x);
	}
	eng_format_fixed(x, (int)f, buf);
	return jerry_string_sz(buf);
}

static jerry_value_t parity_to_exponential(const jerry_call_info_t *call,
					   const jerry_value_t args[], const jerry_length_t argc)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	char shortest[64];
	double x, f;

	TRY(this_number(call, &x));
	bool as_needed = arg_absent(args, argc);
	TRY(arg_integer(args, argc, &f));
	if (!isfinite(x)) {
		return number_string(x);
	}
	if (!(f >= 0 && f <= 100)) {
		return jerry_throw_sz(JERRY_ERROR_RANGE, "toExponential() argument must be between 0 and 100");
	}
	jerry_value_t s = number_string(fabs(x));
	jerry_size_t n = jerry_string_to_buffer(s, JERRY_ENCODING_UTF8, (jerry_char_t *)shortest,
						sizeof(shortest) - 1u);
	jerry_value_free(s);
	shortest[n] = '\0';
	eng_format_exponential(x, as_needed ? -1 : (int)f, shortest, buf);
	return jerry_string_sz(buf);
}

static jerry_value_t parity_to_precision(const jerry_call_info_t *call, const jerry_value_t args[],
					 const jerry_length_t argc)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x, p;

	TRY(this_number(call, &x));
	if (arg_absent(args, argc)) {
		return number_string(x);
	}
	TRY(arg_integer(args, argc, &p));
	if (!isfinite(x)) {
		return number_string(x);
	}
	if (!(p >= 1 && p <= 100)) {
		return jerry_throw_sz(JERRY_ERROR_RANGE, "toPrecision() argument must be between 1 and 100");
	}
	eng_format_precision(x, (int)p, buf);
	return jerry_string_sz(buf);
}

static jerry_value_t parity_to_string(const jerry_call_info_t *call, const jerry_value_t args[],
				      const jerry_length_t argc)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x, radix = 10;

	TRY(this_number(call, &x));
	if (!arg_absent(args, argc)) {
		TRY(arg_integer(args, argc, &radix));
	}
	if (!(radix >= 2 && radix <= 36)) {
		return jerry_throw_sz(JERRY_ERROR_RANGE, "toString() radix must be between 2 and 36");
	}
	if (radix == 10 || !isfinite(x)) {
		return number_string(x);
	}
	eng_format_radix(x, (int)radix, buf);
	return jerry_string_sz(buf);
}

/* Replace a built-in method: writable, configurable, not enumerable, as the built-in it
 * replaces. Its own name and length are left out: 160 bytes of the device's 64 KB heap for six
 * functions, which the tightest apps need (the replacement reads "" and 0 for them, on both
 * engines). */
static void replace_method(jerry_value_t object, const char *name, jerry_external_handler_t fn)
{
	jerry_value_t function = jerry_function_external(fn);
	jerry_property_descriptor_t desc = {
		.flags = JERRY_PROP_IS_VALUE_DEFINED | JERRY_PROP_IS_WRITABLE_DEFINED |
			 JERRY_PROP_IS_ENUMERABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE_DEFINED |
			 JERRY_PROP_IS_CONFIGURABLE,
		.getter = jerry_undefined(),
		.setter = jerry_undefined(),
	};
	jerry_value_t key;

	desc.flags |= JERRY_PROP_IS_WRITABLE;
	desc.value = function;
	key = jerry_string_sz(name);
	jerry_value_free(jerry_object_define_own_prop(object, key, &desc));
	jerry_value_free(key);
	jerry_value_free(function);
}

static jerry_value_t get_sz(jerry_value_t object, const char *name)
{
	jerry_value_t key = jerry_string_sz(name);
	jerry_value_t v = jerry_object_get(object, key);
	jerry_value_free(key);
	return v;
}

void eng_jerry_parity_setup(void)
{
	jerry_value_t global = jerry_current_realm();
	jerry_value_t number = get_sz(global, "Number");
	jerry_value_t proto = get_sz(number, "prototype");

	eng_random_seed_from_port(&eng_jerry->random);
	eng_jerry->intrinsics.number_value_of = get_sz(proto, "valueOf");
	replace_method(proto, "toFixed", parity_to_fixed);
	replace_method(proto, "toExponential", parity_to_exponential);
	replace_method(proto, "toPrecision", parity_to_precision);
	replace_method(proto, "toString", parity_to_string);
	jerry_value_free(proto);
	jerry_value_free(number);
	jerry_value_free(global);
}

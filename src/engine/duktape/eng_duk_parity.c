/*
 * eng_duk_parity.c: where Duktape 2.7 behaves differently from JerryScript 3.0 (the device's
 * engine), the built-ins that make it behave the same, installed in every new heap.
 *
 * Why in the engine layer rather than as polyfills in packages: every package gets them, those
 * built before included, at no cost in package size, as native code; and the simulator's
 * determinism does not depend on what a package carries. What each one fixes:
 *
 * - Array.prototype.sort: Duktape's is a quicksort with random pivots (neither stable nor the same
 *   on two runs). This is JerryScript's algorithm, step for step: the own index properties are
 *   read in index order, sorted by a bottom-up merge sort that takes the left element when the
 *   comparison is <= 0 (so it is stable, and an inconsistent comparator, a comparator that
 *   returns NaN or booleans, or one with side effects sees the same calls in the same order),
 *   undefined values last, holes after them.
 * - Math.random: Duktape seeds its own generator from the time and the heap's address. This one is
 *   eng_random.h's, seeded by the port (the world's seed in the simulator), with JerryScript's
 *   formula over it, so both engines draw the same numbers.
 * - Number.prototype.toFixed, toExponential, toPrecision, toString: eng_number_format.h.
 * - String.fromCharCode: Duktape keeps code points above 0xFFFF whole; ES converts each argument
 *   with ToUint16.
 * - Function.prototype.toString: packages hold bytecode, so neither engine has the source; this
 *   writes JerryScript's text (a script function's body is the comment "ecmascript", natives and
 *   bound functions read "function () { [native code] }") where Duktape writes
 *   "[ecmascript code]" and names natives.
 * - Date.prototype.toString, toUTCString, toDateString, toTimeString and the toLocale* ones:
 *   Duktape writes ISO-like text ("2024-02-29 13:05:09.007+00:00"); these write ES2018's forms
 *   as JerryScript does ("Thu Feb 29 2024 13:05:09 GMT+0000", "Thu, 29 Feb 2024 13:05:09 GMT"),
 *   local time being UTC on the device.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "eng_duk.h"
#include "eng_duk_ext.h"
#include "eng_number_format.h"
#include "eng_random.h"

/* ------------------------------------------------------------------ Math.random */

static duk_ret_t parity_random(duk_context *ctx)
{
	duk_push_number(ctx, eng_random_math(&eng_duk->random));
	return 1;
}

/* ------------------------------------------------------------------ Array.prototype.sort */

typedef struct {
	duk_idx_t compare; /* the comparator's index, or -1 for the default order */
	duk_idx_t values;  /* the array of the values being sorted */
} sort_ctx_t;

/* ToString both and compare as JerryScript does: by code units (CESU-8 bytes order alike). */
static int compare_strings(duk_context *ctx)
{
	duk_size_t la, lb;
	const char *a = duk_to_lstring(ctx, -2, &la);
	const char *b = duk_to_lstring(ctx, -1, &lb);
	int c = memcmp(a, b, la < lb ? la : lb);

	if (c == 0) {
		c = la < lb ? -1 : la > lb ? 1 : 0;
	}
	return c;
}

/* JerryScript's comparison of two values being sorted: undefined after everything else; the
 * comparator's result as a number (NaN included), or the string order. */
static double sort_compare(duk_context *ctx, const sort_ctx_t *s, uint32_t a, uint32_t b)
{
	double result;

	duk_get_prop_index(ctx, s->values, a);
	duk_get_prop_index(ctx, s->values, b);
	bool a_undef = duk_is_undefined(ctx, -2), b_undef = duk_is_undefined(ctx, -1);
	if (a_undef || b_undef) {
		duk_pop_2(ctx);
		return a_undef ? (b_undef ? 0 : 1) : -1;
	}
	if (s->compare < 0) {
		/* ToString of the left value first, then of the right one. */
		duk_to_string(ctx, -2);
		duk_to_string(ctx, -1);
		result = compare_strings(ctx);
		duk_pop_2(ctx);
		return result;
	}
	duk_dup(ctx, s->compare);
	duk_insert(ctx, -3);
	duk_push_undefined(ctx);
	duk_insert(ctx, -3);
	duk_call_method(ctx, 2);
	result = duk_to_number(ctx, -1);
	duk_pop(ctx);
	return result;
}

/* One pass of the bottom-up merge: runs [left, right) and [right, end) of from into to. */
static void sort_merge(duk_context *ctx, const sort_ctx_t *s, const uint32_t *from, uint32_t *to,
		       uint32_t left, uint32_t right, uint32_t end)
{
	uint32_t i = left, j = right;

	for (uint32_t k = left; k < end; k++) {
		double c = 0;
		if (i < right && j < end) {
			c = sort_compare(ctx, s, from[i], from[j]);
		}
		if (i < right && c <= 0) {
			to[k] = from[i++];
		} else {
			to[k] = from[j++];
		}
	}
}

static duk_ret_t parity_sort(duk_context *ctx)
{
	sort_ctx_t s = { -1, -1 };

	if (!duk_is_undefined(ctx, 0)) {
		if (!duk_is_callable(ctx, 0)) {
			return duk_type_error(ctx, "Compare function is not callable");
		}
		s.compare = 0;
	}
	duk_push_this(ctx);
	duk_idx_t this_idx = duk_get_top_index(ctx);
	duk_dup(ctx, this_idx);
	duk_to_object(ctx, -1);
	duk_idx_t obj = duk_get_top_index(ctx);
	duk_get_prop_string(ctx, obj, "length");
	double dlen = duk_to_number(ctx, -1);
	duk_pop(ctx);
	uint32_t len = !(dlen > 0) ? 0 : dlen >= 4294967295.0 ? 4294967295u : (uint32_t)dlen;

	/* The own index properties, in index order (holes and inherited ones are not sorted): counted,
	 * then listed in a buffer of exactly that many. */
	uint32_t count = 0;
	for (uint32_t i = 0; i < len; i++) {
		count += eng_duk_has_own_index(ctx, obj, i) ? 1u : 0u;
	}
	uint32_t *indices = duk_push_fixed_buffer(ctx, (duk_size_t)count * sizeof(uint32_t) + 1u);
	for (uint32_t i = 0, k = 0; i < len && k < count; i++) {
		if (eng_duk_has_own_index(ctx, obj, i)) {
			indices[k++] = i;
		}
	}
	/* Their values, read in that order (getters run here), into an array that is garbage once
	 * the sort returns (the value stack would keep its grown size). */
	duk_push_array(ctx);
	s.values = duk_get_top_index(ctx);
	for (uint32_t k = 0; k < count; k++) {
		duk_get_prop_index(ctx, obj, indices[k]);
		duk_put_prop_index(ctx, s.values, k);
	}
	if (count > 1) {
		/* Sort positions into the values: two arrays of count that swap roles per width. */
		uint32_t *a = duk_push_fixed_buffer(ctx, (duk_size_t)count * 2u * sizeof(uint32_t));
		uint32_t *b = a + count;
		for (uint32_t k = 0; k < count; k++) {
			a[k] = k;
		}
		for (uint32_t w = 1; w < count; w *= 2u) {
			for (uint32_t i = 0; i < count; i += 2u * w) {
				uint32_t r = i + w < count ? i + w : count;
				uint32_t e = i + 2u * w < count ? i + 2u * w : count;
				sort_merge(ctx, &s, a, b, i, r, e);
			}
			uint32_t *t = a;
			a = b;
			b = t;
		}
		/* The sorted values first (a holds the order after the last pass)... */
		for (uint32_t k = 0; k < count; k++) {
			duk_get_prop_index(ctx, s.values, a[k]);
			duk_put_prop_index(ctx, obj, k);
		}
	} else if (count == 1) {
		duk_get_prop_index(ctx, s.values, 0);
		duk_put_prop_index(ctx, obj, 0);
	}
	/* ...then the holes: own indices at or past count are deleted. */
	for (uint32_t k = 0; k < count; k++) {
		if (indices[k] >= count && indices[k] < len) {
			duk_del_prop_index(ctx, obj, indices[k]);
		}
	}
	duk_dup(ctx, this_idx);
	return 1;
}

/* ------------------------------------------------------------------ Number.prototype */

/* thisNumberValue: a number, or a Number object through the original valueOf; anything else is
 * a TypeError worded as on JerryScript (eng_jerry_parity.c). */
#define NOT_A_NUMBER "Number.prototype method called on a value that is not a number"

static double this_number(duk_context *ctx)
{
	duk_push_this(ctx);
	if (!duk_is_number(ctx, -1)) {
		duk_push_heapptr(ctx, eng_duk->fn_number_value_of);
		duk_insert(ctx, -2);
		if (duk_pcall_method(ctx, 0) != DUK_EXEC_SUCCESS) {
			(void)duk_type_error(ctx, NOT_A_NUMBER);
		}
	}
	double x = duk_get_number(ctx, -1);
	duk_pop(ctx);
	return x;
}

/* ToIntegerOrInfinity */
static double to_integer(duk_context *ctx, duk_idx_t idx)
{
	double v = duk_to_number(ctx, idx);
	return isnan(v) ? 0 : v < 0 ? ceil(v) : floor(v);
}

static duk_ret_t push_number_string(duk_context *ctx, double x)
{
	duk_push_number(ctx, x);
	duk_to_string(ctx, -1);
	return 1;
}

static duk_ret_t parity_to_fixed(duk_context *ctx)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x = this_number(ctx);
	double f = to_integer(ctx, 0);

	if (!(f >= 0 && f <= 100)) {
		return duk_range_error(ctx, "toFixed() digits argument must be between 0 and 100");
	}
	if (!isfinite(x) || fabs(x) >= 1e21) {
		return push_number_string(ctx, x);
	}
	eng_format_fixed(x, (int)f, buf);
	duk_push_string(ctx, buf);
	return 1;
}

static duk_ret_t parity_to_exponential(duk_context *ctx)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x = this_number(ctx);
	bool shortest = duk_is_undefined(ctx, 0);
	double f = to_integer(ctx, 0);

	if (!isfinite(x)) {
		return push_number_string(ctx, x);
	}
	if (!(f >= 0 && f <= 100)) {
		return duk_range_error(ctx, "toExponential() argument must be between 0 and 100");
	}
	duk_push_number(ctx, fabs(x));
	eng_format_exponential(x, shortest ? -1 : (int)f, duk_to_string(ctx, -1), buf);
	duk_push_string(ctx, buf);
	return 1;
}

static duk_ret_t parity_to_precision(duk_context *ctx)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x = this_number(ctx);

	if (duk_is_undefined(ctx, 0)) {
		return push_number_string(ctx, x);
	}
	double p = to_integer(ctx, 0);
	if (!isfinite(x)) {
		return push_number_string(ctx, x);
	}
	if (!(p >= 1 && p <= 100)) {
		return duk_range_error(ctx, "toPrecision() argument must be between 1 and 100");
	}
	eng_format_precision(x, (int)p, buf);
	duk_push_string(ctx, buf);
	return 1;
}

static duk_ret_t parity_to_string(duk_context *ctx)
{
	char buf[ENG_NUMBER_FORMAT_MAX];
	double x = this_number(ctx);
	double radix = duk_is_undefined(ctx, 0) ? 10 : to_integer(ctx, 0);

	if (!(radix >= 2 && radix <= 36)) {
		return duk_range_error(ctx, "toString() radix must be between 2 and 36");
	}
	if (radix == 10 || !isfinite(x)) {
		return push_number_string(ctx, x);
	}
	eng_format_radix(x, (int)radix, buf);
	duk_push_string(ctx, buf);
	return 1;
}

/* ------------------------------------------------------------------ String.fromCharCode */

static duk_ret_t parity_from_char_code(duk_context *ctx)
{
	duk_idx_t n = duk_get_top(ctx);

	for (duk_idx_t i = 0; i < n; i++) {
		uint16_t unit = (uint16_t)duk_to_uint32(ctx, i);
		duk_push_number(ctx, unit);
		duk_replace(ctx, i);
	}
	/* The original, now with code units only. */
	duk_push_heapptr(ctx, eng_duk->fn_from_char_code);
	duk_insert(ctx, 0);
	duk_push_undefined(ctx);
	duk_insert(ctx, 1);
	duk_call_method(ctx, n);
	return 1;
}

/* ------------------------------------------------------------------ Date.prototype.to*String */

enum { DATE_FULL, DATE_UTC, DATE_DATE, DATE_TIME };

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static duk_ret_t date_text(duk_context *ctx, int form)
{
	static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	double t;
	char buf[80];

	duk_push_this(ctx);
	if (!eng_duk_date_value(ctx, -1, &t)) {
		return duk_type_error(ctx, "Argument 'this' is not a Date object");
	}
	if (isnan(t)) {
		duk_push_string(ctx, "Invalid Date");
		return 1;
	}
	int64_t ms = (int64_t)t;
	int64_t day = floor_div(ms, 86400000);
	int64_t in_day = ms - day * 86400000;
	int weekday = (int)(((day % 7) + 11) % 7); /* 1970-01-01 was a Thursday */
	/* Civil date from days since 1970 (Howard Hinnant's days_from_civil, inverted). */
	int64_t z = day + 719468;
	int64_t era = floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t year = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	int month = (int)(mp < 10 ? mp + 3 : mp - 9);
	if (month <= 2) {
		year++;
	}
	int hh = (int)(in_day / 3600000), mm = (int)(in_day / 60000 % 60), ss = (int)(in_day / 1000 % 60);
	const char *sign = year < 0 ? "-" : "";
	long long ay = year < 0 ? -year : year;

	switch (form) {
	case DATE_UTC:
		snprintf(buf, sizeof(buf), "%s, %02d %s %s%04lld %02d:%02d:%02d GMT", days[weekday], mday,
			 months[month - 1], sign, ay, hh, mm, ss);
		break;
	case DATE_DATE:
		snprintf(buf, sizeof(buf), "%s %s %02d %s%04lld", days[weekday], months[month - 1], mday,
			 sign, ay);
		break;
	case DATE_TIME:
		snprintf(buf, sizeof(buf), "%02d:%02d:%02d GMT+0000", hh, mm, ss);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s %s %02d %s%04lld %02d:%02d:%02d GMT+0000", days[weekday],
			 months[month - 1], mday, sign, ay, hh, mm, ss);
		break;
	}
	duk_push_string(ctx, buf);
	return 1;
}

static duk_ret_t parity_date_string(duk_context *ctx)
{
	return date_text(ctx, DATE_FULL);
}

static duk_ret_t parity_date_utc(duk_context *ctx)
{
	return date_text(ctx, DATE_UTC);
}

static duk_ret_t parity_date_date(duk_context *ctx)
{
	return date_text(ctx, DATE_DATE);
}

static duk_ret_t parity_date_time(duk_context *ctx)
{
	return date_text(ctx, DATE_TIME);
}

/* ------------------------------------------------------------------ Function.prototype.toString */

static duk_ret_t parity_function_to_string(duk_context *ctx)
{
	duk_push_this(ctx);
	if (!duk_is_function(ctx, -1)) {
		return duk_type_error(ctx, "Function.prototype.toString called on a value that is not a function");
	}
	bool script = duk_is_ecmascript_function(ctx, -1) && !duk_is_bound_function(ctx, -1);
	duk_push_string(ctx, script ? "function () { /* ecmascript */ }" : "function () { [native code] }");
	return 1;
}

/* ------------------------------------------------------------------ installation */

/* Replace a built-in method, keeping its attributes (writable, configurable, not enumerable),
 * with the name and length it has on JerryScript: its own where JerryScript keeps its built-in,
 * "" and 0 (named false) for the Number.prototype methods eng_jerry_parity.c replaces without
 * them, to save the device's heap. */
static void replace_method(duk_context *ctx, duk_idx_t object, const char *name, duk_c_function fn,
			   duk_int_t nargs, duk_int_t length)
{
	bool named = length >= 0;
	object = duk_require_normalize_index(ctx, object);
	duk_push_string(ctx, name);
	duk_push_c_function(ctx, fn, nargs);
	if (named) {
		duk_push_string(ctx, "name");
		duk_push_string(ctx, name);
		duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
	} else {
		length = 0;
	}
	duk_push_string(ctx, "length");
	duk_push_int(ctx, length);
	duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_CONFIGURABLE);
	duk_def_prop(ctx, object, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE | DUK_DEFPROP_SET_WRITABLE |
					  DUK_DEFPROP_SET_CONFIGURABLE | DUK_DEFPROP_CLEAR_ENUMERABLE);
}

void eng_duk_parity_setup(duk_context *ctx, duk_idx_t stash)
{
	duk_get_global_string(ctx, "Math");
	replace_method(ctx, -1, "random", parity_random, 0, 0);
	duk_pop(ctx);

	duk_get_global_string(ctx, "Array");
	duk_get_prop_string(ctx, -1, "prototype");
	replace_method(ctx, -1, "sort", parity_sort, 1, 1);
	duk_pop_2(ctx);

	duk_get_global_string(ctx, "Number");
	duk_get_prop_string(ctx, -1, "prototype");
	duk_get_prop_string(ctx, -1, "valueOf");
	eng_duk->fn_number_value_of = duk_get_heapptr(ctx, -1);
	duk_put_prop_string(ctx, stash, "numberValueOf");
	replace_method(ctx, -1, "toFixed", parity_to_fixed, 1, -1);
	replace_method(ctx, -1, "toExponential", parity_to_exponential, 1, -1);
	replace_method(ctx, -1, "toPrecision", parity_to_precision, 1, -1);
	replace_method(ctx, -1, "toString", parity_to_string, 1, -1);
	duk_pop_2(ctx);

	duk_get_global_string(ctx, "Function");
	duk_get_prop_string(ctx, -1, "prototype");
	replace_method(ctx, -1, "toString", parity_function_to_string, 0, 0);
	duk_pop_2(ctx);

	duk_get_global_string(ctx, "Date");
	duk_get_prop_string(ctx, -1, "prototype");
	replace_method(ctx, -1, "toString", parity_date_string, 0, 0);
	replace_method(ctx, -1, "toLocaleString", parity_date_string, 0, 0);
	replace_method(ctx, -1, "toUTCString", parity_date_utc, 0, 0);
	replace_method(ctx, -1, "toDateString", parity_date_date, 0, 0);
	replace_method(ctx, -1, "toLocaleDateString", parity_date_date, 0, 0);
	replace_method(ctx, -1, "toTimeString", parity_date_time, 0, 0);
	replace_method(ctx, -1, "toLocaleTimeString", parity_date_time, 0, 0);
	duk_pop_2(ctx);

	duk_get_global_string(ctx, "String");
	duk_get_prop_string(ctx, -1, "fromCharCode");
	eng_duk->fn_from_char_code = duk_get_heapptr(ctx, -1);
	duk_put_prop_string(ctx, stash, "fromCharCode");
	replace_method(ctx, -1, "fromCharCode", parity_from_char_code, DUK_VARARGS, 1);
	duk_pop(ctx);
}

#include "glue_core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_errors.h"
#include "rt_interval.h"
#include "rt_hex.h"

#define GLUE_PURE_DEPTH 32
#define GLUE_MAX_PROTOS 32

static int current_bit = -1;
static eng_ref_t proto_refs[GLUE_MAX_PROTOS];

/* ------------------------------------------------------------------ messages */

/* What a value is, for "(got ...)" in messages. */
static void describe_value(eng_value_t v, char *buf, size_t cap)
{
	switch (eng_typeof(v)) {
	case ENG_TYPE_UNDEFINED: snprintf(buf, cap, "undefined"); break;
	case ENG_TYPE_NULL: snprintf(buf, cap, "null"); break;
	case ENG_TYPE_BOOLEAN: snprintf(buf, cap, "%s", eng_get_boolean(v) ? "true" : "false"); break;
	case ENG_TYPE_NUMBER: {
		/* As JavaScript writes them: NaN and Infinity, not C's nan and inf. */
		double x = eng_get_number(v);
		if (isnan(x)) {
			snprintf(buf, cap, "NaN");
		} else if (isinf(x)) {
			snprintf(buf, cap, "%sInfinity", x < 0 ? "-" : "");
		} else {
			snprintf(buf, cap, "%.17g", x);
		}
		break;
	}
	case ENG_TYPE_STRING: {
		char text[24];
		size_t n = eng_string_copy(v, text, sizeof(text));
		snprintf(buf, cap, "'%s%s'", text, n >= sizeof(text) ? "..." : "");
		break;
	}
	case ENG_TYPE_FUNCTION: snprintf(buf, cap, "a function"); break;
	case ENG_TYPE_ARRAY: snprintf(buf, cap, "an array"); break;
	case ENG_TYPE_ARRAYBUFFER: snprintf(buf, cap, "an ArrayBuffer"); break;
	case ENG_TYPE_TYPEDARRAY: snprintf(buf, cap, "a typed array"); break;
	case ENG_TYPE_PROMISE: snprintf(buf, cap, "a promise"); break;
	case ENG_TYPE_DATE: snprintf(buf, cap, "a Date"); break;
	case ENG_TYPE_SYMBOL: snprintf(buf, cap, "a symbol"); break;
	case ENG_TYPE_BIGINT: snprintf(buf, cap, "a bigint"); break;
	default: snprintf(buf, cap, "an object"); break;
	}
}

/* Where an argument sits: "timers.single: interval" or "ble.startScan: options.window". */
typedef struct {
	const char *function;
	const char *record; /* field of this parameter, or NULL */
	const char *name;
	uint16_t esr;       /* the argument's declared ESR code number for refusals, or 0 */
} glue_where_t;

/* The error kind of rt_errors.h whose code is "ESR<number>", or RT_ESR_COUNT. */
static rt_esr_t esr_of(uint16_t number)
{
	for (int i = 0; i < RT_ESR_COUNT; i++) {
		if (atoi(rt_esr_code((rt_esr_t)i) + 3) == number) {
			return (rt_esr_t)i;
		}
	}
	return RT_ESR_COUNT;
}

/*
 * Throw "<function>: <argument> must be <expected> (got <got>)": a TypeError or RangeError, or,
 * when the declaration names one for this argument, that coded error with the same text (the
 * spec gives some refusals a code, e.g. ESR1703 for uwb.start's options).
 */
static eng_value_t refuse(eng_error_kind_t kind, const glue_where_t *at, const char *expected,
			  const char *got)
{
	char msg[192];
	if (at->record) {
		snprintf(msg, sizeof(msg), "%s: %s.%s must be %s (got %s)", at->function, at->record,
			 at->name, expected, got);
	} else {
		snprintf(msg, sizeof(msg), "%s: %s must be %s (got %s)", at->function, at->name,
			 expected, got);
	}
	rt_esr_t esr = at->esr != 0 ? esr_of(at->esr) : RT_ESR_COUNT;
	if (esr != RT_ESR_COUNT) {
		return rt_throw_esr(esr, "%s", msg);
	}
	return eng_throw(kind, NULL, "%s", msg);
}

static eng_value_t fail(eng_error_kind_t kind, const glue_where_t *at, eng_value_t got,
			const char *expected)
{
	char what[48];
	describe_value(got, what, sizeof(what));
	return refuse(kind, at, expected, what);
}

static void format_bound(char *buf, size_t cap, double v)
{
	snprintf(buf, cap, "%.15g", v);
}

static eng_value_t fail_range(const glue_where_t *at, eng_value_t got, const char *what,
			      double min, double max)
{
	char expected[96], lo[24], hi[24];
	format_bound(lo, sizeof(lo), min);
	format_bound(hi, sizeof(hi), max);
	if (isinf(max)) {
		snprintf(expected, sizeof(expected), "%s of at least %s", what, lo);
	} else if (isinf(min)) {
		snprintf(expected, sizeof(expected), "%s of at most %s", what, hi);
	} else {
		snprintf(expected, sizeof(expected), "%s from %s to %s", what, lo, hi);
	}
	return fail(ENG_ERROR_RANGE, at, got, expected);
}

/* ------------------------------------------------------------------ checks */

static bool in_range(double v, double min, double max)
{
	return v >= min && v <= max;
}

static bool is_bytes_like(eng_type_t t)
{
	return t == ENG_TYPE_ARRAYBUFFER || t == ENG_TYPE_TYPEDARRAY;
}

/* Cheap test whether a value could be meant for this parameter: picks between overloads. */
static bool could_match(const glue_param_t *p, eng_value_t v, eng_type_t t)
{
	if (t == ENG_TYPE_UNDEFINED && (p->flags & GLUE_OPTIONAL)) {
		return true;
	}
	if (t == ENG_TYPE_NULL && (p->flags & GLUE_NULLABLE)) {
		return true;
	}
	switch ((glue_kind_t)p->kind) {
	case GLUE_ANY:
	case GLUE_STRINGABLE:
	case GLUE_PURE:
		return true;
	case GLUE_STRING: return t == ENG_TYPE_STRING;
	case GLUE_INTERVAL_MS:
	case GLUE_INTERVAL_S: return t == ENG_TYPE_NUMBER || t == ENG_TYPE_STRING;
	case GLUE_NUMBER:
	case GLUE_INTEGER:
	case GLUE_SNAP_DOWN: return t == ENG_TYPE_NUMBER;
	case GLUE_BOOLEAN: return t == ENG_TYPE_BOOLEAN;
	case GLUE_BYTES: return t == ENG_TYPE_STRING || is_bytes_like(t);
	case GLUE_BYTE_SOURCE: return t == ENG_TYPE_ARRAY || is_bytes_like(t);
	case GLUE_FUNCTION: return t == ENG_TYPE_FUNCTION;
	case GLUE_TIMESTAMP: return t == ENG_TYPE_NUMBER || t == ENG_TYPE_DATE;
	case GLUE_ONE_OF_EACH:
	case GLUE_ARRAY:
	case GLUE_NUM_TUPLE: return t == ENG_TYPE_ARRAY;
	case GLUE_OBJECT:
	case GLUE_RECORD:
	case GLUE_HANDLE: return eng_is_object(v) && t != ENG_TYPE_FUNCTION;
	}
	return false;
}

static bool convert_one(const glue_param_t *p, const glue_where_t *at, eng_value_t v,
			eng_type_t t, uint8_t *base, eng_value_t *error);

static bool convert_record(const glue_param_t *p, const glue_where_t *at, eng_value_t obj,
			   uint8_t *dest, eng_value_t *error)
{
	const glue_record_t *rec = p->extra;
	for (uint8_t i = 0; i < rec->count; i++) {
		const glue_param_t *f = &rec->fields[i];
		if (!(f->mask & (1u << current_bit))) {
			continue; /* a field this version does not have is ignored, like any extra key */
		}
		eng_value_t fv = eng_get(obj, f->name);
		if (eng_is_exception(fv)) {
			*error = fv;
			return false;
		}
		glue_where_t fat = {at->function, at->name, f->name, f->esr ? f->esr : at->esr};
		bool ok = convert_one(f, &fat, fv, eng_typeof(fv), dest, error);
		eng_release(fv);
		if (!ok) {
			return false;
		}
	}
	return true;
}

static void set_has(const glue_param_t *p, uint8_t *base, bool has)
{
	if (p->has_offset != GLUE_NO_HAS) {
		*(bool *)(base + p->has_offset) = has;
	}
}

/* Whether the converted value is the JavaScript value itself (so it can hold null). */
static bool holds_value(glue_kind_t kind)
{
	switch (kind) {
	case GLUE_ANY: case GLUE_STRINGABLE: case GLUE_STRING: case GLUE_BYTE_SOURCE:
	case GLUE_FUNCTION: case GLUE_PURE: case GLUE_OBJECT: case GLUE_ARRAY:
		return true;
	default:
		return false;
	}
}

/*
 * The value of an argument that was not given: its default, or zero (NULL, empty). An absent
 * record is an empty one: each field takes its default and its has_ flag says whether it has one.
 * v (undefined or null) is what a JavaScript-valued slot receives.
 */
static void fill_absent(const glue_param_t *p, uint8_t *base, eng_value_t v)
{
	uint8_t *slot = base + p->offset;
	bool has_default = (p->flags & GLUE_HAS_DEFAULT) != 0;
	switch ((glue_kind_t)p->kind) {
	case GLUE_INTERVAL_MS: case GLUE_INTERVAL_S: case GLUE_NUMBER: case GLUE_INTEGER:
	case GLUE_TIMESTAMP: case GLUE_SNAP_DOWN:
		*(double *)slot = has_default ? p->def : 0.0;
		break;
	case GLUE_BOOLEAN:
		*(bool *)slot = has_default ? p->def != 0.0 : false;
		break;
	case GLUE_BYTES: ((rt_bytes_t *)slot)->len = 0; break;
	case GLUE_NUM_TUPLE: ((rt_tuple_t *)slot)->len = 0; break;
	case GLUE_ONE_OF_EACH: *(uint32_t *)slot = has_default ? (uint32_t)p->def : 0u; break;
	case GLUE_HANDLE: *(void **)slot = NULL; break;
	case GLUE_RECORD: {
		const glue_record_t *rec = p->extra;
		memset(slot, 0, rec->size);
		for (uint8_t i = 0; i < rec->count; i++) {
			const glue_param_t *f = &rec->fields[i];
			fill_absent(f, slot, eng_undefined());
			set_has(f, slot, (f->flags & GLUE_HAS_DEFAULT) != 0);
		}
		break;
	}
	default: *(eng_value_t *)slot = v; break;
	}
}

static bool convert_tuple(const glue_param_t *p, const glue_where_t *at, eng_value_t v,
			  rt_tuple_t *tuple, eng_value_t *error)
{
	char expected[64];
	snprintf(expected, sizeof(expected), "an array of %u numbers", (unsigned)p->length);
	if (eng_typeof(v) != ENG_TYPE_ARRAY) {
		*error = fail(ENG_ERROR_TYPE, at, v, expected);
		return false;
	}
	uint32_t n = eng_array_length(v);
	if (n != p->length || n > GLUE_TUPLE_MAX) {
		char got[32];
		snprintf(got, sizeof(got), "%lu items", (unsigned long)n);
		*error = refuse(ENG_ERROR_RANGE, at, expected, got);
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		char name[48];
		snprintf(name, sizeof(name), "%s[%lu]", at->name, (unsigned long)i);
		glue_where_t iat = {at->function, at->record, name, at->esr};
		eng_value_t item = eng_get_index(v, i);
		if (eng_is_exception(item)) {
			*error = item;
			return false;
		}
		double x = eng_get_number(item);
		if (eng_typeof(item) != ENG_TYPE_NUMBER || isnan(x)) {
			*error = fail(ENG_ERROR_TYPE, &iat, item, "a number");
			eng_release(item);
			return false;
		}
		if (!in_range(x, p->min, p->max)) {
			*error = fail_range(&iat, item, "a number", p->min, p->max);
			eng_release(item);
			return false;
		}
		eng_release(item);
		tuple->item[i] = x;
	}
	tuple->len = (uint8_t)n;
	return true;
}

static bool convert_one(const glue_param_t *p, const glue_where_t *at, eng_value_t v,
			eng_type_t t, uint8_t *base, eng_value_t *error)
{
	uint8_t *slot = base + p->offset;

	if (t == ENG_TYPE_UNDEFINED && (p->flags & GLUE_OPTIONAL)) {
		fill_absent(p, base, v);
		set_has(p, base, (p->flags & GLUE_HAS_DEFAULT) != 0);
		return true;
	}
	if (t == ENG_TYPE_NULL && (p->flags & GLUE_NULLABLE)) {
		if (p->kind == GLUE_HANDLE) {
			*(void **)slot = NULL;
			set_has(p, base, true);
		} else if (holds_value((glue_kind_t)p->kind)) {
			*(eng_value_t *)slot = v;
			set_has(p, base, true);
		} else {
			/* A record or number cannot hold null: the runtime sees has_<name> false. */
			fill_absent(p, base, v);
			set_has(p, base, false);
		}
		return true;
	}
	set_has(p, base, true);

	switch ((glue_kind_t)p->kind) {
	case GLUE_ANY:
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_STRINGABLE:
	case GLUE_STRING: {
		eng_value_t s = v;
		if (t != ENG_TYPE_STRING) {
			if (p->kind == GLUE_STRING) {
				*error = fail(ENG_ERROR_TYPE, at, v, "a string");
				return false;
			}
			if (t == ENG_TYPE_SYMBOL) {
				*error = fail(ENG_ERROR_TYPE, at, v, "convertible to text");
				return false;
			}
			s = eng_to_string(v);
			if (eng_is_exception(s)) {
				*error = s;
				return false;
			}
		}
		size_t len = eng_string_length(s);
		if ((double)len > p->max) {
			char expected[64];
			snprintf(expected, sizeof(expected), "at most %.0f characters long", p->max);
			char got[32];
			snprintf(got, sizeof(got), "%zu characters", len);
			*error = refuse(ENG_ERROR_RANGE, at, expected, got);
			return false;
		}
		*(eng_value_t *)slot = s;
		return true;
	}
	case GLUE_INTERVAL_MS:
	case GLUE_INTERVAL_S: {
		double unit_ms = p->kind == GLUE_INTERVAL_S ? 1000.0 : 1.0;
		double value;
		if (t == ENG_TYPE_NUMBER) {
			value = eng_get_number(v);
			if (isnan(value)) {
				*error = fail(ENG_ERROR_TYPE, at, v, "a number or an interval string like '30s'");
				return false;
			}
		} else if (t == ENG_TYPE_STRING) {
			char text[40];
			size_t n = eng_string_copy(v, text, sizeof(text));
			double ms;
			if (n >= sizeof(text) || !rt_interval_parse(text, n, unit_ms, &ms)) {
				*error = fail(ENG_ERROR_TYPE, at, v,
					      "an interval such as '200ms', '30s', '5 min', '1h' or '1 day'");
				return false;
			}
			value = ms / unit_ms;
		} else {
			*error = fail(ENG_ERROR_TYPE, at, v,
				      p->kind == GLUE_INTERVAL_S ? "a number of seconds or an interval string like '30s'"
								 : "a number of ms or an interval string like '200ms'");
			return false;
		}
		double min = p->min > 0 ? p->min : 0.0;
		if (!in_range(value, min, p->max) || isinf(value)) {
			*error = fail_range(at, v, p->kind == GLUE_INTERVAL_S ? "an interval in s" : "an interval in ms",
					    min, p->max);
			return false;
		}
		*(double *)slot = value;
		return true;
	}
	case GLUE_NUMBER:
	case GLUE_INTEGER: {
		if (t != ENG_TYPE_NUMBER || isnan(eng_get_number(v))) {
			*error = fail(ENG_ERROR_TYPE, at, v, "a number");
			return false;
		}
		double value = eng_get_number(v);
		if (p->kind == GLUE_INTEGER && (isinf(value) || value != floor(value))) {
			*error = fail_range(at, v, "a whole number", p->min, p->max);
			return false;
		}
		if (!in_range(value, p->min, p->max)) {
			*error = fail_range(at, v, p->kind == GLUE_INTEGER ? "a whole number" : "a number",
					    p->min, p->max);
			return false;
		}
		*(double *)slot = value;
		return true;
	}
	case GLUE_SNAP_DOWN: {
		const glue_numlist_t *list = p->extra;
		double value = eng_get_number(v);
		if (t != ENG_TYPE_NUMBER || isnan(value)) {
			*error = fail(ENG_ERROR_TYPE, at, v, "a number");
			return false;
		}
		double lo = list->values[0], hi = list->values[list->count - 1];
		if (!in_range(value, lo, hi)) {
			*error = fail_range(at, v, "a number", lo, hi);
			return false;
		}
		double snapped = lo;
		for (uint8_t i = 0; i < list->count; i++) {
			if (list->values[i] <= value) {
				snapped = list->values[i];
			}
		}
		*(double *)slot = snapped;
		return true;
	}
	case GLUE_BOOLEAN:
		if (t != ENG_TYPE_BOOLEAN) {
			*error = fail(ENG_ERROR_TYPE, at, v, "true or false");
			return false;
		}
		*(bool *)slot = eng_get_boolean(v);
		return true;
	case GLUE_BYTES: {
		rt_bytes_t *bytes = (rt_bytes_t *)slot;
		size_t len = 0;
		if (t == ENG_TYPE_STRING) {
			char text[2 * GLUE_BYTES_MAX + 2];
			size_t n = eng_string_copy(v, text, sizeof(text));
			if (n >= sizeof(text)) {
				len = n / 2; /* too long: reported by the length check below */
			} else {
				if (n % 2 != 0) {
					*error = fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string of whole bytes");
					return false;
				}
				for (size_t i = 0; i < n; i += 2) {
					int hi = rt_hex_digit(text[i]), lo = rt_hex_digit(text[i + 1]);
					if (hi < 0 || lo < 0) {
						*error = fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string");
						return false;
					}
					bytes->data[i / 2] = (uint8_t)(hi << 4 | lo);
				}
				len = n / 2;
			}
		} else if (is_bytes_like(t)) {
			uint8_t *data = eng_buffer_data(v, &len);
			if (len <= GLUE_BYTES_MAX && len > 0) {
				memcpy(bytes->data, data, len);
			}
		} else {
			*error = fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string");
			return false;
		}
		double max = p->max < GLUE_BYTES_MAX ? p->max : GLUE_BYTES_MAX;
		if (!in_range((double)len, p->min, max)) {
			char expected[64], got[32];
			if (p->min == max) {
				snprintf(expected, sizeof(expected), "exactly %.0f bytes", max);
			} else {
				snprintf(expected, sizeof(expected), "%.0f to %.0f bytes", p->min, max);
			}
			snprintf(got, sizeof(got), "%zu bytes", len);
			*error = refuse(ENG_ERROR_RANGE, at, expected, got);
			return false;
		}
		bytes->len = (uint8_t)len;
		return true;
	}
	case GLUE_BYTE_SOURCE:
		if (t != ENG_TYPE_ARRAY && !is_bytes_like(t)) {
			*error = fail(ENG_ERROR_TYPE, at, v, "an array of numbers or an ArrayBuffer");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_FUNCTION:
		if (t != ENG_TYPE_FUNCTION) {
			*error = fail(ENG_ERROR_TYPE, at, v,
				      (p->flags & GLUE_NULLABLE) ? "a function or null" : "a function");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_PURE:
		if (!glue_is_pure(v)) {
			char what[48];
			describe_value(v, what, sizeof(what));
			*error = rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
					      "%s: %s%s%s holds a function, promise, handle or cycle (got %s)",
					      at->function, at->record ? at->record : "",
					      at->record ? "." : "", at->name, what);
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_TIMESTAMP: {
		double ms;
		if (t == ENG_TYPE_NUMBER) {
			ms = eng_get_number(v);
		} else if (t == ENG_TYPE_DATE) {
			ms = eng_date_value(v);
		} else {
			*error = fail(ENG_ERROR_TYPE, at, v, "a UTC time in ms or a Date");
			return false;
		}
		if (isnan(ms) || isinf(ms)) {
			*error = fail(ENG_ERROR_RANGE, at, v, "a valid time");
			return false;
		}
		*(double *)slot = ms;
		return true;
	}
	case GLUE_ONE_OF_EACH: {
		const glue_numlist_t *list = p->extra;
		if (t != ENG_TYPE_ARRAY) {
			*error = fail(ENG_ERROR_TYPE, at, v, "an array");
			return false;
		}
		uint32_t n = eng_array_length(v);
		uint32_t mask = 0;
		char allowed[64] = "";
		for (uint8_t i = 0; i < list->count; i++) {
			size_t used = strlen(allowed);
			snprintf(allowed + used, sizeof(allowed) - used, "%s%.15g", i ? ", " : "", list->values[i]);
		}
		for (uint32_t i = 0; i < n; i++) {
			eng_value_t item = eng_get_index(v, i);
			if (eng_is_exception(item)) {
				*error = item;
				return false;
			}
			double x = eng_get_number(item);
			int found = -1;
			for (uint8_t k = 0; k < list->count && eng_typeof(item) == ENG_TYPE_NUMBER; k++) {
				if (list->values[k] == x) {
					found = k;
				}
			}
			if (found < 0) {
				char expected[128];
				snprintf(expected, sizeof(expected), "an array of values from %s", allowed);
				*error = fail(ENG_ERROR_RANGE, at, item, expected);
				eng_release(item);
				return false;
			}
			eng_release(item);
			mask |= 1u << found;
		}
		if (mask == 0) {
			char expected[128];
			snprintf(expected, sizeof(expected), "a non-empty array of values from %s", allowed);
			*error = fail(ENG_ERROR_RANGE, at, v, expected);
			return false;
		}
		*(uint32_t *)slot = mask;
		return true;
	}
	case GLUE_OBJECT:
		if (!eng_is_object(v)) {
			*error = fail(ENG_ERROR_TYPE, at, v, "an object");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_ARRAY:
		if (t != ENG_TYPE_ARRAY) {
			*error = fail(ENG_ERROR_TYPE, at, v, "an array");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_RECORD:
		if (!eng_is_object(v) || t == ENG_TYPE_FUNCTION || t == ENG_TYPE_ARRAY) {
			*error = fail(ENG_ERROR_TYPE, at, v, "an object");
			return false;
		}
		return convert_record(p, at, v, slot, error);
	case GLUE_NUM_TUPLE:
		return convert_tuple(p, at, v, (rt_tuple_t *)slot, error);
	case GLUE_HANDLE: {
		void *ptr = eng_get_native(v, p->extra);
		if (ptr == NULL) {
			const eng_native_type_t *type = p->extra;
			char expected[64];
			snprintf(expected, sizeof(expected), "a %s handle", type->name);
			*error = fail(ENG_ERROR_TYPE, at, v, expected);
			return false;
		}
		*(void **)slot = ptr;
		return true;
	}
	}
	*error = fail(ENG_ERROR_TYPE, at, v, "a supported value");
	return false;
}

/* The arguments of one call with their types, each asked of the engine once: choosing the form
 * and converting would otherwise ask again for every argument. */
#define GLUE_TYPED_ARGS 8

#define GLUE_TYPE_UNKNOWN 0xffu

typedef struct {
	const eng_call_t *call;
	uint8_t types[GLUE_TYPED_ARGS]; /* eng_type_t, or GLUE_TYPE_UNKNOWN until first asked */
} glue_args_t;

static eng_type_t arg_type(glue_args_t *a, uint32_t k)
{
	if (k >= GLUE_TYPED_ARGS) {
		return eng_typeof(a->call->argv[k]);
	}
	if (a->types[k] == GLUE_TYPE_UNKNOWN) {
		a->types[k] = (uint8_t)eng_typeof(a->call->argv[k]);
	}
	return (eng_type_t)a->types[k];
}

static bool could_match_arg(const glue_param_t *p, glue_args_t *a, uint32_t k)
{
	return could_match(p, a->call->argv[k], arg_type(a, k));
}

/* Whether a form takes this many arguments: all its required ones and none beyond its last. */
static bool takes(const glue_overload_t *o, uint32_t argc)
{
	return argc >= o->required && argc <= o->count;
}

static bool fits(const glue_overload_t *o, glue_args_t *a)
{
	for (uint8_t k = 0; k < o->count && k < a->call->argc; k++) {
		if (!could_match_arg(&o->params[k], a, k)) {
			return false;
		}
	}
	return true;
}

/*
 * The form of an overloaded function for these arguments, or -1. The first form (in declaration
 * order) that takes exactly as many arguments as were given and fits them wins. Only when no form
 * takes that many may a shorter one that fits the leading arguments do, the rest being ignored as
 * JavaScript ignores extra arguments: io.led(true, 1) is a mistaken io.led(1, true), not "all
 * LEDs on". When no form fits, the form whose error will be the most useful is converted anyway,
 * so the error names the argument that is wrong (and carries the code the declaration gives that
 * argument) rather than only listing what was passed: the one form that takes this many
 * arguments, else the one that fits the most leading arguments.
 */
static int pick_overload(const glue_function_t *fn, glue_args_t *a, uint32_t bit)
{
	const eng_call_t *call = a->call;
	int taking = 0, taking_index = -1;
	for (uint8_t i = 0; i < fn->count; i++) {
		const glue_overload_t *o = &fn->overloads[i];
		if ((o->mask & bit) && takes(o, call->argc)) {
			if (fits(o, a)) {
				return i;
			}
			taking++;
			taking_index = i;
		}
	}
	if (taking == 0) {
		for (uint8_t i = 0; i < fn->count; i++) {
			const glue_overload_t *o = &fn->overloads[i];
			if ((o->mask & bit) && call->argc >= o->required && fits(o, a)) {
				return i;
			}
		}
	}
	if (taking == 1) {
		return taking_index;
	}
	int best = -1, best_score = 0;
	bool tie = false;
	for (uint8_t i = 0; i < fn->count; i++) {
		const glue_overload_t *o = &fn->overloads[i];
		if (!(o->mask & bit) || call->argc < o->required || (taking > 0 && !takes(o, call->argc))) {
			continue;
		}
		int score = 0;
		while (score < o->count && (uint32_t)score < call->argc &&
		       could_match_arg(&o->params[score], a, (uint32_t)score)) {
			score++;
		}
		if (score > best_score) {
			best = i;
			best_score = score;
			tie = false;
		} else if (score == best_score && score > 0) {
			tie = true;
		}
	}
	return tie ? -1 : best;
}

bool glue_convert(const eng_call_t *call, const glue_function_t *fn, void *args,
		  eng_value_t *error)
{
	uint32_t bit = 1u << current_bit;
	int candidates = 0, only = -1;
	for (uint8_t i = 0; i < fn->count; i++) {
		if (fn->overloads[i].mask & bit) {
			candidates++;
			only = i;
		}
	}
	glue_args_t a;
	a.call = call;
	if (candidates > 1) {
		memset(a.types, GLUE_TYPE_UNKNOWN, sizeof(a.types));
	}
	/* A function with one form in this version takes it whatever was passed: its checks say
	 * what is wrong, and extra arguments are ignored. */
	int chosen_index = candidates == 1 ? only : pick_overload(fn, &a, bit);
	const glue_overload_t *chosen = chosen_index >= 0 ? &fn->overloads[chosen_index] : NULL;
	if (chosen == NULL) {
		char got[160] = "";
		for (uint32_t k = 0; k < call->argc && k < 4; k++) {
			char what[48];
			describe_value(call->argv[k], what, sizeof(what));
			size_t used = strlen(got);
			snprintf(got + used, sizeof(got) - used, "%s%s", k ? ", " : "", what);
		}
		*error = eng_throw(ENG_ERROR_TYPE, NULL, "%s: no form of this function takes (%s)",
				   fn->name, got);
		return false;
	}
	uint8_t *base = args;
	if (fn->variant_offset != GLUE_NO_HAS) {
		base[fn->variant_offset] = (uint8_t)chosen_index;
	}
	eng_value_t undefined = 0;
	bool have_undefined = false;
	for (uint8_t k = 0; k < chosen->count; k++) {
		const glue_param_t *p = &chosen->params[k];
		glue_where_t at = {fn->name, NULL, p->name, p->esr};
		bool given = k < call->argc;
		if (!given && !have_undefined) {
			undefined = eng_undefined(); /* made only when an argument was left out */
			have_undefined = true;
		}
		eng_value_t v = given ? call->argv[k] : undefined;
		/* With one form, each type is asked once anyway; the cache only pays off when forms
		 * were compared first. */
		eng_type_t t = !given ? ENG_TYPE_UNDEFINED
			       : candidates == 1 ? eng_typeof(call->argv[k]) : arg_type(&a, k);
		if (!convert_one(p, &at, v, t, base, error)) {
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------------ install */

int glue_version_bit(uint32_t api_version)
{
	for (size_t i = 0; i < glue_api.version_count; i++) {
		unsigned a, b, c;
		if (sscanf(glue_api.versions[i], "%u.%u.%u", &a, &b, &c) == 3 &&
		    ((a << 16) | (b << 8) | c) == api_version) {
			return (int)i;
		}
	}
	return -1;
}

int glue_current_version_bit(void)
{
	return current_bit;
}

/* The object at a dotted path below the global object (created by an earlier step). */
static eng_value_t lookup_path(const char *path)
{
	eng_value_t obj = eng_global();
	char part[32];
	const char *p = path;
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(part)) {
			n = sizeof(part) - 1;
		}
		memcpy(part, p, n);
		part[n] = '\0';
		eng_value_t next = eng_get(obj, part);
		eng_release(obj);
		obj = next;
		if (eng_is_exception(obj) || !eng_is_object(obj)) {
			return obj;
		}
		p = dot ? dot + 1 : p + n;
	}
	return obj;
}

static const char *last_part(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

static eng_value_t owner_object(const char *owner_path)
{
	return owner_path[0] ? lookup_path(owner_path) : eng_global();
}

int glue_install(int version_bit)
{
	if (version_bit < 0 || (size_t)version_bit >= glue_api.version_count ||
	    glue_api.proto_count > GLUE_MAX_PROTOS) {
		return -1;
	}
	current_bit = version_bit;
	uint32_t bit = 1u << version_bit;

	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		const glue_namespace_t *ns = &glue_api.namespaces[i];
		if (!(ns->mask & bit)) {
			continue;
		}
		const char *dot = strrchr(ns->path, '.');
		eng_value_t parent;
		if (dot) {
			char parent_path[64];
			size_t n = (size_t)(dot - ns->path);
			if (n >= sizeof(parent_path)) {
				return -1;
			}
			memcpy(parent_path, ns->path, n);
			parent_path[n] = '\0';
			parent = lookup_path(parent_path);
		} else {
			parent = eng_global();
		}
		eng_value_t obj = eng_object();
		eng_define_const(parent, last_part(ns->path), obj);
		eng_release(obj);
		eng_release(parent);
	}
	for (size_t i = 0; i < glue_api.member_count; i++) {
		const glue_member_t *m = &glue_api.members[i];
		if (!(m->mask & bit)) {
			continue;
		}
		eng_value_t owner = owner_object(m->owner);
		eng_value_t fn = eng_function(m->fn, NULL, m->name);
		if (m->owner[0]) {
			eng_define_const(owner, m->name, fn);
		} else {
			/* Globals stay writable, as built-ins are: an app may wrap print(). */
			eng_set(owner, m->name, fn);
		}
		eng_release(fn);
		eng_release(owner);
	}
	for (size_t i = 0; i < glue_api.const_count; i++) {
		const glue_const_t *k = &glue_api.consts[i];
		if (!(k->mask & bit)) {
			continue;
		}
		eng_value_t owner = owner_object(k->owner);
		eng_value_t value = eng_json_parse(k->json, strlen(k->json));
		if (eng_is_object(value)) {
			eng_freeze(value);
		}
		eng_define_const(owner, k->name, value);
		eng_release(value);
		eng_release(owner);
	}
	/* Namespaces are frozen so an app cannot replace an API function by accident. */
	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		if (glue_api.namespaces[i].mask & bit) {
			eng_value_t obj = lookup_path(glue_api.namespaces[i].path);
			eng_freeze(obj);
			eng_release(obj);
		}
	}
	for (size_t i = 0; i < glue_api.proto_count; i++) {
		const glue_proto_t *proto = &glue_api.protos[i];
		eng_value_t obj = eng_object();
		for (uint8_t k = 0; k < proto->count; k++) {
			if (!(proto->methods[k].mask & bit)) {
				continue;
			}
			eng_value_t fn = eng_function(proto->methods[k].fn, NULL, proto->methods[k].name);
			eng_define_const(obj, proto->methods[k].name, fn);
			eng_release(fn);
		}
		eng_freeze(obj);
		proto_refs[i] = eng_ref_new(obj);
		eng_release(obj);
	}
	return 0;
}

void glue_uninstall(void)
{
	for (size_t i = 0; i < GLUE_MAX_PROTOS; i++) {
		if (proto_refs[i]) {
			eng_ref_free(proto_refs[i]);
			proto_refs[i] = 0;
		}
	}
	current_bit = -1;
}

eng_value_t glue_new_handle(size_t proto, void *ptr)
{
	eng_value_t obj = eng_object();
	if (proto < glue_api.proto_count && proto_refs[proto]) {
		eng_value_t p = eng_ref_get(proto_refs[proto]);
		eng_set_prototype(obj, p);
		eng_release(p);
		eng_set_native(obj, glue_api.protos[proto].type, ptr);
	}
	return obj;
}

/* ------------------------------------------------------------------ pure objects */

static bool is_handle(eng_value_t v)
{
	for (size_t i = 0; i < glue_api.proto_count; i++) {
		if (eng_get_native(v, glue_api.protos[i].type) != NULL) {
			return true;
		}
	}
	return false;
}

static bool pure_at(eng_value_t v, int depth)
{
	switch (eng_typeof(v)) {
	case ENG_TYPE_FUNCTION:
	case ENG_TYPE_PROMISE:
	case ENG_TYPE_SYMBOL:
	case ENG_TYPE_BIGINT:
	case ENG_TYPE_EXCEPTION:
		return false;
	case ENG_TYPE_ARRAY:
	case ENG_TYPE_OBJECT:
	case ENG_TYPE_ERROR:
		break;
	default:
		return true;
	}
	if (depth >= GLUE_PURE_DEPTH || is_handle(v)) {
		return false;
	}
	eng_value_t keys = eng_keys(v);
	if (eng_is_exception(keys)) {
		eng_release(keys);
		return false;
	}
	bool pure = true;
	uint32_t n = eng_array_length(keys);
	for (uint32_t i = 0; i < n && pure; i++) {
		eng_value_t key = eng_get_index(keys, i);
		char name[256];
		size_t len = eng_string_copy(key, name, sizeof(name));
		eng_release(key);
		if (len >= sizeof(name)) {
			/* A key longer than 255 bytes cannot be read back here: refuse rather than guess. */
			pure = false;
			break;
		}
		eng_value_t item = eng_get(v, name);
		pure = !eng_is_exception(item) && pure_at(item, depth + 1);
		eng_release(item);
	}
	eng_release(keys);
	return pure;
}

bool glue_is_pure(eng_value_t value)
{
	return pure_at(value, 0);
}

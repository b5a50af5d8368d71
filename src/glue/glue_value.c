/*
 * glue_value.c: one argument converted into its place in the args struct, by the kind its
 * declaration gives it (numbers in range, intervals, bytes, records, tuples, handles...), or the
 * error that names it. glue_convert.c picks the form of the function and calls this for each.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "glue_core.h"
#include "glue_internal.h"
#include "rt_api_version.h"
#include "rt_errors.h"
#include "rt_hex.h"
#include "rt_interval.h"
#include "rt_pure.h"

static bool in_range(double v, double min, double max)
{
	return v >= min && v <= max;
}

static bool is_bytes_like(eng_type_t t)
{
	return t == ENG_TYPE_ARRAYBUFFER || t == ENG_TYPE_TYPEDARRAY;
}

static bool holds_value(glue_kind_t kind);

static bool convert_record(const glue_param_t *p, const glue_where_t *at, eng_value_t obj,
			   uint8_t *dest, eng_value_t *error)
{
	const glue_record_t *rec = p->extra;
	for (uint8_t i = 0; i < rec->count; i++) {
		const glue_param_t *f = &rec->fields[i];
		if (!(f->mask & (1u << rt_api_version_bit()))) {
			continue; /* a field this version does not have is ignored, like any extra key */
		}
		eng_value_t fv = eng_get(obj, f->name);
		if (eng_is_exception(fv)) {
			*error = fv;
			return false;
		}
		glue_where_t fat = {at->function, at->name, f->name, f->esr ? f->esr : at->esr};
		bool ok = glue_convert_value(f, &fat, fv, eng_typeof(fv), dest, error);
		/* A field that holds the JavaScript value itself (a string, an object, an array) keeps
		 * it: it lives until the native call returns, like every argument. */
		if (!ok || !holds_value((glue_kind_t)f->kind)) {
			eng_release(fv);
		}
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
		*error = glue_fail(ENG_ERROR_TYPE, at, v, expected);
		return false;
	}
	uint32_t n = eng_array_length(v);
	if (n != p->length || n > RT_TUPLE_MAX) {
		char got[32];
		snprintf(got, sizeof(got), "%lu items", (unsigned long)n);
		*error = glue_refuse(ENG_ERROR_RANGE, at, expected, got);
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
			*error = glue_fail(ENG_ERROR_TYPE, &iat, item, "a number");
			eng_release(item);
			return false;
		}
		if (!in_range(x, p->min, p->max)) {
			*error = glue_fail_range(&iat, item, "a number", p->min, p->max);
			eng_release(item);
			return false;
		}
		eng_release(item);
		tuple->item[i] = x;
	}
	tuple->len = (uint8_t)n;
	return true;
}

bool glue_convert_value(const glue_param_t *p, const glue_where_t *at, eng_value_t v,
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
				*error = glue_fail(ENG_ERROR_TYPE, at, v, "a string");
				return false;
			}
			if (t == ENG_TYPE_SYMBOL) {
				*error = glue_fail(ENG_ERROR_TYPE, at, v, "convertible to text");
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
			*error = glue_refuse(ENG_ERROR_RANGE, at, expected, got);
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
				*error = glue_fail(ENG_ERROR_TYPE, at, v, "a number or an interval string like '30s'");
				return false;
			}
		} else if (t == ENG_TYPE_STRING) {
			char text[40];
			size_t n = eng_string_copy(v, text, sizeof(text));
			double ms;
			if (n >= sizeof(text) || !rt_interval_parse(text, n, unit_ms, &ms)) {
				*error = glue_fail(ENG_ERROR_TYPE, at, v,
					      "an interval such as '200ms', '30s', '5 min', '1h' or '1 day'");
				return false;
			}
			value = ms / unit_ms;
		} else {
			*error = glue_fail(ENG_ERROR_TYPE, at, v,
				      p->kind == GLUE_INTERVAL_S ? "a number of seconds or an interval string like '30s'"
								 : "a number of ms or an interval string like '200ms'");
			return false;
		}
		double min = p->min > 0 ? p->min : 0.0;
		if (!in_range(value, min, p->max) || isinf(value)) {
			*error = glue_fail_range(at, v, p->kind == GLUE_INTERVAL_S ? "an interval in s" : "an interval in ms",
					    min, p->max);
			return false;
		}
		*(double *)slot = value;
		return true;
	}
	case GLUE_NUMBER:
	case GLUE_INTEGER: {
		if (t != ENG_TYPE_NUMBER || isnan(eng_get_number(v))) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "a number");
			return false;
		}
		double value = eng_get_number(v);
		if (p->kind == GLUE_INTEGER && (isinf(value) || value != floor(value))) {
			*error = glue_fail_range(at, v, "a whole number", p->min, p->max);
			return false;
		}
		if (!in_range(value, p->min, p->max)) {
			*error = glue_fail_range(at, v, p->kind == GLUE_INTEGER ? "a whole number" : "a number",
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
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "a number");
			return false;
		}
		double lo = list->values[0], hi = list->values[list->count - 1];
		if (!in_range(value, lo, hi)) {
			*error = glue_fail_range(at, v, "a number", lo, hi);
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
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "true or false");
			return false;
		}
		*(bool *)slot = eng_get_boolean(v);
		return true;
	case GLUE_BYTES: {
		rt_bytes_t *bytes = (rt_bytes_t *)slot;
		size_t len = 0;
		if (t == ENG_TYPE_STRING) {
			char text[2 * RT_BYTES_MAX + 2];
			size_t n = eng_string_copy(v, text, sizeof(text));
			if (n >= sizeof(text)) {
				len = n / 2; /* too long: reported by the length check below */
			} else {
				if (n % 2 != 0) {
					*error = glue_fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string of whole bytes");
					return false;
				}
				for (size_t i = 0; i < n; i += 2) {
					int hi = rt_hex_digit(text[i]), lo = rt_hex_digit(text[i + 1]);
					if (hi < 0 || lo < 0) {
						*error = glue_fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string");
						return false;
					}
					bytes->data[i / 2] = (uint8_t)(hi << 4 | lo);
				}
				len = n / 2;
			}
		} else if (is_bytes_like(t)) {
			uint8_t *data = eng_buffer_data(v, &len);
			if (len <= RT_BYTES_MAX && len > 0) {
				memcpy(bytes->data, data, len);
			}
		} else {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an ArrayBuffer or a hex string");
			return false;
		}
		double max = p->max < RT_BYTES_MAX ? p->max : RT_BYTES_MAX;
		if (!in_range((double)len, p->min, max)) {
			char expected[64], got[32];
			if (p->min == max) {
				snprintf(expected, sizeof(expected), "exactly %.0f bytes", max);
			} else {
				snprintf(expected, sizeof(expected), "%.0f to %.0f bytes", p->min, max);
			}
			snprintf(got, sizeof(got), "%zu bytes", len);
			*error = glue_refuse(ENG_ERROR_RANGE, at, expected, got);
			return false;
		}
		bytes->len = (uint8_t)len;
		return true;
	}
	case GLUE_BYTE_SOURCE:
		if (t != ENG_TYPE_ARRAY && !is_bytes_like(t)) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an array of numbers or an ArrayBuffer");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_FUNCTION:
		if (t != ENG_TYPE_FUNCTION) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v,
				      (p->flags & GLUE_NULLABLE) ? "a function or null" : "a function");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_PURE:
		if (!rt_pure_check(v)) {
			char what[48];
			glue_describe_value(v, what, sizeof(what));
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
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "a UTC time in ms or a Date");
			return false;
		}
		if (isnan(ms) || isinf(ms)) {
			*error = glue_fail(ENG_ERROR_RANGE, at, v, "a valid time");
			return false;
		}
		*(double *)slot = ms;
		return true;
	}
	case GLUE_ONE_OF_EACH: {
		const glue_numlist_t *list = p->extra;
		if (t != ENG_TYPE_ARRAY) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an array");
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
				*error = glue_fail(ENG_ERROR_RANGE, at, item, expected);
				eng_release(item);
				return false;
			}
			eng_release(item);
			mask |= 1u << found;
		}
		if (mask == 0) {
			char expected[128];
			snprintf(expected, sizeof(expected), "a non-empty array of values from %s", allowed);
			*error = glue_fail(ENG_ERROR_RANGE, at, v, expected);
			return false;
		}
		*(uint32_t *)slot = mask;
		return true;
	}
	case GLUE_OBJECT:
		if (!eng_is_object(v)) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an object");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_ARRAY:
		if (t != ENG_TYPE_ARRAY) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an array");
			return false;
		}
		*(eng_value_t *)slot = v;
		return true;
	case GLUE_RECORD:
		if (!eng_is_object(v) || t == ENG_TYPE_FUNCTION || t == ENG_TYPE_ARRAY) {
			*error = glue_fail(ENG_ERROR_TYPE, at, v, "an object");
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
			*error = glue_fail(ENG_ERROR_TYPE, at, v, expected);
			return false;
		}
		*(void **)slot = ptr;
		return true;
	}
	}
	*error = glue_fail(ENG_ERROR_TYPE, at, v, "a supported value");
	return false;
}

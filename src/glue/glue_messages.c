/* glue_messages.c: the errors that name the argument that did not fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "glue_internal.h"
#include "rt_errors.h"

/* What a value is, for "(got ...)" in messages. */
void glue_describe_value(eng_value_t v, char *buf, size_t cap)
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
eng_value_t glue_refuse(eng_error_kind_t kind, const glue_where_t *at, const char *expected,
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
	return rt_throw_arg(kind, "%s", msg);
}

eng_value_t glue_fail(eng_error_kind_t kind, const glue_where_t *at, eng_value_t got,
			const char *expected)
{
	char what[48];
	glue_describe_value(got, what, sizeof(what));
	return glue_refuse(kind, at, expected, what);
}

static void format_bound(char *buf, size_t cap, double v)
{
	snprintf(buf, cap, "%.15g", v);
}

eng_value_t glue_fail_range(const glue_where_t *at, eng_value_t got, const char *what,
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
	return glue_fail(ENG_ERROR_RANGE, at, got, expected);
}


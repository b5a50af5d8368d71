/*
 * glue_internal.h: what the files of the glue share: where an argument sits, and the errors that
 * name it.
 */
#ifndef GLUE_INTERNAL_H
#define GLUE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "glue_core.h"

/* Where an argument sits: "timers.single: interval" or "ble.startScan: options.window". */
typedef struct {
	const char *function;
	const char *record; /* field of this parameter, or NULL */
	const char *name;
	uint16_t esr;       /* the argument's declared ESR code number for refusals, or 0 */
} glue_where_t;

/* What a value is, for "(got ...)" in messages: 'abc', 42, an array, a function... */
void glue_describe_value(eng_value_t v, char *buf, size_t cap);
/*
 * Throw "<function>: <argument> must be <expected> (got <got>)": a TypeError or RangeError, or,
 * when the declaration names one for this argument, that coded error with the same text.
 */
eng_value_t glue_refuse(eng_error_kind_t kind, const glue_where_t *at, const char *expected,
			const char *got);
/* glue_refuse with got describing the value. */
eng_value_t glue_fail(eng_error_kind_t kind, const glue_where_t *at, eng_value_t got,
		      const char *expected);
/* A RangeError "... must be <what> from <min> to <max> (got ...)" (open ends worded). */
eng_value_t glue_fail_range(const glue_where_t *at, eng_value_t got, const char *what, double min,
			    double max);

/* Convert the value v (of type t) for parameter p into its place in base (glue_value.c): false
 * with *error the exception to throw when it is not what p accepts. */
bool glue_convert_value(const glue_param_t *p, const glue_where_t *at, eng_value_t v, eng_type_t t,
			uint8_t *base, eng_value_t *error);

#endif /* GLUE_INTERNAL_H */

/*
 * rt_errors.h: the runtime's coded errors (ESRxxxx).
 *
 * From 0.1.5 an error carries `code` and a message that starts with the code
 * ("ESR0004 Not enough resources: ..."). Firmware 0.0.9 had no codes: the same conditions throw
 * plain Errors with the old wording ("Not serializable value"), so apps written for it keep
 * matching on the messages they know.
 */
#ifndef RT_ERRORS_H
#define RT_ERRORS_H

#include <stdarg.h>

#include "engine.h"

typedef enum {
	RT_ESR0001_UNKNOWN = 0,
	RT_ESR0002_REBOOT_LOOP,
	RT_ESR0003_UNSUPPORTED,
	RT_ESR0004_NO_RESOURCES,
	RT_ESR0005_TIME_INVALID,
	RT_ESR0104_INTERRUPTED,
	RT_ESR0201_STORAGE_ERROR,
	RT_ESR0202_NO_STORAGE_SPACE,
	RT_ESR0203_NOT_SERIALIZABLE,
	RT_ESR0204_TOO_BIG,
	RT_ESR0205_STORE_TIMEOUT,
	RT_ESR1701_BAD_ROLE_ARGS,
	RT_ESR1703_INVALID_OPTIONS,
	RT_ESR1801_UNSUPPORTED_EVENT,
	RT_ESR1802_BAD_EVENT_OPTIONS,
	RT_ESR1803_SENSOR_ERROR,
	RT_ESR1804_DATA_TOO_BIG,
	RT_ESR1805_BAD_DATA_FORMAT,
	RT_ESR_COUNT
} rt_esr_t;

/* "ESR0004" */
const char *rt_esr_code(rt_esr_t esr);
/* "Not enough resources" (0.1.5 wording) */
const char *rt_esr_text(rt_esr_t esr);

/* Throw the coded error for the running app's API version; detail (may be NULL) follows the
 * text after ": ". */
eng_value_t rt_throw_esr(rt_esr_t esr, const char *detail_fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same error as a value, for promise rejections. */
eng_value_t rt_error_esr(rt_esr_t esr, const char *detail_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The body of every API function whose behaviour this firmware does not have yet: throws
 * ESR0003 naming the function. The docs table counts these as "not yet". */
eng_value_t rt_not_implemented(const char *function);

#endif /* RT_ERRORS_H */

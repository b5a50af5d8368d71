/*
 * rt_errors.h: the runtime's coded errors (ESRxxxx).
 *
 * Every error an app can catch carries `code` and a message that starts with the code
 * ("ESR0004 Not enough resources: ..."), as the maker's error reference shows them. Firmware
 * 0.0.9 had no codes for the errors the spec lists as uncoded (the storage family's four, and
 * nfc.setMsg's): those throw plain Errors with the old wording ("Not serializable value"), so
 * apps written for it keep matching on the messages they know.
 *
 * Codes are ESRxxyy, xx the family. System (00), VM (01), storage (02), UWB (17) and sensors
 * (18) are the spec's; the modem family (04) is the maker's reference's; function call (05),
 * cloud synchronisation (06), type conversion (07) and GNSS (09) follow the reference's order of families
 * with numbers of the product's own (docs/api.md, "Errors", lists every code and who raises it).
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
	RT_ESR0401_MODEM_UNKNOWN,
	RT_ESR0403_MODEM_COMMAND,
	RT_ESR0405_SIM_ERROR,
	RT_ESR0407_MODEM_FORCED_STOP,
	RT_ESR0410_AIRPLANE_MODE,
	RT_ESR0415_NOT_REGISTERED,
	RT_ESR0501_INVALID_ARGUMENT,
	RT_ESR0502_ARGUMENTS_DISAGREE,
	RT_ESR0503_WRONG_THIS,
	RT_ESR0601_SYNC_NO_NETWORK,
	RT_ESR0602_SYNC_REFUSED,
	RT_ESR0603_SYNC_CONNECTION,
	RT_ESR0604_SYNC_TIMEOUT,
	RT_ESR0605_SYNC_PROTOCOL,
	RT_ESR0606_SYNC_UNTRUSTED,
	RT_ESR0701_WRONG_TYPE,
	RT_ESR0901_GNSS_NO_FIX,
	RT_ESR0902_GNSS_ERROR,
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

/*
 * An argument the call refuses: a TypeError (ESR0701 Wrong argument type, the type conversion
 * family) or a RangeError (ESR0501 Invalid argument, the function call family), message
 * "<code> <text>: <function>: <argument> must be ...". Kept as TypeError/RangeError objects so
 * that `e instanceof RangeError` still holds; the code is there in every API version.
 */
eng_value_t rt_throw_arg(eng_error_kind_t kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same error as a value, for promise rejections. */
eng_value_t rt_error_arg(eng_error_kind_t kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A coded error of another kind than Error: ESR0502 (RangeError) and ESR0503 (TypeError). */
eng_value_t rt_error_kind(eng_error_kind_t kind, rt_esr_t esr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The body of every API function whose behaviour this firmware does not have yet: throws
 * ESR0003 naming the function. The docs table counts these as "not yet". */
eng_value_t rt_not_implemented(const char *function);

#endif /* RT_ERRORS_H */

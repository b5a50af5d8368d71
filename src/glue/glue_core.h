/*
 * glue_core.h: the table-driven half of the bindings.
 *
 * The codegen (bindings-ts/src/codegen) emits, per API function, a table of its overloads and
 * parameters (kind, bounds, default, where the converted value goes in the C args struct) and a
 * five-line wrapper. This file interprets those tables: it picks the overload that fits the
 * arguments and the app's API version, checks and converts every argument, and builds the
 * error that names the argument when one does not fit. Keeping the checks here, once, rather than
 * as emitted if-chains per function keeps the glue small on the device and the checks uniform.
 *
 * The glue is the top layer: it calls the runtime services (rt_*), never the other way round.
 * glue_convert.c converts arguments, glue_messages.c words the errors, glue_install.c builds the
 * API surface of an app's version.
 */
#ifndef GLUE_CORE_H
#define GLUE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#include "rt_types.h"

typedef enum {
	GLUE_ANY = 0,      /* eng_value_t, anything */
	GLUE_STRINGABLE,   /* eng_value_t, ToString applied, length checked */
	GLUE_STRING,       /* eng_value_t, must be a string, length checked */
	GLUE_INTERVAL_MS,  /* double, ms */
	GLUE_INTERVAL_S,   /* double, s */
	GLUE_NUMBER,       /* double */
	GLUE_INTEGER,      /* double holding a whole number */
	GLUE_BOOLEAN,      /* bool */
	GLUE_BYTES,        /* rt_bytes_t, from an ArrayBuffer, typed array or hex string */
	GLUE_BYTE_SOURCE,  /* eng_value_t: an array or ArrayBuffer/typed array */
	GLUE_FUNCTION,     /* eng_value_t, callable (or null when nullable) */
	GLUE_PURE,         /* eng_value_t, JSON-compatible: ESR0203 otherwise */
	GLUE_TIMESTAMP,    /* double, UTC ms from a number or a Date */
	GLUE_SNAP_DOWN,    /* double, snapped down to an allowed value */
	GLUE_ONE_OF_EACH,  /* uint32_t bit mask of the allowed values given (bit i: values[i]) */
	GLUE_OBJECT,       /* eng_value_t, any object */
	GLUE_RECORD,       /* a generated struct, filled field by field */
	GLUE_HANDLE,       /* void *, the native pointer of a handle (NULL when null/undefined) */
	GLUE_ARRAY,        /* eng_value_t, an array */
	GLUE_NUM_TUPLE,    /* rt_tuple_t, an array of exactly `length` numbers from min to max */
} glue_kind_t;

#define GLUE_OPTIONAL 0x01u
#define GLUE_NULLABLE 0x02u
#define GLUE_HAS_DEFAULT 0x04u
#define GLUE_NO_HAS 0xFFFFu

typedef struct {
	const double *values;
	uint8_t count;
} glue_numlist_t;

struct glue_record;

typedef struct glue_param {
	const char *name;
	uint8_t kind;      /* glue_kind_t */
	uint8_t flags;     /* GLUE_OPTIONAL | GLUE_NULLABLE | GLUE_HAS_DEFAULT */
	uint8_t mask;      /* versions that have this field (records); all bits for parameters */
	uint8_t length;    /* GLUE_NUM_TUPLE: number of items */
	uint16_t offset;   /* of the converted value in the args struct */
	uint16_t has_offset; /* of its bool has_<name>, or GLUE_NO_HAS. For an omitted argument
			      * it is false (true again when a default was filled in); for null
			      * where the C value cannot hold null (records, numbers) it is false */
	uint16_t esr;      /* 0, or the ESR code number (1703 for ESR1703) that a refused value of
			    * this argument throws instead of a TypeError or RangeError */
	double min, max;   /* numbers, intervals, tuple items: value bounds; strings, bytes: length
			    * bounds */
	double def;        /* default for numbers, intervals and booleans; for ONE_OF_EACH the
			    * bit mask */
	const void *extra; /* GLUE_RECORD: glue_record_t; SNAP_DOWN/ONE_OF_EACH: glue_numlist_t;
			    * GLUE_HANDLE: eng_native_type_t */
} glue_param_t;

typedef struct glue_record {
	const char *name;
	const glue_param_t *fields;
	uint8_t count;
	size_t size;       /* of the generated struct, cleared when the record is absent */
} glue_record_t;

typedef struct {
	uint8_t mask;      /* versions that have this overload */
	uint8_t count;     /* parameters */
	uint8_t required;  /* leading parameters that are not optional */
	const glue_param_t *params;
} glue_overload_t;

typedef struct {
	const char *name;  /* "timers.single": the start of every error message */
	const glue_overload_t *overloads;
	uint8_t count;
	uint16_t variant_offset; /* of uint8_t variant in the args struct, or GLUE_NO_HAS */
} glue_function_t;

/*
 * Pick the overload for these arguments and the running API version and convert every argument
 * into args. Returns true, or false with *error set to the exception to throw.
 */
bool glue_convert(const eng_call_t *call, const glue_function_t *fn, void *args,
		  eng_value_t *error);

/* The exception glue_convert gave, as a rejected promise (consumed): the return of a function
 * declared @rejects, whose callers handle its errors with .catch(). */
eng_value_t glue_reject(eng_value_t exception);

/* Tables emitted by the codegen and read by glue_install(). */
typedef struct {
	const char *owner; /* "" for globals, "timers", "ble.build" */
	const char *name;
	eng_native_fn_t fn;
	uint8_t mask;
} glue_member_t;

typedef struct {
	const char *path; /* parents come before children */
	uint8_t mask;
} glue_namespace_t;

typedef struct {
	const char *owner;
	const char *name;
	const char *json;
	uint8_t mask;
} glue_const_t;

typedef struct {
	const char *name;
	eng_native_fn_t fn;
	uint8_t mask;
} glue_method_t;

typedef struct {
	const char *name;
	const eng_native_type_t *type;
	const glue_method_t *methods;
	uint8_t count;
} glue_proto_t;

typedef struct {
	const glue_namespace_t *namespaces;
	size_t namespace_count;
	const glue_member_t *members;
	size_t member_count;
	const glue_const_t *consts;
	size_t const_count;
	const glue_proto_t *protos;
	size_t proto_count;
	const char *const *versions; /* "0.0.9", ...: bit i of every mask */
	size_t version_count;
} glue_api_t;

/* The API surface, emitted by the codegen. */
extern const glue_api_t glue_api;

/* Create the global objects of the surface of the selected device's API version
 * (rt_api_version_bit()) and register the handle prototypes with rt_handle. Returns 0 or -1. */
int glue_install(void);

#endif /* GLUE_CORE_H */

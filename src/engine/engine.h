/*
 * engine.h: the only JavaScript-engine API the rest of the firmware sees.
 *
 * Two backends implement it: JerryScript (the device engine) and Duktape (the host simulator
 * and CI). Generated glue and runtime services are written against this header alone, so the
 * behaviour a micro-app sees is the same on both.
 *
 * Value model
 * -----------
 * An eng_value_t is a handle that is valid in the scope that produced it:
 *   - inside a native function: until that native function returns;
 *   - outside any native call (the event loop): between eng_scope_enter() and eng_scope_leave().
 * eng_release() may free a handle early (it is needed on JerryScript and cheap on Duktape).
 * Values that must outlive their scope (callbacks, promises, handle objects) are kept alive with
 * eng_ref_new() and released with eng_ref_free(): this is the only way to keep a value.
 *
 * Exceptions
 * ----------
 * Nothing in this API unwinds the C stack. A function that can run JavaScript (a call, a getter,
 * ToString of an object) returns a value for which eng_is_exception() is true when JavaScript
 * threw. A native function throws by returning such a value (eng_throw_*()).
 *
 * Threads
 * -------
 * Single-threaded: only the JS loop thread may call anything here.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t eng_value_t;
/* A persistent reference; 0 is "no reference". */
typedef uint32_t eng_ref_t;

typedef enum {
	ENG_TYPE_UNDEFINED = 0,
	ENG_TYPE_NULL,
	ENG_TYPE_BOOLEAN,
	ENG_TYPE_NUMBER,
	ENG_TYPE_STRING,
	ENG_TYPE_FUNCTION,
	ENG_TYPE_ARRAY,
	ENG_TYPE_ARRAYBUFFER,
	ENG_TYPE_TYPEDARRAY, /* any typed array view or DataView */
	ENG_TYPE_PROMISE,
	ENG_TYPE_DATE,
	ENG_TYPE_ERROR,
	ENG_TYPE_OBJECT, /* any other object */
	ENG_TYPE_SYMBOL,
	ENG_TYPE_BIGINT,
	ENG_TYPE_EXCEPTION /* not a JS value: a thrown exception travelling back to C */
} eng_type_t;

/* ------------------------------------------------------------------ lifecycle */

typedef struct {
	/* Bytes of the device's JS heap. JerryScript gets exactly this heap. Duktape, whose
	 * built-ins live in its heap and take far more room on a 64-bit host, gets what the app
	 * would have on the device on top of what it holds when eng_heap_seal() is called. */
	size_t heap_size;
	/* Work a single callback may do before it is interrupted with ESR0104, in loop iterations
	 * (JerryScript: backward branches; Duktape: bytecode instructions / ENG_DUK_WORK_PER_UNIT).
	 * A budget of work, not of time, so a runaway callback stops at the same point on every run
	 * and machine. 0: no limit. */
	uint64_t exec_budget;
} eng_config_t;

/* Engine identity written into app packages; a package for another engine is refused. */
#define ENG_ID_DUKTAPE 1u
#define ENG_ID_JERRYSCRIPT 2u

uint32_t eng_id(void);
/* Engine version as major*10000 + minor*100 + patch. */
uint32_t eng_version(void);
/* A hash of the engine's build configuration: bytecode from a differently configured engine
 * does not load, so packages carry it and the loader compares it. */
uint32_t eng_config_hash(void);
const char *eng_name(void);

/*
 * Contexts: one engine instance (its own heap, references and job queue) per simulated device.
 * Every other function of this header works on the selected context. The device firmware has one
 * context; the host simulator runs many devices in one process and selects each device's context
 * before running it. With a JerryScript build that keeps its context in static memory (the
 * device configuration) only one context can exist at a time.
 */
typedef struct eng_context eng_context_t;

/* Create an engine instance and select it. NULL when the heap cannot be created (then the
 * previously selected context stays selected). */
eng_context_t *eng_create(const eng_config_t *config);
/* Destroy a context, selected or not; when it was selected, none is selected afterwards. */
void eng_destroy(eng_context_t *context);
/* Give back every byte of a context without running anything in it (no finalizer, no engine
 * clean-up): after a fatal error inside the engine, whose state can no longer be trusted. The
 * device would reset; the simulator abandons the instance and starts a fresh one. */
void eng_abandon(eng_context_t *context);
/* Select the context the other functions work on (NULL: none). */
void eng_select(eng_context_t *context);
eng_context_t *eng_selected(void);

/* eng_create() whose context eng_deinit() destroys: for code that only ever has one engine.
 * Returns 0 on success, -1 when the heap cannot be created. */
int eng_init(const eng_config_t *config);
/* Destroy the selected context. */
void eng_deinit(void);
/* Free every reference and the heap of the selected context, then give it a fresh one. */
int eng_reset(void);

void eng_scope_enter(void);
void eng_scope_leave(void);

/* ------------------------------------------------------------------ values */

eng_value_t eng_undefined(void);
eng_value_t eng_null(void);
eng_value_t eng_boolean(bool value);
eng_value_t eng_number(double value);
/* UTF-8 (CESU-8 on JerryScript is converted by the backend) */
eng_value_t eng_string(const char *utf8, size_t len);
eng_value_t eng_string_z(const char *utf8);
eng_value_t eng_object(void);
eng_value_t eng_array(uint32_t length);
eng_value_t eng_arraybuffer(const uint8_t *data, size_t len);
eng_value_t eng_global(void);

void eng_release(eng_value_t value);

eng_type_t eng_typeof(eng_value_t value);
bool eng_is_exception(eng_value_t value);
bool eng_is_callable(eng_value_t value);
bool eng_is_object(eng_value_t value); /* any object, including functions and arrays */

bool eng_get_boolean(eng_value_t value); /* the boolean itself; false for non-booleans */
double eng_get_number(eng_value_t value); /* the number itself; NaN for non-numbers */
bool eng_to_boolean(eng_value_t value);   /* ToBoolean, never throws */
/* Date objects: their time value in ms since the epoch (NaN for an invalid date). */
double eng_date_value(eng_value_t date);

/* ToString; returns a string value or an exception. */
eng_value_t eng_to_string(eng_value_t value);
/* Length in UTF-8 bytes of a string value (0 for non-strings). */
size_t eng_string_size(eng_value_t string);
/* Length in characters (UTF-16 code units, as JavaScript's .length). */
size_t eng_string_length(eng_value_t string);
/* Copies at most cap-1 bytes of UTF-8 and a terminating NUL; returns the full size in bytes
 * (like snprintf), so a result >= cap means the text was cut (at a character boundary).
 * Invalid UTF-8 given to eng_string() and lone surrogates read back become U+FFFD. */
size_t eng_string_copy(eng_value_t string, char *buf, size_t cap);

/* Bytes of an ArrayBuffer or of a typed-array view; NULL and 0 for anything else. The pointer is
 * valid while the value is. */
uint8_t *eng_buffer_data(eng_value_t value, size_t *len);

/* Strict equality (===). */
bool eng_strict_equals(eng_value_t a, eng_value_t b);

/* ------------------------------------------------------------------ objects */

/* Property access may run getters, so it may return an exception. */
eng_value_t eng_get(eng_value_t object, const char *key);
eng_value_t eng_get_index(eng_value_t object, uint32_t index);
/* Returns false (and leaves no exception) when the set failed, e.g. on a frozen object. */
bool eng_set(eng_value_t object, const char *key, eng_value_t value);
bool eng_set_index(eng_value_t object, uint32_t index, eng_value_t value);
/* Defines an own enumerable, writable, configurable data property, as JSON.parse makes them
 * (CreateDataProperty): no setter runs, not even an inherited one or __proto__'s, and an array
 * index key ("0", "1", ...) on an array extends it. The key is key_len bytes of UTF-8 and may
 * hold NUL. False when object is not an object or the definition failed. */
bool eng_define_data(eng_value_t object, const char *key, size_t key_len, eng_value_t value);
/* Defines a read-only, non-enumerable property: namespace members and enum values. */
bool eng_define_const(eng_value_t object, const char *key, eng_value_t value);
/* Defines a non-enumerable accessor whose getter is called on read (with this = the object); it
 * stays configurable, so the getter can replace it with eng_define_const(): how the API's
 * namespaces are built on first use instead of all at start. */
bool eng_define_getter(eng_value_t object, const char *key, eng_value_t getter);
bool eng_has_own(eng_value_t object, const char *key);
/* Own enumerable string keys, as an array value. */
eng_value_t eng_keys(eng_value_t object);
uint32_t eng_array_length(eng_value_t array);
bool eng_set_prototype(eng_value_t object, eng_value_t prototype);
/* Freeze an object (namespace objects are frozen so apps cannot replace API functions). */
void eng_freeze(eng_value_t object);

/* ------------------------------------------------------------------ records */

/*
 * Objects of a fixed shape that are built often, such as the scan record handed to the app for
 * every packet heard: the property names become engine strings once per context (on first use,
 * kept until the context is destroyed) instead of once per object, and the object is built in a
 * single call. A key set is identified by its address: declare it static const.
 */
typedef struct {
	const char *const *names; /* distinct */
	uint32_t count;           /* at most ENG_RECORD_MAX_KEYS */
} eng_keys_t;

#define ENG_RECORD_MAX_KEYS 32u

typedef enum {
	ENG_FIELD_ABSENT = 0, /* no property */
	ENG_FIELD_NUMBER,
	ENG_FIELD_BOOLEAN,
	ENG_FIELD_VALUE, /* a handle, not consumed */
	ENG_FIELD_BYTES, /* a new ArrayBuffer holding a copy of the bytes */
} eng_field_kind_t;

typedef struct {
	eng_field_kind_t kind;
	union {
		double number;
		bool boolean;
		eng_value_t value;
		struct {
			const uint8_t *data;
			size_t len;
		} bytes;
	} as;
} eng_field_t;

/* A new plain object with the property names[i] = fields[i] for every field present, in that
 * order; each an own enumerable, writable, configurable data property (CreateDataProperty, as
 * eng_define_data: no setter of the prototype chain runs). Returns an exception only when the
 * heap is exhausted. */
eng_value_t eng_record(const eng_keys_t *keys, const eng_field_t *fields);

/* ------------------------------------------------------------------ functions */

typedef struct {
	eng_value_t this_value;
	const eng_value_t *argv;
	uint32_t argc;
	void *data; /* the pointer given to eng_function() */
} eng_call_t;

/* A native function returns its result, or an exception made with eng_throw_*(). */
typedef eng_value_t (*eng_native_fn_t)(const eng_call_t *call);

eng_value_t eng_function(eng_native_fn_t fn, void *data, const char *name);
eng_value_t eng_call(eng_value_t fn, eng_value_t this_value, const eng_value_t *argv,
		     uint32_t argc);

/* ------------------------------------------------------------------ references */

eng_ref_t eng_ref_new(eng_value_t value);
/* The referenced value, as a new handle in the current scope. */
eng_value_t eng_ref_get(eng_ref_t ref);
void eng_ref_free(eng_ref_t ref);
/* Number of live references: tests use it to prove callbacks are released. */
uint32_t eng_ref_count(void);

/* ------------------------------------------------------------------ native handles */

typedef struct {
	const char *name;             /* shown in TypeError messages: "not a TimerHandle" */
	/* Called when the object is collected; may be NULL. It runs inside the garbage collector:
	 * it may free native memory and call eng_ref_free(), nothing else of this API. */
	void (*finalize)(void *ptr);
} eng_native_type_t;

/* Attach a native pointer to an object; the type pointer identifies the kind of handle. */
void eng_set_native(eng_value_t object, const eng_native_type_t *type, void *ptr);
/* The native pointer when the object carries one of exactly this type, else NULL. */
void *eng_get_native(eng_value_t object, const eng_native_type_t *type);
/* Detach (ptr becomes NULL, the finalizer will not run): used when the native side dies first. */
void eng_clear_native(eng_value_t object, const eng_native_type_t *type);

/* Internal properties: invisible to JavaScript (no key a script can write reaches them, never
 * enumerated). A handle keeps its callback here rather than in a C reference, so that a callback
 * that refers to its own handle forms a cycle the garbage collector can still free. */
bool eng_set_internal(eng_value_t object, const char *key, eng_value_t value);
/* The value, or undefined when absent. */
eng_value_t eng_get_internal(eng_value_t object, const char *key);

/* ------------------------------------------------------------------ errors */

typedef enum {
	ENG_ERROR_COMMON = 0,
	ENG_ERROR_TYPE,
	ENG_ERROR_RANGE,
} eng_error_kind_t;

/* Build an Error (with `code` when code is non-NULL, and message "<code> <text>") and return it
 * as an exception value. */
eng_value_t eng_throw(eng_error_kind_t kind, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
eng_value_t eng_vthrow(eng_error_kind_t kind, const char *code, const char *fmt, va_list ap);
/* Turn an exception into the thrown value (an ordinary value), consuming the exception. */
eng_value_t eng_exception_value(eng_value_t exception);
/* Rethrow a value as an exception. */
eng_value_t eng_throw_value(eng_value_t value);
/* Make an Error object (not thrown): for promise rejections. */
eng_value_t eng_error(eng_error_kind_t kind, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ promises */

/* A new pending promise. Settle it with the functions below; the promise value is both the
 * object given to JavaScript and the capability C keeps (through a reference). */
eng_value_t eng_promise_new(void);
void eng_promise_resolve(eng_value_t promise, eng_value_t value);
void eng_promise_reject(eng_value_t promise, eng_value_t reason);
/* Run pending promise jobs; returns an exception value if a job threw (jobs left run on the
 * next call) or undefined. Once the queue is empty, a promise that was rejected and still has no
 * handler is returned as an exception, once per rejection (an unhandled rejection);
 * eng_has_pending_jobs() stays true until it has been reported. */
eng_value_t eng_run_jobs(void);
bool eng_has_pending_jobs(void);

/* ------------------------------------------------------------------ JSON */

eng_value_t eng_json_stringify(eng_value_t value); /* string, undefined, or exception */
eng_value_t eng_json_parse(const char *utf8, size_t len);

/* ------------------------------------------------------------------ code */

/* Compile ES5 source to this engine's bytecode (host tool only: needs the parser). On success
 * *out is malloc'ed and owned by the caller; on failure returns -1 and writes a message. */
int eng_compile(const char *source, size_t len, const char *filename, uint8_t **out,
		size_t *out_len, char *err, size_t err_cap);
/* Run bytecode made by eng_compile on an identically configured engine; returns the result of
 * the program or an exception. */
eng_value_t eng_run_bytecode(const uint8_t *bytecode, size_t len);
/* Evaluate source directly (tests and the REPL-less simulator path). */
eng_value_t eng_eval(const char *source, size_t len, const char *filename);

/* ------------------------------------------------------------------ resources */

typedef struct {
	size_t total, used, peak; /* bytes of the JS heap */
} eng_mem_stats_t;

void eng_mem_stats(eng_mem_stats_t *stats);
/* Bytes the selected context's JS heap holds in the host's memory, as the engine counts them
 * (Duktape: every block, built-ins included, unscaled; JerryScript: the allocated part of its
 * heap area). The simulator's memory figures for fleets (docs/world.md, "Several devices"). */
size_t eng_heap_host_bytes(void);
void eng_mem_reset_peak(void);
void eng_gc(void);
/* The engine's and the API's start-up allocations are done: from here the heap_size budget
 * applies to the app (see eng_config_t). Before it, the app's first line has not run. */
void eng_heap_seal(void);

/* The work budget (eng_config_t.exec_budget): armed before each callback, counted by the engine's
 * own interrupt hook (JerryScript's VM halt callback, Duktape's execution timeout check). A
 * runaway callback gets an exception "ESR0104" it cannot catch. */
void eng_watchdog_arm(void);
void eng_watchdog_disarm(void);
/* Work units counted since the watchdog was last armed (for tests and benchmarks). */
uint64_t eng_watchdog_units(void);

/* ------------------------------------------------------------------ port (provided by caller) */

/* The engine asks the runtime for time: Date.now() follows the device's UTC clock (virtual in
 * the simulator). */
double eng_port_utc_now_ms(void);
/* Fill buf with len random bytes: they seed Math.random of each new context (eng_random.h). On a
 * device they must come from the hardware's entropy (never the same on two devices or two boots);
 * in the simulator from the world's seed for the device and its boot, so a run repeats. */
void eng_port_random(void *buf, size_t len);
/* Fatal engine error (out of memory, a failed engine assertion): the device resets (the
 * simulator resets the simulated device). Does not return. */
void eng_port_fatal(const char *message) __attribute__((noreturn));

/* Text of an exception or error for logs: "TypeError: x is not a function" plus, where the engine
 * knows it, " (file:line)". Writes a NUL-terminated string; consumes nothing. */
void eng_describe(eng_value_t value, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* ENGINE_H */

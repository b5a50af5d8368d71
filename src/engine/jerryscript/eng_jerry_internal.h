/*
 * eng_jerry_internal.h: what the files of the JerryScript backend share.
 *
 * Handle ownership: every jerry_value_t the backend hands out through engine.h is recorded in a
 * handle table and freed when its scope ends (eng_scope_leave(), or the return of the native
 * function that produced it). eng_release() frees one early. This gives JerryScript's reference
 * counted values the scope semantics engine.h promises, so runtime code written against the
 * Duktape backend cannot leak JS heap here.
 */
#ifndef ENG_JERRY_INTERNAL_H
#define ENG_JERRY_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "jerryscript.h"

_Static_assert(sizeof(eng_value_t) == sizeof(jerry_value_t), "eng_value_t must hold a jerry_value_t");

/* Values the backend keeps for its own use, taken at eng_init() before any app code runs, so an
 * app replacing Object.freeze or JSON.stringify does not change the engine layer. */
typedef struct {
	jerry_value_t object_freeze;
	jerry_value_t json_stringify;
	jerry_value_t date_get_time;
} eng_jerry_intrinsics_t;

extern eng_jerry_intrinsics_t eng_jerry_intrinsics;

bool eng_jerry_initialized(void);

/* Record a value produced for the caller in the current scope and return it. */
eng_value_t eng_jerry_track(jerry_value_t value);
/* Take one recorded occurrence of value out of the current scope without freeing it (its
 * ownership moves elsewhere); false when the current scope does not hold it. */
bool eng_jerry_untrack(jerry_value_t value);
/* Native calls open an implicit scope: the handle table position to restore on return. */
uint32_t eng_jerry_scope_open(void);
void eng_jerry_scope_close(uint32_t saved);

/* A new JerryScript string from UTF-8; ill-formed sequences become U+FFFD. Not tracked. */
jerry_value_t eng_jerry_string_from_utf8(const char *utf8, size_t len);
/* Whether text is well-formed UTF-8 that JerryScript accepts as source or JSON. */
bool eng_jerry_utf8_valid(const char *utf8, size_t len);
/* UTF-8 of a string value into buf (snprintf-like, cut at a character boundary). */
size_t eng_jerry_string_to_utf8(jerry_value_t string, char *buf, size_t cap);

/* An Error object (not thrown, not tracked): message "<code> <text>" and a `code` property. */
jerry_value_t eng_jerry_make_error(eng_error_kind_t kind, const char *code, const char *fmt,
				   va_list ap);
jerry_value_t eng_jerry_make_error_text(eng_error_kind_t kind, const char *code,
					const char *text);
jerry_value_t eng_jerry_make_errorf(eng_error_kind_t kind, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Memory for the backend's own tables, taken from the JS heap. */
void *eng_jerry_alloc(size_t size);
void eng_jerry_free(void *ptr, size_t size);

/* Unhandled-rejection tracking (eng_jerry_function.c), per heap. */
void eng_jerry_promises_init(void);
void eng_jerry_promises_free(void);

/* Engine internals with no public API (eng_jerry_private.c). */
bool eng_jerry_private_pending_jobs(void);
void eng_jerry_private_reset_peak(void);
/* "NAME=value;..." for every configuration switch that changes the snapshot format. */
const char *eng_jerry_private_config(void);
/* JerryScript measures stack use from the frame that called jerry_init(); JavaScript entered
 * from a shallower frame (an event loop above the init code) would look like an overflow. Every
 * entry point that may run JavaScript raises the base to its own frame when that is shallower
 * (stacks grow down on every target). */
void eng_jerry_private_stack_mark(uintptr_t frame);
#define ENG_JERRY_STACK_MARK() eng_jerry_private_stack_mark((uintptr_t)__builtin_frame_address(0))

#endif /* ENG_JERRY_INTERNAL_H */

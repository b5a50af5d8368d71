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
#include "eng_random.h"
#include "jerryscript.h"

_Static_assert(sizeof(eng_value_t) == sizeof(jerry_value_t), "eng_value_t must hold a jerry_value_t");

/* Values the backend keeps for its own use, taken at eng_init() before any app code runs, so an
 * app replacing Object.freeze or JSON.stringify does not change the engine layer. */
typedef struct {
	jerry_value_t object_freeze;
	jerry_value_t json_stringify;
	jerry_value_t date_get_time;
	jerry_value_t number_value_of; /* the original, for eng_jerry_parity.c */
} eng_jerry_intrinsics_t;

#define ENG_JERRY_SCOPE_DEPTH 16u

/* Reference table slot: a copy of each kept value; ids are slot index + 1. */
typedef struct {
	jerry_value_t value;
	uint32_t next; /* ENG_JERRY_REF_IN_USE, or the id of the next free slot (0: none) */
} eng_jerry_ref_slot_t;

/*
 * Everything the backend keeps per engine instance (engine.h's eng_context_t). With an external
 * JerryScript context (the host simulator's many devices) the engine's own context and heap live
 * in `jerry_context`; with the static context of the device build only one instance exists.
 */
typedef struct {
	bool initialized;
	eng_config_t active_config;
	/* Static-context builds: a block taken at eng_init() so that a heap_size below the
	 * build-time heap is what the app gets (the static heap cannot shrink, but part of it can
	 * be fenced off). */
	void *heap_fence;
	size_t heap_fence_size;
	/* External-context builds: the engine's context followed by its heap. */
	void *jerry_context;
	size_t jerry_context_size;

	/* Handle table: values handed out, innermost scope on top. Slots freed early by
	 * eng_release() become undefined (freeing undefined is a no-op) and are dropped once they
	 * reach the top. */
	jerry_value_t *handles;
	uint32_t handle_count;
	uint32_t handle_cap;
	uint32_t handle_floor; /* first slot of the innermost scope */
	uint32_t scope_saved[ENG_JERRY_SCOPE_DEPTH];
	uint32_t scope_depth;

	eng_jerry_ref_slot_t *refs;
	uint32_t ref_cap;
	uint32_t ref_live;
	uint32_t ref_free_head;

	uint64_t watchdog_units; /* counted since the watchdog was armed */
	eng_random_t random;     /* Math.random's generator (eng_random.h) */
	eng_jerry_intrinsics_t intrinsics;

	/* Promises rejected while nobody handles them, oldest first (eng_jerry_function.c). */
	jerry_value_t *rejected;
	uint32_t rejected_count;
	uint32_t rejected_cap;

	/* eng_record's key sets, each with its names made once (eng_jerry_record.c). */
	struct eng_jerry_keyset *keysets;
	uint32_t keyset_count;
	uint32_t keyset_cap;
	uint32_t keyset_last; /* the one used last: records come in runs of one kind */
} eng_jerry_state_t;

/* The selected instance; never NULL (an empty, uninitialised state when none is selected). */
extern eng_jerry_state_t *eng_jerry;

bool eng_jerry_initialized(void);
/* The built-ins the engine layer replaces (eng_jerry_parity.c), in a new instance. */
void eng_jerry_parity_setup(void);

/* Record a value produced for the caller in the current scope and return it. */
eng_value_t eng_jerry_track(jerry_value_t value);
/* Take one recorded occurrence of value out of the current scope without freeing it (its
 * ownership moves elsewhere); false when the current scope does not hold it. */
bool eng_jerry_untrack(jerry_value_t value);
/* Native calls open an implicit scope: the handle table position to restore on return. */
uint32_t eng_jerry_scope_open(void);
void eng_jerry_scope_close(uint32_t saved);
/* Free every handle and every reference of the selected instance (its teardown). */
void eng_jerry_free_all_handles(void);
void eng_jerry_free_all_refs(void);

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

/* Frees eng_record's key sets and their names (the instance's teardown). */
void eng_jerry_keysets_free(void);

/* Engine internals with no public API (eng_jerry_private.c). */
bool eng_jerry_private_pending_jobs(void);
/* Adds the data property name = value (enumerable, writable, configurable) to an ordinary,
 * extensible object that has no property of that name: the caller's own fresh object. */
void eng_jerry_private_define_new(jerry_value_t object, jerry_value_t name, jerry_value_t value);
void eng_jerry_private_reset_peak(void);
/* "NAME=value;..." for every configuration switch that changes the snapshot format. */
const char *eng_jerry_private_config(void);
/* sizeof the engine's context structure (external-context builds allocate it with the heap). */
size_t eng_jerry_private_context_size(void);
/* JerryScript measures stack use from the frame that called jerry_init(); JavaScript entered
 * from a shallower frame (an event loop above the init code) would look like an overflow. Every
 * entry point that may run JavaScript raises the base to its own frame when that is shallower
 * (stacks grow down on every target). */
void eng_jerry_private_stack_mark(uintptr_t frame);
#define ENG_JERRY_STACK_MARK() eng_jerry_private_stack_mark((uintptr_t)__builtin_frame_address(0))

#endif /* ENG_JERRY_INTERNAL_H */

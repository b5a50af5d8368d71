/*
 * eng_duk.h: state and helpers shared by the modules of the Duktape backend.
 *
 * Handles
 * -------
 * Duktape's value-stack indices are relative to the current native call's frame, so an index
 * taken in one native function means something else in a native it calls (through JavaScript),
 * and the index of a value made at the top level is meaningless inside any native. Handles here
 * must stay usable across such nesting (the runtime keeps handles in C locals around eng_call),
 * so every value a handle names lives on a dedicated Duktape thread, the store, whose value
 * stack nobody ever calls a function on: its single frame never changes and its indices are
 * absolute. A handle is that index + 1 (0 is never a valid handle and reads as undefined), with
 * ENG_DUK_EXCEPTION marking a thrown value travelling back to C.
 *
 * Work that runs JavaScript or allocates is done on the thread that is executing (`exec`: the
 * heap's main thread, or the thread of the native function being called), inside duk_safe_call
 * or duk_pcall, with inputs copied over from the store and the result moved back to it. Reads
 * that can neither allocate nor run code (types, numbers, string bytes, own hidden properties)
 * are done on the store directly.
 *
 * Scopes are store heights: leaving a scope, or returning from a native function, truncates the
 * store back to where it was. `floor` is the lowest slot eng_release() may pop.
 */
#ifndef ENG_DUK_H
#define ENG_DUK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "duktape.h"
#include "eng_duk_ext.h"
#include "eng_duk_slab.h"
#include "engine.h"
#include "eng_random.h"

#define ENG_DUK_EXCEPTION 0x80000000u
#define ENG_DUK_INDEX_MASK 0x7fffffffu

/* Store slots filled at init; they are never popped. */
enum {
	ENG_DUK_SLOT_UNDEFINED = 0,
	ENG_DUK_SLOT_NULL,
	ENG_DUK_SLOT_FALSE,
	ENG_DUK_SLOT_TRUE,
	ENG_DUK_SLOT_GLOBAL,
	ENG_DUK_SLOT_NOMEM, /* a RangeError for when not even an error can be allocated */
	ENG_DUK_SLOT_COUNT
};

#define ENG_DUK_MAX_SCOPES 64

typedef struct {
	duk_idx_t base;
	duk_idx_t floor;
} eng_duk_scope_t;

/* Duktape's bytecode instructions per work unit of eng_config_t.exec_budget: about what one
 * iteration of a small loop costs, so that a budget stops a runaway loop after about as many
 * iterations as on JerryScript (whose unit is a backward branch). */
#define ENG_DUK_WORK_PER_UNIT 2u

/* Every block of a heap larger than a slab's (eng_duk_slab.h), so that an abandoned heap
 * (eng_abandon) can be given back whole. */
typedef struct eng_duk_block_link {
	struct eng_duk_block_link *prev, *next;
	size_t size;
} eng_duk_block_link_t;

/* Heap accounting: limit is a hard cap on the bytes Duktape holds (SIZE_MAX until the heap is
 * sealed). */
typedef struct {
	size_t limit;
	size_t used;
	size_t peak;
	/* Allocations refused in a row: Duktape retries a failed allocation after each of up to
	 * DUK_HEAP_ALLOC_FAIL_MARKANDSWEEP_LIMIT collections before it gives up. */
	unsigned failures;
	eng_duk_block_link_t blocks; /* circular list head */
	eng_duk_slabs_t slabs;       /* the small blocks */
} eng_duk_mem_t;

typedef struct {
	eng_config_t config;
	eng_duk_mem_t mem;
	size_t sealed_used; /* bytes held when the heap was sealed (0: not yet) */

	duk_context *main;  /* the heap's first thread */
	duk_context *exec;  /* the thread running now: main, or the current native's */
	duk_context *store; /* handle values */
	duk_context *refs;  /* referenced values, slot = eng_ref_t */

	/* Kept alive by the heap stash; heap pointers so no lookup or allocation is needed. */
	void *key_native;      /* hidden key of a native handle record */
	void *key_function;    /* hidden key of a native function record */
	void *key_promise;     /* hidden key of promise state, used by promise.js */
	void *finalizer;       /* the C finalizer of native handles */
	void *fn_object_keys;  /* original Object.keys */
	void *fn_has_own;      /* original Object.prototype.hasOwnProperty */
	void *fn_set_prototype_of; /* original Object.setPrototypeOf */
	void *fn_number_value_of;  /* original Number.prototype.valueOf (eng_duk_parity.c) */
	void *fn_from_char_code;   /* original String.fromCharCode (eng_duk_parity.c) */
	eng_random_t random;       /* Math.random's generator (eng_random.h) */
	void *promise_create;  /* promise.js entry points */
	void *promise_resolve;
	void *promise_reject;
	void *promise_run;
	void *promise_pending;
	void *promise_unhandled;
	uint8_t *promise_work; /* promise.js's flag: jobs or rejections may be pending */

	/* eng_record's key sets, each with its names made once (eng_duk_record.c); the names are
	 * kept alive by an array in the heap stash. */
	struct eng_duk_keyset *keysets;
	uint32_t keyset_count;
	uint32_t keyset_cap;
	uint32_t keyset_last; /* the one used last: records come in runs of one kind */

	duk_idx_t floor;
	uint32_t scope_depth;
	eng_duk_scope_t scopes[ENG_DUK_MAX_SCOPES];

	/* References: refs[id] holds the value; link[id] is LIVE or the next free id. */
	uint32_t *ref_link;
	uint32_t ref_cap;
	uint32_t ref_free_head;
	uint32_t ref_live;

	bool wd_armed;
	bool wd_fired;
	uint64_t wd_units; /* counted since the watchdog was armed */

	unsigned in_finalizer; /* finalize callbacks may only free references */
	bool destroying;
} eng_duk_state_t;

/* The selected context (engine.h's eng_context_t is an eng_duk_state_t). Never NULL: with no
 * context selected it points at an empty state, whose NULL heap makes every call a no-op. */
extern eng_duk_state_t *eng_duk;

/* Store index of a handle; invalid or stale handles read as the undefined slot. */
static inline duk_idx_t eng_duk_index(eng_value_t value)
{
	uint32_t raw = value & ENG_DUK_INDEX_MASK;

	if (raw == 0 || eng_duk->store == NULL || (duk_idx_t) (raw - 1) >= duk_get_top(eng_duk->store)) {
		return ENG_DUK_SLOT_UNDEFINED;
	}
	return (duk_idx_t) (raw - 1);
}

static inline eng_value_t eng_duk_handle(duk_idx_t index, bool exception)
{
	return ((uint32_t) index + 1u) | (exception ? ENG_DUK_EXCEPTION : 0u);
}

/* The handle of the preallocated out-of-memory exception. */
static inline eng_value_t eng_duk_nomem(void)
{
	return eng_duk_handle(ENG_DUK_SLOT_NOMEM, true);
}

bool eng_duk_ready(void);

/* Keeps at least `extra` free slots on the store (and one more for eng_duk_push_value). */
bool eng_duk_store_reserve(duk_idx_t extra);

/* Copies a handle's value onto ctx; ctx must have a free slot (duk_check_stack). */
void eng_duk_push_value(duk_context *ctx, eng_value_t value);

/* Moves the top of ctx to the store and returns its handle. */
eng_value_t eng_duk_take(duk_context *ctx, bool exception);

/* Runs fn under duk_safe_call on the executing thread with the n input values on its stack
 * (fn sees them at -n..-1) and returns its single result or the error as a handle; out may be
 * NULL to drop the result. Returns true on success. */
bool eng_duk_safe(duk_safe_call_function fn, void *udata, const eng_value_t *in, duk_idx_t n,
		  eng_value_t *out);

/* After a failed protected call: once the watchdog has fired, whatever error surfaced becomes
 * the ESR0104 error the runtime reports (replaces the top of ctx). */
void eng_duk_rewrite_timeout(duk_context *ctx);

/* Pushes a UTF-8 string converted to Duktape's internal form (CESU-8: characters outside the
 * BMP become surrogate pairs, invalid bytes U+FFFD). May throw: use inside protected calls. */
void eng_duk_push_utf8(duk_context *ctx, const char *utf8, size_t len);

/* Pushes a new ArrayBuffer holding a copy of len bytes. May throw: use inside protected calls. */
void eng_duk_push_arraybuffer(duk_context *ctx, const uint8_t *bytes, size_t len);

/* Converts Duktape's internal form to UTF-8. Writes only whole characters, at most cap bytes
 * (out may be NULL with cap 0); returns the full UTF-8 size and the bytes written. */
size_t eng_duk_to_utf8(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *written);

/* Pushes a new error object (message "<code> <text>" and a `code` property when code is not
 * NULL). May throw: use inside protected calls. */
void eng_duk_push_error(duk_context *ctx, eng_error_kind_t kind, const char *code,
			const char *text);

/* Writes the description of the value on top of ctx (see eng_describe); never throws. */
void eng_duk_describe_top(duk_context *ctx, char *buf, size_t cap);

/* Called at init inside a protected call with the heap stash on top of the stack. */
void eng_duk_promise_setup(duk_context *ctx);
/* Built-ins that make Duktape behave as JerryScript (eng_duk_parity.c); stash: the heap stash. */
void eng_duk_parity_setup(duk_context *ctx, duk_idx_t stash);

/* Frees the C side of eng_record's key sets (the heap's teardown or abandonment). */
void eng_duk_keysets_free(eng_duk_state_t *state);

/* The finalizer installed on native handles. */
duk_ret_t eng_duk_native_finalizer(duk_context *ctx);

/* Duktape's fatal handler: reports through eng_port_fatal() and never returns. */
void eng_duk_fatal(void *heap_udata, const char *msg);

/* An empty, unlimited eng_duk_mem_t. */
void eng_duk_mem_init(eng_duk_mem_t *mem);
/* An empty list of blocks; every block of a heap given back, without looking at what is in them
 * (the heap's teardown or abandonment). */
void eng_duk_blocks_init(eng_duk_mem_t *mem);
void eng_duk_blocks_free_all(eng_duk_mem_t *mem);
/* Heap allocation functions; udata is an eng_duk_mem_t. */
void *eng_duk_alloc(void *udata, duk_size_t size);
void *eng_duk_realloc(void *udata, void *ptr, duk_size_t size);
void eng_duk_free(void *udata, void *ptr);

#endif /* ENG_DUK_H */

/*
 * eng_duk_promise.c: promises and the job queue, on top of promise.js.
 */
#include <string.h>

#include "eng_duk.h"
#include "eng_duk_embedded.h"
#if ENG_DUK_PROMISE_BYTECODE
#include "promise.bytecode.h"
#endif

static void *eng_duk_promise_entry(duk_context *ctx, duk_idx_t ctl, const char *name)
{
	void *ptr;

	duk_get_prop_string(ctx, ctl, name);
	if (!duk_is_function(ctx, -1)) {
		(void) duk_type_error(ctx, "promise.js has no %s()", name);
	}
	ptr = duk_get_heapptr(ctx, -1);
	duk_pop(ctx);
	return ptr;
}

void eng_duk_promise_setup(duk_context *ctx)
{
	duk_idx_t stash = duk_get_top_index(ctx);
	duk_idx_t ctl;

#if ENG_DUK_PROMISE_BYTECODE
	/* Made on the host from this promise.js (duktape.cmake checks): no compiler run at start. */
	void *bc = duk_push_fixed_buffer(ctx, sizeof(eng_duk_promise_bc));
	memcpy(bc, eng_duk_promise_bc, sizeof(eng_duk_promise_bc));
	duk_load_function(ctx);
#else
	duk_push_lstring(ctx, eng_duk_promise_js, sizeof(eng_duk_promise_js) - 1);
	duk_push_string(ctx, "promise.js");
	duk_compile(ctx, DUK_COMPILE_EVAL);
#endif
	duk_call(ctx, 0);
	duk_push_heapptr(ctx, eng_duk->key_promise);
	duk_push_global_object(ctx);
	/* A fixed buffer never moves: its byte stays at this address for the heap's life (the
	 * stash keeps it, below). */
	eng_duk->promise_work = duk_push_fixed_buffer(ctx, 1);
	duk_dup_top(ctx);
	duk_put_prop_string(ctx, stash, "promiseWork");
	duk_call(ctx, 3);
	ctl = duk_get_top_index(ctx);
	eng_duk->promise_create = eng_duk_promise_entry(ctx, ctl, "create");
	eng_duk->promise_resolve = eng_duk_promise_entry(ctx, ctl, "resolve");
	eng_duk->promise_reject = eng_duk_promise_entry(ctx, ctl, "reject");
	eng_duk->promise_run = eng_duk_promise_entry(ctx, ctl, "run");
	eng_duk->promise_pending = eng_duk_promise_entry(ctx, ctl, "pending");
	eng_duk->promise_unhandled = eng_duk_promise_entry(ctx, ctl, "unhandled");
	/* The stash keeps the entry points (and through them the queue) alive. */
	duk_put_prop_string(ctx, stash, "promise");
}

/* [ args... ] -> [ result ]: calls the promise.js entry point given as udata. */
typedef struct {
	void *fn;
	duk_idx_t nargs;
} eng_duk_entry_t;

static duk_ret_t eng_duk_entry_safe(duk_context *ctx, void *udata)
{
	const eng_duk_entry_t *entry = udata;

	duk_push_heapptr(ctx, entry->fn);
	duk_insert(ctx, -1 - entry->nargs);
	duk_call(ctx, entry->nargs);
	return 1;
}

eng_value_t eng_promise_new(void)
{
	eng_duk_entry_t entry = { eng_duk->promise_create, 0 };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_entry_safe, &entry, NULL, 0, &out);
	return out;
}

void eng_promise_resolve(eng_value_t promise, eng_value_t value)
{
	eng_duk_entry_t entry = { eng_duk->promise_resolve, 2 };
	eng_value_t in[2] = { promise, value };

	(void) eng_duk_safe(eng_duk_entry_safe, &entry, in, 2, NULL);
}

void eng_promise_reject(eng_value_t promise, eng_value_t reason)
{
	eng_duk_entry_t entry = { eng_duk->promise_reject, 2 };
	eng_value_t in[2] = { promise, reason };

	(void) eng_duk_safe(eng_duk_entry_safe, &entry, in, 2, NULL);
}

/* [ ] -> [ undefined | reason ]; udata is set when a reason was returned. */
static duk_ret_t eng_duk_run_jobs_safe(duk_context *ctx, void *udata)
{
	bool *unhandled = udata;

	duk_push_heapptr(ctx, eng_duk->promise_run);
	duk_call(ctx, 0);
	duk_pop(ctx);
	duk_push_heapptr(ctx, eng_duk->promise_unhandled);
	duk_call(ctx, 0);
	if (duk_is_object(ctx, -1)) {
		duk_get_prop_string(ctx, -1, "reason");
		*unhandled = true;
	}
	return 1;
}

eng_value_t eng_run_jobs(void)
{
	bool unhandled = false;
	eng_value_t out;

	if (!eng_duk_safe(eng_duk_run_jobs_safe, &unhandled, NULL, 0, &out)) {
		return out;
	}
	if (unhandled) {
		/* A rejection nobody handled is reported like an uncaught exception. */
		return eng_throw_value(out);
	}
	eng_release(out);
	return eng_undefined();
}

bool eng_has_pending_jobs(void)
{
	eng_duk_entry_t entry = { eng_duk->promise_pending, 0 };
	eng_value_t out;
	bool pending;

	if (!eng_duk_ready()) {
		return false;
	}
	/* Nothing queued or rejected since pending() last said there was nothing (promise.js sets
	 * the byte): the common case, after every event, answered without running JavaScript. */
	if (*eng_duk->promise_work == 0) {
		return false;
	}
	/* A failure to even ask means something is wrong: let eng_run_jobs() report it. */
	if (!eng_duk_safe(eng_duk_entry_safe, &entry, NULL, 0, &out)) {
		eng_release(out);
		return true;
	}
	pending = eng_to_boolean(out);
	eng_release(out);
	if (!pending) {
		*eng_duk->promise_work = 0;
	}
	return pending;
}

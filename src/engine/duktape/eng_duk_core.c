/*
 * eng_duk_core.c: identity, heap lifecycle, handle store, scopes, watchdog. The heap's
 * accounting is in eng_duk_mem.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eng_hash.h"
#include "eng_duk.h"
#include "eng_duk_embedded.h"

static eng_duk_state_t eng_duk_none;
eng_duk_state_t *eng_duk = &eng_duk_none;

/* ------------------------------------------------------------------ identity */

uint32_t eng_id(void)
{
	return ENG_ID_DUKTAPE;
}

uint32_t eng_version(void)
{
	return (uint32_t) DUK_VERSION;
}

const char *eng_name(void)
{
	return "Duktape";
}

uint32_t eng_config_hash(void)
{
	char version[32];
	uint32_t hash = ENG_FNV1A_INIT;

	/* The override block is the whole of the project's configuration on top of Debian's
	 * defaults, so it and the version identify what bytecode this build accepts. */
	snprintf(version, sizeof(version), "Duktape %ld\n", (long) DUK_VERSION);
	hash = eng_fnv1a(hash, version, strlen(version));
	return eng_fnv1a(hash, eng_duk_overrides_text, sizeof(eng_duk_overrides_text) - 1);
}

/* ------------------------------------------------------------------ port glue */

void eng_duk_fatal(void *heap_udata, const char *msg)
{
	(void) heap_udata;
	eng_port_fatal(msg != NULL ? msg : "Duktape fatal error");
	/* Duktape requires the fatal handler not to return. */
	abort();
}

/* duktape.c's DUK_HTHREAD_INTCTR_DEFAULT: bytecode instructions between two interrupts. */
#define ENG_DUK_INSTRUCTIONS_PER_INTERRUPT (256u * 1024u)

int eng_duk_exec_timeout_check(void *heap_udata)
{
	(void) heap_udata;
	if (!eng_duk->wd_armed) {
		return 0;
	}
	/* Called by the executor every ENG_DUK_INSTRUCTIONS_PER_INTERRUPT instructions: counting
	 * the calls counts work, the same on every run. Once fired, keep reporting the timeout so
	 * the error cannot be caught and ignored by JavaScript: Duktape rethrows at every
	 * instruction until the call has unwound. */
	if (!eng_duk->wd_fired) {
		eng_duk->wd_units += ENG_DUK_INSTRUCTIONS_PER_INTERRUPT / ENG_DUK_WORK_PER_UNIT;
		if (eng_duk->wd_units >= eng_duk->config.exec_budget) {
			eng_duk->wd_fired = true;
		}
	}
	return eng_duk->wd_fired;
}

void eng_watchdog_arm(void)
{
	eng_duk->wd_fired = false;
	eng_duk->wd_units = 0;
	eng_duk->wd_armed = eng_duk->config.exec_budget != 0;
}

void eng_watchdog_disarm(void)
{
	eng_duk->wd_armed = false;
	eng_duk->wd_fired = false;
}

uint64_t eng_watchdog_units(void)
{
	return eng_duk->wd_units;
}

/* ------------------------------------------------------------------ handle store */

bool eng_duk_ready(void)
{
	return eng_duk->main != NULL && !eng_duk->destroying;
}

bool eng_duk_store_reserve(duk_idx_t extra)
{
	return eng_duk->store != NULL && duk_check_stack(eng_duk->store, extra + 1);
}

void eng_duk_push_value(duk_context *ctx, eng_value_t value)
{
	/* The store always keeps a free slot for this dup (see eng_duk_store_reserve). */
	duk_dup(eng_duk->store, eng_duk_index(value));
	duk_xmove_top(ctx, eng_duk->store, 1);
}

eng_value_t eng_duk_take(duk_context *ctx, bool exception)
{
	if (!eng_duk_store_reserve(1)) {
		duk_pop(ctx);
		return eng_duk_nomem();
	}
	duk_xmove_top(eng_duk->store, ctx, 1);
	return eng_duk_handle(duk_get_top(eng_duk->store) - 1, exception);
}

static duk_ret_t eng_duk_timeout_error(duk_context *ctx, void *udata)
{
	(void) udata;
	eng_duk_push_error(ctx, ENG_ERROR_COMMON, "ESR0104", "Execution interrupted");
	return 1;
}

void eng_duk_rewrite_timeout(duk_context *ctx)
{
	if (!eng_duk->wd_fired) {
		return;
	}
	duk_pop(ctx);
	/* On failure the safe call leaves its own error in place, which is still an error. */
	(void) duk_safe_call(ctx, eng_duk_timeout_error, NULL, 0, 1);
}

bool eng_duk_safe(duk_safe_call_function fn, void *udata, const eng_value_t *in, duk_idx_t n,
		  eng_value_t *out)
{
	duk_context *ctx = eng_duk->exec;
	duk_int_t rc;

	if (!eng_duk_ready() || eng_duk->in_finalizer != 0) {
		if (out != NULL) {
			*out = eng_duk_ready() ? eng_duk_nomem() : 0;
		}
		return false;
	}
	/* The inputs, the result and the temporaries the safe functions push. */
	if (!duk_check_stack(ctx, n + 16)) {
		if (out != NULL) {
			*out = eng_duk_nomem();
		}
		return false;
	}
	for (duk_idx_t i = 0; i < n; i++) {
		eng_duk_push_value(ctx, in[i]);
	}
	rc = duk_safe_call(ctx, fn, udata, n, 1);
	if (rc != DUK_EXEC_SUCCESS) {
		eng_duk_rewrite_timeout(ctx);
	}
	if (out != NULL) {
		*out = eng_duk_take(ctx, rc != DUK_EXEC_SUCCESS);
	} else {
		duk_pop(ctx);
	}
	return rc == DUK_EXEC_SUCCESS;
}

void eng_release(eng_value_t value)
{
	duk_idx_t index;

	if (!eng_duk_ready()) {
		return;
	}
	index = eng_duk_index(value);
	if (index >= ENG_DUK_SLOT_COUNT && index >= eng_duk->floor &&
	    index == duk_get_top(eng_duk->store) - 1) {
		duk_pop(eng_duk->store);
	}
}

void eng_scope_enter(void)
{
	if (!eng_duk_ready()) {
		return;
	}
	if (eng_duk->scope_depth < ENG_DUK_MAX_SCOPES) {
		eng_duk_scope_t *scope = &eng_duk->scopes[eng_duk->scope_depth];

		scope->base = duk_get_top(eng_duk->store);
		scope->floor = eng_duk->floor;
		eng_duk->floor = scope->base;
	}
	/* Deeper scopes are counted but merged into the deepest recorded one. */
	eng_duk->scope_depth++;
}

void eng_scope_leave(void)
{
	eng_duk_scope_t *scope;

	if (!eng_duk_ready() || eng_duk->scope_depth == 0) {
		return;
	}
	eng_duk->scope_depth--;
	if (eng_duk->scope_depth >= ENG_DUK_MAX_SCOPES) {
		return;
	}
	scope = &eng_duk->scopes[eng_duk->scope_depth];
	if (duk_get_top(eng_duk->store) > scope->base) {
		duk_set_top(eng_duk->store, scope->base);
	}
	eng_duk->floor = scope->floor;
}

/* ------------------------------------------------------------------ lifecycle */

static void *eng_duk_stash_keep(duk_context *ctx, duk_idx_t stash, const char *name)
{
	void *ptr = duk_get_heapptr(ctx, -1);

	duk_put_prop_string(ctx, stash, name);
	return ptr;
}

static duk_ret_t eng_duk_setup(duk_context *ctx, void *udata)
{
	duk_idx_t stash;

	(void) udata;
	duk_push_heap_stash(ctx);
	stash = duk_get_top_index(ctx);

	duk_push_thread(ctx);
	eng_duk->store = duk_get_context(ctx, -1);
	duk_put_prop_string(ctx, stash, "store");
	duk_push_thread(ctx);
	eng_duk->refs = duk_get_context(ctx, -1);
	duk_put_prop_string(ctx, stash, "refs");

	duk_push_string(ctx, DUK_HIDDEN_SYMBOL("engNative"));
	eng_duk->key_native = eng_duk_stash_keep(ctx, stash, "keyNative");
	duk_push_string(ctx, DUK_HIDDEN_SYMBOL("engFunction"));
	eng_duk->key_function = eng_duk_stash_keep(ctx, stash, "keyFunction");
	duk_push_string(ctx, DUK_HIDDEN_SYMBOL("engPromise"));
	eng_duk->key_promise = eng_duk_stash_keep(ctx, stash, "keyPromise");

	duk_push_c_function(ctx, eng_duk_native_finalizer, 2);
	eng_duk->finalizer = eng_duk_stash_keep(ctx, stash, "finalizer");

	duk_get_global_string(ctx, "Object");
	duk_get_prop_string(ctx, -1, "keys");
	eng_duk->fn_object_keys = eng_duk_stash_keep(ctx, stash, "objectKeys");
	duk_get_prop_string(ctx, -1, "setPrototypeOf");
	eng_duk->fn_set_prototype_of = eng_duk_stash_keep(ctx, stash, "setPrototypeOf");
	duk_get_prop_string(ctx, -1, "prototype");
	duk_get_prop_string(ctx, -1, "hasOwnProperty");
	eng_duk->fn_has_own = eng_duk_stash_keep(ctx, stash, "hasOwn");
	duk_pop_2(ctx);

	eng_duk_promise_setup(ctx);
	eng_duk_parity_setup(ctx, stash);

	/* Fixed store slots, in ENG_DUK_SLOT_* order. */
	if (!duk_check_stack(eng_duk->store, ENG_DUK_SLOT_COUNT + 8) ||
	    !duk_check_stack(eng_duk->refs, 8)) {
		return DUK_RET_RANGE_ERROR;
	}
	duk_push_undefined(eng_duk->store);
	duk_push_null(eng_duk->store);
	duk_push_false(eng_duk->store);
	duk_push_true(eng_duk->store);
	duk_push_global_object(ctx);
	duk_xmove_top(eng_duk->store, ctx, 1);
	duk_push_error_object_raw(ctx, DUK_ERR_RANGE_ERROR, NULL, 0, "out of memory");
	duk_xmove_top(eng_duk->store, ctx, 1);
	/* refs slot 0 stays undefined: ids start at 1 and freed slots are overwritten from it. */
	duk_push_undefined(eng_duk->refs);

	duk_pop(ctx);
	return 0;
}

/* The state behind an eng_context_t. */
struct eng_context {
	eng_duk_state_t state;
};

static void heap_destroy(void)
{
	if (eng_duk->main != NULL) {
		/* Destroying the heap runs the finalizers of the native handles still alive; they
		 * may free references, which then only touches the C side. */
		eng_duk->destroying = true;
		duk_destroy_heap(eng_duk->main);
		eng_duk->main = NULL;
		/* What Duktape lost track of (its compiler's buffers after an out-of-memory error
		 * part way through a parse) is still on the block list: give it back too. */
		eng_duk_blocks_free_all(&eng_duk->mem);
	}
	free(eng_duk->ref_link);
	eng_duk->ref_link = NULL;
	eng_duk_keysets_free(eng_duk);
}

void eng_abandon(eng_context_t *context)
{
	eng_duk_state_t *previous = eng_duk;

	if (context == NULL) {
		return;
	}
	/* Duktape's heap may be in the middle of anything: give its blocks back without asking it. */
	eng_duk_blocks_free_all(&context->state.mem);
	free(context->state.ref_link);
	eng_duk_keysets_free(&context->state);
	bool was_selected = previous == &context->state;
	free(context);
	eng_duk = was_selected ? &eng_duk_none : previous;
}

/* Build a heap in the selected (zeroed) state; false when it cannot be made. */
static bool heap_create(const eng_config_t *config)
{
	duk_context *ctx;

	eng_duk->config = *config;
	eng_random_seed_from_port(&eng_duk->random);
	eng_duk_blocks_init(&eng_duk->mem);
	/* The limit applies once the heap is sealed (eng_heap_seal): Duktape's built-ins and the
	 * API take far more room than on the device's JerryScript, and are not the app's. */
	eng_duk->mem.limit = SIZE_MAX;

	ctx = duk_create_heap(eng_duk_alloc, eng_duk_realloc, eng_duk_free, &eng_duk->mem,
			      eng_duk_fatal);
	if (ctx == NULL) {
		return false;
	}
	eng_duk->main = ctx;
	eng_duk->exec = ctx;
	if (duk_safe_call(ctx, eng_duk_setup, NULL, 0, 1) != DUK_EXEC_SUCCESS) {
		duk_pop(ctx);
		heap_destroy();
		return false;
	}
	duk_pop(ctx);
	eng_duk->floor = ENG_DUK_SLOT_COUNT;
	return true;
}

eng_context_t *eng_create(const eng_config_t *config)
{
	eng_duk_state_t *previous = eng_duk;
	eng_context_t *context;

	if (config == NULL || (context = calloc(1, sizeof(*context))) == NULL) {
		return NULL;
	}
	eng_duk = &context->state;
	if (!heap_create(config)) {
		free(context);
		eng_duk = previous;
		return NULL;
	}
	return context;
}

void eng_destroy(eng_context_t *context)
{
	eng_duk_state_t *previous = eng_duk;

	if (context == NULL) {
		return;
	}
	eng_duk = &context->state;
	heap_destroy();
	bool was_selected = previous == &context->state;
	free(context);
	eng_duk = was_selected ? &eng_duk_none : previous;
}

void eng_select(eng_context_t *context)
{
	eng_duk = context != NULL ? &context->state : &eng_duk_none;
}

eng_context_t *eng_selected(void)
{
	return eng_duk == &eng_duk_none ? NULL : (eng_context_t *)eng_duk;
}

int eng_init(const eng_config_t *config)
{
	return eng_create(config) != NULL ? 0 : -1;
}

void eng_deinit(void)
{
	eng_destroy(eng_selected());
}

int eng_reset(void)
{
	eng_context_t *context = eng_selected();
	eng_config_t config;

	if (context == NULL) {
		return -1;
	}
	config = eng_duk->config;
	heap_destroy();
	memset(eng_duk, 0, sizeof(*eng_duk));
	return heap_create(&config) ? 0 : -1;
}

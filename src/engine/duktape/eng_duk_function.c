/*
 * eng_duk_function.c: native functions (one trampoline for all), calls and references.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_duk.h"

/* ------------------------------------------------------------------ native functions */

/* Stored in a hidden own property of each native function, as a plain buffer. */
typedef struct {
	eng_native_fn_t fn;
	void *data;
} eng_duk_function_t;

#define ENG_DUK_INLINE_ARGS 8

static duk_ret_t eng_duk_trampoline(duk_context *ctx)
{
	duk_context *store = eng_duk->store;
	duk_idx_t argc = duk_get_top(ctx);
	eng_value_t inline_argv[ENG_DUK_INLINE_ARGS];
	eng_value_t *argv = inline_argv;
	eng_duk_function_t record;
	size_t size = 0;
	void *data;
	eng_call_t call;
	eng_value_t result;
	duk_context *saved_exec = eng_duk->exec;
	duk_idx_t saved_floor = eng_duk->floor;
	uint32_t saved_depth = eng_duk->scope_depth;
	duk_idx_t base;

	duk_push_current_function(ctx);
	data = eng_duk_own_buffer(ctx, -1, eng_duk->key_function, &size);
	if (data == NULL || size != sizeof(record)) {
		return DUK_RET_TYPE_ERROR;
	}
	memcpy(&record, data, sizeof(record));
	duk_pop(ctx);

	/* Everything that can throw happens before the native runs: a Duktape error raised here
	 * unwinds only Duktape's own frames. */
	if (!eng_duk_store_reserve(argc + 2)) {
		return DUK_RET_RANGE_ERROR;
	}
	base = duk_get_top(store);
	duk_push_this(ctx);
	duk_xmove_top(store, ctx, 1);
	if (argc > 0) {
		duk_xcopy_top(store, ctx, argc);
	}
	if (argc > ENG_DUK_INLINE_ARGS) {
		/* Freed with the call frame, whichever way the call ends. */
		argv = duk_push_fixed_buffer(ctx, sizeof(eng_value_t) * (size_t) argc);
	}
	for (duk_idx_t i = 0; i < argc; i++) {
		argv[i] = eng_duk_handle(base + 1 + i, false);
	}
	call.this_value = eng_duk_handle(base, false);
	call.argv = argv;
	call.argc = (uint32_t) argc;
	call.data = record.data;

	eng_duk->exec = ctx;
	eng_duk->floor = base;
	result = record.fn(&call);
	eng_duk->exec = saved_exec;
	eng_duk->floor = saved_floor;
	eng_duk->scope_depth = saved_depth;

	if (!duk_check_stack(ctx, 1)) {
		duk_set_top(store, base);
		return DUK_RET_RANGE_ERROR;
	}
	eng_duk_push_value(ctx, result);
	if (duk_get_top(store) > base) {
		duk_set_top(store, base);
	}
	if (eng_is_exception(result)) {
		return duk_throw(ctx);
	}
	return 1;
}

typedef struct {
	eng_duk_function_t record;
	const char *name;
} eng_duk_function_args_t;

static duk_ret_t eng_duk_function_safe(duk_context *ctx, void *udata)
{
	const eng_duk_function_args_t *args = udata;
	void *data;

	duk_push_c_function(ctx, eng_duk_trampoline, DUK_VARARGS);
	duk_push_heapptr(ctx, eng_duk->key_function);
	data = duk_push_fixed_buffer(ctx, sizeof(args->record));
	memcpy(data, &args->record, sizeof(args->record));
	duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE);
	if (args->name != NULL) {
		/* Function.prototype.name is read-only, so an own property has to be defined. */
		duk_push_string(ctx, "name");
		eng_duk_push_utf8(ctx, args->name, strlen(args->name));
		duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_CONFIGURABLE);
	}
	return 1;
}

eng_value_t eng_function(eng_native_fn_t fn, void *data, const char *name)
{
	eng_duk_function_args_t args = { { fn, data }, name };
	eng_value_t out;

	if (fn == NULL) {
		return eng_throw(ENG_ERROR_TYPE, NULL, "native function is NULL");
	}
	(void) eng_duk_safe(eng_duk_function_safe, &args, NULL, 0, &out);
	return out;
}

eng_value_t eng_call(eng_value_t fn, eng_value_t this_value, const eng_value_t *argv, uint32_t argc)
{
	duk_context *ctx = eng_duk->exec;
	duk_int_t rc;

	if (!eng_duk_ready() || eng_duk->in_finalizer != 0) {
		return eng_duk_ready() ? eng_duk_nomem() : 0;
	}
	if (argc > 0 && argv == NULL) {
		return eng_throw(ENG_ERROR_TYPE, NULL, "eng_call: no arguments given");
	}
	if (argc > 0x10000 || !duk_check_stack(ctx, (duk_idx_t) argc + 3)) {
		return eng_duk_nomem();
	}
	eng_duk_push_value(ctx, fn);
	eng_duk_push_value(ctx, this_value);
	for (uint32_t i = 0; i < argc; i++) {
		eng_duk_push_value(ctx, argv[i]);
	}
	rc = duk_pcall_method(ctx, (duk_idx_t) argc);
	if (rc != DUK_EXEC_SUCCESS) {
		eng_duk_rewrite_timeout(ctx);
	}
	return eng_duk_take(ctx, rc != DUK_EXEC_SUCCESS);
}

/* ------------------------------------------------------------------ references */

#define ENG_DUK_REF_LIVE UINT32_MAX

static bool eng_duk_ref_valid(eng_ref_t ref)
{
	return eng_duk_ready() && ref != 0 && ref < eng_duk->ref_cap &&
	       eng_duk->ref_link[ref] == ENG_DUK_REF_LIVE && (duk_idx_t) ref < duk_get_top(eng_duk->refs);
}

eng_ref_t eng_ref_new(eng_value_t value)
{
	duk_context *refs = eng_duk->refs;
	uint32_t id;

	if (!eng_duk_ready() || eng_is_exception(value)) {
		return 0;
	}
	if (eng_duk->ref_free_head != 0) {
		id = eng_duk->ref_free_head;
		eng_duk->ref_free_head = eng_duk->ref_link[id];
	} else {
		id = (uint32_t) duk_get_top(refs);
		if (id >= eng_duk->ref_cap) {
			uint32_t cap = eng_duk->ref_cap != 0 ? eng_duk->ref_cap * 2 : 64;
			uint32_t *link = realloc(eng_duk->ref_link, sizeof(*link) * cap);

			if (link == NULL) {
				return 0;
			}
			eng_duk->ref_link = link;
			eng_duk->ref_cap = cap;
		}
		/* One slot for the new reference and one spare for the dup below. */
		if (!duk_check_stack(refs, 2)) {
			return 0;
		}
		duk_push_undefined(refs);
	}
	eng_duk->ref_link[id] = ENG_DUK_REF_LIVE;
	eng_duk->ref_live++;
	duk_dup(eng_duk->store, eng_duk_index(value));
	duk_xmove_top(refs, eng_duk->store, 1);
	duk_replace(refs, (duk_idx_t) id);
	return id;
}

eng_value_t eng_ref_get(eng_ref_t ref)
{
	if (!eng_duk_ref_valid(ref)) {
		return eng_undefined();
	}
	if (!eng_duk_store_reserve(1)) {
		return eng_duk_nomem();
	}
	duk_dup(eng_duk->refs, (duk_idx_t) ref);
	duk_xmove_top(eng_duk->store, eng_duk->refs, 1);
	return eng_duk_handle(duk_get_top(eng_duk->store) - 1, false);
}

void eng_ref_free(eng_ref_t ref)
{
	/* Allowed from finalize callbacks and during heap destruction: the bookkeeping is done
	 * first so that a finalizer the release triggers sees a consistent state. */
	if (eng_duk->main == NULL || ref == 0 || ref >= eng_duk->ref_cap ||
	    eng_duk->ref_link[ref] != ENG_DUK_REF_LIVE) {
		return;
	}
	eng_duk->ref_link[ref] = eng_duk->ref_free_head;
	eng_duk->ref_free_head = ref;
	eng_duk->ref_live--;
	if (!eng_duk->destroying) {
		duk_copy(eng_duk->refs, 0, (duk_idx_t) ref);
	}
}

uint32_t eng_ref_count(void)
{
	return eng_duk->ref_live;
}

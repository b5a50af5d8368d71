/*
 * eng_duk_native.c: native handles, i.e. objects carrying a typed C pointer.
 *
 * The record {type, ptr} is a plain buffer in a hidden own property, so reading it allocates
 * nothing and runs nothing, and JavaScript can neither see nor forge it. The finalizer frees
 * the pointer through type->finalize once the object is unreachable.
 *
 * Internal properties use the same mechanism: hidden-symbol keys ("\xFF" "eng." key), which
 * JavaScript can neither produce nor enumerate, and which mark-and-sweep traces like any
 * property, so cycles through them are collected.
 */
#include <string.h>

#include "eng_duk.h"

typedef struct {
	const eng_native_type_t *type;
	void *ptr;
} eng_duk_native_t;

/* Own record of the object at index (inherited ones do not count: a handle's prototype or an
 * Object.create() of a handle is not the handle). */
static void *eng_duk_native_record(duk_context *ctx, duk_idx_t index)
{
	size_t size = 0;
	void *data = eng_duk_own_buffer(ctx, index, eng_duk->key_native, &size);

	return data != NULL && size == sizeof(eng_duk_native_t) ? data : NULL;
}

duk_ret_t eng_duk_native_finalizer(duk_context *ctx)
{
	void *stored = eng_duk_native_record(ctx, 0);
	eng_duk_native_t record;

	/* Duktape looks finalizers up through the prototype chain: objects inheriting from a
	 * handle come here too and are skipped by the own-record check. */
	if (stored == NULL) {
		return 0;
	}
	memcpy(&record, stored, sizeof(record));
	if (record.ptr == NULL || record.type == NULL || record.type->finalize == NULL) {
		return 0;
	}
	/* Cleared first so a rescued and collected-again object is not finalized twice. */
	memset((char *) stored + offsetof(eng_duk_native_t, ptr), 0, sizeof(record.ptr));
	eng_duk->in_finalizer++;
	record.type->finalize(record.ptr);
	eng_duk->in_finalizer--;
	return 0;
}

typedef struct {
	eng_duk_native_t record;
} eng_duk_native_args_t;

/* [ object ] -> [ ] */
static duk_ret_t eng_duk_set_native_safe(duk_context *ctx, void *udata)
{
	const eng_duk_native_args_t *args = udata;
	void *data;

	duk_push_heapptr(ctx, eng_duk->key_native);
	data = duk_push_fixed_buffer(ctx, sizeof(args->record));
	memcpy(data, &args->record, sizeof(args->record));
	/* FORCE: the record is attached even to a frozen object. */
	duk_def_prop(ctx, -3, DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_FORCE);
	if (args->record.type->finalize != NULL) {
		duk_push_heapptr(ctx, eng_duk->finalizer);
		duk_set_finalizer(ctx, -2);
	}
	return 0;
}

void eng_set_native(eng_value_t object, const eng_native_type_t *type, void *ptr)
{
	eng_duk_native_args_t args = { { type, ptr } };
	void *stored;

	if (type == NULL || !eng_is_object(object) || eng_is_exception(object)) {
		return;
	}
	stored = eng_duk_native_record(eng_duk->store, eng_duk_index(object));
	if (stored != NULL) {
		eng_duk_native_t old;

		memcpy(&old, stored, sizeof(old));
		if (old.type == type || type->finalize == NULL ||
		    (old.type != NULL && old.type->finalize != NULL)) {
			/* The finalizer is already in place when needed: update in place. */
			memcpy(stored, &args.record, sizeof(args.record));
			return;
		}
	}
	(void) eng_duk_safe(eng_duk_set_native_safe, &args, &object, 1, NULL);
}

void *eng_get_native(eng_value_t object, const eng_native_type_t *type)
{
	void *stored;
	eng_duk_native_t record;

	if (type == NULL || !eng_duk_ready() || eng_is_exception(object)) {
		return NULL;
	}
	stored = eng_duk_native_record(eng_duk->store, eng_duk_index(object));
	if (stored == NULL) {
		return NULL;
	}
	memcpy(&record, stored, sizeof(record));
	return record.type == type ? record.ptr : NULL;
}

void eng_clear_native(eng_value_t object, const eng_native_type_t *type)
{
	void *stored;
	eng_duk_native_t record;

	if (type == NULL || !eng_duk_ready() || eng_is_exception(object)) {
		return;
	}
	stored = eng_duk_native_record(eng_duk->store, eng_duk_index(object));
	if (stored == NULL) {
		return;
	}
	memcpy(&record, stored, sizeof(record));
	if (record.type == type) {
		memset((char *) stored + offsetof(eng_duk_native_t, ptr), 0, sizeof(record.ptr));
	}
}

/* ------------------------------------------------------------------ internal properties */

static void eng_duk_push_internal_key(duk_context *ctx, const char *key)
{
	duk_push_sprintf(ctx, "%s%s", DUK_HIDDEN_SYMBOL("eng."), key != NULL ? key : "");
}

/* [ object value ] -> [ ] */
static duk_ret_t eng_duk_set_internal_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_internal_key(ctx, udata);
	duk_swap_top(ctx, -2);
	/* FORCE: handles stay usable after the object is frozen. */
	duk_def_prop(ctx, -3,
		     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_CONFIGURABLE |
			     DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_FORCE);
	return 0;
}

bool eng_set_internal(eng_value_t object, const char *key, eng_value_t value)
{
	eng_value_t in[2] = { object, value };

	if (!eng_duk_ready() || eng_is_exception(object) || eng_is_exception(value) ||
	    !duk_is_object(eng_duk->store, eng_duk_index(object))) {
		return false;
	}
	return eng_duk_safe(eng_duk_set_internal_safe, (void *) key, in, 2, NULL);
}

/* [ object ] -> [ value ]: own properties only, like a native record. */
static duk_ret_t eng_duk_get_internal_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_internal_key(ctx, udata);
	(void) eng_duk_push_own(ctx, -2, -1);
	return 1;
}

eng_value_t eng_get_internal(eng_value_t object, const char *key)
{
	eng_value_t out;

	if (!eng_duk_ready() || eng_is_exception(object) ||
	    !duk_is_object(eng_duk->store, eng_duk_index(object))) {
		return eng_undefined();
	}
	if (!eng_duk_safe(eng_duk_get_internal_safe, (void *) key, &object, 1, &out)) {
		/* Out of memory for the key: report absent rather than an exception the caller
		 * does not expect from a plain read. */
		eng_release(out);
		return eng_undefined();
	}
	return out;
}

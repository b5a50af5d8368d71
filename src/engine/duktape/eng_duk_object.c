/*
 * eng_duk_object.c: property access, keys, prototypes and freezing.
 *
 * Every operation here may run JavaScript (getters, setters, Proxy traps) or allocate, so each
 * runs inside a protected call on the executing thread.
 */
#include <string.h>

#include "eng_duk.h"

typedef struct {
	const char *key;
	uint32_t index;
	bool by_index;
} eng_duk_key_t;

static void eng_duk_push_key(duk_context *ctx, const eng_duk_key_t *key)
{
	if (key->by_index) {
		duk_push_uint(ctx, key->index);
	} else {
		eng_duk_push_utf8(ctx, key->key != NULL ? key->key : "", key->key != NULL ? strlen(key->key) : 0);
	}
}

/* [ object ] -> [ value ] */
static duk_ret_t eng_duk_get_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_key(ctx, udata);
	(void) duk_get_prop(ctx, -2);
	return 1;
}

eng_value_t eng_get(eng_value_t object, const char *key)
{
	eng_duk_key_t k = { key, 0, false };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_get_safe, &k, &object, 1, &out);
	return out;
}

eng_value_t eng_get_index(eng_value_t object, uint32_t index)
{
	eng_duk_key_t k = { NULL, index, true };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_get_safe, &k, &object, 1, &out);
	return out;
}

/* [ object value ] -> [ ] ; C API property writes are strict: a failed write throws. */
static duk_ret_t eng_duk_set_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_key(ctx, udata);
	duk_swap_top(ctx, -2);
	(void) duk_put_prop(ctx, -3);
	return 0;
}

static bool eng_duk_set(eng_value_t object, const eng_duk_key_t *key, eng_value_t value)
{
	eng_value_t in[2] = { object, value };

	if (!eng_is_object(object)) {
		return false;
	}
	return eng_duk_safe(eng_duk_set_safe, (void *) key, in, 2, NULL);
}

bool eng_set(eng_value_t object, const char *key, eng_value_t value)
{
	eng_duk_key_t k = { key, 0, false };

	return eng_duk_set(object, &k, value);
}

bool eng_set_index(eng_value_t object, uint32_t index, eng_value_t value)
{
	eng_duk_key_t k = { NULL, index, true };

	return eng_duk_set(object, &k, value);
}

/* [ object value ] -> [ ] */
static duk_ret_t eng_duk_define_const_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_key(ctx, udata);
	duk_swap_top(ctx, -2);
	duk_def_prop(ctx, -3,
		     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_CLEAR_WRITABLE | DUK_DEFPROP_CLEAR_ENUMERABLE |
			     DUK_DEFPROP_CLEAR_CONFIGURABLE);
	return 0;
}

bool eng_define_const(eng_value_t object, const char *key, eng_value_t value)
{
	eng_duk_key_t k = { key, 0, false };
	eng_value_t in[2] = { object, value };

	if (!eng_is_object(object)) {
		return false;
	}
	return eng_duk_safe(eng_duk_define_const_safe, &k, in, 2, NULL);
}

typedef struct {
	const char *key;
	size_t len;
} eng_duk_data_key_t;

/* [ object value ] -> [ ] */
static duk_ret_t eng_duk_define_data_safe(duk_context *ctx, void *udata)
{
	const eng_duk_data_key_t *k = udata;
	eng_duk_push_utf8(ctx, k->key, k->len);
	duk_swap_top(ctx, -2);
	duk_def_prop(ctx, -3,
		     DUK_DEFPROP_HAVE_VALUE | DUK_DEFPROP_SET_WRITABLE | DUK_DEFPROP_SET_ENUMERABLE |
			     DUK_DEFPROP_SET_CONFIGURABLE);
	return 0;
}

bool eng_define_data(eng_value_t object, const char *key, size_t key_len, eng_value_t value)
{
	eng_duk_data_key_t k = { key != NULL ? key : "", key != NULL ? key_len : 0 };
	eng_value_t in[2] = { object, value };

	if (!eng_is_object(object)) {
		return false;
	}
	return eng_duk_safe(eng_duk_define_data_safe, &k, in, 2, NULL);
}

/* [ object getter ] -> [] */
static duk_ret_t eng_duk_define_getter_safe(duk_context *ctx, void *udata)
{
	eng_duk_push_key(ctx, udata);
	duk_swap_top(ctx, -2);
	duk_def_prop(ctx, -3,
		     DUK_DEFPROP_HAVE_GETTER | DUK_DEFPROP_CLEAR_ENUMERABLE | DUK_DEFPROP_SET_CONFIGURABLE);
	return 0;
}

bool eng_define_getter(eng_value_t object, const char *key, eng_value_t getter)
{
	eng_duk_key_t k = { key, 0, false };
	eng_value_t in[2] = { object, getter };

	if (!eng_is_object(object) || !eng_is_callable(getter)) {
		return false;
	}
	return eng_duk_safe(eng_duk_define_getter_safe, &k, in, 2, NULL);
}

/* [ object ] -> [ boolean ], through the original Object.prototype.hasOwnProperty */
static duk_ret_t eng_duk_has_own_safe(duk_context *ctx, void *udata)
{
	duk_push_heapptr(ctx, eng_duk->fn_has_own);
	duk_dup(ctx, -2);
	eng_duk_push_key(ctx, udata);
	duk_call_method(ctx, 1);
	return 1;
}

bool eng_has_own(eng_value_t object, const char *key)
{
	eng_duk_key_t k = { key, 0, false };
	eng_value_t out;
	bool result;

	if (!eng_is_object(object) || !eng_duk_safe(eng_duk_has_own_safe, &k, &object, 1, &out)) {
		return false;
	}
	result = eng_get_boolean(out);
	eng_release(out);
	return result;
}

/* [ object ] -> [ array ], through the original Object.keys */
static duk_ret_t eng_duk_keys_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	duk_push_heapptr(ctx, eng_duk->fn_object_keys);
	duk_swap_top(ctx, -2);
	duk_call(ctx, 1);
	return 1;
}

eng_value_t eng_keys(eng_value_t object)
{
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_keys_safe, NULL, &object, 1, &out);
	return out;
}

uint32_t eng_array_length(eng_value_t array)
{
	duk_idx_t index;

	if (!eng_duk_ready() || eng_is_exception(array)) {
		return 0;
	}
	index = eng_duk_index(array);
	/* An Array's length is a plain internal field: reading it runs nothing. */
	if (eng_duk_class(eng_duk->store, index) != ENG_DUK_CLASS_ARRAY) {
		return 0;
	}
	return (uint32_t) duk_get_length(eng_duk->store, index);
}

/* [ object prototype ] -> [ ], through the original Object.setPrototypeOf, which refuses
 * non-extensible objects and prototype cycles (duk_set_prototype checks neither). */
static duk_ret_t eng_duk_set_prototype_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	if (!duk_check_type_mask(ctx, -1, DUK_TYPE_MASK_OBJECT | DUK_TYPE_MASK_NULL)) {
		return DUK_RET_TYPE_ERROR;
	}
	duk_push_heapptr(ctx, eng_duk->fn_set_prototype_of);
	duk_insert(ctx, -3);
	duk_call(ctx, 2);
	return 0;
}

bool eng_set_prototype(eng_value_t object, eng_value_t prototype)
{
	eng_value_t in[2] = { object, prototype };

	if (!eng_is_object(object)) {
		return false;
	}
	return eng_duk_safe(eng_duk_set_prototype_safe, NULL, in, 2, NULL);
}

static duk_ret_t eng_duk_freeze_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	duk_freeze(ctx, -1);
	return 0;
}

void eng_freeze(eng_value_t object)
{
	if (eng_is_object(object)) {
		(void) eng_duk_safe(eng_duk_freeze_safe, NULL, &object, 1, NULL);
	}
}

/*
 * duk_unity.c: the Duktape amalgamation plus the few inspection helpers of eng_duk_ext.h.
 *
 * The helpers live in this translation unit because they read Duktape's internal object
 * layout, which the amalgamation keeps static. Compiled with Duktape's flags, not the
 * project's.
 */
#include "duktape.c"

#include "eng_duk_ext.h"

eng_duk_class_t eng_duk_class(duk_context *ctx, duk_idx_t idx)
{
	duk_hobject *h = duk_get_hobject((duk_hthread *) ctx, idx);

	if (h == NULL) {
		return ENG_DUK_CLASS_NONE;
	}
	switch (DUK_HOBJECT_GET_CLASS_NUMBER(h)) {
	case DUK_HOBJECT_CLASS_ARRAY:
		return ENG_DUK_CLASS_ARRAY;
	case DUK_HOBJECT_CLASS_DATE:
		return ENG_DUK_CLASS_DATE;
	case DUK_HOBJECT_CLASS_ERROR:
		return ENG_DUK_CLASS_ERROR;
	case DUK_HOBJECT_CLASS_ARRAYBUFFER:
		return ENG_DUK_CLASS_ARRAYBUFFER;
	case DUK_HOBJECT_CLASS_DATAVIEW:
	case DUK_HOBJECT_CLASS_INT8ARRAY:
	case DUK_HOBJECT_CLASS_UINT8ARRAY:
	case DUK_HOBJECT_CLASS_UINT8CLAMPEDARRAY:
	case DUK_HOBJECT_CLASS_INT16ARRAY:
	case DUK_HOBJECT_CLASS_UINT16ARRAY:
	case DUK_HOBJECT_CLASS_INT32ARRAY:
	case DUK_HOBJECT_CLASS_UINT32ARRAY:
	case DUK_HOBJECT_CLASS_FLOAT32ARRAY:
	case DUK_HOBJECT_CLASS_FLOAT64ARRAY:
		return ENG_DUK_CLASS_VIEW;
	default:
		return ENG_DUK_CLASS_OTHER;
	}
}

static duk_tval *eng_duk__own_tval(duk_context *ctx, duk_idx_t idx, void *key)
{
	duk_hthread *thr = (duk_hthread *) ctx;
	duk_hobject *h = duk_get_hobject(thr, idx);

	if (h == NULL || key == NULL) {
		return NULL;
	}
	return duk_hobject_find_entry_tval_ptr(thr->heap, h, (duk_hstring *) key);
}

void *eng_duk_own_buffer(duk_context *ctx, duk_idx_t idx, void *key, size_t *size)
{
	duk_hthread *thr = (duk_hthread *) ctx;
	duk_tval *tv = eng_duk__own_tval(ctx, idx, key);
	duk_hbuffer *buf;

	if (tv == NULL || !DUK_TVAL_IS_BUFFER(tv)) {
		return NULL;
	}
	buf = DUK_TVAL_GET_BUFFER(tv);
	if (size != NULL) {
		*size = (size_t) DUK_HBUFFER_GET_SIZE(buf);
	}
	return DUK_HBUFFER_GET_DATA_PTR(thr->heap, buf);
}

int eng_duk_push_own(duk_context *ctx, duk_idx_t obj_idx, duk_idx_t key_idx)
{
	duk_hthread *thr = (duk_hthread *) ctx;
	duk_hstring *key = duk_get_hstring(thr, key_idx);
	duk_tval *tv = key != NULL ? eng_duk__own_tval(ctx, obj_idx, key) : NULL;

	if (tv == NULL) {
		duk_push_undefined(ctx);
		return 0;
	}
	duk_push_tval(thr, tv);
	return 1;
}

int eng_duk_has_own(duk_context *ctx, duk_idx_t idx, void *key)
{
	return eng_duk__own_tval(ctx, idx, key) != NULL;
}

int eng_duk_date_value(duk_context *ctx, duk_idx_t idx, double *out)
{
	duk_hthread *thr = (duk_hthread *) ctx;
	duk_hobject *h = duk_get_hobject(thr, idx);
	duk_tval *tv;

	if (h == NULL || DUK_HOBJECT_GET_CLASS_NUMBER(h) != DUK_HOBJECT_CLASS_DATE) {
		return 0;
	}
	tv = duk_hobject_find_entry_tval_ptr_stridx(thr->heap, h, DUK_STRIDX_INT_VALUE);
	if (tv == NULL || !DUK_TVAL_IS_NUMBER(tv)) {
		return 0;
	}
	*out = (double) DUK_TVAL_GET_NUMBER(tv);
	return 1;
}

int eng_duk_gc_running(duk_context *ctx)
{
	return ((duk_hthread *) ctx)->heap->ms_running != 0;
}

int eng_duk_has_own_index(duk_context *ctx, duk_idx_t idx, duk_uarridx_t i)
{
	duk_hthread *thr = (duk_hthread *) ctx;
	duk_hobject *h = duk_require_hobject(thr, idx);
	duk_propdesc desc;
	duk_hstring *key;
	int found;

	/* An array's dense part holds every index key below its size: no key string needed. */
	if (DUK_HOBJECT_HAS_ARRAY_PART(h) && i < DUK_HOBJECT_GET_ASIZE(h)) {
		return !DUK_TVAL_IS_UNUSED(DUK_HOBJECT_A_GET_VALUE_PTR(thr->heap, h, i));
	}
	duk_push_uarridx(thr, i);
	key = duk_to_property_key_hstring(thr, -1);
	found = duk_hobject_get_own_propdesc(thr, h, key, &desc, 0);
	duk_pop(thr);
	return found;
}

void eng_duk_push_object_sized(duk_context *ctx, duk_uint32_t entries)
{
	duk_hthread *thr = (duk_hthread *) ctx;

	duk_push_object(ctx);
	duk_hobject_resize_entrypart(thr, duk_known_hobject(thr, -1), entries);
}

void eng_duk_def_wec(duk_context *ctx, duk_idx_t obj_idx)
{
	duk_xdef_prop((duk_hthread *) ctx, obj_idx, DUK_PROPDESC_FLAGS_WEC);
}

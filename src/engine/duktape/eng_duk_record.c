/*
 * eng_duk_record.c: eng_record, objects of a fixed shape built in one protected call.
 *
 * Each key set's names are interned once per heap and kept by heap pointer; the strings stay
 * alive in an array of the heap stash (a heap pointer alone does not keep a value alive). Building
 * a record then pushes no key text at all: one protected call instead of one per property, no
 * string-table lookup per property, and an object sized once for its properties.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_duk.h"

typedef struct eng_duk_keyset {
	const eng_keys_t *keys;
	void *names[ENG_RECORD_MAX_KEYS];
} eng_duk_keyset_t;

void eng_duk_keysets_free(eng_duk_state_t *state)
{
	free(state->keysets);
	state->keysets = NULL;
	state->keyset_count = 0;
	state->keyset_cap = 0;
	state->keyset_last = 0;
}

/* [ ] -> [ ]: interns the names of udata's key set and appends them to the stash's array. */
static duk_ret_t eng_duk_keyset_make_safe(duk_context *ctx, void *udata)
{
	eng_duk_keyset_t *set = udata;
	duk_uarridx_t at;

	duk_push_heap_stash(ctx);
	if (!duk_get_prop_string(ctx, -1, "recordKeys")) {
		duk_pop(ctx);
		duk_push_array(ctx);
		duk_dup_top(ctx);
		duk_put_prop_string(ctx, -3, "recordKeys");
	}
	at = (duk_uarridx_t) duk_get_length(ctx, -1);
	for (uint32_t i = 0; i < set->keys->count; i++) {
		const char *name = set->keys->names[i];

		eng_duk_push_utf8(ctx, name, strlen(name));
		set->names[i] = duk_get_heapptr(ctx, -1);
		duk_put_prop_index(ctx, -2, at + i);
	}
	duk_pop_2(ctx);
	return 0;
}

/* The key set's names in this heap, made on first use; NULL when the heap is exhausted. */
static const eng_duk_keyset_t *eng_duk_keyset(const eng_keys_t *keys)
{
	if (eng_duk->keyset_last < eng_duk->keyset_count &&
	    eng_duk->keysets[eng_duk->keyset_last].keys == keys) {
		return &eng_duk->keysets[eng_duk->keyset_last];
	}
	for (uint32_t i = 0; i < eng_duk->keyset_count; i++) {
		if (eng_duk->keysets[i].keys == keys) {
			eng_duk->keyset_last = i;
			return &eng_duk->keysets[i];
		}
	}
	if (keys->count > ENG_RECORD_MAX_KEYS) {
		return NULL;
	}
	if (eng_duk->keyset_count == eng_duk->keyset_cap) {
		uint32_t cap = eng_duk->keyset_cap ? eng_duk->keyset_cap * 2u : 4u;
		eng_duk_keyset_t *grown = realloc(eng_duk->keysets, cap * sizeof(*grown));

		if (grown == NULL) {
			return NULL;
		}
		eng_duk->keysets = grown;
		eng_duk->keyset_cap = cap;
	}
	eng_duk_keyset_t *set = &eng_duk->keysets[eng_duk->keyset_count];

	set->keys = keys;
	if (!eng_duk_safe(eng_duk_keyset_make_safe, set, NULL, 0, NULL)) {
		return NULL;
	}
	eng_duk->keyset_last = eng_duk->keyset_count++;
	return set;
}

typedef struct {
	const eng_duk_keyset_t *set;
	const eng_field_t *fields;
} eng_duk_record_t;

/* [ ] -> [ object ] */
static duk_ret_t eng_duk_record_safe(duk_context *ctx, void *udata)
{
	const eng_duk_record_t *r = udata;
	duk_uint32_t present = 0;

	for (uint32_t i = 0; i < r->set->keys->count; i++) {
		present += r->fields[i].kind != ENG_FIELD_ABSENT;
	}
	eng_duk_push_object_sized(ctx, present);
	for (uint32_t i = 0; i < r->set->keys->count; i++) {
		const eng_field_t *f = &r->fields[i];

		if (f->kind == ENG_FIELD_ABSENT) {
			continue;
		}
		duk_push_heapptr(ctx, r->set->names[i]);
		switch (f->kind) {
		case ENG_FIELD_NUMBER:
			duk_push_number(ctx, f->as.number);
			break;
		case ENG_FIELD_BOOLEAN:
			duk_push_boolean(ctx, f->as.boolean);
			break;
		case ENG_FIELD_BYTES:
			eng_duk_push_arraybuffer(ctx, f->as.bytes.data, f->as.bytes.len);
			break;
		default:
			eng_duk_push_value(ctx, f->as.value);
			break;
		}
		eng_duk_def_wec(ctx, -3);
	}
	return 1;
}

eng_value_t eng_record(const eng_keys_t *keys, const eng_field_t *fields)
{
	eng_duk_record_t r = { NULL, fields };
	eng_value_t out;

	if (!eng_duk_ready()) {
		return 0;
	}
	r.set = eng_duk_keyset(keys);
	if (r.set == NULL) {
		return eng_duk_nomem();
	}
	(void) eng_duk_safe(eng_duk_record_safe, &r, NULL, 0, &out);
	return out;
}

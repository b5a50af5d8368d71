/*
 * eng_jerry_record.c: JerryScript backend: eng_record, objects of a fixed shape built in one call.
 *
 * Each key set's names become JerryScript strings once per instance (held here, freed at its
 * teardown) instead of being converted from UTF-8 and allocated for every property of every
 * record: those short-lived strings were most of a scan record's cost, garbage collections
 * included.
 */
#include <string.h>

#include "eng_jerry_internal.h"

typedef struct eng_jerry_keyset {
	const eng_keys_t *keys;
	jerry_value_t *names; /* keys->count strings */
} eng_jerry_keyset_t;

void eng_jerry_keysets_free(void)
{
	for (uint32_t i = 0; i < eng_jerry->keyset_count; i++) {
		eng_jerry_keyset_t *set = &eng_jerry->keysets[i];

		for (uint32_t k = 0; k < set->keys->count; k++) {
			jerry_value_free(set->names[k]);
		}
		eng_jerry_free(set->names, set->keys->count * sizeof(*set->names));
	}
	eng_jerry_free(eng_jerry->keysets, eng_jerry->keyset_cap * sizeof(*eng_jerry->keysets));
	eng_jerry->keysets = NULL;
	eng_jerry->keyset_count = 0;
	eng_jerry->keyset_cap = 0;
	eng_jerry->keyset_last = 0;
}

static bool keysets_grow(void)
{
	uint32_t cap = eng_jerry->keyset_cap ? eng_jerry->keyset_cap * 2u : 4u;
	eng_jerry_keyset_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

	if (grown == NULL) {
		return false;
	}
	if (eng_jerry->keysets != NULL) {
		memcpy(grown, eng_jerry->keysets, eng_jerry->keyset_count * sizeof(*grown));
		eng_jerry_free(eng_jerry->keysets, eng_jerry->keyset_cap * sizeof(*grown));
	}
	eng_jerry->keysets = grown;
	eng_jerry->keyset_cap = cap;
	return true;
}

/* The key set's names in this instance, made on first use; NULL when the heap has no room for
 * them (then each record makes its own, as before). */
static const jerry_value_t *names_of(const eng_keys_t *keys)
{
	if (eng_jerry->keyset_last < eng_jerry->keyset_count &&
	    eng_jerry->keysets[eng_jerry->keyset_last].keys == keys) {
		return eng_jerry->keysets[eng_jerry->keyset_last].names;
	}
	for (uint32_t i = 0; i < eng_jerry->keyset_count; i++) {
		if (eng_jerry->keysets[i].keys == keys) {
			eng_jerry->keyset_last = i;
			return eng_jerry->keysets[i].names;
		}
	}
	if (eng_jerry->keyset_count == eng_jerry->keyset_cap && !keysets_grow()) {
		return NULL;
	}
	jerry_value_t *names = eng_jerry_alloc(keys->count * sizeof(*names));

	if (names == NULL) {
		return NULL;
	}
	for (uint32_t k = 0; k < keys->count; k++) {
		names[k] = eng_jerry_string_from_utf8(keys->names[k], strlen(keys->names[k]));
	}
	eng_jerry->keysets[eng_jerry->keyset_count] = (eng_jerry_keyset_t){ keys, names };
	eng_jerry->keyset_last = eng_jerry->keyset_count++;
	return names;
}

eng_value_t eng_record(const eng_keys_t *keys, const eng_field_t *fields)
{
	ENG_JERRY_STACK_MARK();
	const jerry_value_t *names = names_of(keys);
	jerry_value_t object = jerry_object();
	jerry_property_descriptor_t desc = {
		.flags = JERRY_PROP_IS_VALUE_DEFINED | JERRY_PROP_IS_WRITABLE_DEFINED | JERRY_PROP_IS_WRITABLE |
			 JERRY_PROP_IS_ENUMERABLE_DEFINED | JERRY_PROP_IS_ENUMERABLE |
			 JERRY_PROP_IS_CONFIGURABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE,
		.getter = jerry_undefined(),
		.setter = jerry_undefined(),
	};

	for (uint32_t i = 0; i < keys->count; i++) {
		const eng_field_t *f = &fields[i];
		bool made = true;

		switch (f->kind) {
		case ENG_FIELD_ABSENT:
			continue;
		case ENG_FIELD_NUMBER:
			desc.value = jerry_number(f->as.number);
			break;
		case ENG_FIELD_BOOLEAN:
			desc.value = jerry_boolean(f->as.boolean);
			break;
		case ENG_FIELD_BYTES:
			desc.value = jerry_arraybuffer((jerry_length_t)f->as.bytes.len);
			if (f->as.bytes.len > 0 && !jerry_value_is_exception(desc.value)) {
				jerry_arraybuffer_write(desc.value, 0, f->as.bytes.data,
							(jerry_size_t)f->as.bytes.len);
			}
			break;
		default:
			if (jerry_value_is_exception(f->as.value)) {
				continue; /* as eng_set() does: nothing to define */
			}
			desc.value = f->as.value;
			made = false;
			break;
		}
		if (jerry_value_is_exception(desc.value)) {
			jerry_value_free(desc.value); /* an ArrayBuffer the heap had no room for */
			continue;
		}
		if (names != NULL) {
			/* The object is new and the names of a key set distinct: nothing to look up. */
			eng_jerry_private_define_new(object, names[i], desc.value);
		} else {
			jerry_value_t name = eng_jerry_string_from_utf8(keys->names[i], strlen(keys->names[i]));

			jerry_value_free(jerry_object_define_own_prop(object, name, &desc));
			jerry_value_free(name);
		}
		if (made) {
			jerry_value_free(desc.value);
		}
	}
	return eng_jerry_track(object);
}

/*
 * eng_jerry_handles.c: JerryScript backend: the handles of values in scopes (eng_scope_enter,
 * eng_release: a value handed to C is held until its scope closes) and references that keep a
 * value alive across scopes (eng_ref_*). Identity, instances and resources are in
 * eng_jerry_core.c.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_jerry_internal.h"

#define ENG_JERRY_HANDLES_MIN 64u
#define ENG_JERRY_REFS_MIN 32u
#define ENG_JERRY_REF_IN_USE UINT32_MAX

static void out_of_memory(const char *what)
{
	eng_port_fatal(what);
	/* The port is not meant to return from a fatal error. */
	abort();
}

/* ------------------------------------------------------------------ value scopes */

static bool is_untracked(jerry_value_t value)
{
	/* Constants without a reference count: nothing to free. */
	return jerry_value_is_undefined(value) || jerry_value_is_null(value) ||
	       jerry_value_is_boolean(value);
}

eng_value_t eng_jerry_track(jerry_value_t value)
{
	if (is_untracked(value) || !eng_jerry->initialized) {
		return value;
	}
	if (eng_jerry->handle_count == eng_jerry->handle_cap) {
		uint32_t cap = eng_jerry->handle_cap ? eng_jerry->handle_cap * 2u : ENG_JERRY_HANDLES_MIN;
		jerry_value_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

		if (grown == NULL) {
			out_of_memory("out of memory (JavaScript heap)");
		}
		if (eng_jerry->handles != NULL) {
			memcpy(grown, eng_jerry->handles, eng_jerry->handle_count * sizeof(*grown));
			eng_jerry_free(eng_jerry->handles, eng_jerry->handle_cap * sizeof(*eng_jerry->handles));
		}
		eng_jerry->handles = grown;
		eng_jerry->handle_cap = cap;
	}
	eng_jerry->handles[eng_jerry->handle_count++] = value;
	return value;
}

bool eng_jerry_untrack(jerry_value_t value)
{
	for (uint32_t i = eng_jerry->handle_count; i-- > eng_jerry->handle_floor;) {
		if (eng_jerry->handles[i] == value) {
			eng_jerry->handles[i] = jerry_undefined();
			while (eng_jerry->handle_count > eng_jerry->handle_floor &&
			       jerry_value_is_undefined(eng_jerry->handles[eng_jerry->handle_count - 1])) {
				eng_jerry->handle_count--;
			}
			return true;
		}
	}
	return false;
}

uint32_t eng_jerry_scope_open(void)
{
	uint32_t saved = eng_jerry->handle_floor;

	eng_jerry->handle_floor = eng_jerry->handle_count;
	return saved;
}

void eng_jerry_scope_close(uint32_t saved)
{
	while (eng_jerry->handle_count > eng_jerry->handle_floor) {
		jerry_value_free(eng_jerry->handles[--eng_jerry->handle_count]);
	}
	eng_jerry->handle_floor = saved;
	/* A burst of handles (a big conversion) must not keep its table in the JS heap. */
	if (eng_jerry->handle_count == 0 && eng_jerry->handle_cap > ENG_JERRY_HANDLES_MIN) {
		eng_jerry_free(eng_jerry->handles, eng_jerry->handle_cap * sizeof(*eng_jerry->handles));
		eng_jerry->handles = NULL;
		eng_jerry->handle_cap = 0;
	}
}

void eng_scope_enter(void)
{
	if (eng_jerry->scope_depth == ENG_JERRY_SCOPE_DEPTH) {
		eng_port_fatal("engine value scopes nested too deeply");
		abort();
	}
	eng_jerry->scope_saved[eng_jerry->scope_depth++] = eng_jerry_scope_open();
}

void eng_scope_leave(void)
{
	if (eng_jerry->scope_depth > 0) {
		eng_jerry_scope_close(eng_jerry->scope_saved[--eng_jerry->scope_depth]);
	}
}

void eng_release(eng_value_t value)
{
	/* A value of an outer scope (or an argument of the running native call) is not ours to
	 * free here: it stays valid and its own scope frees it. */
	if (!is_untracked(value) && eng_jerry_untrack(value)) {
		jerry_value_free(value);
	}
}

void eng_jerry_free_all_handles(void)
{
	eng_jerry->scope_depth = 0;
	eng_jerry->handle_floor = 0;
	while (eng_jerry->handle_count > 0) {
		jerry_value_free(eng_jerry->handles[--eng_jerry->handle_count]);
	}
	eng_jerry_free(eng_jerry->handles, eng_jerry->handle_cap * sizeof(*eng_jerry->handles));
	eng_jerry->handles = NULL;
	eng_jerry->handle_cap = 0;
}

/* ------------------------------------------------------------------ references */

static bool refs_grow(void)
{
	uint32_t cap = eng_jerry->ref_cap ? eng_jerry->ref_cap * 2u : ENG_JERRY_REFS_MIN;
	eng_jerry_ref_slot_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

	if (grown == NULL) {
		return false;
	}
	if (eng_jerry->refs != NULL) {
		memcpy(grown, eng_jerry->refs, eng_jerry->ref_cap * sizeof(*grown));
		eng_jerry_free(eng_jerry->refs, eng_jerry->ref_cap * sizeof(*eng_jerry->refs));
	}
	/* New slots join the free list in index order. */
	for (uint32_t i = eng_jerry->ref_cap; i < cap; i++) {
		grown[i].value = jerry_undefined();
		grown[i].next = (i + 1 < cap) ? i + 2 : eng_jerry->ref_free_head;
	}
	eng_jerry->ref_free_head = eng_jerry->ref_cap + 1;
	eng_jerry->refs = grown;
	eng_jerry->ref_cap = cap;
	return true;
}

static eng_jerry_ref_slot_t *ref_slot(eng_ref_t ref)
{
	if (ref == 0 || ref > eng_jerry->ref_cap || eng_jerry->refs[ref - 1].next != ENG_JERRY_REF_IN_USE) {
		return NULL;
	}
	return &eng_jerry->refs[ref - 1];
}

eng_ref_t eng_ref_new(eng_value_t value)
{
	if (!eng_jerry->initialized || (eng_jerry->ref_free_head == 0 && !refs_grow())) {
		return 0;
	}
	eng_ref_t id = eng_jerry->ref_free_head;
	eng_jerry_ref_slot_t *slot = &eng_jerry->refs[id - 1];

	eng_jerry->ref_free_head = slot->next;
	slot->value = jerry_value_copy(value);
	slot->next = ENG_JERRY_REF_IN_USE;
	eng_jerry->ref_live++;
	return id;
}

eng_value_t eng_ref_get(eng_ref_t ref)
{
	eng_jerry_ref_slot_t *slot = ref_slot(ref);

	if (slot == NULL) {
		return jerry_undefined();
	}
	return eng_jerry_track(jerry_value_copy(slot->value));
}

void eng_ref_free(eng_ref_t ref)
{
	eng_jerry_ref_slot_t *slot = ref_slot(ref);

	if (slot == NULL) {
		return;
	}
	jerry_value_t value = slot->value;

	slot->value = jerry_undefined();
	slot->next = eng_jerry->ref_free_head;
	eng_jerry->ref_free_head = ref;
	eng_jerry->ref_live--;
	/* Last: freeing may run finalizers that free other references. */
	jerry_value_free(value);
}

uint32_t eng_ref_count(void)
{
	return eng_jerry->ref_live;
}

void eng_jerry_free_all_refs(void)
{
	for (uint32_t i = 0; i < eng_jerry->ref_cap; i++) {
		if (eng_jerry->refs[i].next == ENG_JERRY_REF_IN_USE) {
			eng_ref_free(i + 1);
		}
	}
	eng_jerry_free(eng_jerry->refs, eng_jerry->ref_cap * sizeof(*eng_jerry->refs));
	eng_jerry->refs = NULL;
	eng_jerry->ref_cap = 0;
	eng_jerry->ref_live = 0;
	eng_jerry->ref_free_head = 0;
}

/*
 * eng_duk_slab.c: Duktape backend: the small blocks of a heap, in slabs. See eng_duk_slab.h.
 */
#include "eng_duk_slab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A slab's header, at the start of its page; its blocks follow. */
struct eng_duk_slab {
	eng_duk_slab_t *prev, *next; /* in its class's list of slabs with room, when it has room */
	void *free;                  /* blocks given back, each holding the next */
	uint16_t bump;               /* offset of the first block never handed out */
	uint16_t used;               /* blocks handed out */
	uint8_t cls;
	bool listed;
};

#define HEADER_BYTES ((sizeof(eng_duk_slab_t) + 15u) & ~(size_t)15u)

/* The classes: 16-byte steps up to 128 bytes, where most of Duktape's objects and strings are,
 * then 32-byte steps. Few classes keep few half-used pages per heap. */
static const uint16_t class_bytes[ENG_DUK_SLAB_CLASSES] = {16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256};

static unsigned class_of(size_t size)
{
	if (size <= 128u) {
		return size <= 16u ? 0u : (unsigned)((size - 1u) / 16u);
	}
	return 8u + (unsigned)((size - 129u) / 32u);
}

size_t eng_duk_slab_class_bytes(size_t size)
{
	return size <= ENG_DUK_SLAB_MAX ? class_bytes[class_of(size)] : 0u;
}

void eng_duk_slabs_init(eng_duk_slabs_t *slabs)
{
	memset(slabs, 0, sizeof(*slabs));
}

/* ------------------------------------------------------------------ chunks */

static bool chunk_has(const eng_duk_slabs_t *slabs, uintptr_t chunk)
{
	/* A heap has a few chunks (an idle device's, three): a scan is the quickest lookup. */
	for (size_t i = 0; i < slabs->chunk_count; i++) {
		if (slabs->chunks[i] == chunk) {
			return true;
		}
	}
	return false;
}

/* A new chunk's pages become the fresh ones; false when no memory. */
static bool chunk_new(eng_duk_slabs_t *slabs)
{
	if (slabs->chunk_count == slabs->chunk_cap) {
		size_t cap = slabs->chunk_cap ? 2u * slabs->chunk_cap : 4u;
		uintptr_t *grown = realloc(slabs->chunks, cap * sizeof(*grown));
		if (grown == NULL) {
			return false;
		}
		slabs->chunks = grown;
		slabs->chunk_cap = cap;
	}
	void *chunk = aligned_alloc(ENG_DUK_SLAB_CHUNK_BYTES, ENG_DUK_SLAB_CHUNK_BYTES);
	if (chunk == NULL) {
		return false;
	}
	slabs->chunks[slabs->chunk_count++] = (uintptr_t)chunk;
	slabs->fresh = (uintptr_t)chunk;
	slabs->fresh_end = (uintptr_t)chunk + ENG_DUK_SLAB_CHUNK_BYTES;
	return true;
}

/* ------------------------------------------------------------------ slabs and blocks */

static void list_add(eng_duk_slabs_t *slabs, eng_duk_slab_t *slab)
{
	eng_duk_slab_t **head = &slabs->room[slab->cls];
	slab->prev = NULL;
	slab->next = *head;
	if (*head != NULL) {
		(*head)->prev = slab;
	}
	*head = slab;
	slab->listed = true;
}

static void list_remove(eng_duk_slabs_t *slabs, eng_duk_slab_t *slab)
{
	if (slab->prev != NULL) {
		slab->prev->next = slab->next;
	} else {
		slabs->room[slab->cls] = slab->next;
	}
	if (slab->next != NULL) {
		slab->next->prev = slab->prev;
	}
	slab->prev = slab->next = NULL;
	slab->listed = false;
}

static bool has_room(const eng_duk_slab_t *slab)
{
	return slab->free != NULL || slab->bump + class_bytes[slab->cls] <= ENG_DUK_SLAB_BYTES;
}

static eng_duk_slab_t *slab_new(eng_duk_slabs_t *slabs, unsigned cls)
{
	eng_duk_slab_t *slab = slabs->empty;
	if (slab != NULL) {
		slabs->empty = slab->next;
	} else {
		if (slabs->fresh == slabs->fresh_end && !chunk_new(slabs)) {
			return NULL;
		}
		slab = (eng_duk_slab_t *)slabs->fresh;
		slabs->fresh += ENG_DUK_SLAB_BYTES;
	}
	memset(slab, 0, sizeof(*slab));
	slab->cls = (uint8_t)cls;
	slab->bump = (uint16_t)HEADER_BYTES;
	list_add(slabs, slab);
	return slab;
}

void *eng_duk_slab_alloc(eng_duk_slabs_t *slabs, size_t size)
{
	unsigned cls = class_of(size);
	eng_duk_slab_t *slab = slabs->room[cls];
	if (slab == NULL && (slab = slab_new(slabs, cls)) == NULL) {
		return NULL;
	}
	void *block;
	if (slab->free != NULL) {
		block = slab->free;
		memcpy(&slab->free, block, sizeof(void *));
	} else {
		block = (char *)slab + slab->bump;
		slab->bump = (uint16_t)(slab->bump + class_bytes[cls]);
	}
	slab->used++;
	if (!has_room(slab)) {
		list_remove(slabs, slab);
	}
	return block;
}

static eng_duk_slab_t *slab_of(const void *ptr)
{
	return (eng_duk_slab_t *)((uintptr_t)ptr & ~(uintptr_t)(ENG_DUK_SLAB_BYTES - 1u));
}

size_t eng_duk_slab_block_bytes(const eng_duk_slabs_t *slabs, const void *ptr)
{
	uintptr_t chunk = (uintptr_t)ptr & ~(uintptr_t)(ENG_DUK_SLAB_CHUNK_BYTES - 1u);
	return chunk_has(slabs, chunk) ? class_bytes[slab_of(ptr)->cls] : 0u;
}

void eng_duk_slab_free(eng_duk_slabs_t *slabs, void *ptr)
{
	eng_duk_slab_t *slab = slab_of(ptr);
	memcpy(ptr, &slab->free, sizeof(void *));
	slab->free = ptr;
	slab->used--;
	if (!slab->listed) {
		list_add(slabs, slab);
	}
	/* An empty slab is kept for any class, unless it is its class's only one with room (a
	 * heap that frees and allocates around one size would otherwise move it back and forth). */
	if (slab->used == 0 && (slab->prev != NULL || slab->next != NULL)) {
		list_remove(slabs, slab);
		slab->next = slabs->empty;
		slabs->empty = slab;
	}
}

void eng_duk_slabs_free_all(eng_duk_slabs_t *slabs)
{
	for (size_t i = 0; i < slabs->chunk_count; i++) {
		free((void *)slabs->chunks[i]);
	}
	free(slabs->chunks);
	eng_duk_slabs_init(slabs);
}

/*
 * eng_duk_slab.h: Duktape backend: the small blocks of a heap, in slabs.
 *
 * An idle Duktape heap is about two thousand blocks, nearly all of them objects, property tables
 * and strings of a few dozen bytes. From the C library each would carry the heap's own header
 * (its place in the list an abandoned heap is given back by) and the library's, about 36 bytes on
 * a 64-bit host: a third of what a simulated device costs besides its heap's use. Here blocks of
 * up to ENG_DUK_SLAB_MAX bytes come from pages of ENG_DUK_SLAB_BYTES, one size class per page,
 * with no header per block: a block's page is its address rounded down, and a page knows its
 * class. The pages are carved from chunks of ENG_DUK_SLAB_CHUNK_BYTES aligned to their size,
 * which the heap lists: that is how a small block is told from a larger one (its chunk is one of
 * the heap's) and how an abandoned heap gives them all back. A chunk is large enough for the C
 * library to map it (mmap) rather than take it from its heap, so the kernel only backs the pages
 * in use; a page emptied is kept for the next class that needs one.
 */
#ifndef ENG_DUK_SLAB_H
#define ENG_DUK_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define ENG_DUK_SLAB_BYTES 4096u
#define ENG_DUK_SLAB_CHUNK_BYTES 65536u
#define ENG_DUK_SLAB_MAX 256u
#define ENG_DUK_SLAB_CLASSES 12u

typedef struct eng_duk_slab eng_duk_slab_t;

typedef struct {
	eng_duk_slab_t *room[ENG_DUK_SLAB_CLASSES]; /* each class's slabs with a free block */
	eng_duk_slab_t *empty;                       /* slabs with no block in use */
	uintptr_t *chunks;                           /* the chunks' addresses */
	size_t chunk_count, chunk_cap;
	uintptr_t fresh, fresh_end; /* the pages of the newest chunk not yet used */
} eng_duk_slabs_t;

/* No slab yet (what zeroed memory is too). */
void eng_duk_slabs_init(eng_duk_slabs_t *slabs);
/* The bytes a request of size bytes takes in a slab, 0 when it is larger than ENG_DUK_SLAB_MAX. */
size_t eng_duk_slab_class_bytes(size_t size);
/* A block for size bytes (at most ENG_DUK_SLAB_MAX), aligned to 16; NULL when no memory. */
void *eng_duk_slab_alloc(eng_duk_slabs_t *slabs, size_t size);
/* The bytes of ptr's block when it is one of these slabs', 0 otherwise. */
size_t eng_duk_slab_block_bytes(const eng_duk_slabs_t *slabs, const void *ptr);
/* Give back a block of these slabs. */
void eng_duk_slab_free(eng_duk_slabs_t *slabs, void *ptr);
/* Give back every slab, whatever is in use. */
void eng_duk_slabs_free_all(eng_duk_slabs_t *slabs);

#endif /* ENG_DUK_SLAB_H */

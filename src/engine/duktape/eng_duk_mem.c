/*
 * eng_duk_mem.c: Duktape backend: the heap's accounting (every block through eng_duk_alloc, its
 * limit and peak, given back at once when the heap goes) and the figures an app sees of it
 * (eng_mem_stats, eng_heap_seal). Identity, lifecycle, handles and the watchdog are in
 * eng_duk_core.c.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_duk.h"

/* A header in front of each block larger than a slab's (the small ones have none:
 * eng_duk_slab.h): its size and its place in the heap's list of blocks. Duktape aligns its own
 * data to 8 bytes (DUK_USE_ALIGN_BY), and so does this header (24 bytes on a 64-bit host, 16 on
 * wasm32). */
typedef union {
	double align;
	uint64_t align_u64;
	eng_duk_block_link_t link;
} eng_duk_block_t;

/* Duktape retries a failed allocation after each of up to 10 collections (duktape.c's
 * DUK_HEAP_ALLOC_FAIL_MARKANDSWEEP_LIMIT; 3 of them in emergency mode) and then gives up; when
 * its voluntary collection led it there, the first attempt is one of the ten. So ten refusals in
 * a row are Duktape giving up (a tenth collection freeing what nine did not is not a case worth
 * telling apart). */
#define ENG_DUK_ALLOC_ATTEMPTS 10u

void eng_duk_blocks_init(eng_duk_mem_t *mem)
{
	mem->blocks.prev = mem->blocks.next = &mem->blocks;
	eng_duk_slabs_init(&mem->slabs);
}

void eng_duk_mem_init(eng_duk_mem_t *mem)
{
	memset(mem, 0, sizeof(*mem));
	mem->limit = SIZE_MAX;
	eng_duk_blocks_init(mem);
}

static void block_link(eng_duk_mem_t *mem, eng_duk_block_t *block)
{
	block->link.next = mem->blocks.next;
	block->link.prev = &mem->blocks;
	mem->blocks.next->prev = &block->link;
	mem->blocks.next = &block->link;
}

static void block_unlink(eng_duk_block_t *block)
{
	block->link.prev->next = block->link.next;
	block->link.next->prev = block->link.prev;
}

/*
 * The device's JerryScript throws nothing the app could catch when the heap runs out: it stops,
 * and the device resets. Duktape would throw a catchable RangeError and carry on with a full
 * heap; to behave as the device does, once Duktape has given up on an allocation (every retry
 * after a collection failed) the heap's owner is told it is a fatal error.
 */
static void *refused(eng_duk_mem_t *mem)
{
	if (++mem->failures >= ENG_DUK_ALLOC_ATTEMPTS) {
		mem->failures = 0;
		eng_port_fatal("out of memory (JavaScript heap)");
	}
	return NULL;
}

/* An allocation succeeded: the heap holds `counted` bytes more (less, when negative). Between
 * Duktape's retries, its emergency collections compact objects (reallocations that shrink, and
 * succeed): those do not end a run of refusals. */
static void *granted(eng_duk_mem_t *mem, void *ptr, size_t old, size_t counted)
{
	if (eng_duk->main == NULL || !eng_duk_gc_running(eng_duk->main)) {
		mem->failures = 0;
	}
	mem->used = mem->used - old + counted;
	if (mem->used > mem->peak) {
		mem->peak = mem->used;
	}
	return ptr;
}

#if ENG_DUK_SLABS
/* The bytes a small block takes in a slab, 0 for a larger one. */
#define slab_class_bytes(size) eng_duk_slab_class_bytes(size)
#else
/* A device's or the browser's build, with one heap or a few: every block from the C library,
 * whose heap there is small and which slabs would only fragment (duktape.cmake). */
#define slab_class_bytes(size) ((void)(size), (size_t)0)
#endif

/* Bytes a block of `size` counts against the heap: its slab class, or its size. */
static size_t counted_bytes(size_t size)
{
	size_t small = slab_class_bytes(size);
	return small != 0 ? small : size;
}

/* A block larger than a slab's, with its header, on the heap's list. */
static void *large_alloc(eng_duk_mem_t *mem, size_t size)
{
	if (size > SIZE_MAX - sizeof(eng_duk_block_t)) {
		return NULL;
	}
	eng_duk_block_t *block = malloc(sizeof(*block) + size);
	if (block == NULL) {
		return NULL;
	}
	block->link.size = size;
	block_link(mem, block);
	return block + 1;
}

static void large_free(void *ptr)
{
	eng_duk_block_t *block = (eng_duk_block_t *) ptr - 1;
	block_unlink(block);
	free(block);
}

/* The bytes ptr's block counts against the heap. */
static size_t block_bytes(const eng_duk_mem_t *mem, const void *ptr)
{
	size_t small = eng_duk_slab_block_bytes(&mem->slabs, ptr);
	return small != 0 ? small : ((const eng_duk_block_t *) ptr - 1)->link.size;
}

void *eng_duk_alloc(void *udata, duk_size_t size)
{
	eng_duk_mem_t *mem = udata;
	size_t counted = counted_bytes(size);

	if (counted > mem->limit - mem->used) {
		return refused(mem);
	}
	void *ptr = slab_class_bytes(size) != 0 ? eng_duk_slab_alloc(&mem->slabs, size) : large_alloc(mem, size);
	return ptr != NULL ? granted(mem, ptr, 0, counted) : refused(mem);
}

void *eng_duk_realloc(void *udata, void *ptr, duk_size_t size)
{
	eng_duk_mem_t *mem = udata;

	if (ptr == NULL) {
		return eng_duk_alloc(udata, size);
	}
	size_t old = block_bytes(mem, ptr), counted = counted_bytes(size);
	bool was_small = eng_duk_slab_block_bytes(&mem->slabs, ptr) != 0;
	bool small = slab_class_bytes(size) != 0;
	if (counted > old && counted - old > mem->limit - mem->used) {
		return refused(mem);
	}
	if (was_small && small && counted == old) {
		return granted(mem, ptr, old, counted); /* the same class */
	}
	if (!was_small && !small) {
		eng_duk_block_t *block = (eng_duk_block_t *) ptr - 1, *moved;
		if (size > SIZE_MAX - sizeof(*block)) {
			return refused(mem);
		}
		block_unlink(block);
		moved = realloc(block, sizeof(*block) + size);
		if (moved == NULL) {
			block_link(mem, block);
			return refused(mem);
		}
		moved->link.size = size;
		block_link(mem, moved);
		return granted(mem, moved + 1, old, counted);
	}
	/* From a slab to another class or to the list, or back. */
	void *moved = small ? eng_duk_slab_alloc(&mem->slabs, size) : large_alloc(mem, size);
	if (moved == NULL) {
		return refused(mem);
	}
	memcpy(moved, ptr, size < old ? size : old);
	if (was_small) {
		eng_duk_slab_free(&mem->slabs, ptr);
	} else {
		large_free(ptr);
	}
	return granted(mem, moved, old, counted);
}

void eng_duk_free(void *udata, void *ptr)
{
	eng_duk_mem_t *mem = udata;

	if (ptr == NULL) {
		return;
	}
	size_t small = eng_duk_slab_block_bytes(&mem->slabs, ptr);
	if (small != 0) {
		mem->used -= small;
		eng_duk_slab_free(&mem->slabs, ptr);
		return;
	}
	mem->used -= ((eng_duk_block_t *) ptr - 1)->link.size;
	large_free(ptr);
}

/* Give back every block of a heap, without looking at what is in them. */
void eng_duk_blocks_free_all(eng_duk_mem_t *mem)
{
	eng_duk_block_link_t *link = mem->blocks.next;

	while (link != NULL && link != &mem->blocks) {
		eng_duk_block_link_t *next = link->next;

		free((eng_duk_block_t *) link);
		link = next;
	}
	eng_duk_slabs_free_all(&mem->slabs);
	eng_duk_blocks_init(mem);
	mem->used = 0;
}

/*
 * The room an app has on Duktape, from the device's heap_size: what the app would have on the
 * device's JerryScript (the heap less the engine's and the API's start-up use there), times how
 * much more room the same JavaScript values take in Duktape on a 64-bit host. Both figures are
 * measured (bench/faults.sh, bench/RESULTS.md "Faults") so that an app that runs out of memory on
 * the beacon runs out in the simulator at about the same point.
 */
#define ENG_DUK_DEVICE_START_BYTES (4u * 1024u)
#define ENG_DUK_SIZE_FACTOR_PERCENT 240u

/* Bytes of Duktape's heap as the device's heap would count them (see eng_heap_seal): the
 * device's start-up use plus what the app added, scaled back by ENG_DUK_SIZE_FACTOR_PERCENT. */
static size_t device_bytes(size_t used)
{
	if (used <= eng_duk->sealed_used) {
		return ENG_DUK_DEVICE_START_BYTES;
	}
	return ENG_DUK_DEVICE_START_BYTES + (used - eng_duk->sealed_used) * 100u / ENG_DUK_SIZE_FACTOR_PERCENT;
}

size_t eng_heap_host_bytes(void)
{
	return eng_duk->mem.used;
}

void eng_mem_stats(eng_mem_stats_t *stats)
{
	if (stats == NULL) {
		return;
	}
	if (eng_duk->sealed_used == 0 || eng_duk->config.heap_size == 0) {
		stats->total = eng_duk->config.heap_size ? eng_duk->config.heap_size : eng_duk->mem.used;
		stats->used = eng_duk->mem.used;
		stats->peak = eng_duk->mem.peak;
		return;
	}
	/* After the seal, the figures an app on the device would see. */
	stats->total = eng_duk->config.heap_size;
	stats->used = device_bytes(eng_duk->mem.used);
	stats->peak = device_bytes(eng_duk->mem.peak);
	if (stats->used > stats->total) {
		stats->used = stats->total;
	}
	if (stats->peak > stats->total) {
		stats->peak = stats->total;
	}
}

void eng_mem_reset_peak(void)
{
	eng_duk->mem.peak = eng_duk->mem.used;
}

void eng_gc(void)
{
	if (!eng_duk_ready()) {
		return;
	}
	/* Twice: the first pass runs finalizers, the second frees what they released. */
	duk_gc(eng_duk->exec, 0);
	duk_gc(eng_duk->exec, 0);
}

void eng_heap_seal(void)
{
	size_t heap = eng_duk->config.heap_size;

	if (heap == 0 || eng_duk->main == NULL) {
		return;
	}
	size_t app = heap > ENG_DUK_DEVICE_START_BYTES ? heap - ENG_DUK_DEVICE_START_BYTES : 0;
	eng_duk->sealed_used = eng_duk->mem.used;
	eng_duk->mem.limit = eng_duk->mem.used + app / 100u * ENG_DUK_SIZE_FACTOR_PERCENT;
}

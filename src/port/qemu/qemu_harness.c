/*
 * qemu_harness.c: see qemu_harness.h.
 *
 * newlib has one malloc arena, and it is the device's; the harness needs a second one, in
 * another region. This is the smallest allocator that serves the world's pattern (a few large
 * blocks, a queue that grows by realloc, packets freed soon after): first fit over an
 * address-ordered free list, neighbours merged on free, the top given back to the break. Not
 * for the device: the firmware never calls it.
 */
#define QEMU_HARNESS_IMPL
#include "qemu_harness.h"

#include <stdint.h>
#include <string.h>

extern uint8_t __harness_heap_start[], __harness_heap_end[];

/* A block's header; `next` is meaningful only while the block is free. */
typedef struct block {
	size_t size; /* the whole block, header included, a multiple of ALIGN */
	struct block *next;
} block_t;

#define ALIGN 8u
#define HEADER ((sizeof(block_t) + ALIGN - 1u) & ~(size_t)(ALIGN - 1u))

static uint8_t *brk_now;
static block_t *free_list; /* by address */
static size_t in_use, peak;

static void *payload(block_t *b)
{
	return (uint8_t *)b + HEADER;
}

static block_t *header(void *p)
{
	return (block_t *)(void *)((uint8_t *)p - HEADER);
}

void *qemu_harness_malloc(size_t size)
{
	if (brk_now == NULL) {
		brk_now = __harness_heap_start;
	}
	if (size > (size_t)(__harness_heap_end - __harness_heap_start)) {
		return NULL;
	}
	size_t need = (size + HEADER + ALIGN - 1u) & ~(size_t)(ALIGN - 1u);
	block_t **link = &free_list;
	block_t *b = NULL;
	while (*link != NULL && (*link)->size < need) {
		link = &(*link)->next;
	}
	if (*link != NULL) {
		b = *link;
		if (b->size - need >= HEADER + ALIGN) {
			/* Split: the rest stays free, in the same place of the list. */
			block_t *rest = (block_t *)(void *)((uint8_t *)b + need);
			rest->size = b->size - need;
			rest->next = b->next;
			*link = rest;
			b->size = need;
		} else {
			*link = b->next;
		}
	} else {
		if (need > (size_t)(__harness_heap_end - brk_now)) {
			return NULL;
		}
		b = (block_t *)(void *)brk_now;
		b->size = need;
		brk_now += need;
	}
	in_use += b->size;
	if (in_use > peak) {
		peak = in_use;
	}
	return payload(b);
}

void *qemu_harness_calloc(size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size) {
		return NULL;
	}
	void *p = qemu_harness_malloc(count * size);
	if (p != NULL) {
		memset(p, 0, count * size);
	}
	return p;
}

void qemu_harness_free(void *p)
{
	if (p == NULL) {
		return;
	}
	block_t *b = header(p);
	in_use -= b->size;
	block_t **link = &free_list;
	block_t *prev = NULL;
	while (*link != NULL && *link < b) {
		prev = *link;
		link = &(*link)->next;
	}
	b->next = *link;
	*link = b;
	if (b->next != NULL && (uint8_t *)b + b->size == (uint8_t *)b->next) {
		b->size += b->next->size;
		b->next = b->next->next;
	}
	if (prev != NULL && (uint8_t *)prev + prev->size == (uint8_t *)b) {
		prev->size += b->size;
		prev->next = b->next;
		b = prev;
	}
	/* The last block before the break: give it back, so that a growing block can grow there. */
	if ((uint8_t *)b + b->size == brk_now) {
		brk_now = (uint8_t *)b;
		block_t **l = &free_list;
		while (*l != b) {
			l = &(*l)->next;
		}
		*l = NULL;
	}
}

void *qemu_harness_realloc(void *p, size_t size)
{
	if (p == NULL) {
		return qemu_harness_malloc(size);
	}
	if (size == 0) {
		qemu_harness_free(p);
		return NULL;
	}
	block_t *b = header(p);
	size_t have = b->size - HEADER;
	if (size <= have) {
		return p;
	}
	void *q = qemu_harness_malloc(size);
	if (q != NULL) {
		memcpy(q, p, have);
		qemu_harness_free(p);
	}
	return q;
}

size_t qemu_harness_peak(void)
{
	return peak;
}

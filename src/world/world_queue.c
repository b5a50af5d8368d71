/*
 * world_queue.c: the world's inputs by time, then order of arrival (world_queue.h): a wheel of
 * one bucket per millisecond for the near ones, a binary heap for the rest.
 *
 * The order needs only two things of the wheel: a bucket holds the inputs of one millisecond (all
 * of the wheel's are due within WORLD_QUEUE_SPAN of its base, which never moves back while it
 * holds any), and a bucket is first in, first out (so by arrival: seq grows with every push).
 * Which of the two places an input goes to changes nothing else: the next input is the earlier,
 * by time and then arrival, of the wheel's first and the heap's first. So when the wheel cannot
 * take an input (beyond its reach, or no memory for its bucket) the heap does.
 */
#include "world_queue.h"

#include <stdlib.h>
#include <string.h>

#define MASK (WORLD_QUEUE_SPAN - 1u)
#define WORDS (WORLD_QUEUE_SPAN / 64u)

static bool before(const world_event_t *a, const world_event_t *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void world_queue_init(world_queue_t *q)
{
	memset(q, 0, sizeof(*q));
}

static void free_chunks(world_queue_chunk_t *c)
{
	while (c != NULL) {
		world_queue_chunk_t *next = c->next;
		free(c);
		c = next;
	}
}

void world_queue_free(world_queue_t *q)
{
	for (uint32_t i = 0; q->buckets != NULL && i < WORLD_QUEUE_SPAN; i++) {
		free_chunks(q->buckets[i].first);
	}
	free_chunks(q->spare);
	free(q->buckets);
	free(q->occupied);
	free(q->far);
	world_queue_init(q);
}

/* ------------------------------------------------------------------ the heap */

/* A place in the heap for an input of this time and arrival (NULL: no memory). */
static world_event_t *far_add(world_queue_t *q, uint64_t at, uint64_t seq)
{
	if (q->far_count == q->far_cap) {
		size_t cap = q->far_cap ? q->far_cap * 2 : 64;
		world_event_t *grown = realloc(q->far, cap * sizeof(*grown));
		if (grown == NULL) {
			return NULL;
		}
		q->far = grown;
		q->far_cap = cap;
	}
	const world_event_t key = {.at = at, .seq = seq};
	size_t slot = q->far_count++;
	while (slot > 0) {
		size_t parent = (slot - 1) / 2;
		if (!before(&key, &q->far[parent])) {
			break;
		}
		q->far[slot] = q->far[parent];
		slot = parent;
	}
	return &q->far[slot];
}

static void far_pop(world_queue_t *q, world_event_t *out)
{
	*out = q->far[0];
	world_event_t last = q->far[--q->far_count];
	size_t slot = 0, n = q->far_count;
	for (;;) {
		size_t child = 2 * slot + 1;
		if (child >= n) {
			break;
		}
		if (child + 1 < n && before(&q->far[child + 1], &q->far[child])) {
			child++;
		}
		if (!before(&q->far[child], &last)) {
			break;
		}
		q->far[slot] = q->far[child];
		slot = child;
	}
	if (n > 0) {
		q->far[slot] = last;
	}
}

/* ------------------------------------------------------------------ the wheel */

static const world_event_t *wheel_first(const world_queue_t *q)
{
	const world_queue_bucket_t *b = &q->buckets[q->wheel_first & MASK];
	return &b->first->items[b->head];
}

/* Whether the wheel can take an input due at `at` (now: the queue's user's present, which only
 * moves the base when that keeps every input the wheel holds within its reach). */
static bool wheel_takes(world_queue_t *q, uint64_t at, uint64_t now)
{
	if (q->buckets == NULL) {
		q->buckets = calloc(WORLD_QUEUE_SPAN, sizeof(*q->buckets));
		q->occupied = calloc(WORDS, sizeof(*q->occupied));
		if (q->buckets == NULL || q->occupied == NULL) {
			free(q->buckets);
			free(q->occupied);
			q->buckets = NULL;
			q->occupied = NULL;
			return false;
		}
	}
	if (q->wheel_count == 0) {
		q->base = now;
	} else {
		uint64_t floor = now < q->wheel_first ? now : q->wheel_first;
		if (floor > q->base) {
			q->base = floor;
		}
	}
	return at >= q->base && at - q->base < WORLD_QUEUE_SPAN;
}

/* A place in the wheel for an input due at `at` (NULL: no memory). */
static world_event_t *wheel_add(world_queue_t *q, uint64_t at)
{
	world_queue_bucket_t *b = &q->buckets[at & MASK];
	if (b->first == NULL || b->tail == WORLD_QUEUE_CHUNK) {
		world_queue_chunk_t *c = q->spare;
		if (c != NULL) {
			q->spare = c->next;
		} else if ((c = malloc(sizeof(*c))) == NULL) {
			return NULL;
		}
		c->next = NULL;
		if (b->first == NULL) {
			b->first = c;
			b->head = 0;
		} else {
			b->last->next = c;
		}
		b->last = c;
		b->tail = 0;
	}
	q->occupied[(at & MASK) / 64] |= 1ull << ((at & MASK) % 64);
	if (q->wheel_count++ == 0 || at < q->wheel_first) {
		q->wheel_first = at;
	}
	return &b->last->items[b->tail++];
}

/* The first occupied bucket at or after time `from`, going round, as the time of its inputs
 * (the wheel must hold an input, due at from .. from + WORLD_QUEUE_SPAN - 1). */
static uint64_t wheel_next(const world_queue_t *q, uint64_t from)
{
	uint32_t start = (uint32_t)(from & MASK);
	for (uint32_t n = 0;; n++) {
		uint32_t word = (start / 64 + n) % WORDS;
		uint64_t bits = q->occupied[word];
		if (n == 0) {
			bits &= ~0ull << (start % 64); /* the buckets before from's come last */
		} else if (n == WORDS) {
			bits &= (start % 64) ? ~(~0ull << (start % 64)) : 0;
		}
		if (bits != 0) {
			uint32_t bucket = word * 64 + (uint32_t)__builtin_ctzll(bits);
			return from + ((bucket - start) & MASK);
		}
	}
}

static void wheel_pop(world_queue_t *q, world_event_t *out)
{
	world_queue_bucket_t *b = &q->buckets[q->wheel_first & MASK];
	world_queue_chunk_t *c = b->first;
	*out = c->items[b->head++];
	q->base = out->at; /* nothing in the wheel is earlier: the next search starts here */
	q->wheel_count--;
	if (b->head < (c == b->last ? b->tail : WORLD_QUEUE_CHUNK)) {
		return; /* more in this chunk */
	}
	b->first = c == b->last ? NULL : c->next;
	b->head = 0;
	c->next = q->spare;
	q->spare = c;
	if (b->first != NULL) {
		return; /* more of the same millisecond in the next chunk */
	}
	b->last = NULL;
	q->occupied[(out->at & MASK) / 64] &= ~(1ull << ((out->at & MASK) % 64));
	if (q->wheel_count > 0) {
		q->wheel_first = wheel_next(q, q->base);
	}
}

/* ------------------------------------------------------------------ the queue */

world_event_t *world_queue_add(world_queue_t *q, uint64_t at, uint64_t now)
{
	if (at < now) {
		at = now;
	}
	world_event_t *e = wheel_takes(q, at, now) ? wheel_add(q, at) : NULL;
	if (e == NULL && (e = far_add(q, at, q->arrivals)) == NULL) {
		return NULL;
	}
	/* Filled in place: an input built elsewhere and copied would cost a copy, and the copy's wide
	 * reads of fields just written one by one stall the processor. */
	memset(e, 0, sizeof(*e));
	e->at = at;
	e->seq = q->arrivals++;
	q->count++;
	return e;
}

int world_queue_push(world_queue_t *q, const world_event_t *e, uint64_t now)
{
	world_event_t *slot = world_queue_add(q, e->at, now);
	if (slot == NULL) {
		return -1;
	}
	uint64_t at = slot->at, seq = slot->seq;
	*slot = *e;
	slot->at = at;
	slot->seq = seq;
	return 0;
}

const world_event_t *world_queue_peek(const world_queue_t *q)
{
	const world_event_t *w = q->wheel_count ? wheel_first(q) : NULL;
	const world_event_t *f = q->far_count ? &q->far[0] : NULL;
	if (w == NULL || (f != NULL && before(f, w))) {
		return f;
	}
	return w;
}

uint64_t world_queue_next_at(const world_queue_t *q)
{
	const world_event_t *e = world_queue_peek(q);
	return e != NULL ? e->at : UINT64_MAX;
}

bool world_queue_pop(world_queue_t *q, world_event_t *out)
{
	const world_event_t *next = world_queue_peek(q);
	if (next == NULL) {
		return false;
	}
	if (q->far_count && next == &q->far[0]) {
		far_pop(q, out);
	} else {
		wheel_pop(q, out);
	}
	q->count--;
	return true;
}

void world_queue_each(const world_queue_t *q, void (*fn)(const world_event_t *e, void *ctx), void *ctx)
{
	for (uint32_t i = 0; q->buckets != NULL && i < WORLD_QUEUE_SPAN; i++) {
		const world_queue_bucket_t *b = &q->buckets[i];
		for (const world_queue_chunk_t *c = b->first; c != NULL; c = c == b->last ? NULL : c->next) {
			uint32_t from = c == b->first ? b->head : 0, to = c == b->last ? b->tail : WORLD_QUEUE_CHUNK;
			for (uint32_t j = from; j < to; j++) {
				fn(&c->items[j], ctx);
			}
		}
	}
	for (size_t i = 0; i < q->far_count; i++) {
		fn(&q->far[i], ctx);
	}
}

/*
 * world_queue.h: the world's inputs in the order they happen: by time, then by order of arrival
 * (two inputs at the same millisecond are applied in the order they were queued). That order is
 * part of the world's determinism: traces depend on it, byte for byte.
 *
 * Most inputs of a large world are advertising events, each due within a few seconds of now, and
 * each set has one queued at a time: thousands in flight, all near. A binary heap of them costs a
 * sift through log n levels of a heap that no longer fits in the caches at every input (bench/
 * fleet-air.sh). So the near ones go to a wheel of one bucket per millisecond instead, each a
 * first-in first-out list: queuing and taking an input are a few operations on memory that is
 * read in order. Only inputs beyond the wheel's reach (scripted ones, long intervals) go to a
 * binary heap, and the earlier of the wheel's first and the heap's first comes next.
 */
#ifndef WORLD_QUEUE_H
#define WORLD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A scripted or internal input: what happens to which device when. */
typedef struct world_event {
	uint64_t at;
	uint64_t seq;   /* order of arrival (the queue sets it) */
	uint32_t device;
	uint16_t kind;  /* world_input_kind_t (world_inputs.h) */
	uint16_t flags;
	double value[4];
	char text[16];
} world_event_t;

/* The wheel's reach, ms (a power of two): an input due this much or more after the wheel's time
 * goes to the heap. 4.1 s covers the advertising intervals apps use (up to 4 s) with advDelay. */
#define WORLD_QUEUE_SPAN 4096u

/* Inputs of the wheel are kept in chunks of this many, from a list of spare ones. */
#define WORLD_QUEUE_CHUNK 8u

typedef struct world_queue_chunk {
	struct world_queue_chunk *next;
	world_event_t items[WORLD_QUEUE_CHUNK];
} world_queue_chunk_t;

/* The inputs of one millisecond, in order of arrival: a list of chunks, taken from the first
 * (from items[head]) and given to the last (at items[tail]). first is NULL when it is empty. */
typedef struct {
	world_queue_chunk_t *first, *last;
	uint32_t head, tail;
} world_queue_bucket_t;

typedef struct {
	uint64_t arrivals;     /* inputs queued so far: the next one's seq */
	size_t count;          /* inputs queued now, wheel and heap */
	/* The wheel: every input in it is due at base .. base + WORLD_QUEUE_SPAN - 1, in the bucket
	 * of its time modulo the span (so a bucket holds one millisecond's). Made on first use. */
	world_queue_bucket_t *buckets;
	uint64_t *occupied;    /* a bit per bucket: it holds inputs */
	uint64_t base;
	size_t wheel_count;
	uint64_t wheel_first;  /* the time of the wheel's earliest input (when it has one) */
	/* Chunks that buckets gave back, the last given back first (it is still in the cache): the
	 * wheel's memory is what the most inputs it ever held at once took. */
	world_queue_chunk_t *spare;
	/* The heap: the inputs beyond the wheel's reach, by time, then order of arrival. */
	world_event_t *far;
	size_t far_count, far_cap;
} world_queue_t;

void world_queue_init(world_queue_t *q);
void world_queue_free(world_queue_t *q);
/* Queue an input due at `at`, or at `now` if that is later, and return it for the caller to fill
 * in: at and seq (the order of arrival) are set, every other field is zero. It stays where it is
 * until the queue next changes. NULL when memory runs out. now is the user's present: nothing is
 * queued before it, and nothing will be (the wheel's reach is kept from it). */
world_event_t *world_queue_add(world_queue_t *q, uint64_t at, uint64_t now);
/* Queue a copy of e as world_queue_add does (its at and seq are the queue's). 0, or -1 when
 * memory runs out. */
int world_queue_push(world_queue_t *q, const world_event_t *e, uint64_t now);
/* The input that comes next, or NULL when none is queued; it stays queued. */
const world_event_t *world_queue_peek(const world_queue_t *q);
/* The time of the input that comes next, UINT64_MAX when none is queued. */
uint64_t world_queue_next_at(const world_queue_t *q);
/* Take the input that comes next into *out; false when none is queued. */
bool world_queue_pop(world_queue_t *q, world_event_t *out);
static inline size_t world_queue_count(const world_queue_t *q)
{
	return q->count;
}
/* Call fn on every queued input, in no particular order (tests look at what a script queued). */
void world_queue_each(const world_queue_t *q, void (*fn)(const world_event_t *e, void *ctx), void *ctx);

#endif /* WORLD_QUEUE_H */

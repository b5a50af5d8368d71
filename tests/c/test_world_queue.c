/*
 * The world's queue of inputs (src/world/world_queue.c): by time, then by order of arrival, across
 * its wheel of millisecond buckets and its heap of the inputs beyond the wheel's reach; inputs due
 * before the present are due now; what it holds can be walked; and a long random run against the
 * plainest reference there is (the earliest of an unordered list, found by looking at all).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "world_queue.h"

/* Queue an input tagged with `tag` (its device field) due at `at`. */
static void add(world_queue_t *q, uint64_t at, uint64_t now, uint32_t tag)
{
	world_event_t *e = world_queue_add(q, at, now);
	assert_non_null(e);
	e->device = tag;
}

static uint32_t take(world_queue_t *q, uint64_t *at)
{
	world_event_t e;
	const world_event_t *next = world_queue_peek(q);
	assert_non_null(next);
	uint64_t expect_at = next->at, expect_seq = next->seq;
	assert_int_equal(world_queue_next_at(q), expect_at);
	assert_true(world_queue_pop(q, &e));
	assert_int_equal(e.at, expect_at);
	assert_int_equal(e.seq, expect_seq);
	*at = e.at;
	return e.device;
}

/* Times first, then arrivals; what is added is zero but for the fields the caller sets. */
static void test_inputs_come_by_time_then_arrival(void **state)
{
	(void)state;
	world_queue_t q;
	world_queue_init(&q);
	const uint64_t times[] = {30, 10, 20, 10, 30, 10, 0, 20};
	for (uint32_t i = 0; i < 8; i++) {
		add(&q, times[i], 0, i);
	}
	assert_int_equal(world_queue_count(&q), 8);
	const uint32_t order[] = {6, 1, 3, 5, 2, 7, 0, 4};
	for (uint32_t i = 0; i < 8; i++) {
		uint64_t at;
		assert_int_equal(take(&q, &at), order[i]);
		assert_int_equal(at, times[order[i]]);
	}
	assert_int_equal(world_queue_count(&q), 0);
	assert_null(world_queue_peek(&q));
	assert_int_equal(world_queue_next_at(&q), UINT64_MAX);
	world_event_t e;
	assert_false(world_queue_pop(&q, &e));

	world_event_t *f = world_queue_add(&q, 5, 0);
	assert_non_null(f);
	const world_event_t zero = {.at = 5, .seq = 8};
	assert_memory_equal(f, &zero, sizeof(zero));
	world_queue_free(&q);
}

/* An input due before the present is due now, after the ones already due now. */
static void test_the_past_is_now(void **state)
{
	(void)state;
	world_queue_t q;
	world_queue_init(&q);
	add(&q, 100, 100, 1);
	add(&q, 40, 100, 2);
	world_event_t in = {.at = 7, .seq = 12345, .device = 3, .kind = 9, .value = {1.5}, .text = "hi"};
	assert_int_equal(world_queue_push(&q, &in, 100), 0);
	uint64_t at;
	assert_int_equal(take(&q, &at), 1);
	assert_int_equal(take(&q, &at), 2);
	assert_int_equal(at, 100);
	world_event_t out;
	assert_true(world_queue_pop(&q, &out));
	assert_int_equal(out.at, 100);
	assert_int_equal(out.seq, 2); /* the queue's order of arrival, not the caller's */
	assert_int_equal(out.kind, 9);
	assert_true(out.value[0] == 1.5);
	assert_string_equal(out.text, "hi");
	world_queue_free(&q);
}

/* Inputs at and beyond the wheel's reach (the heap), at times that share a bucket of the wheel,
 * and ties between the two: still by time, then arrival. */
static void test_the_wheel_and_the_heap_keep_one_order(void **state)
{
	(void)state;
	world_queue_t q;
	world_queue_init(&q);
	const uint64_t span = WORLD_QUEUE_SPAN;
	add(&q, 6, 0, 0);
	add(&q, span + 3, 0, 1);     /* beyond the wheel's reach from 0: the heap */
	add(&q, 2 * span + 3, 0, 2); /* the same bucket's time, a span later */
	add(&q, span - 1, 0, 3);     /* the last the wheel reaches from 0 */
	add(&q, span, 0, 4);         /* the first it does not */
	assert_int_equal(q.far_count, 3);
	uint64_t at;
	assert_int_equal(take(&q, &at), 0);
	/* From 6 the wheel reaches span + 3 and span: inputs there come after the heap's of the same
	 * times, which arrived first. */
	add(&q, span + 3, 6, 5);
	add(&q, span, 6, 6);
	assert_int_equal(q.far_count, 3);
	const uint32_t order[] = {3, 4, 6, 1, 5, 2};
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(take(&q, &at), order[i]);
	}
	/* A present that lags the wheel's (the user's now behind the last taken input): the heap
	 * takes what the wheel cannot, and the order holds. */
	add(&q, 10 * span, 10 * span, 7);
	add(&q, 10 * span + 3, 10 * span, 8);
	assert_int_equal(take(&q, &at), 7);
	add(&q, 10 * span + 3, 0, 9);
	add(&q, 10 * span - 900, 0, 10); /* before the wheel's base: the heap */
	assert_int_equal(q.far_count, 1);
	const uint32_t rest[] = {10, 8, 9};
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(take(&q, &at), rest[i]);
	}
	world_queue_free(&q);
}

static void count_tags(const world_event_t *e, void *ctx)
{
	((uint32_t *)ctx)[e->device]++;
}

/* Many inputs in one millisecond and across many (chunks of a bucket, buckets that wrap round the
 * wheel, inputs added to the millisecond being taken), all walked, all taken in order. */
static void test_it_grows_and_gives_back(void **state)
{
	(void)state;
	world_queue_t q;
	world_queue_init(&q);
	enum { N = 20000 };
	static uint32_t seen[N];
	for (uint32_t i = 0; i < N; i++) {
		add(&q, i % 3 == 0 ? 1000 : 1000 + (i * 7919u) % 9000, 0, i);
	}
	memset(seen, 0, sizeof(seen));
	world_queue_each(&q, count_tags, seen);
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(seen[i], 1);
	}
	uint64_t at, last_at = 0;
	uint32_t last = 0, taken = 0;
	while (world_queue_count(&q) > 0) {
		uint32_t tag = take(&q, &at);
		assert_true(at > last_at || (at == last_at && (tag > last || tag >= N)));
		if (taken++ == 10) {
			add(&q, at, at, N + 1); /* due now: after the rest of this millisecond */
		}
		last_at = at, last = tag;
	}
	assert_int_equal(taken, N + 1);
	assert_int_equal(last_at, 1000 + 8999);
	/* The chunks taken from are kept for the next inputs. */
	assert_non_null(q.spare);
	world_queue_free(&q);
	assert_null(q.spare);
}

/* ------------------------------------------------------------------ against a reference */

typedef struct {
	uint64_t at, seq;
	uint32_t tag;
} ref_t;

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* A world's way of using the queue, at random: inputs now, soon (the air's next event), in a few
 * seconds and far off (scripted), several at once; the present moves to each input taken and
 * sometimes on to a time before the next (a device ran); the results are the reference's, which
 * keeps an unordered list and takes the earliest (time, then arrival) by looking at all. */
static void test_random_use_matches_the_reference(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		world_queue_t q;
		world_queue_init(&q);
		static ref_t ref[512];
		size_t n = 0;
		uint64_t s = seed, now = 0, arrivals = 0;
		for (int step = 0; step < 100000; step++) {
			uint64_t r = rnd(&s) % 100;
			if (n < 500 && (r < 50 || n == 0)) {
				uint64_t kind = rnd(&s) % 10, at;
				at = kind < 2 ? now : kind < 7 ? now + 1000 + rnd(&s) % 11
						: kind < 9 ? now + rnd(&s) % (3 * WORLD_QUEUE_SPAN)
						: (now > 50 ? now - rnd(&s) % 50 : 0); /* the past: due now */
				uint32_t tag = (uint32_t)rnd(&s);
				add(&q, at, now, tag);
				ref[n++] = (ref_t){at < now ? now : at, arrivals++, tag};
			} else if (r < 95) {
				size_t best = 0;
				for (size_t i = 1; i < n; i++) {
					if (ref[i].at < ref[best].at || (ref[i].at == ref[best].at && ref[i].seq < ref[best].seq)) {
						best = i;
					}
				}
				world_event_t e;
				assert_true(world_queue_pop(&q, &e));
				assert_int_equal(e.at, ref[best].at);
				assert_int_equal(e.seq, ref[best].seq);
				assert_int_equal(e.device, ref[best].tag);
				now = e.at;
				ref[best] = ref[--n];
			} else {
				uint64_t next = world_queue_next_at(&q);
				if (next != UINT64_MAX && next > now) {
					now += rnd(&s) % (next - now + 1);
				}
			}
			assert_int_equal(world_queue_count(&q), n);
		}
		world_queue_free(&q);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs_come_by_time_then_arrival),
		cmocka_unit_test(test_the_past_is_now),
		cmocka_unit_test(test_the_wheel_and_the_heap_keep_one_order),
		cmocka_unit_test(test_it_grows_and_gives_back),
		cmocka_unit_test(test_random_use_matches_the_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

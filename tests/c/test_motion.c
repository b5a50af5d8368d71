/*
 * Motion detection on hardware: the levels of docs/world.md and the decision of when the app
 * hears that the device started or stopped moving, from the activity interrupts of an
 * accelerometer (rt_motion.h).
 *
 * The tests drive the detector the way the firmware does: activities at their times, and an
 * update whenever the detector asked to be called. What the app would hear is recorded with its
 * time and compared with what the simulator's model says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt_motion.h"

#define HOLD_MS 1000u
#define MAX_REPORTS 16

typedef struct {
	uint64_t at;
	uint32_t what;
} report_t;

typedef struct {
	rt_motion_t m;
	uint64_t next;
	report_t reports[MAX_REPORTS];
	int count;
} bench_t;

static void update(bench_t *b, uint64_t now)
{
	uint64_t next;
	uint32_t what = rt_motion_update(&b->m, now, &next);
	if (what) {
		assert_true(b->count < MAX_REPORTS);
		b->reports[b->count].at = now;
		b->reports[b->count].what = what;
		b->count++;
	}
	/* Asking to be called again at the same moment would spin the firmware's timer. */
	if (next != RT_MOTION_NEVER && next <= now) {
		fail_msg("at %llu ms the detector asked to be called at %llu ms", (unsigned long long)now,
			 (unsigned long long)next);
	}
	b->next = next;
}

/* Let time pass up to t: the timer calls the detector when it asked. */
static void run_until(bench_t *b, uint64_t t)
{
	while (b->next != RT_MOTION_NEVER && b->next <= t) {
		update(b, b->next);
	}
}

static void activity(bench_t *b, uint64_t t)
{
	run_until(b, t);
	rt_motion_activity(&b->m, t);
	update(b, t);
}

static void rest(bench_t *b, uint64_t t)
{
	run_until(b, t);
	rt_motion_rest(&b->m, t);
	update(b, t);
}

/* The device moves from `from` to `to`; the sensor fires every `every` ms meanwhile. */
static void shake(bench_t *b, uint64_t from, uint64_t to, uint64_t every)
{
	for (uint64_t t = from; t <= to; t += every) {
		activity(b, t);
	}
}

static void start(bench_t *b, bool sensor_reports_rest, uint8_t responsiveness)
{
	rt_motion_init(&b->m, HOLD_MS, sensor_reports_rest);
	rt_motion_set_responsiveness(&b->m, responsiveness);
	b->next = RT_MOTION_NEVER;
	b->count = 0;
}

static void expect(const bench_t *b, int i, uint64_t at, uint32_t what)
{
	if (i >= b->count) {
		fail_msg("report %d (0x%x at %llu ms) did not come; %d came", i, (unsigned)what,
			 (unsigned long long)at, b->count);
	}
	if (b->reports[i].at != at || b->reports[i].what != what) {
		fail_msg("report %d: 0x%x at %llu ms, expected 0x%x at %llu ms", i,
			 (unsigned)b->reports[i].what, (unsigned long long)b->reports[i].at,
			 (unsigned)what, (unsigned long long)at);
	}
}

static void test_levels_are_those_of_the_simulator(void **state)
{
	static const float g[] = {0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f};
	static const uint32_t start_ms[] = {4000, 2000, 1000, 500, 100};
	static const uint32_t stop_ms[] = {30000, 20000, 10000, 5000, 2000};
	for (uint8_t l = 0; l < RT_MOTION_LEVELS; l++) {
		assert_true(rt_motion_threshold_g(l) == g[l]);
		assert_int_equal(rt_motion_start_delay_ms(l), start_ms[l]);
		assert_int_equal(rt_motion_stop_delay_ms(l), stop_ms[l]);
	}
	/* A level beyond HIGHEST is HIGHEST, never a read past the table. */
	assert_true(rt_motion_threshold_g(200) == g[4]);
	assert_int_equal(rt_motion_start_delay_ms(5), start_ms[4]);
	assert_int_equal(rt_motion_stop_delay_ms(255), stop_ms[4]);
}

static void test_sustained_motion_is_reported_after_the_start_delay(void **state)
{
	bench_t b;
	start(&b, false, 2); /* MEDIUM: 1 s to report motion, 10 s to report rest */
	shake(&b, 1000, 6000, 200);
	run_until(&b, 60000);
	expect(&b, 0, 2000, RT_MOTION_STARTED);
	/* The last activity at 6000 holds until 7000: then it has settled, and rest follows the
	 * stop delay later. */
	expect(&b, 1, 7000, RT_MOTION_SETTLED);
	expect(&b, 2, 17000, RT_MOTION_STOPPED);
	assert_int_equal(b.count, 3);
}

static void test_a_shake_shorter_than_the_start_delay_is_not_motion(void **state)
{
	bench_t b;
	start(&b, false, 1); /* LOW: 2 s to report motion */
	shake(&b, 1000, 1600, 200);
	run_until(&b, 60000);
	/* Movement seen from 1000 to 1600 (+ hold: 2600) never lasted 2 s. */
	expect(&b, 0, 2600, RT_MOTION_SETTLED);
	assert_int_equal(b.count, 1);
	assert_false(b.m.moving);
	assert_int_equal(b.next, RT_MOTION_NEVER);
}

static void test_a_pause_shorter_than_the_stop_delay_is_still_motion(void **state)
{
	bench_t b;
	start(&b, false, 2);
	shake(&b, 0, 3000, 250);
	/* Still for 5 s (less than the 10 s stop delay), then moving again. */
	shake(&b, 9000, 12000, 250);
	run_until(&b, 60000);
	expect(&b, 0, 1000, RT_MOTION_STARTED);
	expect(&b, 1, 4000, RT_MOTION_SETTLED);
	expect(&b, 2, 13000, RT_MOTION_SETTLED);
	expect(&b, 3, 23000, RT_MOTION_STOPPED);
	assert_int_equal(b.count, 4);
}

static void test_motion_after_rest_starts_over(void **state)
{
	bench_t b;
	start(&b, false, 3); /* HIGH: 0.5 s, 5 s */
	shake(&b, 0, 1000, 100);
	run_until(&b, 8000);
	shake(&b, 8000, 9000, 100);
	run_until(&b, 60000);
	expect(&b, 0, 500, RT_MOTION_STARTED);
	expect(&b, 1, 2000, RT_MOTION_SETTLED);
	expect(&b, 2, 7000, RT_MOTION_STOPPED);
	/* The second episode counts its start delay from its own first activity. */
	expect(&b, 3, 8500, RT_MOTION_STARTED);
	expect(&b, 4, 10000, RT_MOTION_SETTLED);
	expect(&b, 5, 15000, RT_MOTION_STOPPED);
	assert_int_equal(b.count, 6);
}

static void test_a_sensor_that_reports_rest_holds_motion_until_it_does(void **state)
{
	bench_t b;
	start(&b, true, 2);
	/* One activity interrupt when movement starts, nothing more until the sensor's own
	 * inactivity detection fires. */
	activity(&b, 1000);
	run_until(&b, 6999);
	expect(&b, 0, 2000, RT_MOTION_STARTED);
	assert_int_equal(b.count, 1);
	rest(&b, 7000);
	run_until(&b, 60000);
	expect(&b, 1, 7000, RT_MOTION_SETTLED);
	expect(&b, 2, 17000, RT_MOTION_STOPPED);
	assert_int_equal(b.count, 3);
}

static void test_rest_reported_before_the_start_delay_is_a_shake(void **state)
{
	bench_t b;
	start(&b, true, 0); /* LOWEST: 4 s */
	activity(&b, 1000);
	rest(&b, 3000);
	run_until(&b, 60000);
	expect(&b, 0, 3000, RT_MOTION_SETTLED);
	assert_int_equal(b.count, 1);
	assert_false(b.m.moving);
}

static void test_new_responsiveness_applies_to_what_is_under_way(void **state)
{
	bench_t b;
	start(&b, false, 0); /* LOWEST: 4 s to report motion */
	shake(&b, 0, 1500, 100);
	/* At 1500 the app asks for HIGHEST (0.1 s): the movement going on since 0 is motion now. */
	rt_motion_set_responsiveness(&b.m, 4);
	update(&b, 1500);
	expect(&b, 0, 1500, RT_MOTION_STARTED);
	run_until(&b, 60000);
	/* Settled at 2500, rest 2 s later. */
	expect(&b, 1, 2500, RT_MOTION_SETTLED);
	expect(&b, 2, 4500, RT_MOTION_STOPPED);
	assert_int_equal(b.count, 3);
}

static void test_nothing_to_do_without_activity(void **state)
{
	bench_t b;
	start(&b, false, 2);
	update(&b, 0);
	assert_int_equal(b.next, RT_MOTION_NEVER);
	rt_motion_rest(&b.m, 100); /* rest without motion changes nothing */
	update(&b, 100);
	assert_int_equal(b.count, 0);
	assert_int_equal(b.next, RT_MOTION_NEVER);
}

static void test_late_update_reports_both_changes(void **state)
{
	bench_t b;
	start(&b, false, 4); /* HIGHEST: 0.1 s, 2 s */
	rt_motion_activity(&b.m, 0);
	/* A timer that fires very late (the system was busy) still reports what happened, in
	 * order, once. */
	update(&b, 10000);
	expect(&b, 0, 10000, RT_MOTION_STARTED | RT_MOTION_SETTLED | RT_MOTION_STOPPED);
	update(&b, 10001);
	assert_int_equal(b.count, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_are_those_of_the_simulator),
		cmocka_unit_test(test_sustained_motion_is_reported_after_the_start_delay),
		cmocka_unit_test(test_a_shake_shorter_than_the_start_delay_is_not_motion),
		cmocka_unit_test(test_a_pause_shorter_than_the_stop_delay_is_still_motion),
		cmocka_unit_test(test_motion_after_rest_starts_over),
		cmocka_unit_test(test_a_sensor_that_reports_rest_holds_motion_until_it_does),
		cmocka_unit_test(test_rest_reported_before_the_start_delay_is_a_shake),
		cmocka_unit_test(test_new_responsiveness_applies_to_what_is_under_way),
		cmocka_unit_test(test_nothing_to_do_without_activity),
		cmocka_unit_test(test_late_update_reports_both_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The rules of location.startUpdates (rt_location_filter), driven by explicit time: which
 * positions reach the callback (minInterval, minDistance, diff), when GNSS is on (maxFixWait),
 * and how the session ends (timeout, fix failure, stop, refused options). Expected times and
 * distances are worked out by hand in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rt_geo.h"
#include "rt_gnss_track.h"
#include "rt_location_filter.h"

#define S 1000 /* ms */

/* What a session did, as a runtime would see it. */
typedef struct {
	int64_t delivered_at[64];
	double diff[64];
	bool mock[64];
	int n_delivered;
	int64_t gnss_at[64]; /* times GNSS switched, on and off alternately, starting with on */
	bool gnss_on[64];
	int n_gnss;
	rt_location_end_t end;
	rt_location_reject_t reject;
	int64_t end_at;
	bool result_known;
	rt_location_position_t result;
} record_t;

static void note(record_t *r, int64_t t, const rt_location_out_t *out)
{
	if (out->deliver) {
		assert_true(r->n_delivered < 64);
		r->delivered_at[r->n_delivered] = t;
		r->diff[r->n_delivered] = out->position.diff_m;
		r->mock[r->n_delivered] = out->position.mock;
		r->n_delivered++;
	}
	if (out->gnss_changed) {
		assert_true(r->n_gnss < 64);
		r->gnss_at[r->n_gnss] = t;
		r->gnss_on[r->n_gnss] = out->gnss_on;
		r->n_gnss++;
	}
	if (out->end != RT_LOCATION_END_NONE) {
		assert_int_equal(r->end, RT_LOCATION_END_NONE); /* a session ends once */
		r->end = out->end;
		r->reject = out->reject;
		r->end_at = t;
		r->result_known = out->result_known;
		r->result = out->result;
	}
}

static rt_location_position_t pos_at(double north_m, int64_t t)
{
	rt_location_position_t p = {0};
	rt_geo_destination(47.0, 8.0, 0.0, north_m, &p.lat, &p.lon, NULL);
	p.prec = 1.0;
	p.sat = 8;
	p.ts_ms = 1700000000000 + t;
	return p;
}

static void start(rt_location_filter_t *f, record_t *r, const rt_location_options_t *opt, int64_t t)
{
	rt_location_out_t out;
	assert_int_equal(rt_location_filter_start(f, opt, t, &out), RT_LOCATION_REJECT_NONE);
	note(r, t, &out);
}

static void fix(rt_location_filter_t *f, record_t *r, int64_t t, double north_m)
{
	rt_location_out_t out;
	rt_location_position_t p = pos_at(north_m, t);
	rt_location_filter_fix(f, t, &p, &out);
	note(r, t, &out);
}

static void mock_fix(rt_location_filter_t *f, record_t *r, int64_t t, double north_m)
{
	rt_location_out_t out;
	rt_location_position_t p = pos_at(north_m, t);
	p.mock = true;
	rt_location_filter_fix(f, t, &p, &out);
	note(r, t, &out);
}

/* Takes every deadline up to t, one call each, as a runtime's timer would. */
static void run_until(rt_location_filter_t *f, record_t *r, int64_t t)
{
	int64_t due;
	while ((due = rt_location_filter_next_deadline(f)) <= t) {
		rt_location_out_t out;
		rt_location_filter_advance(f, due, &out);
		note(r, due, &out);
	}
}

static void assert_times(const int64_t *got, int n, const int64_t *want, int n_want)
{
	for (int i = 0; i < n && i < n_want; i++) {
		if (got[i] != want[i]) {
			fail_msg("event %d at %lld ms, want %lld ms", i, (long long)got[i],
				 (long long)want[i]);
		}
	}
	if (n != n_want) {
		fail_msg("%d events, want %d", n, n_want);
	}
}

/*
 * Feeds fixes of a GNSS track once a second while the filter keeps GNSS on, as the simulated
 * world will: the receiver's last fix before it was switched on decides its start (hot here).
 */
static void drive_track(rt_location_filter_t *f, record_t *r, const rt_gnss_track_t *track,
			int64_t until, int64_t receiver_last_fix)
{
	int64_t on_since = 0, last_before_on = receiver_last_fix;
	bool was_on = false;
	for (int64_t t = 0; t <= until; t += S) {
		run_until(f, r, t);
		if (!f->tracking) {
			return;
		}
		if (f->gnss_on && !was_on) {
			on_since = f->gnss_since_ms;
			last_before_on = receiver_last_fix;
		}
		was_on = f->gnss_on;
		rt_gnss_fix_t g;
		if (f->gnss_on && rt_gnss_track_fix(track, on_since, last_before_on, t, &g)) {
			rt_location_position_t p = {.lat = g.lat, .lon = g.lon, .alt = g.alt,
						    .speed_kmh = g.speed_kmh, .head_deg = g.head_deg,
						    .prec = g.hdop, .sat = g.sat, .ts_ms = t};
			rt_location_out_t out;
			rt_location_filter_fix(f, t, &p, &out);
			note(r, t, &out);
			receiver_last_fix = t;
		}
		was_on = f->gnss_on;
	}
}

/* A walker going due north at 1.5 m/s for 30 s (45 m), then standing for 30 s. */
static rt_gnss_point_t walk_points[3];

static void walk_track(rt_gnss_track_t *tr)
{
	double lat, lon;
	rt_geo_destination(47.0, 8.0, 0.0, 45.0, &lat, &lon, NULL);
	walk_points[0] = (rt_gnss_point_t){0, 47.0, 8.0, 400, NAN, NAN};
	walk_points[1] = (rt_gnss_point_t){30 * S, lat, lon, 400, NAN, NAN};
	walk_points[2] = (rt_gnss_point_t){60 * S, lat, lon, 400, NAN, NAN};
	rt_gnss_track_init(tr, walk_points, 3);
}

/*
 * minInterval 5 s, minDistance 10 m. The receiver had a fix 10 minutes ago: hot start, first
 * fix at 2 s (3 m along). Then a position goes out once 5 s have passed AND it is more than
 * 10 m from the last one sent: 8 s is 12 - 3 = 9 m (no), 9 s is 13.5 - 3 = 10.5 m (yes); then
 * 16 s (24 - 13.5 = 10.5), 23 s (34.5 - 24), 30 s (45 - 34.5); standing at 45 m, nothing more.
 */
static void test_walk_min_distance(void **state)
{
	rt_gnss_track_t tr;
	walk_track(&tr);
	rt_location_filter_t f;
	rt_location_filter_init(&f, NULL);
	record_t r = {0};
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.min_interval_ms = 5 * S;
	opt.min_distance_m = 10;
	opt.timeout_ms = 60 * S;
	start(&f, &r, &opt, 0);
	drive_track(&f, &r, &tr, 70 * S, -600 * S);
	static const int64_t want[] = {2 * S, 9 * S, 16 * S, 23 * S, 30 * S};
	assert_times(r.delivered_at, r.n_delivered, want, 5);
	assert_true(r.diff[0] == 0.0);
	for (int i = 1; i < 5; i++) {
		assert_true(fabs(r.diff[i] - 10.5) < 1e-3);
	}
	/* Continuous (minInterval < maxFixWait): on from the start to the timeout at 60 s, which
	 * resolves with the last fix (the walker standing at 45 m). */
	static const int64_t gnss[] = {0, 60 * S};
	assert_times(r.gnss_at, r.n_gnss, gnss, 2);
	assert_int_equal(r.end, RT_LOCATION_END_RESOLVED);
	assert_int_equal(r.end_at, 60 * S);
	assert_true(r.result_known);
	assert_int_equal(r.result.ts_ms, 59 * S);
	assert_true(fabs(rt_geo_distance(47.0, 8.0, r.result.lat, r.result.lon) - 45.0) < 1e-3);
	assert_int_equal(rt_location_filter_gnss_on_ms(&f, 100 * S), 60 * S);
}

/* minDistance 0 (unused): every 5 s from the first fix, 7.5 m apart while walking, then 4.5 m
 * (32 s: 45 - 40.5) and 0 m standing. */
static void test_walk_min_interval_only(void **state)
{
	rt_gnss_track_t tr;
	walk_track(&tr);
	rt_location_filter_t f;
	rt_location_filter_init(&f, NULL);
	record_t r = {0};
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.timeout_ms = 40 * S;
	start(&f, &r, &opt, 0);
	drive_track(&f, &r, &tr, 50 * S, -600 * S);
	static const int64_t want[] = {2 * S, 7 * S, 12 * S, 17 * S, 22 * S, 27 * S, 32 * S, 37 * S};
	assert_times(r.delivered_at, r.n_delivered, want, 8);
	static const double diffs[] = {0, 7.5, 7.5, 7.5, 7.5, 7.5, 4.5, 0};
	for (int i = 0; i < 8; i++) {
		if (fabs(r.diff[i] - diffs[i]) > 1e-3) {
			fail_msg("diff %d: %f, want %f", i, r.diff[i], diffs[i]);
		}
	}
}

/*
 * Periodic GNSS (maxFixWait 60 s <= minInterval 300 s): on at 0, fix at 20 s (delivered), off
 * until 320 s; no fix then: the wait ends at 380 s, off for 300 s; on at 680 s, off at 740 s;
 * on at 1040 s, fix at 1045 s, off until 1345 s. On for 20 + 60 + 60 + 5 = 145 s, 4 starts.
 */
static void test_max_fix_wait_duty(void **state)
{
	rt_location_filter_t f;
	rt_location_filter_init(&f, NULL);
	record_t r = {0};
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.max_fix_wait_ms = 60 * S;
	opt.min_interval_ms = 300 * S;
	opt.timeout_ms = 0;
	start(&f, &r, &opt, 0);
	assert_int_equal(rt_location_filter_next_deadline(&f), 60 * S);
	fix(&f, &r, 20 * S, 0);
	assert_int_equal(rt_location_filter_next_deadline(&f), 320 * S);
	/* A fix the switched-off receiver cannot have made is not taken. */
	fix(&f, &r, 100 * S, 50);
	run_until(&f, &r, 1044 * S);
	fix(&f, &r, 1045 * S, 20);
	run_until(&f, &r, 1200 * S);
	static const int64_t gnss[] = {0, 20 * S, 320 * S, 380 * S, 680 * S, 740 * S, 1040 * S, 1045 * S};
	assert_times(r.gnss_at, r.n_gnss, gnss, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(r.gnss_on[i], i % 2 == 0);
	}
	static const int64_t delivered[] = {20 * S, 1045 * S};
	assert_times(r.delivered_at, r.n_delivered, delivered, 2);
	assert_true(fabs(r.diff[1] - 20.0) < 1e-3);
	assert_int_equal(rt_location_filter_gnss_on_ms(&f, 1200 * S), 145 * S);
	assert_int_equal(f.gnss_starts, 4);
	assert_int_equal(r.end, RT_LOCATION_END_NONE);
	assert_int_equal(rt_location_filter_next_deadline(&f), 1345 * S);
}

/* A runtime that wakes late still gets the on-time right: from off at 20 s straight to
 * 1000 s: on 320..380 and 680..740, off again at 1000 s. */
static void test_late_advance_keeps_on_time(void **state)
{
	rt_location_filter_t f;
	rt_location_filter_init(&f, NULL);
	record_t r = {0};
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.max_fix_wait_ms = 60 * S;
	opt.min_interval_ms = 300 * S;
	opt.timeout_ms = 0;
	start(&f, &r, &opt, 0);
	fix(&f, &r, 20 * S, 0);
	rt_location_out_t out;
	rt_location_filter_advance(&f, 1000 * S, &out);
	assert_false(out.gnss_on);
	assert_int_equal(out.next_ms, 1040 * S);
	assert_int_equal(rt_location_filter_gnss_on_ms(&f, 1000 * S), 140 * S);
	assert_int_equal(f.gnss_starts, 3);
}

/* Continuous (minInterval 5 s < maxFixWait 180 s): GNSS stays on through a lost fix. */
static void test_gnss_stays_on(void **state)
{
	rt_location_filter_t f;
	rt_location_filter_init(&f, NULL);
	record_t r = {0};
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	start(&f, &r, &opt, 0);
	for (int64_t t = 10; t <= 100; t++) {
		fix(&f, &r, t * S, (double)t);
	}
	run_until(&f, &r, 399 * S); /* no fix from 100 s to 400 s: no deadline, no change */
	for (int64_t t = 400; t <= 410; t++) {
		fix(&f, &r, t * S, (double)t);
	}
	run_until(&f, &r, 2000 * S);
	/* 10, 15, ..., 100 (19 positions), then 400, 405, 410. */
	assert_int_equal(r.n_delivered, 22);
	assert_int_equal(r.delivered_at[18], 100 * S);
	assert_int_equal(r.delivered_at[19], 400 * S);
	assert_true(fabs(r.diff[19] - 300.0) < 1e-3);
	static const int64_t gnss[] = {0, 900 * S};
	assert_times(r.gnss_at, r.n_gnss, gnss, 2);
	assert_int_equal(r.end, RT_LOCATION_END_RESOLVED);
	assert_int_equal(r.end_at, 900 * S); /* the default timeout */
	assert_int_equal(r.result.ts_ms, 1700000000000 + 410 * S);
}

/* Fix failure: maxFixWait in force and no position within it of the start; GNSS goes off. */
static void test_first_fix_fails(void **state)
{
	const uint32_t intervals[] = {5 * S, 300 * S}; /* continuous and periodic alike */
	for (int i = 0; i < 2; i++) {
		rt_location_filter_t f;
		rt_location_filter_init(&f, NULL);
		record_t r = {0};
		rt_location_options_t opt;
		rt_location_options_default(&opt, true);
		opt.max_fix_wait_ms = 60 * S;
		opt.min_interval_ms = intervals[i];
		start(&f, &r, &opt, 1000);
		run_until(&f, &r, 10000 * S);
		assert_int_equal(r.end, RT_LOCATION_END_REJECTED);
		assert_int_equal(r.reject, RT_LOCATION_REJECT_NO_FIX);
		assert_int_equal(r.end_at, 61 * S);
		assert_false(f.gnss_on);
		assert_int_equal(rt_location_filter_gnss_on_ms(&f, 10000 * S), 60 * S);
		/* Nothing after the end. */
		fix(&f, &r, 70 * S, 0);
		assert_int_equal(r.n_delivered, 0);
	}
	assert_string_equal(rt_location_reject_message(RT_LOCATION_REJECT_NO_FIX),
			    "no fix within maxFixWait");
}

/* A timeout before the fix wait ends resolves (with the last known position, here none, then
 * one from before the session). Without maxFixWait (0.0.9, 0.1.5) no fix is no failure. */
static void test_timeout_without_fix(void **state)
{
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.timeout_ms = 30 * S;
	opt.min_interval_ms = 5 * S;
	rt_location_filter_t f;
	record_t r = {0};
	rt_location_filter_init(&f, NULL);
	start(&f, &r, &opt, 0);
	run_until(&f, &r, 1000 * S);
	assert_int_equal(r.end, RT_LOCATION_END_RESOLVED);
	assert_int_equal(r.end_at, 30 * S);
	assert_false(r.result_known);

	rt_location_position_t before = pos_at(123, -5000 * S);
	memset(&r, 0, sizeof(r));
	rt_location_filter_init(&f, &before);
	start(&f, &r, &opt, 0);
	run_until(&f, &r, 1000 * S);
	assert_true(r.result_known);
	assert_true(r.result.lat == before.lat && r.result.ts_ms == before.ts_ms);

	rt_location_options_default(&opt, false);
	assert_int_equal(opt.max_fix_wait_ms, 0);
	assert_int_equal(opt.timeout_ms, 900 * S);
	memset(&r, 0, sizeof(r));
	rt_location_filter_init(&f, NULL);
	start(&f, &r, &opt, 0);
	run_until(&f, &r, 5000 * S);
	assert_int_equal(r.end, RT_LOCATION_END_RESOLVED);
	assert_int_equal(r.end_at, 900 * S);
	assert_false(r.result_known);
	assert_int_equal(rt_location_filter_gnss_on_ms(&f, 5000 * S), 900 * S);
}

/* timeout 0: unlimited; no deadline at all without maxFixWait. */
static void test_unlimited(void **state)
{
	rt_location_options_t opt;
	rt_location_options_default(&opt, false);
	opt.timeout_ms = 0;
	opt.min_interval_ms = 24u * 3600u * S; /* a day: fine with no timeout */
	rt_location_filter_t f;
	record_t r = {0};
	rt_location_filter_init(&f, NULL);
	start(&f, &r, &opt, 0);
	assert_int_equal(rt_location_filter_next_deadline(&f), RT_LOCATION_NO_DEADLINE);
	fix(&f, &r, 10 * S, 0);
	fix(&f, &r, 86400 * S, 5);  /* 10 s short of a day since the first */
	fix(&f, &r, 86410 * S, 6);
	run_until(&f, &r, 10LL * 86400 * S);
	assert_true(f.tracking);
	assert_int_equal(r.end, RT_LOCATION_END_NONE);
	assert_int_equal(r.n_delivered, 2);
	assert_int_equal(r.delivered_at[1], 86410 * S);
}

static void test_refused_options(void **state)
{
	rt_location_filter_t f;
	rt_location_out_t out;
	rt_location_options_t opt;
	rt_location_filter_init(&f, NULL);
	rt_location_options_default(&opt, true);
	opt.timeout_ms = 300 * S;
	opt.min_interval_ms = 301 * S;
	assert_int_equal(rt_location_filter_start(&f, &opt, 0, &out), RT_LOCATION_REJECT_MIN_INTERVAL);
	assert_int_equal(out.end, RT_LOCATION_END_REJECTED);
	assert_false(f.tracking || out.gnss_on);
	opt.min_interval_ms = 300 * S; /* equal is fine */
	assert_int_equal(rt_location_filter_start(&f, &opt, 0, &out), RT_LOCATION_REJECT_NONE);
	assert_true(out.gnss_on && out.gnss_changed);
	/* A refused call leaves the running session alone. */
	rt_location_options_t bad = opt;
	bad.max_fix_wait_ms = 39999;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_BAD_OPTIONS);
	assert_true(f.tracking && f.gnss_on);
	assert_int_equal(f.opt.max_fix_wait_ms, opt.max_fix_wait_ms);
	bad.max_fix_wait_ms = 600001;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_BAD_OPTIONS);
	bad = opt;
	bad.min_distance_m = -1;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_BAD_OPTIONS);
	bad.min_distance_m = NAN;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_BAD_OPTIONS);
	/* The limits themselves are fine. */
	bad = opt;
	bad.max_fix_wait_ms = 40 * S;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_NONE);
	bad.max_fix_wait_ms = 600 * S;
	assert_int_equal(rt_location_filter_start(&f, &bad, 5 * S, &out), RT_LOCATION_REJECT_NONE);
}

static void test_stop(void **state)
{
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	rt_location_filter_t f;
	record_t r = {0};
	rt_location_filter_init(&f, NULL);
	start(&f, &r, &opt, 0);
	fix(&f, &r, 10 * S, 7);
	rt_location_out_t out;
	rt_location_filter_stop(&f, 20 * S, true, &out);
	note(&r, 20 * S, &out);
	assert_int_equal(r.end, RT_LOCATION_END_RESOLVED);
	assert_true(r.result_known);
	assert_int_equal(r.result.ts_ms, 1700000000000 + 10 * S);
	assert_false(f.gnss_on);
	/* Twice: nothing more. */
	rt_location_filter_stop(&f, 21 * S, true, &out);
	assert_int_equal(out.end, RT_LOCATION_END_NONE);

	memset(&r, 0, sizeof(r));
	start(&f, &r, &opt, 100 * S);
	rt_location_filter_stop(&f, 110 * S, false, &out);
	note(&r, 110 * S, &out);
	assert_int_equal(r.end, RT_LOCATION_END_STOPPED);
	assert_int_equal(rt_location_filter_gnss_on_ms(&f, 200 * S), 30 * S); /* 0..20 and 100..110 */

	/* A receiver error rejects. */
	memset(&r, 0, sizeof(r));
	start(&f, &r, &opt, 300 * S);
	rt_location_filter_gnss_error(&f, 301 * S, &out);
	note(&r, 301 * S, &out);
	assert_int_equal(r.end, RT_LOCATION_END_REJECTED);
	assert_int_equal(r.reject, RT_LOCATION_REJECT_GNSS_ERROR);
}

/* Mocked positions: delivered by the same rules with mock set, never the last known position,
 * and no fix failure while they come. */
static void test_mock(void **state)
{
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.max_fix_wait_ms = 60 * S;
	rt_location_filter_t f;
	record_t r = {0};
	rt_location_filter_init(&f, NULL);
	start(&f, &r, &opt, 0);
	mock_fix(&f, &r, 5 * S, 0);
	mock_fix(&f, &r, 6 * S, 100); /* under minInterval: not delivered */
	mock_fix(&f, &r, 10 * S, 100);
	run_until(&f, &r, 100 * S);
	assert_int_equal(r.end, RT_LOCATION_END_NONE);
	assert_int_equal(r.n_delivered, 2);
	assert_true(r.mock[0] && r.mock[1]);
	assert_true(fabs(r.diff[1] - 100.0) < 1e-3);
	rt_location_out_t out;
	rt_location_filter_stop(&f, 100 * S, true, &out);
	assert_int_equal(out.end, RT_LOCATION_END_RESOLVED);
	assert_false(out.result_known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_min_distance),
		cmocka_unit_test(test_walk_min_interval_only),
		cmocka_unit_test(test_max_fix_wait_duty),
		cmocka_unit_test(test_late_advance_keeps_on_time),
		cmocka_unit_test(test_gnss_stays_on),
		cmocka_unit_test(test_first_fix_fails),
		cmocka_unit_test(test_timeout_without_fix),
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_refused_options),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_mock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

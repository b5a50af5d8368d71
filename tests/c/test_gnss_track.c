/* The GNSS track model of the simulated world (rt_gnss_track): positions along the track, time
 * to first fix, outages and sky, noise, and the checks of a track. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt_geo.h"
#include "rt_gnss_track.h"

#define S 1000 /* ms */

static rt_gnss_point_t pt(int64_t t, double lat, double lon, double alt)
{
	rt_gnss_point_t p = {t, lat, lon, alt, NAN, NAN};
	return p;
}

/* A walk: 1000 m due north in 100 s (36 km/h), then 500 m due east in 100 s, then a stop. */
static rt_gnss_point_t walk[4];

static int setup_walk(void **state)
{
	double lat, lon;
	walk[0] = pt(0, 47.0, 8.0, 400);
	rt_geo_destination(47.0, 8.0, 0.0, 1000.0, &lat, &lon, NULL);
	walk[1] = pt(100 * S, lat, lon, 500);
	double lat2, lon2;
	rt_geo_destination(lat, lon, 90.0, 500.0, &lat2, &lon2, NULL);
	walk[2] = pt(200 * S, lat2, lon2, 500);
	walk[3] = pt(300 * S, lat2, lon2, 500);
	return 0;
}

static void test_pose_along_the_geodesic(void **state)
{
	rt_gnss_track_t tr;
	rt_gnss_track_init(&tr, walk, 4);
	assert_int_equal(rt_gnss_track_check(&tr, NULL), RT_GNSS_TRACK_OK);
	rt_gnss_pose_t p;
	rt_gnss_track_pose(&tr, 50 * S, &p);
	assert_true(fabs(rt_geo_distance(walk[0].lat, walk[0].lon, p.lat, p.lon) - 500.0) < 1e-3);
	assert_true(fabs(rt_geo_distance(walk[1].lat, walk[1].lon, p.lat, p.lon) - 500.0) < 1e-3);
	assert_true(fabs(p.speed_kmh - 36.0) < 1e-6);
	assert_true(fabs(remainder(p.head_deg, 360.0)) < 1e-9);
	assert_true(fabs(p.alt - 450.0) < 1e-9);
	/* The east leg: 500 m in 100 s is 18 km/h, heading about 90 (the geodesic bends a little
	 * at 47 degrees north). */
	rt_gnss_track_pose(&tr, 150 * S, &p);
	assert_true(fabs(p.speed_kmh - 18.0) < 1e-6);
	assert_true(fabs(p.head_deg - 90.0) < 0.01);
	/* Standing still at the end: speed 0, heading of the last move kept. */
	rt_gnss_track_pose(&tr, 250 * S, &p);
	assert_true(p.speed_kmh == 0.0);
	assert_true(fabs(p.head_deg - 90.0) < 0.01);
	assert_true(rt_geo_distance(walk[2].lat, walk[2].lon, p.lat, p.lon) < 1e-6);
	/* Before the track and after it. */
	rt_gnss_track_pose(&tr, -5 * S, &p);
	assert_true(p.lat == walk[0].lat && p.lon == walk[0].lon && p.speed_kmh == 0.0);
	assert_true(fabs(remainder(p.head_deg, 360.0)) < 1e-9);
	rt_gnss_track_pose(&tr, 1000 * S, &p);
	assert_true(p.lat == walk[3].lat && p.speed_kmh == 0.0);
	/* At a point exactly. */
	rt_gnss_track_pose(&tr, 100 * S, &p);
	assert_true(rt_geo_distance(walk[1].lat, walk[1].lon, p.lat, p.lon) < 1e-6);
}

static void test_given_speed_and_heading(void **state)
{
	rt_gnss_point_t pts[] = {pt(0, 0, 0, 0), pt(10 * S, 0.0001, 0, 0)};
	pts[0].speed_kmh = 10;
	pts[1].speed_kmh = 20;
	pts[0].head_deg = 350;
	pts[1].head_deg = 10;
	rt_gnss_track_t tr;
	rt_gnss_track_init(&tr, pts, 2);
	rt_gnss_pose_t p;
	rt_gnss_track_pose(&tr, 5 * S, &p);
	assert_true(fabs(p.speed_kmh - 15.0) < 1e-9);
	/* Interpolated the short way round, through north. */
	assert_true(fabs(remainder(p.head_deg, 360.0)) < 1e-9);
	rt_gnss_track_pose(&tr, 2500, &p);
	assert_true(fabs(p.head_deg - 355.0) < 1e-9);
}

static void test_check(void **state)
{
	rt_gnss_point_t bad_order[] = {pt(0, 0, 0, 0), pt(0, 0, 0, 0)};
	rt_gnss_point_t bad_lat[] = {pt(0, 0, 0, 0), pt(1, 91, 0, 0)};
	rt_gnss_point_t bad_speed[] = {pt(0, 0, 0, 0)};
	bad_speed[0].speed_kmh = -1;
	rt_gnss_track_t tr;
	size_t at;
	rt_gnss_track_init(&tr, NULL, 0);
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_NO_POINTS);
	rt_gnss_track_init(&tr, bad_order, 2);
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_POINT_ORDER);
	assert_int_equal(at, 1);
	rt_gnss_track_init(&tr, bad_lat, 2);
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_POINT_RANGE);
	assert_int_equal(at, 1);
	rt_gnss_track_init(&tr, bad_speed, 1);
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_POINT_RANGE);

	rt_gnss_track_init(&tr, walk, 4);
	rt_gnss_outage_t overlap[] = {{10, 20}, {15, 30}};
	tr.outages = overlap;
	tr.n_outages = 2;
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_OUTAGE_ORDER);
	assert_int_equal(at, 1);
	rt_gnss_outage_t empty[] = {{10, 10}};
	tr.outages = empty;
	tr.n_outages = 1;
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_OUTAGE_ORDER);
	tr.n_outages = 0;
	rt_gnss_sky_t sky[] = {{10, 5, 1.0}, {10, 6, 1.0}};
	tr.sky = sky;
	tr.n_sky = 2;
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_SKY_ORDER);
	sky[1].t_ms = 20;
	sky[1].hdop = 0;
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_SKY_RANGE);
	assert_int_equal(at, 1);
	sky[1].hdop = 2;
	assert_int_equal(rt_gnss_track_check(&tr, &at), RT_GNSS_TRACK_OK);
	assert_non_null(rt_gnss_track_error_message(RT_GNSS_TRACK_SKY_RANGE));
}

static bool fix_at(const rt_gnss_track_t *tr, int64_t on, int64_t last, int64_t t)
{
	rt_gnss_fix_t f;
	return rt_gnss_track_fix(tr, on, last, t, &f);
}

static void test_time_to_first_fix(void **state)
{
	rt_gnss_track_t tr;
	rt_gnss_track_init(&tr, walk, 4);
	/* Cold: never had a fix. */
	assert_false(fix_at(&tr, 0, RT_GNSS_NEVER, 35 * S - 1));
	assert_true(fix_at(&tr, 0, RT_GNSS_NEVER, 35 * S));
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 0), 35 * S);
	/* Not on yet. */
	assert_false(fix_at(&tr, 100 * S, RT_GNSS_NEVER, 99 * S));
	/* Hot: the last fix 10 minutes before switching on. */
	int64_t on = 3600 * S;
	assert_int_equal(rt_gnss_track_next_fix(&tr, on, on - 600 * S, on), on + 2 * S);
	/* Warm: 3 hours before. Cold again: 8 days before. */
	assert_int_equal(rt_gnss_track_next_fix(&tr, on, on - 3 * 3600 * S, on), on + 25 * S);
	int64_t week = 8 * 24 * 3600 * (int64_t)S;
	assert_int_equal(rt_gnss_track_next_fix(&tr, week + on, on, week + on), week + on + 35 * S);
	/* Asked later than the fix came: the answer is the time asked. */
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 50 * S), 50 * S);
	/* The fix carries the track's position and the sky's figures. */
	rt_gnss_fix_t f;
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 50 * S, &f));
	assert_int_equal(f.acquired_ms, 35 * S);
	assert_int_equal(f.sat, 8);
	assert_true(f.hdop == 1.0);
	rt_gnss_pose_t p;
	rt_gnss_track_pose(&tr, 50 * S, &p);
	assert_true(f.lat == p.lat && f.lon == p.lon && f.alt == p.alt && f.speed_kmh == p.speed_kmh);
}

static void test_outages_and_sky(void **state)
{
	rt_gnss_track_t tr;
	rt_gnss_track_init(&tr, walk, 4);
	/* An outage during a cold start restarts it; one after the fix loses it, and it comes back
	 * hot (2 s) after the outage; too few satellites are an outage too. */
	rt_gnss_outage_t outages[] = {{10 * S, 20 * S}, {100 * S, 130 * S}};
	rt_gnss_sky_t sky[] = {{150 * S, 9, 0.8}, {200 * S, 3, 4.0}, {300 * S, 6, 1.7}};
	tr.outages = outages;
	tr.n_outages = 2;
	tr.sky = sky;
	tr.n_sky = 3;
	assert_int_equal(rt_gnss_track_check(&tr, NULL), RT_GNSS_TRACK_OK);
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 0), 55 * S);
	assert_false(fix_at(&tr, 0, RT_GNSS_NEVER, 54 * S));
	assert_true(fix_at(&tr, 0, RT_GNSS_NEVER, 99 * S));
	assert_false(fix_at(&tr, 0, RT_GNSS_NEVER, 100 * S));
	assert_false(fix_at(&tr, 0, RT_GNSS_NEVER, 131 * S));
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 100 * S), 132 * S);
	/* A sky change with satellites enough is no interruption. */
	rt_gnss_fix_t f;
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 160 * S, &f));
	assert_int_equal(f.acquired_ms, 132 * S);
	assert_int_equal(f.sat, 9);
	assert_true(f.hdop == 0.8);
	assert_false(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 250 * S, &f));
	assert_int_equal(f.sat, 3); /* the sky is reported even without a fix */
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 250 * S), 302 * S);
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 302 * S, &f));
	assert_true(f.hdop == 1.7);
	/* Switched on inside an outage, with a fix 30 s before it: hot after it ends. */
	assert_int_equal(rt_gnss_track_next_fix(&tr, 110 * S, 95 * S, 110 * S), 132 * S);
	/* A sky that never comes back. */
	rt_gnss_outage_t forever[] = {{50 * S, INT64_MAX}};
	tr.outages = forever;
	tr.n_outages = 1;
	tr.n_sky = 0;
	assert_int_equal(rt_gnss_track_next_fix(&tr, 60 * S, RT_GNSS_NEVER, 60 * S), RT_GNSS_NEVER);
	assert_int_equal(rt_gnss_track_next_fix(&tr, 0, RT_GNSS_NEVER, 0), 35 * S);
	assert_int_equal(rt_gnss_track_next_fix(&tr, 20 * S, RT_GNSS_NEVER, 0), RT_GNSS_NEVER);
}

static void test_noise(void **state)
{
	rt_gnss_track_t tr;
	rt_gnss_track_init(&tr, walk, 4);
	tr.noise_m = 3.0;
	tr.hdop = 1.5;
	tr.seed = 42;
	/* Deterministic: the same question, the same answer. */
	rt_gnss_fix_t a, b;
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 60 * S, &a));
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 60 * S, &b));
	assert_true(a.lat == b.lat && a.lon == b.lon && a.alt == b.alt);
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 61 * S, &b));
	assert_false(a.lat == b.lat && a.lon == b.lon);
	/* Over many fixes the horizontal error has the asked spread: sigma 4.5 m per axis, so the
	 * root mean square distance is 4.5 * sqrt(2) = 6.36 m. */
	double sum2 = 0;
	int n = 4000;
	for (int i = 0; i < n; i++) {
		int64_t t = 40 * S + i * 50;
		rt_gnss_fix_t f;
		rt_gnss_pose_t p;
		assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, t, &f));
		rt_gnss_track_pose(&tr, t, &p);
		double d = rt_geo_distance(p.lat, p.lon, f.lat, f.lon);
		sum2 += d * d;
	}
	double rms = sqrt(sum2 / n);
	assert_true(fabs(rms - 4.5 * sqrt(2.0)) < 0.3);
	/* Another seed, other noise. */
	tr.seed = 43;
	assert_true(rt_gnss_track_fix(&tr, 0, RT_GNSS_NEVER, 60 * S, &b));
	assert_false(a.lat == b.lat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pose_along_the_geodesic, setup_walk),
		cmocka_unit_test(test_given_speed_and_heading),
		cmocka_unit_test_setup(test_check, setup_walk),
		cmocka_unit_test_setup(test_time_to_first_fix, setup_walk),
		cmocka_unit_test_setup(test_outages_and_sky, setup_walk),
		cmocka_unit_test_setup(test_noise, setup_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

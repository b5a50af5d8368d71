/*
 * The air costs what is heard (src/world/world_air_reach.c, docs/world.md "The air"): its noise
 * is keyed, not drawn in visiting order; an advertising event visits only the scanners within the
 * reach of its power, through an index of scanners by place; path losses are cached while no one
 * moves, and so is what each sender found in reach. Each test holds the index to the exhaustive
 * reference (every scanner visited, as the air
 * did before it had an index) or to the model's own figures.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal_ble.h"
#include "rt_geo.h"
#include "world.h"
#include "world_air_internal.h"
#include "world_script.h"

/* ------------------------------------------------------------------ a world and its trace */

typedef struct {
	char *text;
	size_t len, cap;
	const char *skip; /* records that contain this are left out ("\"dev\":\"far" ...) */
	uint32_t receptions;
} trace_t;

static trace_t tr;

static void on_trace(void *ctx, const char *json, size_t len)
{
	(void)ctx;
	if (tr.skip != NULL && strstr(json, tr.skip) != NULL) {
		return;
	}
	if (strstr(json, "\"ev\":\"ble-rx\"") != NULL) {
		tr.receptions++;
	}
	if (tr.len + len + 2 > tr.cap) {
		tr.cap = (tr.len + len + 2) * 2;
		tr.text = realloc(tr.text, tr.cap);
		assert_non_null(tr.text);
	}
	memcpy(tr.text + tr.len, json, len);
	tr.len += len;
	tr.text[tr.len++] = '\n';
	tr.text[tr.len] = '\0';
}

static void quiet_print(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx, (void)device, (void)several, (void)text, (void)len;
}

static void quiet_log(void *ctx, const char *device, bool several, hal_log_level_t level, const char *text)
{
	(void)ctx, (void)device, (void)several, (void)level, (void)text;
}

static void trace_reset(const char *skip)
{
	free(tr.text);
	memset(&tr, 0, sizeof(tr));
	tr.skip = skip;
}

static void load(world_t *w, const char *script, bool trace)
{
	world_io_t io = {NULL, quiet_print, quiet_log, trace ? on_trace : NULL, NULL, NULL, NULL};
	uint32_t n = world_script_device_count(script, strlen(script));
	assert_int_equal(world_init(w, n, &io), 0);
	char err[200];
	assert_int_equal(world_script_load(w, script, strlen(script), err, sizeof(err)), 0);
}

static void scan(world_t *w, uint32_t i, bool passive)
{
	hal_ble_scan_t p = {150, 100, HAL_BLE_CH_ALL, passive, false};
	world_select(w, &w->devices[i]);
	assert_true(hal_ble_scan_start(&p));
	world_select(w, NULL);
}

static const uint8_t ibeacon[] = {0x02, 0x01, 0x06, 0x1a, 0xff, 0x4c, 0x00, 0x02, 0x15, 0xe2,
				  0xc5, 0x6d, 0xb5, 0xdf, 0xfb, 0x48, 0xd2, 0xb0, 0x60, 0xd0,
				  0xf5, 0xa7, 0x10, 0x96, 0xe0, 0x00, 0x01, 0x00, 0x02, 0xc5};

static void advertise(world_t *w, uint32_t i, uint32_t interval, int8_t power)
{
	world_select(w, &w->devices[i]);
	assert_true(hal_ble_adv_start(0, ibeacon, sizeof(ibeacon), interval, power));
	world_select(w, NULL);
}

/* A script of `count` ble-beacon devices at the given positions, with a seed. */
static char *script_of(uint32_t count, const double (*pos)[2], const char *extra)
{
	size_t cap = 200 + (size_t)count * 100 + strlen(extra);
	char *s = malloc(cap);
	assert_non_null(s);
	size_t n = (size_t)snprintf(s, cap, "beacon-world 1\nseed 7\n");
	for (uint32_t i = 0; i < count; i++) {
		n += (size_t)snprintf(s + n, cap - n, "device %u %s%u ble-beacon position=%.9f,%.9f,0\n", (unsigned)i,
				      i < 2 ? "near" : "far", (unsigned)i, pos[i][0], pos[i][1]);
	}
	snprintf(s + n, cap - n, "%s", extra);
	return s;
}

/* ------------------------------------------------------------------ tests */

/* The near pair (an active scanner 10 m from an advertiser, and a beacon) hears the same, byte for
 * byte, whether or not 50 scanners that also advertise stand 50 km away, hearing each other. */
static void test_far_scanners_change_nothing_near(void **state)
{
	(void)state;
	static double pos[52][2];
	pos[0][0] = 0, pos[1][0] = 0.0000904371; /* 10 m north */
	for (int i = 2; i < 52; i++) {
		pos[i][0] = 0.45 + 0.0001 * i; /* 50 km north, 11 m apart */
		pos[i][1] = 0.0001 * (i % 5);
	}
	const char *beacon = "beacon b 0,0.00009,0 100 0 020106030309aa\n";
	char *alone = script_of(2, pos, beacon), *crowd = script_of(52, pos, beacon);
	char *traces[2];
	for (int k = 0; k < 2; k++) {
		world_t w;
		trace_reset("\"dev\":\"far");
		load(&w, k ? crowd : alone, true);
		scan(&w, 0, false);
		advertise(&w, 1, 100, 0);
		for (uint32_t i = 2; i < w.device_count; i++) {
			scan(&w, i, i % 2);
			advertise(&w, i, 100 + 10 * i, -4);
		}
		world_run_until(&w, 20000);
		if (k == 1) {
			assert_true(w.air_receptions > 2 * tr.receptions); /* the far ones heard each other */
		}
		assert_true(tr.receptions > 200);
		traces[k] = tr.text;
		tr.text = NULL;
		world_free(&w);
	}
	assert_string_equal(traces[0], traces[1]);
	free(traces[0]), free(traces[1]), free(alone), free(crowd);
}

/* Over many draws the noise is N(0, 1) and never beyond world_air_noise_max(). */
static void test_noise_is_gaussian_and_bounded(void **state)
{
	(void)state;
	world_t w;
	load(&w, "beacon-world 1\nseed 3\ndevice 0 a ble-beacon\n", false);
	double sum = 0, sum2 = 0, top = 0;
	const int n = 400000;
	for (int i = 0; i < n; i++) {
		world_air_key_t k = {(uint64_t)(i % 37), (uint64_t)(i % 3), (uint64_t)i / 37, (uint64_t)(i % 11)};
		double g = world_air_gaussian(&w, &k, (uint32_t)(i % 3));
		sum += g, sum2 += g * g;
		top = fmax(top, fabs(g));
	}
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	assert_true(fabs(mean) < 0.01);
	assert_true(fabs(sd - 1.0) < 0.01);
	assert_true(top * WORLD_AIR_SIGMA <= world_air_noise_max());
	assert_true(top > 4.0); /* not truncated: the tails are there */
	world_free(&w);

	/* And what a scanner hears 10 m from a 0 dBm beacon: -60 dBm, 2 dB of noise (plus the
	 * rounding to whole dBm, 1/12 dB^2). */
	trace_reset(NULL);
	load(&w, "beacon-world 1\nseed 5\ndevice 0 rx ble-beacon position=0,0,0\n"
		 "beacon near 0.0000904371,0,0 20 0 020106030309aa\n", true);
	scan(&w, 0, true);
	world_run_until(&w, 300000);
	sum = sum2 = 0;
	int m = 0;
	for (const char *p = tr.text; (p = strstr(p, "\"rssi\":")) != NULL; p++) {
		double r = atof(p + 7);
		sum += r, sum2 += r * r, m++;
	}
	mean = sum / m, sd = sqrt(sum2 / m - mean * mean);
	assert_true(m > 5000);
	assert_true(fabs(mean - -60.0) < 0.1);
	assert_true(fabs(sd - sqrt(4.0 + 1.0 / 12)) < 0.1);
	world_free(&w);
}

/* The reach: at it, the largest noise just fails to lift the signal to the sensitivity. */
static void test_reach_is_where_the_largest_noise_stops_helping(void **state)
{
	(void)state;
	for (int p = -40; p <= 8; p += 4) {
		double d = world_air_reach_m((int8_t)p);
		double best = p - (WORLD_AIR_PL0 + 10 * WORLD_AIR_EXPONENT * log10(d)) + world_air_noise_max();
		assert_true(round(best) < WORLD_AIR_SENSITIVITY || best <= WORLD_AIR_SENSITIVITY - 0.5);
		assert_true(best > WORLD_AIR_SENSITIVITY - 0.6); /* and not much farther */
	}
	/* +8 dBm, the most a device sends: about 11 km; 20 km apart is out of reach. */
	assert_true(world_air_reach_m(8) > 10000 && world_air_reach_m(8) < 12000);
}

static double rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

/* Places to try: the equator, mid latitudes, near a pole, across the antimeridian. */
static const double centres[][2] = {{0, 0}, {52.37, 4.89}, {-33.9, 151.2}, {89.97, 10}, {-12, 179.99}, {70, -179.98}};

/* Every scanner within reach of a sender is among those the index gives it, wherever on Earth. */
static void test_index_never_misses_a_scanner_in_reach(void **state)
{
	(void)state;
	uint64_t s = 11;
	for (size_t c = 0; c < sizeof(centres) / sizeof(centres[0]); c++) {
		for (int layout = 0; layout < 4; layout++) {
			static double pos[300][2];
			double spread = layout == 0 ? 0.01 : layout == 1 ? 0.1 : layout == 2 ? 0.3 : 1.0; /* degrees */
			for (int i = 0; i < 300; i++) {
				pos[i][0] = fmax(-90, fmin(90, centres[c][0] + (rnd(&s) - 0.5) * spread));
				pos[i][1] = remainder(centres[c][1] + (rnd(&s) - 0.5) * spread * 3, 360.0);
				if (pos[i][1] == 180) {
					pos[i][1] = -180;
				}
			}
			char *script = script_of(300, pos, "");
			world_t w;
			load(&w, script, false);
			for (uint32_t i = 0; i < w.device_count; i += 2) {
				scan(&w, i, true);
			}
			for (uint32_t src = 0; src < w.device_count; src += 3) {
				int8_t power = (int8_t)(-20 + (int)(rnd(&s) * 29));
				double reach = world_air_reach_m(power);
				const uint32_t *near;
				size_t n = world_air_in_reach(&w, src, power, &near);
				for (uint32_t i = 0; i < w.device_count; i += 2) {
					const world_device_t *a = &w.devices[src], *b = &w.devices[i];
					if (i == src || rt_geo_distance(a->lat, a->lon, b->lat, b->lon) > reach) {
						continue;
					}
					bool found = false;
					for (size_t k = 0; k < n && !found; k++) {
						found = near[k] == i;
					}
					if (!found) {
						fail_msg("centre %zu layout %d: %u misses scanner %u", c, layout, src, i);
					}
				}
				for (size_t k = 1; k < n; k++) {
					assert_true(near[k - 1] < near[k]); /* in index order */
				}
			}
			world_free(&w);
			free(script);
		}
	}
}

/* Random layouts, senders of every power, devices that move (inputs and a GNSS track through the
 * crowd): the index's trace is the exhaustive one's, byte for byte. */
static void test_index_hears_what_every_scanner_would(void **state)
{
	(void)state;
	uint64_t s = 5;
	for (size_t c = 0; c < sizeof(centres) / sizeof(centres[0]); c++) {
		static double pos[40][2];
		for (int i = 0; i < 40; i++) {
			/* a 0.05-degree patch: about 5 by 5 km at the equator */
			pos[i][0] = fmax(-90, fmin(90, centres[c][0] + (rnd(&s) - 0.5) * 0.05));
			pos[i][1] = remainder(centres[c][1] + (rnd(&s) - 0.5) * 0.05, 360.0);
		}
		char extra[600];
		snprintf(extra, sizeof(extra),
			 "at 5000 0 move %.6f %.6f 0\nat 9000 2 move %.6f %.6f 0\nat 14000 0 move %.6f %.6f 0\n"
			 "gnss 4 point 0 %.6f %.6f 0\ngnss 4 point 20000 %.6f %.6f 0\n",
			 pos[1][0], pos[1][1], fmin(89.999, pos[3][0] + 0.2), pos[3][1], pos[5][0], pos[5][1],
			 fmin(89.999, pos[6][0] + 0.1), pos[6][1], pos[7][0], pos[7][1]);
		char *script = script_of(40, pos, extra);
		char *traces[2];
		for (int exhaustive = 0; exhaustive < 2; exhaustive++) {
			world_t w;
			trace_reset(NULL);
			load(&w, script, true);
			w.air_exhaustive = exhaustive;
			uint64_t r = 99;
			for (uint32_t i = 0; i < w.device_count; i++) {
				if (i % 2 == 0) {
					scan(&w, i, i % 4 == 0);
				}
				advertise(&w, i, 100 + (uint32_t)(rnd(&r) * 200), (int8_t)(-20 + (int)(rnd(&r) * 29)));
			}
			world_run_until(&w, 20000);
			assert_true(tr.receptions > 1000);
			traces[exhaustive] = tr.text;
			tr.text = NULL;
			world_free(&w);
		}
		assert_string_equal(traces[0], traces[1]);
		free(traces[0]), free(traces[1]), free(script);
	}
}

static void scan_stop(world_t *w, uint32_t i)
{
	world_select(w, &w->devices[i]);
	hal_ble_scan_stop();
	world_select(w, NULL);
}

/* Sparse scanners (a sender finds none to a few in reach, which it keeps) and every change that
 * makes what it found stale: a scanner starts, one stops, one moves, senders move (an input, a
 * GNSS track), a sender's power changes. The trace is the exhaustive one's, byte for byte. */
static void test_what_a_sender_found_is_kept_only_while_true(void **state)
{
	(void)state;
	/* 16 groups of 4 devices 11 m apart (the first scanning), the groups 5.5 km apart; device 15
	 * is 600 m from its group. */
	static double pos[64][2];
	for (int i = 0; i < 64; i++) {
		pos[i][0] = 52.0 + 0.05 * (i / 16) + 0.0001 * (i % 2);
		pos[i][1] = 4.0 + 0.08 * ((i / 4) % 4) + 0.00015 * ((i % 4) / 2);
	}
	pos[15][0] += 0.0054;
	char extra[400];
	snprintf(extra, sizeof(extra),
		 "at 6000 8 move %.6f %.6f 0\nat 7000 3 move %.6f %.6f 0\nat 12000 30 move %.6f %.6f 0\n"
		 "gnss 21 point 0 %.6f %.6f 0\ngnss 21 point 20000 %.6f %.6f 0\n",
		 pos[21][0], pos[21][1], pos[37][0], pos[37][1], pos[1][0], pos[1][1], pos[21][0], pos[21][1],
		 pos[61][0], pos[61][1]);
	char *script = script_of(64, pos, extra);
	char *traces[2];
	for (int exhaustive = 0; exhaustive < 2; exhaustive++) {
		world_t w;
		trace_reset(NULL);
		load(&w, script, true);
		w.air_exhaustive = exhaustive;
		uint64_t r = 3;
		for (uint32_t i = 0; i < w.device_count; i++) {
			if (i % 4 == 0) {
				scan(&w, i, i % 8 == 0);
			}
			int8_t power = i == 15 ? -20 : (int8_t)(-20 + (int)(rnd(&r) * 25));
			advertise(&w, i, 100 + (uint32_t)(rnd(&r) * 100), power);
		}
		world_run_until(&w, 5000);
		scan_stop(&w, 4);
		world_run_until(&w, 8000);
		scan(&w, 13, true);
		world_run_until(&w, 9000);
		world_select(&w, &w.devices[15]);
		hal_ble_adv_stop(0);
		world_select(&w, NULL);
		advertise(&w, 15, 100, 4); /* now heard by its group, 600 m away */
		world_run_until(&w, 20000);
		assert_true(tr.receptions > 1000);
		assert_true(exhaustive || w.air_index.kept != NULL);
		traces[exhaustive] = tr.text;
		tr.text = NULL;
		world_free(&w);
	}
	assert_string_equal(traces[0], traces[1]);
	free(traces[0]), free(traces[1]), free(script);
}

/* The path loss of a pair, computed as the model says (world_air.h). */
static double loss_of(double lat, double lon, double alt, const world_device_t *rx)
{
	double ground = rt_geo_distance(lat, lon, rx->lat, rx->lon), dz = alt - rx->alt;
	double d = sqrt(ground * ground + dz * dz);
	return WORLD_AIR_PL0 + 10.0 * WORLD_AIR_EXPONENT * log10(d < 0.1 ? 0.1 : d);
}

/* The cache of path losses gives each pair's own, to the bit: pairs by the ten thousand (its table
 * grows under them), asked for again and again, some of them moving, a beacon among them. */
static void test_cached_path_losses_are_each_pairs_own(void **state)
{
	(void)state;
	static double pos[200][2];
	uint64_t s = 17;
	for (int i = 0; i < 200; i++) {
		pos[i][0] = 52.0 + rnd(&s) * 0.2;
		pos[i][1] = 4.0 + rnd(&s) * 0.3;
	}
	char *script = script_of(200, pos, "beacon b 52.1,4.1,12 100 0 020106\n");
	world_t w;
	load(&w, script, false);
	for (int round = 0; round < 3; round++) {
		for (int q = 0; q < 60000; q++) {
			uint32_t source = (uint32_t)(rnd(&s) * 201), rx = (uint32_t)(rnd(&s) * 200);
			const world_device_t *d = &w.devices[rx];
			double expect = source < 200 ? loss_of(w.devices[source].lat, w.devices[source].lon,
							       w.devices[source].alt, d)
						     : loss_of(52.1, 4.1, 12, d);
			double got = world_air_path_loss(&w, source, d);
			assert_memory_equal(&got, &expect, sizeof(got));
		}
		for (uint32_t i = 0; i < 200; i += 7) { /* some move, as a move input moves them */
			w.devices[i].lat += 0.001 * (round + 1);
			w.devices[i].alt += 3;
			world_air_moved(&w, &w.devices[i]);
		}
	}
	world_free(&w);
	free(script);
}

/* A scanner that moves in and out of a beacon's reach hears it exactly while it is near; the
 * index follows it from cell to cell. */
static void test_a_moving_scanner_enters_and_leaves_reach(void **state)
{
	(void)state;
	world_t w;
	trace_reset(NULL);
	load(&w, "beacon-world 1\nseed 2\ndevice 0 rx ble-beacon position=0.3,0,0\n"
		 "beacon b 0,0,0 100 0 020106030309aa\n"
		 "at 10000 0 move 0.0001 0 0\nat 20000 0 move -0.3 0.2 0\nat 30000 0 move 0 0.0001 0\n", true);
	scan(&w, 0, true);
	world_run_until(&w, 40000);
	int before = 0, in1 = 0, out = 0, in2 = 0;
	for (const char *p = tr.text; (p = strstr(p, "\"ev\":\"ble-rx\"")) != NULL; p++) {
		const char *t = p;
		while (t > tr.text && t[-1] != '\n') {
			t--;
		}
		long at = atol(t + strlen("{\"t\":"));
		(at < 10000 ? &before : at < 20000 ? &in1 : at < 30000 ? &out : &in2)[0]++;
	}
	assert_int_equal(before, 0);
	assert_int_equal(out, 0);
	assert_true(in1 > 40 && in2 > 40);
	world_free(&w);
	trace_reset(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_far_scanners_change_nothing_near),
		cmocka_unit_test(test_noise_is_gaussian_and_bounded),
		cmocka_unit_test(test_reach_is_where_the_largest_noise_stops_helping),
		cmocka_unit_test(test_index_never_misses_a_scanner_in_reach),
		cmocka_unit_test(test_index_hears_what_every_scanner_would),
		cmocka_unit_test(test_what_a_sender_found_is_kept_only_while_true),
		cmocka_unit_test(test_cached_path_losses_are_each_pairs_own),
		cmocka_unit_test(test_a_moving_scanner_enters_and_leaves_reach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

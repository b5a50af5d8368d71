/*
 * The BLE air of the simulated world (src/world/world_air.c, docs/world.md "The air"): what a
 * scanning device's radio receives from scripted beacons, read from the trace's ble-rx records.
 * The scanning device runs no app: its radio is driven through the HAL as the runtime would.
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
#include "world.h"
#include "world_script.h"

#define MAX_RX 4096

typedef struct {
	int count;
	int rssi[MAX_RX];
	int channel[MAX_RX];
	uint64_t t[MAX_RX];
	char kind[MAX_RX][16];
	char from[MAX_RX][16];
	int adv_records;
} capture_t;

static capture_t cap;

static int field_int(const char *json, const char *key)
{
	char pat[32];
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *p = strstr(json, pat);
	return p ? atoi(p + strlen(pat)) : -9999;
}

static void field_str(const char *json, const char *key, char *out, size_t cap_len)
{
	char pat[32];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *p = strstr(json, pat);
	out[0] = '\0';
	if (p) {
		p += strlen(pat);
		size_t n = strcspn(p, "\"");
		n = n < cap_len - 1 ? n : cap_len - 1;
		memcpy(out, p, n);
		out[n] = '\0';
	}
}

static void on_trace(void *ctx, const char *json, size_t len)
{
	(void)ctx;
	(void)len;
	if (strstr(json, "\"ev\":\"ble-adv\"")) {
		cap.adv_records++;
	}
	if (!strstr(json, "\"ev\":\"ble-rx\"") || cap.count >= MAX_RX) {
		return;
	}
	int i = cap.count++;
	cap.rssi[i] = field_int(json, "rssi");
	cap.channel[i] = field_int(json, "ch");
	cap.t[i] = (uint64_t)field_int(json, "t");
	field_str(json, "kind", cap.kind[i], sizeof(cap.kind[i]));
	field_str(json, "from", cap.from[i], sizeof(cap.from[i]));
}

static void quiet_print(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx, (void)device, (void)several, (void)text, (void)len;
}

static void quiet_log(void *ctx, const char *device, bool several, hal_log_level_t level, const char *text)
{
	(void)ctx, (void)device, (void)several, (void)level, (void)text;
}

/* A world from a script with the trace read (or not); device 0 scans with params from time 0. */
static void run(const char *script, const hal_ble_scan_t *params, uint64_t until, bool trace, world_t *w)
{
	memset(&cap, 0, sizeof(cap));
	world_io_t io = {NULL, quiet_print, quiet_log, trace ? on_trace : NULL, NULL, NULL, NULL};
	uint32_t n = world_script_device_count(script, strlen(script));
	assert_int_equal(world_init(w, n, &io), 0);
	char err[200];
	assert_int_equal(world_script_load(w, script, strlen(script), err, sizeof(err)), 0);
	if (params != NULL) {
		world_select(w, &w->devices[0]);
		assert_true(hal_ble_scan_start(params));
		world_select(w, NULL);
	}
	world_run_until(w, until);
}

static const char two_beacons[] =
	"beacon-world 1\n"
	"seed 5\n"
	"device 0 rx ble-beacon position=0,0,0\n"
	/* 10 m north (1 degree of latitude is 110.574 km at the equator), 0 dBm, every 100 ms */
	"beacon near 0.0000904371,0,0 100 0 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5\n"
	/* 100 m north, -8 dBm, every 250 ms, no scan response */
	"beacon far 0.000904371,0,0 250 -8 020106030309aa response=0\n";

static void test_rssi_follows_the_path_loss_model(void **state)
{
	(void)state;
	world_t w;
	hal_ble_scan_t p = {150, 150, HAL_BLE_CH_ALL, true, false};
	run(two_beacons, &p, 60000, true, &w);
	double near = 0, far = 0;
	int nn = 0, nf = 0;
	for (int i = 0; i < cap.count; i++) {
		if (strcmp(cap.from[i], "near") == 0) {
			near += cap.rssi[i];
			nn++;
		} else {
			far += cap.rssi[i];
			nf++;
		}
	}
	assert_true(nn > 100 && nf > 100);
	/* 0 dBm - 40 dB - 20 log10(10) = -60 dBm; -8 - 40 - 40 = -88 dBm; noise of 2 dB averages out. */
	assert_true(fabs(near / nn - -60.0) < 0.5);
	assert_true(fabs(far / nf - -88.0) < 0.5);
	world_free(&w);
}

static void test_passive_scans_get_no_scan_responses_active_ones_do(void **state)
{
	(void)state;
	world_t w;
	hal_ble_scan_t passive = {150, 100, HAL_BLE_CH_ALL, true, false};
	run(two_beacons, &passive, 10000, true, &w);
	for (int i = 0; i < cap.count; i++) {
		assert_string_equal(cap.kind[i], "adv");
	}
	world_free(&w);
	hal_ble_scan_t active = {150, 100, HAL_BLE_CH_ALL, false, false};
	run(two_beacons, &active, 10000, true, &w);
	int responses = 0;
	for (int i = 0; i < cap.count; i++) {
		if (strcmp(cap.kind[i], "scan-response") == 0) {
			responses++;
			/* far has response=0 */
			assert_string_equal(cap.from[i], "near");
		}
	}
	assert_true(responses > 0);
	world_free(&w);
}

static void test_windows_and_channels(void **state)
{
	(void)state;
	world_t w;
	hal_ble_scan_t p = {200, 50, HAL_BLE_CH38 | HAL_BLE_CH39, true, false};
	run(two_beacons, &p, 20000, true, &w);
	assert_true(cap.count > 0);
	for (int i = 0; i < cap.count; i++) {
		uint64_t k = cap.t[i] / 200;
		/* in a window, on the channel of that interval: 38, 39, 38, ... */
		assert_true(cap.t[i] % 200 < 50);
		assert_int_equal(cap.channel[i], k % 2 == 0 ? 38 : 39);
	}
	world_free(&w);
}

static void test_nothing_is_materialised_when_no_one_listens(void **state)
{
	(void)state;
	world_t w;
	run(two_beacons, NULL, 60000, false, &w);
	assert_int_equal(w.air_events, 0);
	assert_int_equal(w.inputs, 0);
	world_free(&w);
	/* With a scanner the same beacons are on the air. Events come every interval + advDelay
	 * (0 to 10 ms, 5 on average): 60 s / 105 ms = 571 of one, 60 s / 255 ms = 235 of the other,
	 * not the 600 and 240 that intervals alone would give. */
	hal_ble_scan_t p = {150, 100, HAL_BLE_CH_ALL, true, false};
	run(two_beacons, &p, 60000, false, &w);
	assert_true(w.air_events >= 566 + 232 && w.air_events <= 577 + 238);
	world_free(&w);
}

static void test_same_seed_same_run(void **state)
{
	(void)state;
	world_t w;
	hal_ble_scan_t p = {150, 100, HAL_BLE_CH_ALL, false, false};
	run(two_beacons, &p, 5000, true, &w);
	capture_t first = cap;
	world_free(&w);
	run(two_beacons, &p, 5000, true, &w);
	assert_int_equal(first.count, cap.count);
	assert_memory_equal(first.rssi, cap.rssi, sizeof(int) * (size_t)cap.count);
	assert_memory_equal(first.t, cap.t, sizeof(uint64_t) * (size_t)cap.count);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rssi_follows_the_path_loss_model),
		cmocka_unit_test(test_passive_scans_get_no_scan_responses_active_ones_do),
		cmocka_unit_test(test_windows_and_channels),
		cmocka_unit_test(test_nothing_is_materialised_when_no_one_listens),
		cmocka_unit_test(test_same_seed_same_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

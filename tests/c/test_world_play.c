/*
 * One device of a scenario, as a firmware of a world of several plays it (world_script_load_device,
 * world_main_zephyr.c --play N): it becomes device 0 with the scenario's identity for it, keeps
 * its own inputs and the world's shared statements, and drops the other devices'. And a real
 * radio under the world (world_air_use_radio, --air radio): what the app asks of its radio goes
 * to it, the model's sets follow only what it accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hal_ble.h"
#include "world.h"
#include "world_air.h"
#include "world_script.h"

static void expect_device_0(const world_event_t *e, void *ctx)
{
	(void)ctx;
	assert_int_equal(e->device, 0);
}

static const char scenario[] = "beacon-world 1\n"
			       "seed 7\n"
			       "device 0 door ble-beacon\n"
			       "device 1 hall lte-beacon position=52.1,4.2,3\n"
			       "device 2 gate ble-beacon\n"
			       "beacon tag 52.0,4.0,0 500 0 0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5\n"
			       "at 1000 0 button main down\n"
			       "at 2000 1 button main down\n"
			       "at 2100 1 button main up\n"
			       "at 3000 2 button side down\n";

static void full_world(world_t *w)
{
	world_io_t io = {0};
	char err[160] = "";
	assert_int_equal(world_init(w, world_script_device_count(scenario, strlen(scenario)), &io), 0);
	assert_int_equal(world_script_load(w, scenario, strlen(scenario), err, sizeof(err)), 0);
}

static int played(world_t *w, uint32_t play, char *err, size_t cap)
{
	world_io_t io = {0};
	assert_int_equal(world_init(w, 1, &io), 0);
	return world_script_load_device(w, scenario, strlen(scenario), play, err, cap);
}

static void test_the_played_device_is_device_0_with_its_identity(void **state)
{
	(void)state;
	world_t full, one;
	char err[160] = "";
	full_world(&full);
	assert_int_equal(played(&one, 1, err, sizeof(err)), 0);

	const world_device_t *d = &one.devices[0];
	assert_string_equal(d->name, "hall");
	assert_int_equal(d->identity, 1);
	assert_true(d->lat == full.devices[1].lat && d->lat > 52.0);
	/* The public id and the BLE address the whole scenario gives device 1. */
	assert_int_equal(d->public_id_len, full.devices[1].public_id_len);
	assert_memory_equal(d->public_id, full.devices[1].public_id, d->public_id_len);
	uint8_t a[HAL_BLE_ADDR_LEN], b[HAL_BLE_ADDR_LEN];
	world_air_device_address(d->identity, a);
	world_air_device_address(full.devices[1].identity, b);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_not_equal(full.devices[0].identity, full.devices[1].identity);
	/* The world's own statements stay: the seed and the scripted beacon. */
	assert_int_equal(one.seed, full.seed);
	assert_int_equal(one.beacon_count, 1);
	/* Its two inputs, not the other devices' (the full world has four). */
	assert_int_equal(world_queue_count(&full.queue), 4);
	assert_int_equal(world_queue_count(&one.queue), 2);
	world_queue_each(&one.queue, expect_device_0, NULL);
	world_free(&one);
	world_free(&full);
}

static void test_a_device_the_scenario_does_not_have_is_refused(void **state)
{
	(void)state;
	world_t one;
	char err[160] = "";
	assert_int_equal(played(&one, 3, err, sizeof(err)), -1);
	assert_string_equal(err, "device 3: the scenario has 3 devices");
	world_free(&one);
}

/* ------------------------------------------------------------------ a radio under the world */

static struct {
	bool refuse;
	int starts, updates, stops, scans, scan_stops;
	uint32_t set, interval;
	uint8_t ad[HAL_BLE_AD_MAX];
	size_t len;
	hal_ble_scan_t scan;
} radio;

static bool radio_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms, int8_t power)
{
	(void)power;
	if (radio.refuse) {
		return false;
	}
	radio.starts++;
	radio.set = set;
	radio.interval = interval_ms;
	memcpy(radio.ad, ad, len);
	radio.len = len;
	return true;
}

static bool radio_adv_update(uint32_t set, const uint8_t *ad, size_t len)
{
	radio.updates++;
	radio.set = set;
	memcpy(radio.ad, ad, len);
	radio.len = len;
	return true;
}

static void radio_adv_stop(uint32_t set)
{
	radio.stops++;
	radio.set = set;
}

static bool radio_scan_start(const hal_ble_scan_t *p)
{
	radio.scans++;
	radio.scan = *p;
	return true;
}

static void radio_scan_stop(void)
{
	radio.scan_stops++;
}

static const world_radio_t fake = {radio_adv_start, radio_adv_update, radio_adv_stop,
				   radio_scan_start, radio_scan_stop};

static void test_the_app_radio_goes_to_the_real_one(void **state)
{
	(void)state;
	world_t w;
	char err[160] = "";
	memset(&radio, 0, sizeof(radio));
	assert_int_equal(played(&w, 0, err, sizeof(err)), 0);
	world_air_use_radio(&w, &fake);
	world_select(&w, &w.devices[0]);

	const uint8_t ad[] = {0x02, 0x01, 0x06, 0x03, 0x09, 'h', 'i'};
	assert_true(hal_ble_adv_start(2, ad, sizeof(ad), 250, -4));
	assert_int_equal(radio.starts, 1);
	assert_int_equal(radio.set, 2);
	assert_int_equal(radio.interval, 250);
	assert_int_equal(radio.len, sizeof(ad));
	assert_memory_equal(radio.ad, ad, sizeof(ad));
	assert_true(w.devices[0].adv[2].on); /* the model follows: the trace and scripted air */

	const uint8_t next[] = {0x02, 0x01, 0x06};
	assert_true(hal_ble_adv_update(2, next, sizeof(next)));
	assert_int_equal(radio.updates, 1);
	assert_int_equal(radio.len, sizeof(next));
	hal_ble_adv_stop(2);
	assert_int_equal(radio.stops, 1);
	assert_false(w.devices[0].adv[2].on);

	hal_ble_scan_t p = {150, 100, HAL_BLE_CH38, true, false};
	assert_true(hal_ble_scan_start(&p));
	assert_int_equal(radio.scans, 1);
	assert_int_equal(radio.scan.interval_ms, 150);
	assert_int_equal(radio.scan.window_ms, 100);
	assert_int_equal(radio.scan.channels, HAL_BLE_CH38);
	hal_ble_scan_stop();
	assert_int_equal(radio.scan_stops, 1);

	/* A set the radio refuses is not started in the model either: the app gets the error. */
	radio.refuse = true;
	assert_false(hal_ble_adv_start(1, ad, sizeof(ad), 100, 0));
	assert_false(w.devices[0].adv[1].on);
	world_select(&w, NULL);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_played_device_is_device_0_with_its_identity),
		cmocka_unit_test(test_a_device_the_scenario_does_not_have_is_refused),
		cmocka_unit_test(test_the_app_radio_goes_to_the_real_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

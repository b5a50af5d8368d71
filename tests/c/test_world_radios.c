/*
 * The world's GNSS tracks, modem network, NFC inputs and UWB options as the world script gives
 * them: statements that load, statements refused with their line and reason (nothing applied),
 * a device that follows its track as world time passes, and the modem's defaults and
 * replacements.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "world.h"
#include "world_script.h"

static int load(world_t *w, const char *script, char *err, size_t cap)
{
	world_io_t io = {0};
	uint32_t n = world_script_device_count(script, strlen(script));
	assert_int_equal(world_init(w, n, &io), 0);
	return world_script_load(w, script, strlen(script), err, cap);
}

static void refused(const char *script, const char *reason)
{
	world_t w;
	char err[256] = "";
	assert_int_equal(load(&w, script, err, sizeof(err)), -1);
	if (strstr(err, reason) == NULL) {
		fail_msg("'%s' does not say '%s'", err, reason);
	}
	world_free(&w);
}

static void test_bad_statements_are_refused_with_their_line(void **state)
{
	(void)state;
	refused("beacon-world 1\ndevice 0 a lte-beacon\ngnss 0 point 1000 60\n",
		"line 3: gnss point takes a time");
	refused("beacon-world 1\ndevice 0 a lte-beacon\ngnss 5 point 0 60 24 0\n",
		"gnss needs a device index");
	refused("beacon-world 1\ndevice 0 a lte-beacon\ngnss 0 receiver hdop=0\n",
		"gnss receiver: 'hdop=0'");
	refused("beacon-world 1\ndevice 0 a lte-beacon\ngnss 0 point 2000 60 24 0\ngnss 0 point 1000 60 24 0\n",
		"GNSS track entry 1");
	refused("beacon-world 1\ndevice 0 a lte-beacon\ngnss 0 outage 0 1000\n",
		"GNSS outages and sky need a track");
	refused("beacon-world 1\ndevice 0 a lte-beacon\nmodem 0 scan everything 5\n",
		"modem scan takes operators, status, cells or info");
	refused("beacon-world 1\ndevice 0 a lte-beacon\nmodem 0 operator Bad%2 gsm curr\n",
		"badly %-encoded");
	refused("beacon-world 1\ndevice 0 a lte-beacon\nmodem 0 status signal=high\n",
		"signal takes a number");
	refused("beacon-world 1\ndevice 0 a ble-beacon\nat 0 0 nfc-write d1x\n",
		"nfc-write takes the written NDEF message in hex");
	refused("beacon-world 1\ndevice 0 a ble-beacon\nat 0 0 nfc-field 2\n", "nfc-field takes 1");
	refused("beacon-world 1\ndevice 0 a ai-beacon\nuwb interval 5\n", "uwb takes interval");
}

static void test_a_device_follows_its_track(void **state)
{
	(void)state;
	world_t w;
	char err[256] = "";
	/* Due north along the meridian: 0.001 degree of latitude in 100 s. */
	assert_int_equal(load(&w, "beacon-world 1\ndevice 0 a ble-beacon\n"
				  "gnss 0 point 0 60.000 24 10\ngnss 0 point 100000 60.001 24 20\n"
				  /* Inputs at 50 s and 200 s: world time reaches them. */
				  "at 50000 0 temperature 20\nat 200000 0 temperature 21\n",
			      err, sizeof(err)), 0);
	world_device_t *d = &w.devices[0];
	assert_float_equal(d->lat, 60.0, 1e-12);
	assert_int_equal(world_start(&w), 0);
	world_run_until(&w, 50000);
	/* Halfway along the geodesic: halfway in latitude on a meridian, halfway in altitude. */
	assert_float_equal(d->lat, 60.0005, 1e-9);
	assert_float_equal(d->lon, 24.0, 1e-12);
	assert_float_equal(d->alt, 15.0, 1e-9);
	world_run_until(&w, 200000);
	assert_float_equal(d->lat, 60.001, 1e-12); /* after the last point it stays there */
	world_free(&w);
}

static void test_the_modem_network_defaults_and_replacements(void **state)
{
	(void)state;
	world_t w;
	char err[256] = "";
	assert_int_equal(load(&w, "beacon-world 1\ndevice 0 a lte-beacon\ndevice 1 b lte-beacon\n"
				  "modem 1 operator Telia%20FI gsm curr\nmodem 1 status none\n"
				  "modem 1 sim iccid=8935 imei=3527 imsi=2449\nmodem 1 scan operators 120000\n"
				  "modem 1 cell name=X signal=2 rsrp=-110 cell=77\n",
			      err, sizeof(err)), 0);
	const world_modem_t *a = &w.devices[0].modem, *b = &w.devices[1].modem;
	/* Defaults: a network, a SIM, identifiers that differ between devices. */
	assert_int_equal(a->n_operators, 2);
	assert_true(a->registered && a->has_sim);
	assert_int_equal(a->scan_ms[HAL_MODEM_OPERATORS], 60000);
	assert_string_not_equal(a->info.imei, w.devices[1].modem.info.imei);
	/* The script's lines replace them. */
	assert_int_equal(b->n_operators, 1);
	assert_string_equal(b->operators[0].name, "Telia FI");
	assert_false(b->registered);
	assert_string_equal(b->info.iccid, "8935");
	assert_int_equal(b->scan_ms[HAL_MODEM_OPERATORS], 120000);
	assert_int_equal(b->n_cells, 1);
	assert_int_equal(b->cells[0].cell, 77);
	assert_true(b->cells[0].has_rsrp && !b->cells[0].has_rssi);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_statements_are_refused_with_their_line),
		cmocka_unit_test(test_a_device_follows_its_track),
		cmocka_unit_test(test_the_modem_network_defaults_and_replacements),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

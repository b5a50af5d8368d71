/*
 * The world script's timed inputs: "at <ms> <device> <input> ...", one event on the world's input
 * heap each (world_inputs.h): buttons, motion, power, temperature, time sync, positions, faults,
 * NFC readers, cloud messages and deployments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world_cloud.h"
#include "world_cloud_deploy.h"
#include "world_inputs.h"
#include "world_nfc.h"
#include "world_script_internal.h"

int world_script_input_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	uint64_t at, index;
	if (l->count < 4 || !world_script_parse_u64(l->tok[1], &at) || !world_script_parse_u64(l->tok[2], &index)) {
		FAIL("at needs a time in ms, a device index and an input");
	}
	if (index >= w->device_count) {
		FAIL("no device %s", l->tok[2]);
	}
	world_event_t e = {0};
	e.at = at;
	e.device = (uint32_t)index;
	const char *kind = l->tok[3];
	int args = l->count - 4;
	char *const *a = &l->tok[4];
	if (strcmp(kind, "button") == 0) {
		if (args != 2 || (strcmp(a[0], "main") != 0 && strcmp(a[0], "side") != 0) ||
		    (strcmp(a[1], "down") != 0 && strcmp(a[1], "up") != 0)) {
			FAIL("button takes main|side and down|up");
		}
		e.kind = WORLD_IN_BUTTON;
		e.value[0] = strcmp(a[0], "side") == 0;
		e.value[1] = strcmp(a[1], "down") == 0;
	} else if (strcmp(kind, "motion") == 0) {
		if (args != 2 || !world_script_parse_flag(a[0], &e.value[0]) || !world_script_parse_num(a[1], &e.value[1])) {
			FAIL("motion takes 0|1 and an intensity in g");
		}
		e.kind = WORLD_IN_MOTION;
	} else if (strcmp(kind, "accel") == 0 || strcmp(kind, "gyro") == 0) {
		if (args != 3 || !world_script_parse_num(a[0], &e.value[0]) || !world_script_parse_num(a[1], &e.value[1]) ||
		    !world_script_parse_num(a[2], &e.value[2])) {
			FAIL("%s takes x y z", kind);
		}
		e.kind = kind[0] == 'a' ? WORLD_IN_ACCEL : WORLD_IN_GYRO;
	} else if (strcmp(kind, "imu-event") == 0) {
		if (args < 1 || world_imu_event_by_name(a[0]) < 0 || strlen(a[0]) >= sizeof(e.text)) {
			FAIL("imu-event takes an event name (free-fall, single-tap, double-tap, tilt, step, orientation, wake-up, mlc)");
		}
		if (args != 1 && args != 5) {
			FAIL("imu-event takes a name, or a name and axis sign value intensity");
		}
		for (int i = 1; i < args; i++) {
			if (!world_script_parse_num(a[i], &e.value[i - 1])) {
				FAIL("imu-event: '%s' is not a number", a[i]);
			}
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_IMU_EVENT;
	} else if (strcmp(kind, "battery") == 0 || strcmp(kind, "current") == 0 ||
		   strcmp(kind, "temperature") == 0) {
		if (args != 1 || !world_script_parse_num(a[0], &e.value[0])) {
			FAIL("%s takes a number", kind);
		}
		e.kind = kind[0] == 'b' ? WORLD_IN_BATTERY : kind[0] == 'c' ? WORLD_IN_CURRENT : WORLD_IN_TEMPERATURE;
	} else if (strcmp(kind, "power") == 0) {
		if (args != 2 || !world_script_parse_flag(a[0], &e.value[0]) || !world_script_parse_flag(a[1], &e.value[1])) {
			FAIL("power takes external 0|1 and charging 0|1");
		}
		e.kind = WORLD_IN_POWER;
	} else if (strcmp(kind, "power-cut") == 0) {
		if (args != 1 || !world_script_parse_num(a[0], &e.value[0]) || e.value[0] < 0 ||
		    e.value[0] != floor(e.value[0])) {
			FAIL("power-cut takes 0 (now) or n: during the n-th flash operation from now");
		}
		e.kind = WORLD_IN_POWER_CUT;
	} else if (strcmp(kind, "move") == 0) {
		if (args != 3 || !world_script_parse_num(a[0], &e.value[0]) || !world_script_parse_num(a[1], &e.value[1]) ||
		    !world_script_parse_num(a[2], &e.value[2]) || e.value[0] < -90 || e.value[0] > 90 ||
		    e.value[1] < -180 || e.value[1] > 180) {
			FAIL("move takes latitude, longitude (degrees) and altitude (m)");
		}
		e.kind = WORLD_IN_MOVE;
	} else if (strcmp(kind, "storage-fault") == 0) {
		if (args != 1 || (strcmp(a[0], "error") != 0 && strcmp(a[0], "timeout") != 0)) {
			FAIL("storage-fault takes error or timeout");
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_STORAGE_FAULT;
	} else if (strcmp(kind, "nfc-field") == 0) {
		if (args != 1 || !world_script_parse_flag(a[0], &e.value[0])) {
			FAIL("nfc-field takes 1 (a reader enters the field) or 0 (it leaves)");
		}
		e.kind = WORLD_IN_NFC_FIELD;
	} else if (strcmp(kind, "nfc-write") == 0) {
		uint8_t bytes[RT_NDEF_MAX_MESSAGE];
		size_t n = 0;
		if (args != 1 || !world_script_parse_hex(a[0], bytes, sizeof(bytes), &n)) {
			FAIL("nfc-write takes the written NDEF message in hex (at most %d bytes)",
			     RT_NDEF_MAX_MESSAGE);
		}
		long at_index = world_nfc_add_write(&w->devices[index].nfc, bytes, n);
		if (at_index < 0) {
			FAIL("out of memory");
		}
		e.value[0] = (double)at_index;
		e.kind = WORLD_IN_NFC_WRITE;
	} else if (strcmp(kind, "fault") == 0) {
		if (args != 1 || (strcmp(a[0], "hang") != 0 && strcmp(a[0], "crash") != 0)) {
			FAIL("fault takes hang or crash");
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_FAULT;
	} else if (strcmp(kind, "cloud-network") == 0) {
		if (args != 1 || !world_script_parse_flag(a[0], &e.value[0])) {
			FAIL("cloud-network takes 0|1");
		}
		e.kind = WORLD_IN_CLOUD_NETWORK;
	} else if (strcmp(kind, "cloud-message") == 0) {
		/* Not an input of the device: the loopback cloud holds it from then on. */
		char why[120];
		if (args != 2 || world_cloud_add_message(w, (uint32_t)index, at, a[0], a[1], why,
							 sizeof(why)) != 0) {
			FAIL("cloud-message takes a type and a JSON payload without spaces%s%s",
			     args == 2 ? ": " : "", args == 2 ? why : "");
		}
		return 0;
	} else if (strcmp(kind, "cloud-deploy") == 0) {
		/* The loopback cloud offers the package from then on (world_cloud_deploy.h). */
		char why[120];
		uint64_t k;
		if (args != 1 || !world_script_parse_u64(a[0], &k) || k > UINT32_MAX) {
			FAIL("cloud-deploy takes the number of a package given to beacon-sim with --deploy");
		}
		if (world_cloud_deploy_add(w, (uint32_t)index, at, (uint32_t)k, why, sizeof(why)) != 0) {
			FAIL("cloud-deploy: %s", why);
		}
		return 0;
	} else if (strcmp(kind, "time-sync") == 0 || strcmp(kind, "imu-fault") == 0) {
		if (args != 1 || !world_script_parse_flag(a[0], &e.value[0])) {
			FAIL("%s takes 0|1", kind);
		}
		e.kind = kind[0] == 't' ? WORLD_IN_TIME_SYNC : WORLD_IN_IMU_FAULT;
	} else if (strcmp(kind, "ble-capture") == 0) {
		/* ble-capture <AD hex> <rssi> <channel> [addr=<hex>] [response=0|1] [connectable=0|1] */
		world_capture_t c;
		memset(&c, 0, sizeof(c));
		size_t len = 0;
		double rssi, channel, x;
		if (args < 3 || !world_script_parse_hex(a[0], c.ad, HAL_BLE_AD_MAX, &len) || !world_script_parse_num(a[1], &rssi) ||
		    rssi < -127 || rssi > 20 || !world_script_parse_num(a[2], &channel) ||
		    (channel != 37 && channel != 38 && channel != 39)) {
			FAIL("ble-capture takes the AD bytes in hex (at most %d), an RSSI from -127 to 20 and a channel 37, 38 or 39",
			     HAL_BLE_AD_MAX);
		}
		c.len = (uint8_t)len;
		c.rssi = (int8_t)rssi;
		c.channel = (uint8_t)channel;
		const uint8_t addr[HAL_BLE_ADDR_LEN] = {0xc0, 0xca, 0xb7, 0x00, 0x00, (uint8_t)w->capture_count};
		memcpy(c.addr, addr, sizeof(addr));
		for (int i = 3; i < args; i++) {
			if (strncmp(a[i], "addr=", 5) == 0 && world_script_parse_addr(a[i] + 5, c.addr)) {
				continue;
			}
			if (strncmp(a[i], "response=", 9) == 0 && world_script_parse_flag(a[i] + 9, &x)) {
				c.kind = (uint8_t)(x != 0 ? (c.kind | RT_BLE_RX_SCAN_RESPONSE) : (c.kind & ~RT_BLE_RX_SCAN_RESPONSE));
				continue;
			}
			if (strncmp(a[i], "connectable=", 12) == 0 && world_script_parse_flag(a[i] + 12, &x)) {
				c.kind = (uint8_t)(x != 0 ? (c.kind | RT_BLE_RX_CONNECTABLE) : (c.kind & ~RT_BLE_RX_CONNECTABLE));
				continue;
			}
			FAIL("ble-capture: '%s' is not addr=<12 hex digits>, response=0|1 or connectable=0|1", a[i]);
		}
		int index = world_air_add_capture(w, &c);
		if (index < 0) {
			FAIL("out of memory");
		}
		e.value[0] = index;
		e.kind = WORLD_IN_BLE_CAPTURE;
	} else {
		FAIL("unknown input '%s'", kind);
	}
	if (world_add_event(w, &e) != 0) {
		FAIL("out of memory");
	}
	return 0;
}

/*
 * world_tag_zephyr.c: a scenario's scripted beacon played on the board's radio (see the header).
 * The world's model gives the beacon's address, packet, interval and power exactly as the
 * simulator's air uses them; the radio then sends it through Zephyr's Bluetooth host and
 * controller, with the controller's own advertising delay. It answers active scans with its name,
 * as the model's beacon does. (The radio's advertising sets are scannable, not connectable: a
 * scripted beacon marked connectable is heard without that flag.)
 */
#include "world_tag_zephyr.h"

#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "world.h"
#include "world_air.h"
#include "world_script.h"
#if defined(CONFIG_BT)
#include "ble_radio_zephyr.h"
#endif

int world_tag_play(const char *script, size_t script_len, const char *name, uint64_t for_ms,
		   char *err, size_t err_cap)
{
#if defined(CONFIG_BT)
	static const world_io_t quiet = {0};
	static world_t world;
	uint32_t devices = world_script_device_count(script, script_len);

	if (world_init(&world, devices > 0 ? devices : 1, &quiet) != 0) {
		snprintf(err, err_cap, "out of memory");
		return 2;
	}
	if (world_script_load(&world, script, script_len, err, err_cap) != 0) {
		world_free(&world);
		return 2;
	}
	const world_beacon_t *tag = NULL;

	for (uint32_t i = 0; i < world.beacon_count; i++) {
		if (strcmp(world.beacons[i].name, name) == 0) {
			tag = &world.beacons[i];
		}
	}
	int rc = 2;

	if (tag == NULL) {
		snprintf(err, err_cap, "--tag %s: the scenario has no beacon of that name", name);
	} else if (!ble_radio_set_identity(tag->addr)) {
		snprintf(err, err_cap, "--tag %s: the radio refused the beacon's address", name);
	} else {
		static char response[sizeof(tag->name)];

		strcpy(response, tag->name);
		ble_radio_set_response_name(response);
		if (!ble_radio_adv_start(0, tag->set.ad, tag->set.len, tag->set.interval,
					 tag->set.power)) {
			snprintf(err, err_cap, "--tag %s: the radio refused the beacon's packet", name);
		} else {
			k_sleep(for_ms == UINT64_MAX ? K_FOREVER : K_MSEC(for_ms));
			ble_radio_adv_stop(0);
			rc = 0;
		}
	}
	world_free(&world);
	return rc;
#else
	(void)script;
	(void)script_len;
	(void)name;
	(void)for_ms;
	snprintf(err, err_cap, "--tag: this board has no BLE radio");
	return 2;
#endif
}

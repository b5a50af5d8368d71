/*
 * world_tag_zephyr.h: a scenario's scripted beacon (a tag) played on the board's own BLE radio
 * (world_main_zephyr.c --tag NAME, nrf52_bsim): the firmware runs no app and advertises the
 * beacon's packet with its address, interval and transmit power until the run's time is up, so
 * that the scenario's tags are real radios on BabbleSim's air (docs/firmware.md, "The LTE beacon
 * in simulation").
 */
#ifndef WORLD_TAG_ZEPHYR_H
#define WORLD_TAG_ZEPHYR_H

#include <stddef.h>
#include <stdint.h>

/* Load the world script, find the beacon called `name` and advertise it for for_ms of kernel
 * time. 0 when it was played; 2 with the reason in err for a script or name that does not
 * make one, or a board without a radio. */
int world_tag_play(const char *script, size_t script_len, const char *name, uint64_t for_ms,
		   char *err, size_t err_cap);

#endif /* WORLD_TAG_ZEPHYR_H */

/*
 * world_profile.h: the simulated hardware variants.
 *
 *   ble-beacon  nRF52840 BLE beacon: 3 ring LEDs, main button, accelerometer
 *   lte-beacon  nRF9160 LTE-M/NB-IoT beacon with GNSS (and BLE): 3 ring LEDs, main button,
 *               accelerometer; the default
 *   ai-beacon   the variant with a gyroscope, a side button and UWB: 12 ring LEDs, a
 *               6-axis IMU with pedometer and machine-learning core
 */
#ifndef WORLD_PROFILE_H
#define WORLD_PROFILE_H

#include <stdint.h>

#include "hal_sensors.h"

typedef struct {
	const char *name;
	const char *hardware;     /* sys.getHardware() */
	uint32_t features;        /* HAL_FEATURE_* */
	uint32_t leds;            /* ring LEDs */
	uint32_t imu_events;      /* bit i: hal_imu_event_t i is supported */
	float capacity_mah;       /* battery */
	float idle_current_ma;    /* average current when nothing else is said */
	float charge_current_ma;  /* drawn into the battery while charging */
	uint32_t heap_size;       /* the JS heap the firmware gives apps on this hardware */
} world_profile_t;

/* The profile of that name, or NULL. */
const world_profile_t *world_profile_find(const char *name);
const world_profile_t *world_profile_default(void);
/* Profiles in order, for listings: NULL past the last. */
const world_profile_t *world_profile_at(uint32_t index);

#endif /* WORLD_PROFILE_H */

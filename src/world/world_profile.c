#include "world_profile.h"

#include <string.h>

#include "hal_device.h"
#include "rt_config.h"

#define BIT(e) (1u << (e))
/* An accelerometer with an event engine (LIS2DW12-class). */
#define ACCEL_EVENTS                                                                              \
	(BIT(HAL_IMU_EVENT_GENERIC) | BIT(HAL_IMU_EVENT_FREE_FALL) | BIT(HAL_IMU_EVENT_SINGLE_TAP) | \
	 BIT(HAL_IMU_EVENT_DOUBLE_TAP) | BIT(HAL_IMU_EVENT_TILT) | BIT(HAL_IMU_EVENT_ORIENTATION) |   \
	 BIT(HAL_IMU_EVENT_WAKE_UP))
/* A 6-axis IMU with pedometer and machine-learning core (LSM6DSOX-class). */
#define IMU_EVENTS (ACCEL_EVENTS | BIT(HAL_IMU_EVENT_STEP) | BIT(HAL_IMU_EVENT_MLC))

static const world_profile_t profiles[] = {
	{"lte-beacon", "sim-lte-1.0", HAL_FEATURE_GNSS | HAL_FEATURE_LTE, 3, ACCEL_EVENTS, 2600.0f,
	 0.30f, 450.0f, CONFIG_BEACON_JS_HEAP_SIZE},
	{"ble-beacon", "sim-ble-1.0", HAL_FEATURE_NFC, 3, ACCEL_EVENTS, 1000.0f, 0.05f, 250.0f,
	 CONFIG_BEACON_JS_HEAP_SIZE},
	{"ai-beacon", "sim-ai-1.0", HAL_FEATURE_SIDE_BUTTON | HAL_FEATURE_GYRO | HAL_FEATURE_UWB, 12,
	 IMU_EVENTS, 1800.0f, 0.12f, 350.0f, CONFIG_BEACON_JS_HEAP_SIZE},
};

const world_profile_t *world_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (strcmp(profiles[i].name, name) == 0) {
			return &profiles[i];
		}
	}
	return NULL;
}

const world_profile_t *world_profile_default(void)
{
	return &profiles[0];
}

const world_profile_t *world_profile_at(uint32_t index)
{
	return index < sizeof(profiles) / sizeof(profiles[0]) ? &profiles[index] : NULL;
}

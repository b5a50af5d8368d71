/*
 * hal_sensors_internal.h: what the Zephyr port's sensor drivers share, and no other file uses:
 * the motion sensor and the bring-up (hal_sensors_zephyr.c), battery and power
 * (hal_power_zephyr.c), temperature (hal_temp_zephyr.c).
 */
#ifndef HAL_SENSORS_INTERNAL_H
#define HAL_SENSORS_INTERNAL_H

#include <zephyr/kernel.h>

struct rt_device;

/* The device the drivers report to (port_zephyr_sensors_init). */
extern struct rt_device *hal_sensors_target;
/* Serialises every use of a sensor device and the motion state: drivers keep one sample buffer
 * per device and are not written for concurrent callers. */
extern struct k_mutex hal_sensors_lock;

/* Bring-up of the battery, the charger and the temperature sensor (logged; what does not answer
 * reads as not present). */
void hal_power_zephyr_init(void);
void hal_temp_zephyr_init(void);

#endif /* HAL_SENSORS_INTERNAL_H */

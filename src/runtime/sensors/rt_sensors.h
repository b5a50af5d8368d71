/*
 * rt_sensors.h: motion (IMU), battery and power, temperature (sensors.*).
 *
 * Readings come from hal_sensors when the app asks. What the app listens for arrives from the
 * port's drivers, from any thread, through the rt_sensors_post_* functions below.
 */
#ifndef RT_SENSORS_H
#define RT_SENSORS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "hal_sensors.h"

typedef struct {
	/* sensors.imu.onMotion(callback), and the typed events of 0.2.6 by MotionEvent value. */
	eng_ref_t motion;
	eng_ref_t events[HAL_IMU_EVENT_COUNT];
	eng_ref_t power_listener;
	uint8_t sensitivity, responsiveness, range;
} rt_sensors_state_t;

/* What comes with a motion event (eventData); fields unused by an event are ignored. */
typedef struct {
	uint8_t event;  /* hal_imu_event_t */
	int8_t axis;    /* taps: 0 x, 1 y, 2 z */
	int8_t sign;    /* taps: +1 or -1 */
	uint32_t value; /* steps: count; free fall: duration ms; MLC: the classifier's output */
} rt_imu_event_t;

struct rt_device;

/* The device started (true) or stopped moving. */
void rt_sensors_post_motion(struct rt_device *device, bool moving);
/* A typed motion event occurred. */
void rt_sensors_post_imu_event(struct rt_device *device, const rt_imu_event_t *event);
/* External power or charging changed (the listener reads the new state). */
void rt_sensors_post_power(struct rt_device *device);

/* Release callbacks and restore the sensor defaults (app start and end). */
void rt_sensors_reset(void);

/* How the device lies, from an acceleration in g: orient 'flat' or 'vertical' and the side facing
 * up ('top', 'bottom', 'ble', 'gnss', 'cloud'); NULL where it cannot be told. */
void rt_sensors_orientation(const float g[3], const char **orient, const char **side);

#endif /* RT_SENSORS_H */

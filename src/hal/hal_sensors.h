/*
 * hal_sensors.h: motion sensor, battery and power, temperature.
 *
 * Readings are polled by the runtime when the app asks; changes the app listens for (motion,
 * motion events, power) are posted by the port's drivers with the rt_sensors_post_* functions of
 * rt_sensors.h, from any thread.
 */
#ifndef HAL_SENSORS_H
#define HAL_SENSORS_H

#include <stdbool.h>
#include <stdint.h>

/* ------------------------------------------------------------------ IMU */

/* Acceleration in g; false (and zeros) when the hardware has no accelerometer. */
bool hal_imu_accel(float g[3]);
/* Rotation in deg/s; false (and zeros) when the hardware has no gyroscope. */
bool hal_imu_gyro(float dps[3]);
/* Sensitivity and responsiveness, 0 (lowest) to 4 (highest): the threshold and the delay of
 * motion detection. Range: 0..3 for 2, 4, 8, 16 g full scale. */
void hal_imu_configure(uint8_t sensitivity, uint8_t responsiveness, uint8_t range);

/* Typed motion events (sensors.imu.MotionEvent). */
typedef enum {
	HAL_IMU_EVENT_GENERIC = 0,
	HAL_IMU_EVENT_FREE_FALL,
	HAL_IMU_EVENT_SINGLE_TAP,
	HAL_IMU_EVENT_DOUBLE_TAP,
	HAL_IMU_EVENT_TILT,
	HAL_IMU_EVENT_STEP,
	HAL_IMU_EVENT_ORIENTATION,
	HAL_IMU_EVENT_WAKE_UP,
	HAL_IMU_EVENT_MLC,
	HAL_IMU_EVENT_COUNT
} hal_imu_event_t;

/* Bit i set: this hardware can report event i. */
uint32_t hal_imu_events_supported(void);
/* Switch reporting of an event on or off, with its threshold in g (free fall, wake-up, tilt:
 * degrees) where it has one (<= 0: the driver's default). Returns false on a sensor error. */
bool hal_imu_event_enable(hal_imu_event_t event, bool enable, float threshold);

/* ------------------------------------------------------------------ battery and power */

typedef struct {
	float voltage;      /* V */
	float percent;      /* energy left, 0..100 */
	float capacity_mah; /* design or learned capacity */
	float current_ma;   /* average; negative while charging */
	bool external;      /* external power present */
	bool charging;
} hal_power_t;

void hal_power_read(hal_power_t *power);

/* ------------------------------------------------------------------ temperature */

/* The last measured temperature, degrees Celsius. */
float hal_temp_read(void);
/* Fast mode: measure at short intervals rather than the power-saving default. */
void hal_temp_fast_mode(bool enabled);

#endif /* HAL_SENSORS_H */

/*
 * hal_sensors on Zephyr: temperature (hal_temp_read, hal_temp_fast_mode), sampled on the system
 * work queue from the sensor of alias temp0, or else the nRF's own TEMP peripheral. See
 * hal_sensors_zephyr.c.
 */
#include "hal_sensors.h"
#include "hal_sensors_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <zephyr/device.h>
#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/sys/atomic.h>

#if defined(CONFIG_SENSOR)
#include <zephyr/drivers/sensor.h>
#endif

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(CONFIG_SENSOR) && DT_NODE_HAS_STATUS(DT_ALIAS(temp0), okay)
#define TEMP_NODE DT_ALIAS(temp0)
#elif defined(CONFIG_SENSOR) && DT_NODE_HAS_COMPAT(DT_NODELABEL(temp), nordic_nrf_temp) &&       \
	DT_NODE_HAS_STATUS(DT_NODELABEL(temp), okay)
#define TEMP_NODE DT_NODELABEL(temp)
#endif

/* The last sample in hundredths of a degree, or TEMP_NONE before the first. Written by the
 * temperature work, read by the JavaScript thread. */
#define TEMP_NONE INT32_MIN
static atomic_t temp_centi = ATOMIC_INIT(TEMP_NONE);
static atomic_t temp_fast;

#if defined(TEMP_NODE)

static const struct device *const temp_dev = DEVICE_DT_GET(TEMP_NODE);

static void on_temp_work(struct k_work *work);
static K_WORK_DELAYABLE_DEFINE(temp_work, on_temp_work);

static int sample_temp(void)
{
	struct sensor_value v;

	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	/* A die sensor (nRF TEMP, accelerometers) or an ambient one (STTS751, ...). Not every
	 * driver fetches a single channel, nor every one everything: try both ways. */
	int rc = sensor_sample_fetch(temp_dev);

	if (rc == -ENOTSUP) {
		rc = sensor_sample_fetch_chan(temp_dev, SENSOR_CHAN_DIE_TEMP);
	}
	if (rc == 0) {
		rc = sensor_channel_get(temp_dev, SENSOR_CHAN_DIE_TEMP, &v);
		if (rc == -ENOTSUP) {
			rc = sensor_channel_get(temp_dev, SENSOR_CHAN_AMBIENT_TEMP, &v);
		}
	}
	k_mutex_unlock(&hal_sensors_lock);
	if (rc == 0) {
		double c = sensor_value_to_double(&v) * 100.0;

		(void)atomic_set(&temp_centi, (atomic_val_t)(c < 0 ? c - 0.5 : c + 0.5));
	}
	return rc;
}

static uint32_t temp_interval_ms(void)
{
	return atomic_get(&temp_fast) ? CONFIG_BEACON_TEMP_FAST_INTERVAL_MS
				      : CONFIG_BEACON_TEMP_INTERVAL_MS;
}

/* Samples fall on a grid from boot (every interval since boot), as in the simulator. */
static void schedule_temp(void)
{
	uint32_t interval = temp_interval_ms();
	int64_t now = k_uptime_get();

	(void)k_work_reschedule(&temp_work, K_MSEC((int32_t)(interval - (uint32_t)(now % interval))));
}

static void on_temp_work(struct k_work *work)
{
	ARG_UNUSED(work);
	int rc = sample_temp();

	if (rc != 0) {
		LOG_DBG("temperature: sample failed (%d), the last one stands", rc);
	}
	schedule_temp();
}

void hal_temp_zephyr_init(void)
{
	if (!device_is_ready(temp_dev)) {
		LOG_ERR("temperature sensor %s not ready: sensors.temp.get() reads NaN",
			temp_dev->name);
		return;
	}
	int rc = sample_temp();

	LOG_INF("temperature: %s%s", temp_dev->name, rc == 0 ? "" : " (first sample failed)");
	schedule_temp();
}

void hal_temp_fast_mode(bool enabled)
{
	if ((atomic_set(&temp_fast, enabled ? 1 : 0) != 0) == enabled) {
		return; /* no change: the grid goes on */
	}
	/* Fast mode samples now (a reading at most a second old from here on); back to slow, the
	 * next sample is on the slow grid. */
	if (enabled) {
		(void)k_work_reschedule(&temp_work, K_NO_WAIT);
	} else {
		schedule_temp();
	}
}

#else

void hal_temp_zephyr_init(void)
{
	LOG_WRN("no temperature sensor (alias temp0): sensors.temp.get() reads NaN");
}

void hal_temp_fast_mode(bool enabled)
{
	(void)atomic_set(&temp_fast, enabled ? 1 : 0);
}

#endif /* TEMP_NODE */

float hal_temp_read(void)
{
	atomic_val_t c = atomic_get(&temp_centi);

	/* No sensor, or none answered yet: not a number rather than a made-up temperature. */
	return c == TEMP_NONE ? NAN : (float)c / 100.0f;
}

/* ================================================================== bring-up */

/*
 * hal_sensors on Zephyr: the motion sensor (IMU), battery and power, temperature.
 *
 * Everything comes from Zephyr's driver APIs (include/zephyr/drivers/sensor.h, fuel_gauge.h,
 * charger.h) and devicetree aliases, so a board names its parts in its devicetree and this file
 * does not change:
 *
 *   accel0       accelerometer (SENSOR_CHAN_ACCEL_XYZ) and its activity/tap/free-fall triggers
 *   gyro0        gyroscope (SENSOR_CHAN_GYRO_XYZ); may be the same node as accel0
 *   fuel-gauge0  battery fuel gauge (fuel gauge API)
 *   vbatt        otherwise: the battery voltage through a `voltage-divider` sensor node
 *   charger0     charger: external power and charging (charger API)
 *   temp0        temperature (SENSOR_CHAN_DIE_TEMP or SENSOR_CHAN_AMBIENT_TEMP); without it the
 *                nRF's own TEMP peripheral (node label `temp`) where the SoC has one
 *
 * The behaviour is docs/world.md's; what is portable lives in the runtime: the motion levels and
 * the motion/rest decision (rt_motion.h), the battery curve (rt_battery.h), orientation
 * (rt_sensors_orientation). This file reads hardware and posts what it detects with the
 * rt_sensors_post_* functions, which are safe from any thread.
 *
 * This file: the motion sensor and the bring-up; battery and power are in hal_power_zephyr.c,
 * temperature in hal_temp_zephyr.c (hal_sensors_internal.h).
 *
 * Threads: the JavaScript thread reads sensors (hal_imu_accel, hal_power_read, ...); sensor
 * trigger handlers run in the driver's thread or the system work queue; the motion, power and
 * temperature work items run on the system work queue. One mutex serialises every use of a
 * sensor device and the motion state: drivers keep one sample buffer per device and are not
 * written for concurrent callers. Zephyr mutexes may be taken again by their owner.
 */
#include "hal_sensors.h"
#include "hal_sensors_internal.h"
#include "port_zephyr.h"
#include "rt_motion.h"
#include "rt_sensors.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <zephyr/device.h>
#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/sys/atomic.h>
#include <zephyr/sys/util.h>

#if defined(CONFIG_SENSOR)
#include <zephyr/drivers/sensor.h>
#endif

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(CONFIG_SENSOR) && DT_NODE_HAS_STATUS(DT_ALIAS(accel0), okay)
#define HAVE_ACCEL 1
#endif
#if defined(CONFIG_SENSOR) && DT_NODE_HAS_STATUS(DT_ALIAS(gyro0), okay)
#define HAVE_GYRO 1
#endif

/* The device the drivers report to. */
struct rt_device *hal_sensors_target;

K_MUTEX_DEFINE(hal_sensors_lock);

/* ================================================================== motion sensor */

/* Events the port makes from the accelerometer's readings and its motion detection. */
#define SOFT_EVENTS                                                                                \
	(BIT(HAL_IMU_EVENT_GENERIC) | BIT(HAL_IMU_EVENT_ORIENTATION) | BIT(HAL_IMU_EVENT_WAKE_UP))

#define DEG_PER_RAD 57.29577951308232

#if defined(HAVE_ACCEL) || defined(HAVE_GYRO)
/* Fetch and read a three-axis channel in the sensor API's units (m/s^2, rad/s). */
static int read_xyz(const struct device *dev, enum sensor_channel chan, double out[3])
{
	struct sensor_value v[3];

	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	int rc = sensor_sample_fetch_chan(dev, chan);

	if (rc == -ENOTSUP) {
		rc = sensor_sample_fetch(dev); /* drivers that only fetch everything at once */
	}
	/* -ENODATA: an LIS2DH read faster than its data rate; it has still read the output
	 * registers, which hold the last sample (drivers/sensor/st/lis2dh/lis2dh.c). */
	if (rc == 0 || rc == -ENODATA) {
		rc = sensor_channel_get(dev, chan, v);
	}
	k_mutex_unlock(&hal_sensors_lock);
	if (rc == 0) {
		for (int i = 0; i < 3; i++) {
			out[i] = sensor_value_to_double(&v[i]);
		}
	}
	return rc;
}
#endif

#if defined(HAVE_ACCEL)

static const struct device *const accel = DEVICE_DT_GET(DT_ALIAS(accel0));
static bool accel_ok;
/* The last good reading, for hal_imu_accel (JavaScript thread only). */
static float accel_last[3] = {0.0f, 0.0f, 1.0f};
static bool accel_error_logged;

/* Motion detection. The detector's state is under hal_sensors_lock. */
static rt_motion_t motion;
static bool have_activity;
static bool have_rest;
static uint8_t sensitivity = 2;
static uint8_t range_index = 0xff; /* none set yet */
static bool threshold_error_logged;
/* Events the driver's triggers give (probed at init), and those the app has on. */
static uint32_t hw_events;
static atomic_t events_on;
static float wake_threshold_g;
/* How the device lay when last looked at (orientation events); under hal_sensors_lock. */
static const char *lie_orient;
static const char *lie_side;

/* Triggers are kept by pointer in the driver and handed back to the handler
 * (include/zephyr/drivers/sensor.h, sensor_trigger_set): static, never on the stack. */
static struct sensor_trigger trig_activity;
static struct sensor_trigger trig_rest;
static const struct {
	enum sensor_trigger_type type;
	hal_imu_event_t event;
} event_kinds[] = {
	{SENSOR_TRIG_TAP, HAL_IMU_EVENT_SINGLE_TAP},
	{SENSOR_TRIG_DOUBLE_TAP, HAL_IMU_EVENT_DOUBLE_TAP},
	{SENSOR_TRIG_FREEFALL, HAL_IMU_EVENT_FREE_FALL},
};
static struct sensor_trigger trig_event[ARRAY_SIZE(event_kinds)];

static void on_motion_work(struct k_work *work);
static K_WORK_DELAYABLE_DEFINE(motion_work, on_motion_work);

static int read_accel(float g[3])
{
	double ms2[3];
	int rc = read_xyz(accel, SENSOR_CHAN_ACCEL_XYZ, ms2);

	if (rc == 0) {
		/* SENSOR_G: standard gravity in micro m/s^2. */
		for (int i = 0; i < 3; i++) {
			g[i] = (float)(ms2[i] * 1000000.0 / (double)SENSOR_G);
		}
	}
	return rc;
}

/* Full scale 2, 4, 8 or 16 g (SENSOR_ATTR_FULL_SCALE takes m/s^2; sensor_g_to_ms2 takes whole g).
 * Call under hal_sensors_lock. */
static void set_range(uint8_t range)
{
	struct sensor_value v;

	sensor_g_to_ms2((int32_t)(2u << range), &v);
	int rc = sensor_attr_set(accel, SENSOR_CHAN_ACCEL_XYZ, SENSOR_ATTR_FULL_SCALE, &v);

	if (rc != 0) {
		LOG_WRN("motion sensor: full scale %u g refused (%d)", 2u << range, rc);
	}
	range_index = range;
}

/* The activity threshold of a sensitivity level. Call under hal_sensors_lock, after set_range (the
 * sensor counts the threshold in steps of its full scale). */
static void set_threshold(uint8_t level)
{
	float g = rt_motion_threshold_g(level);
	/* The activity registers count in steps of full scale / 128 (LIS2DH INTx_THS) or / 64
	 * (LIS2DW12 WK_THS); a finer threshold would round to 0, which fires on noise. The finest
	 * threshold is one step of the coarser. */
	float floor_g = (float)(2u << range_index) / 64.0f;

	if (g < floor_g) {
		g = floor_g;
	}
	struct sensor_value v;

	sensor_ug_to_ms2((int32_t)(g * 1000000.0f), &v);
	/* Any-motion engines take SENSOR_ATTR_SLOPE_TH (LIS2DH, BMI160, ...); wake-up engines
	 * take the threshold as SENSOR_ATTR_UPPER_THRESH (LIS2DW12). Both in m/s^2. */
	int rc = sensor_attr_set(accel, SENSOR_CHAN_ACCEL_XYZ, SENSOR_ATTR_SLOPE_TH, &v);

	if (rc == -ENOTSUP || rc == -ENOSYS || rc == -EINVAL) {
		rc = sensor_attr_set(accel, SENSOR_CHAN_ACCEL_XYZ, SENSOR_ATTR_UPPER_THRESH, &v);
	}
	if (rc != 0 && !threshold_error_logged) {
		LOG_WRN("motion sensor: activity threshold %d mg refused (%d)",
			(int)(g * 1000.0f), rc);
		threshold_error_logged = true;
	}
	sensitivity = level;
}

static void on_activity(const struct device *dev, const struct sensor_trigger *trig)
{
	ARG_UNUSED(dev);
	ARG_UNUSED(trig);
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	rt_motion_activity(&motion, (uint64_t)k_uptime_get());
	k_mutex_unlock(&hal_sensors_lock);
	(void)k_work_reschedule(&motion_work, K_NO_WAIT);
}

static void on_rest(const struct device *dev, const struct sensor_trigger *trig)
{
	ARG_UNUSED(dev);
	ARG_UNUSED(trig);
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	rt_motion_rest(&motion, (uint64_t)k_uptime_get());
	k_mutex_unlock(&hal_sensors_lock);
	(void)k_work_reschedule(&motion_work, K_NO_WAIT);
}

static void on_event_trigger(const struct device *dev, const struct sensor_trigger *trig)
{
	ARG_UNUSED(dev);
	for (size_t i = 0; i < ARRAY_SIZE(event_kinds); i++) {
		if (trig != &trig_event[i]) {
			continue;
		}
		hal_imu_event_t event = event_kinds[i].event;

		/* Off again, or fired while the trigger was being probed at boot. */
		if (!atomic_test_bit(&events_on, event)) {
			return;
		}
		/* The generic sensor API does not say on which axis or in which direction a tap
		 * came (drivers keep it in private registers): taps read as z, +1. A free fall's
		 * duration is not reported either: 0. */
		rt_imu_event_t e = {(uint8_t)event, 2, 1, 0};

		rt_sensors_post_imu_event(hal_sensors_target, &e);
		return;
	}
}

/* The activity trigger again: an LIS2DH clears its any-motion setup whenever its tap trigger
 * is set or removed (drivers/sensor/st/lis2dh/lis2dh_trigger.c, lis2dh_trigger_anym_tap_set).
 * Call under hal_sensors_lock. */
static void rearm_activity(void)
{
	if (have_activity) {
		(void)sensor_trigger_set(accel, &trig_activity, on_activity);
	}
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* An orientation event when the device lies differently than when last looked at. */
static void check_orientation(bool post)
{
	float g[3];

	if (read_accel(g) != 0) {
		return;
	}
	const char *orient;
	const char *side;

	rt_sensors_orientation(g, &orient, &side);
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	bool changed = !same_text(orient, lie_orient) || !same_text(side, lie_side);

	lie_orient = orient;
	lie_side = side;
	k_mutex_unlock(&hal_sensors_lock);
	if (changed && post) {
		rt_imu_event_t e = {HAL_IMU_EVENT_ORIENTATION, 0, 0, 0};

		rt_sensors_post_imu_event(hal_sensors_target, &e);
	}
}

/* A wake-up event comes with reported motion as strong as its threshold (docs/world.md). The
 * sensor only says "at least the sensitivity threshold"; a wake-up threshold above that is
 * checked against the acceleration, less gravity, read now. */
static void check_wake_up(void)
{
	float threshold = wake_threshold_g;

	if (threshold > rt_motion_threshold_g(sensitivity)) {
		float g[3];

		if (read_accel(g) != 0) {
			return;
		}
		float m2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
		float up = 1.0f + threshold;
		float down = 1.0f - threshold;

		if (!(m2 >= up * up || (down > 0.0f && m2 <= down * down))) {
			return;
		}
	}
	rt_imu_event_t e = {HAL_IMU_EVENT_WAKE_UP, 0, 0, 0};

	rt_sensors_post_imu_event(hal_sensors_target, &e);
}

static void on_motion_work(struct k_work *work)
{
	ARG_UNUSED(work);
	uint64_t now = (uint64_t)k_uptime_get();
	uint64_t next;

	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	uint32_t what = rt_motion_update(&motion, now, &next);

	k_mutex_unlock(&hal_sensors_lock);
	if (what & RT_MOTION_STARTED) {
		rt_sensors_post_motion(hal_sensors_target, true);
		if (atomic_test_bit(&events_on, HAL_IMU_EVENT_WAKE_UP)) {
			check_wake_up();
		}
	}
	if (what & RT_MOTION_STOPPED) {
		rt_sensors_post_motion(hal_sensors_target, false);
	}
	/* Moved, and now settled or reported: the device may lie differently. */
	if (what != 0 && atomic_test_bit(&events_on, HAL_IMU_EVENT_ORIENTATION)) {
		check_orientation(true);
	}
	if (next != RT_MOTION_NEVER) {
		/* At most the longest stop delay plus the hold away: fits a 32-bit ms timeout. */
		(void)k_work_reschedule(&motion_work, K_MSEC((int32_t)(next - now)));
	}
}

static void imu_init(void)
{
	rt_motion_init(&motion, CONFIG_BEACON_MOTION_HOLD_MS, false);
	if (!device_is_ready(accel)) {
		LOG_ERR("motion sensor %s (accel0) not ready: no motion readings or events",
			accel->name);
		return;
	}
	accel_ok = true;
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	/* The power-on configuration before any detection runs: a wake-up threshold register at
	 * its reset value (0) fires on noise. */
	set_range(0);
	set_threshold(2);
	/* Motion detection: the first activity trigger the driver accepts. Any-motion engines
	 * offer SENSOR_TRIG_MOTION (LIS2DW12 with CONFIG_LIS2DW12_WAKEUP, BMI270) or
	 * SENSOR_TRIG_DELTA (LIS2DH, BMI160); older LIS2DW12 drivers SENSOR_TRIG_THRESHOLD. */
	static const enum sensor_trigger_type activity_types[] = {
		SENSOR_TRIG_MOTION, SENSOR_TRIG_DELTA, SENSOR_TRIG_THRESHOLD};

	for (size_t i = 0; i < ARRAY_SIZE(activity_types) && !have_activity; i++) {
		trig_activity.type = activity_types[i];
		trig_activity.chan = SENSOR_CHAN_ACCEL_XYZ;
		have_activity = sensor_trigger_set(accel, &trig_activity, on_activity) == 0;
	}
	/* A sensor that reports inactivity itself holds motion until it does. */
	if (have_activity) {
		trig_rest.type = SENSOR_TRIG_STATIONARY;
		trig_rest.chan = SENSOR_CHAN_ACCEL_XYZ;
		have_rest = sensor_trigger_set(accel, &trig_rest, on_rest) == 0;
	}
	rt_motion_init(&motion, CONFIG_BEACON_MOTION_HOLD_MS, have_rest);
	/* Typed events: a trigger the driver accepts is an event the hardware can report. Set and
	 * removed again (a NULL handler switches a trigger off); enabled when the app asks. */
	for (size_t i = 0; i < ARRAY_SIZE(event_kinds); i++) {
		trig_event[i].type = event_kinds[i].type;
		trig_event[i].chan = SENSOR_CHAN_ACCEL_XYZ;
		if (sensor_trigger_set(accel, &trig_event[i], on_event_trigger) == 0) {
			hw_events |= BIT(event_kinds[i].event);
			(void)sensor_trigger_set(accel, &trig_event[i], NULL);
		}
	}
	rearm_activity();
	k_mutex_unlock(&hal_sensors_lock);
	LOG_INF("motion sensor %s: motion detection %s%s, typed events 0x%x", accel->name,
		have_activity ? "on" : "unavailable (no activity trigger)",
		have_rest ? " (sensor reports rest)" : "", (unsigned)hal_imu_events_supported());
}

bool hal_imu_accel(float g[3])
{
	if (!accel_ok) {
		g[0] = g[1] = g[2] = 0.0f;
		return false;
	}
	int rc = read_accel(accel_last);

	if (rc != 0 && !accel_error_logged) {
		/* A passing bus error: the sensor is there, the last reading stands. */
		LOG_WRN("motion sensor: reading failed (%d)", rc);
		accel_error_logged = true;
	}
	memcpy(g, accel_last, sizeof(accel_last));
	return true;
}

void hal_imu_configure(uint8_t sens, uint8_t responsiveness, uint8_t range)
{
	if (!accel_ok) {
		return;
	}
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	if (range != range_index) {
		set_range(range);
	}
	set_threshold(sens);
	rt_motion_set_responsiveness(&motion, responsiveness);
	k_mutex_unlock(&hal_sensors_lock);
	/* The new delays apply to what is under way. */
	(void)k_work_reschedule(&motion_work, K_NO_WAIT);
}

uint32_t hal_imu_events_supported(void)
{
	if (!accel_ok) {
		return 0;
	}
	return hw_events | (have_activity ? SOFT_EVENTS : 0);
}

bool hal_imu_event_enable(hal_imu_event_t event, bool enable, float threshold)
{
	if (!accel_ok || (unsigned int)event >= HAL_IMU_EVENT_COUNT) {
		return false;
	}
	if (!(hal_imu_events_supported() & BIT(event))) {
		return !enable;
	}
	if (event == HAL_IMU_EVENT_WAKE_UP) {
		wake_threshold_g = threshold > 0.0f ? threshold : 0.0f;
	}
	if (enable && event == HAL_IMU_EVENT_ORIENTATION) {
		check_orientation(false); /* how it lies now: the reference for the first event */
	}
	/* On before the trigger, so that an event right after it is not taken for a stray. */
	if (enable) {
		atomic_set_bit(&events_on, event);
	} else {
		atomic_clear_bit(&events_on, event);
	}
	for (size_t i = 0; i < ARRAY_SIZE(event_kinds); i++) {
		if (event_kinds[i].event != event) {
			continue;
		}
		/* Tap and free-fall thresholds are not settable through the generic sensor API:
		 * the devicetree's apply (tap-threshold, ff-threshold of an LIS2DW12). */
		k_mutex_lock(&hal_sensors_lock, K_FOREVER);
		int rc = sensor_trigger_set(accel, &trig_event[i], enable ? on_event_trigger : NULL);

		if (!enable) {
			rearm_activity();
		}
		k_mutex_unlock(&hal_sensors_lock);
		if (rc != 0 && enable) {
			atomic_clear_bit(&events_on, event);
			LOG_WRN("motion sensor: event %d refused (%d)", (int)event, rc);
			return false;
		}
	}
	return true;
}

#else /* no accelerometer */

static void imu_init(void)
{
	LOG_INF("no motion sensor (alias accel0)");
}

bool hal_imu_accel(float g[3])
{
	g[0] = g[1] = g[2] = 0.0f;
	return false;
}

void hal_imu_configure(uint8_t sens, uint8_t responsiveness, uint8_t range)
{
	ARG_UNUSED(sens);
	ARG_UNUSED(responsiveness);
	ARG_UNUSED(range);
}

uint32_t hal_imu_events_supported(void)
{
	return 0;
}

bool hal_imu_event_enable(hal_imu_event_t event, bool enable, float threshold)
{
	ARG_UNUSED(event);
	ARG_UNUSED(enable);
	ARG_UNUSED(threshold);
	return false;
}

#endif /* HAVE_ACCEL */

#if defined(HAVE_GYRO)

static const struct device *const gyro = DEVICE_DT_GET(DT_ALIAS(gyro0));
static bool gyro_ok;
static float gyro_last[3];
static bool gyro_error_logged;

bool hal_imu_gyro(float dps[3])
{
	double rad_s[3];

	if (!gyro_ok) {
		dps[0] = dps[1] = dps[2] = 0.0f;
		return false;
	}
	int rc = read_xyz(gyro, SENSOR_CHAN_GYRO_XYZ, rad_s);

	if (rc == 0) {
		for (int i = 0; i < 3; i++) {
			gyro_last[i] = (float)(rad_s[i] * DEG_PER_RAD);
		}
	} else if (!gyro_error_logged) {
		LOG_WRN("gyroscope: reading failed (%d)", rc);
		gyro_error_logged = true;
	}
	memcpy(dps, gyro_last, sizeof(gyro_last));
	return true;
}

static void gyro_init(void)
{
	gyro_ok = device_is_ready(gyro);
	if (!gyro_ok) {
		LOG_ERR("gyroscope %s (gyro0) not ready", gyro->name);
	}
}

#else

bool hal_imu_gyro(float dps[3])
{
	dps[0] = dps[1] = dps[2] = 0.0f;
	return false;
}

static void gyro_init(void)
{
}

#endif /* HAVE_GYRO */

void port_zephyr_sensors_init(struct rt_device *device)
{
	hal_sensors_target = device;
	imu_init();
	gyro_init();
	hal_power_zephyr_init();
	hal_temp_zephyr_init();
}

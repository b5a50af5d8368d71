/*
 * sensors: motion (IMU; sensors.accel in 0.0.9), battery and temperature. See rt_sensors.h.
 */
#include "rt_sensors.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_sensors.h"
#include "rt_api_version.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"
#include "rt_callback.h"

static rt_sensors_state_t *state(void)
{
	return &rt_device()->sensors;
}

static void call_ref(eng_ref_t ref, const eng_value_t *argv, uint32_t argc)
{
	if (!ref) {
		return;
	}
	eng_value_t fn = eng_ref_get(ref);
	rt_loop_invoke(fn, argv, argc);
	eng_release(fn);
}

void rt_sensors_reset(void)
{
	rt_sensors_state_t *st = state();
	rt_callback_drop(&st->motion);
	for (int i = 0; i < HAL_IMU_EVENT_COUNT; i++) {
		if (st->events[i]) {
			hal_imu_event_enable((hal_imu_event_t)i, false, 0);
		}
		rt_callback_drop(&st->events[i]);
	}
	rt_callback_drop(&st->power_listener);
	/* Power-on defaults: medium sensitivity and responsiveness, 2 g. */
	st->sensitivity = 2;
	st->responsiveness = 2;
	st->range = 0;
	hal_imu_configure(st->sensitivity, st->responsiveness, st->range);
	hal_temp_fast_mode(false);
}

/* ------------------------------------------------------------------ IMU */

/* Readings as the sensor resolves them: acceleration to the milli-g, rotation to a hundredth of a
 * degree per second (and no float noise from the driver's single precision). */
static double resolve(float x, double step)
{
	return round((double)x / step) * step;
}

static eng_value_t vector(const float v[3], bool rotation)
{
	if (rotation) {
		rt_RotationVector_t r = {resolve(v[0], 0.01), resolve(v[1], 0.01), resolve(v[2], 0.01)};
		return api_make_RotationVector(&r);
	}
	rt_AccelVector_t a = {resolve(v[0], 0.001), resolve(v[1], 0.001), resolve(v[2], 0.001)};
	return api_make_AccelVector(&a);
}

eng_value_t rt_sensors_imu_getAccel(void)
{
	float g[3] = {0, 0, 0};
	if (!hal_imu_accel(g)) {
		memset(g, 0, sizeof(g)); /* the spec: all zeros on hardware without the sensor */
	}
	return vector(g, false);
}

eng_value_t rt_sensors_imu_getGyro(void)
{
	float dps[3] = {0, 0, 0};
	if (!hal_imu_gyro(dps)) {
		memset(dps, 0, sizeof(dps));
	}
	return vector(dps, true);
}

void rt_sensors_orientation(const float g[3], const char **orient, const char **side)
{
	float ax = fabsf(g[0]), ay = fabsf(g[1]), az = fabsf(g[2]);
	*orient = NULL;
	*side = NULL;
	/* Below a quarter of gravity (free fall, no sensor) nothing can be told. */
	if (sqrtf(ax * ax + ay * ay + az * az) < 0.25f) {
		return;
	}
	if (az >= ax && az >= ay) {
		*orient = "flat";
		*side = g[2] > 0 ? "top" : "bottom";
		return;
	}
	*orient = "vertical";
	/* Standing on an edge: the side that faces up is named after the side LED group there
	 * (x: ble and gnss; +y: cloud). The fourth edge has no name. */
	if (ax >= ay) {
		*side = g[0] > 0 ? "ble" : "gnss";
	} else if (g[1] > 0) {
		*side = "cloud";
	}
}

eng_value_t rt_sensors_imu_getOrient(void)
{
	float g[3];
	rt_Orientation_t o = {0};
	if (hal_imu_accel(g)) {
		const char *orient, *side;
		rt_sensors_orientation(g, &orient, &side);
		if (orient) {
			o.has_orient = true;
			o.orient = eng_string_z(orient);
		}
		if (side) {
			o.has_side = true;
			o.side = eng_string_z(side);
		}
	}
	eng_value_t result = api_make_Orientation(&o);
	if (o.has_orient) {
		eng_release(o.orient);
	}
	if (o.has_side) {
		eng_release(o.side);
	}
	return result;
}

eng_value_t rt_sensors_imu_setSens(const rt_sensors_imu_setSens_args_t *args)
{
	rt_sensors_state_t *st = state();
	st->sensitivity = (uint8_t)args->level;
	hal_imu_configure(st->sensitivity, st->responsiveness, st->range);
	return eng_undefined();
}

eng_value_t rt_sensors_imu_setResp(const rt_sensors_imu_setResp_args_t *args)
{
	rt_sensors_state_t *st = state();
	st->responsiveness = (uint8_t)args->level;
	hal_imu_configure(st->sensitivity, st->responsiveness, st->range);
	return eng_undefined();
}

eng_value_t rt_sensors_imu_setRange(const rt_sensors_imu_setRange_args_t *args)
{
	rt_sensors_state_t *st = state();
	st->range = (uint8_t)args->range;
	hal_imu_configure(st->sensitivity, st->responsiveness, st->range);
	return eng_undefined();
}

static const char *const event_names[HAL_IMU_EVENT_COUNT] = {
	"GENERIC", "FREE_FALL", "SINGLE_TAP", "DOUBLE_TAP", "TILT", "STEP", "ORIENTATION",
	"WAKE_UP", "MLC",
};

/* The options an event takes: its threshold (g; tilt: degrees) and the range allowed. */
static bool threshold_range(hal_imu_event_t event, const char **key, double *min, double *max)
{
	switch (event) {
	case HAL_IMU_EVENT_FREE_FALL:
	case HAL_IMU_EVENT_SINGLE_TAP:
	case HAL_IMU_EVENT_DOUBLE_TAP:
	case HAL_IMU_EVENT_WAKE_UP:
		*key = "threshold";
		*min = 0.01;
		*max = 16.0;
		return true;
	case HAL_IMU_EVENT_TILT:
		*key = "angle";
		*min = 1.0;
		*max = 90.0;
		return true;
	default:
		return false;
	}
}

#define RT_IMU_OPTIONS_MAX 8

/* Check the options of a typed motion event; returns undefined or the exception to throw, and
 * the threshold in *threshold (0: the driver's default). */
static eng_value_t event_options(hal_imu_event_t event, eng_value_t options, float *threshold)
{
	*threshold = 0;
	if (eng_typeof(options) == ENG_TYPE_UNDEFINED) {
		return eng_undefined();
	}
	const char *name = event_names[event];
	eng_value_t keys = eng_keys(options);
	if (eng_is_exception(keys)) {
		return keys;
	}
	uint32_t n = eng_array_length(keys);
	eng_value_t result = eng_undefined();
	if (n > RT_IMU_OPTIONS_MAX) {
		result = rt_throw_esr(RT_ESR1804_DATA_TOO_BIG,
				      "sensors.imu.onMotion: options of %s have %u keys (at most %d)",
				      name, (unsigned)n, RT_IMU_OPTIONS_MAX);
	}
	const char *key_allowed = "";
	double min = 0, max = 0;
	bool has_threshold = threshold_range(event, &key_allowed, &min, &max);
	for (uint32_t i = 0; i < n && !eng_is_exception(result); i++) {
		eng_value_t key = eng_get_index(keys, i);
		char text[32];
		size_t len = eng_string_copy(key, text, sizeof(text));
		eng_release(key);
		if (!has_threshold || len >= sizeof(text) || strcmp(text, key_allowed) != 0) {
			result = has_threshold
				 ? rt_throw_esr(RT_ESR1802_BAD_EVENT_OPTIONS,
						"sensors.imu.onMotion: options of %s take only %s (got '%s')",
						name, key_allowed, text)
				 : rt_throw_esr(RT_ESR1802_BAD_EVENT_OPTIONS,
						"sensors.imu.onMotion: options of %s must be empty (got '%s')", name,
						text);
			break;
		}
		eng_value_t v = eng_get(options, text);
		if (eng_is_exception(v)) {
			result = v;
			break;
		}
		double x = eng_get_number(v);
		bool number = eng_typeof(v) == ENG_TYPE_NUMBER;
		eng_release(v);
		if (!number || isnan(x)) {
			result = rt_throw_esr(RT_ESR1805_BAD_DATA_FORMAT,
					      "sensors.imu.onMotion: options.%s must be a number", text);
		} else if (x < min || x > max) {
			result = rt_throw_esr(RT_ESR1802_BAD_EVENT_OPTIONS,
					      "sensors.imu.onMotion: options.%s must be from %g to %g (got %g)",
					      text, min, max, x);
		} else {
			*threshold = (float)x;
		}
	}
	eng_release(keys);
	return result;
}

eng_value_t rt_sensors_imu_onMotion(const rt_sensors_imu_onMotion_args_t *args)
{
	rt_sensors_state_t *st = state();
	if (!args->has_eventType) {
		rt_callback_keep(&st->motion, args->callback);
		return eng_undefined();
	}
	hal_imu_event_t event = (hal_imu_event_t)args->eventType;
	const char *name = event_names[event];
	bool unregister = eng_typeof(args->callback) != ENG_TYPE_FUNCTION;
	if (unregister) {
		if (st->events[event]) {
			hal_imu_event_enable(event, false, 0);
		}
		rt_callback_drop(&st->events[event]);
		return eng_undefined();
	}
	float g[3];
	if (!hal_imu_accel(g)) {
		return rt_throw_esr(RT_ESR0003_UNSUPPORTED,
				    "sensors.imu.onMotion: this hardware has no motion sensor");
	}
	if (!(hal_imu_events_supported() & (1u << event))) {
		return rt_throw_esr(RT_ESR1801_UNSUPPORTED_EVENT,
				    "sensors.imu.onMotion: eventType %s (%d) is not supported by this hardware",
				    name, (int)event);
	}
	float threshold;
	eng_value_t refused = event_options(event, args->has_options ? args->options : eng_undefined(),
					    &threshold);
	if (eng_is_exception(refused)) {
		return refused;
	}
	if (!hal_imu_event_enable(event, true, threshold)) {
		return rt_throw_esr(RT_ESR1803_SENSOR_ERROR,
				    "sensors.imu.onMotion: the sensor did not accept %s", name);
	}
	rt_callback_keep(&st->events[event], args->callback);
	return eng_undefined();
}

static void on_motion(const rt_event_t *event)
{
	bool moving = event->payload[0] != 0;
	rt_sensors_state_t *st = state();
	eng_value_t arg = eng_boolean(moving);
	call_ref(st->motion, &arg, 1);
	eng_release(arg);
	if (st->events[HAL_IMU_EVENT_GENERIC]) {
		eng_value_t data = eng_object();
		eng_value_t v = eng_boolean(moving);
		eng_set(data, "motion", v);
		eng_release(v);
		call_ref(st->events[HAL_IMU_EVENT_GENERIC], &data, 1);
		eng_release(data);
	}
}

void rt_sensors_post_motion(struct rt_device *device, bool moving)
{
	uint8_t payload = moving;
	rt_loop_post_to(device, on_motion, &payload, 1);
}

static void set_number(eng_value_t object, const char *key, double x)
{
	eng_value_t v = eng_number(x);
	eng_set(object, key, v);
	eng_release(v);
}

static void set_text(eng_value_t object, const char *key, const char *text)
{
	eng_value_t v = eng_string_z(text);
	eng_set(object, key, v);
	eng_release(v);
}

static void on_imu_event(const rt_event_t *event)
{
	rt_imu_event_t e;
	memcpy(&e, event->payload, sizeof(e));
	eng_ref_t ref = e.event < HAL_IMU_EVENT_COUNT ? state()->events[e.event] : 0;
	if (!ref) {
		return;
	}
	eng_value_t data = eng_object();
	set_text(data, "type", event_names[e.event]);
	switch ((hal_imu_event_t)e.event) {
	case HAL_IMU_EVENT_SINGLE_TAP:
	case HAL_IMU_EVENT_DOUBLE_TAP: {
		static const char *const axes[] = {"x", "y", "z"};
		set_text(data, "axis", axes[e.axis >= 0 && e.axis < 3 ? e.axis : 2]);
		set_number(data, "direction", e.sign < 0 ? -1 : 1);
		break;
	}
	case HAL_IMU_EVENT_STEP:
		set_number(data, "steps", e.value);
		break;
	case HAL_IMU_EVENT_FREE_FALL:
		set_number(data, "duration", e.value);
		break;
	case HAL_IMU_EVENT_MLC:
		set_number(data, "value", e.value);
		break;
	case HAL_IMU_EVENT_ORIENTATION: {
		float g[3];
		if (hal_imu_accel(g)) {
			const char *orient, *side;
			rt_sensors_orientation(g, &orient, &side);
			if (orient) {
				set_text(data, "orient", orient);
			}
			if (side) {
				set_text(data, "side", side);
			}
		}
		break;
	}
	default:
		break;
	}
	call_ref(ref, &data, 1);
	eng_release(data);
}

void rt_sensors_post_imu_event(struct rt_device *device, const rt_imu_event_t *event)
{
	rt_loop_post_to(device, on_imu_event, event, sizeof(*event));
}

/* ------------------------------------------------------------------ battery */

static hal_power_t power(void)
{
	hal_power_t p;
	memset(&p, 0, sizeof(p));
	hal_power_read(&p);
	return p;
}

/* Figures as the app sees them: voltage to the millivolt, the rest to a tenth. */
static double tenth(double x)
{
	return round(x * 10.0) / 10.0;
}

eng_value_t rt_sensors_battery_getVoltage(void)
{
	return eng_number(round((double)power().voltage * 1000.0) / 1000.0);
}

eng_value_t rt_sensors_battery_isExtPower(void)
{
	return eng_boolean(power().external);
}

eng_value_t rt_sensors_battery_isCharging(void)
{
	return eng_boolean(power().charging);
}

eng_value_t rt_sensors_battery_getPerc(void)
{
	return eng_number(tenth(power().percent));
}

eng_value_t rt_sensors_battery_getCapacity(void)
{
	return eng_number(tenth(power().capacity_mah));
}

eng_value_t rt_sensors_battery_getAvgCurrent(void)
{
	return eng_number(tenth(power().current_ma));
}

static void on_power(const rt_event_t *event)
{
	(void)event;
	eng_ref_t ref = state()->power_listener;
	if (!ref) {
		return;
	}
	hal_power_t p = power();
	eng_value_t argv[2] = {eng_boolean(p.external), eng_boolean(p.charging)};
	call_ref(ref, argv, 2);
	eng_release(argv[1]);
	eng_release(argv[0]);
}

void rt_sensors_post_power(struct rt_device *device)
{
	rt_loop_post_to(device, on_power, NULL, 0);
}

eng_value_t rt_sensors_battery_setPowerListener(const rt_sensors_battery_setPowerListener_args_t *args)
{
	rt_callback_keep(&state()->power_listener, args->callback);
	/* 0.2.6 calls the new listener with the current state at once: as soon as the running
	 * callback returns, before anything queued later. */
	if (state()->power_listener && rt_api_version() >= RT_API_VERSION(0, 2, 0)) {
		rt_loop_post(on_power, NULL, 0);
	}
	return eng_undefined();
}

/* ------------------------------------------------------------------ temperature */

eng_value_t rt_sensors_temp_get(void)
{
	return eng_number(tenth(hal_temp_read()));
}

eng_value_t rt_sensors_temp_setFastMode(const rt_sensors_temp_setFastMode_args_t *args)
{
	/* 0.2.6 defaults enabled to true (the glue fills it in); before, it is required. */
	hal_temp_fast_mode(args->enabled);
	return eng_undefined();
}

/*
 * world_inputs.c: applying inputs to a device (see world_inputs.h, docs/world.md).
 */
#include "world_inputs.h"

#include "world_cloud.h"

#include <math.h>
#include <string.h>

#include "hal_device.h"
#include "rt_io.h"
#include "rt_motion.h"
#include "rt_sensors.h"

static const char *const imu_event_names[HAL_IMU_EVENT_COUNT] = {
	"generic", "free-fall", "single-tap", "double-tap", "tilt", "step", "orientation",
	"wake-up", "mlc",
};

int world_imu_event_by_name(const char *name)
{
	for (int i = 0; i < HAL_IMU_EVENT_COUNT; i++) {
		if (strcmp(imu_event_names[i], name) == 0) {
			return i;
		}
	}
	return -1;
}

const char *world_imu_event_name(int event)
{
	return event >= 0 && event < HAL_IMU_EVENT_COUNT ? imu_event_names[event] : "?";
}

/* Thresholds and delays of motion detection by level: the firmware's (rt_motion.h), so that the
 * simulated sensor and the device's report motion alike. */
float world_motion_threshold(uint8_t sensitivity)
{
	return rt_motion_threshold_g(sensitivity);
}

uint32_t world_motion_start_delay_ms(uint8_t responsiveness)
{
	return rt_motion_start_delay_ms(responsiveness);
}

uint32_t world_motion_stop_delay_ms(uint8_t responsiveness)
{
	return rt_motion_stop_delay_ms(responsiveness);
}

static void trace_values(world_t *w, world_device_t *d, const char *ev, const char *key,
			 const float *values, size_t n)
{
	if (!world_tracing(w)) {
		return;
	}
	world_trace_begin(&w->json, w, d, ev);
	if (n == 1) {
		world_trace_num(&w->json, key, values[0]);
	} else {
		world_trace_nums(&w->json, key, values, n);
	}
	world_trace_end(&w->json, w);
}

/* Schedule the sensor's report of the current motion state after its detection delay. */
static void schedule_motion_report(world_t *w, world_device_t *d)
{
	bool detectable = d->moving && d->intensity >= world_motion_threshold(d->sensitivity);
	d->motion_change_seq++;
	if (detectable == d->motion_reported) {
		return;
	}
	uint32_t delay = detectable ? world_motion_start_delay_ms(d->responsiveness)
				    : world_motion_stop_delay_ms(d->responsiveness);
	world_event_t e = {0};
	e.at = w->now + delay;
	e.device = d->rt.index;
	e.kind = WORLD_IN_MOTION_REPORT;
	e.value[0] = detectable;
	e.value[1] = (double)d->motion_change_seq;
	world_add_event(w, &e);
}

void world_motion_reconsider(world_t *world, world_device_t *d)
{
	if (d->has_imu) {
		schedule_motion_report(world, d);
	}
}

static void report_motion(world_t *w, world_device_t *d, bool moving)
{
	d->motion_reported = moving;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "motion-detected");
		world_trace_bool(&w->json, "moving", moving);
		world_trace_end(&w->json, w);
	}
	rt_sensors_post_motion(&d->rt, moving);
	world_wake(w, d);
	/* A wake-up event is motion starting hard enough for its threshold. */
	if (moving && (d->imu_events & (1u << HAL_IMU_EVENT_WAKE_UP)) &&
	    d->intensity >= d->thresholds[HAL_IMU_EVENT_WAKE_UP]) {
		rt_imu_event_t ev = {HAL_IMU_EVENT_WAKE_UP, 0, 0, 0};
		rt_sensors_post_imu_event(&d->rt, &ev);
	}
}

static void orientation_of(const float g[3], const char **orient, const char **side)
{
	rt_sensors_orientation(g, orient, side);
}

static void set_accel(world_t *w, world_device_t *d, const double *v)
{
	const char *o1, *s1, *o2, *s2;
	orientation_of(d->accel, &o1, &s1);
	for (int i = 0; i < 3; i++) {
		d->accel[i] = (float)v[i];
	}
	trace_values(w, d, "accel", "g", d->accel, 3);
	orientation_of(d->accel, &o2, &s2);
	bool changed = o1 != o2 || s1 != s2;
	if (changed && d->has_imu && (d->imu_events & (1u << HAL_IMU_EVENT_ORIENTATION))) {
		rt_imu_event_t ev = {HAL_IMU_EVENT_ORIENTATION, 0, 0, 0};
		rt_sensors_post_imu_event(&d->rt, &ev);
		world_wake(w, d);
	}
}

static void imu_event(world_t *w, world_device_t *d, const world_event_t *e)
{
	int event = world_imu_event_by_name(e->text);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "imu-event");
		world_trace_strz(&w->json, "event", e->text);
		world_trace_end(&w->json, w);
	}
	if (event < 0 || !d->has_imu || !(d->profile->imu_events & (1u << event)) ||
	    !(d->imu_events & (1u << event))) {
		return; /* the sensor cannot tell, or nobody listens */
	}
	float intensity = (float)e->value[3];
	if (intensity > 0 && intensity < d->thresholds[event]) {
		return; /* below the threshold the app asked for */
	}
	rt_imu_event_t ev = {(uint8_t)event, (int8_t)e->value[0], (int8_t)e->value[1],
			     (uint32_t)e->value[2]};
	if (event == HAL_IMU_EVENT_STEP) {
		d->steps += ev.value ? ev.value : 1;
		ev.value = d->steps;
	}
	rt_sensors_post_imu_event(&d->rt, &ev);
	world_wake(w, d);
}

static void power_change(world_t *w, world_device_t *d, bool external, bool charging)
{
	bool changed = external != d->external || charging != d->charging;
	world_energy_update(w, d);
	d->external = external;
	d->charging = charging;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "power");
		world_trace_bool(&w->json, "external", external);
		world_trace_bool(&w->json, "charging", charging);
		world_trace_end(&w->json, w);
	}
	world_energy_plan(w, d);
	if (external && d->energy.empty) {
		world_device_power_restored(w, d);
	} else if (changed) {
		rt_sensors_post_power(&d->rt);
		world_wake(w, d);
	}
}

static void temperature(world_t *w, world_device_t *d, float celsius)
{
	/* Keep the last few changes: the sensor samples at intervals and may report a value the
	 * world has moved on from (see world_hal.c). */
	if (d->temp_count == sizeof(d->temp_history) / sizeof(d->temp_history[0])) {
		memmove(d->temp_history, d->temp_history + 1, sizeof(d->temp_history) - sizeof(float));
		memmove(d->temp_since, d->temp_since + 1, sizeof(d->temp_since) - sizeof(uint64_t));
		d->temp_count--;
	}
	d->temp_history[d->temp_count] = celsius;
	d->temp_since[d->temp_count] = w->now;
	d->temp_count++;
	trace_values(w, d, "temperature", "celsius", &celsius, 1);
}

void world_apply_input(world_t *w, world_device_t *d, const world_event_t *e)
{
	switch ((world_input_kind_t)e->kind) {
	case WORLD_IN_BUTTON: {
		uint8_t button = (uint8_t)e->value[0];
		bool down = e->value[1] != 0;
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "button");
			world_trace_strz(&w->json, "button", button ? "side" : "main");
			world_trace_bool(&w->json, "down", down);
			world_trace_end(&w->json, w);
		}
		bool exists = button == 0 || (d->features & HAL_FEATURE_SIDE_BUTTON);
		if (!exists || d->button_down[button] == down) {
			return; /* no such button, or no edge */
		}
		d->button_down[button] = down;
		if (d->booted) {
			rt_io_button_edge(&d->rt, button, down, world_device_ms(d));
			world_wake(w, d);
		}
		return;
	}
	case WORLD_IN_MOTION:
		d->moving = e->value[0] != 0;
		d->intensity = (float)e->value[1];
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "motion");
			world_trace_bool(&w->json, "moving", d->moving);
			world_trace_num(&w->json, "intensity", d->intensity);
			world_trace_end(&w->json, w);
		}
		if (d->has_imu) {
			schedule_motion_report(w, d);
		}
		return;
	case WORLD_IN_MOTION_REPORT:
		if ((uint64_t)e->value[1] == d->motion_change_seq && d->motion_reported != (e->value[0] != 0)) {
			report_motion(w, d, e->value[0] != 0);
		}
		return;
	case WORLD_IN_ACCEL:
		set_accel(w, d, e->value);
		return;
	case WORLD_IN_GYRO:
		for (int i = 0; i < 3; i++) {
			d->gyro[i] = (float)e->value[i];
		}
		trace_values(w, d, "gyro", "dps", d->gyro, 3);
		return;
	case WORLD_IN_IMU_EVENT:
		imu_event(w, d, e);
		return;
	case WORLD_IN_BATTERY:
		world_energy_set_percent(w, d, e->value[0]);
		trace_values(w, d, "battery", "percent", &d->battery_percent, 1);
		return;
	case WORLD_IN_CURRENT:
		world_energy_set_current(w, d, e->value[0]);
		trace_values(w, d, "current", "mA", &d->current_ma, 1);
		return;
	case WORLD_IN_POWER:
		power_change(w, d, e->value[0] != 0, e->value[1] != 0);
		return;
	case WORLD_IN_TEMPERATURE:
		temperature(w, d, (float)e->value[0]);
		return;
	case WORLD_IN_TIME_SYNC:
		d->utc_synced = e->value[0] != 0;
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "time-sync");
			world_trace_bool(&w->json, "synced", d->utc_synced);
			world_trace_end(&w->json, w);
		}
		/* Timers at a UTC time may now be due. */
		world_wake(w, d);
		return;
	case WORLD_IN_FAULT:
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "fault");
			world_trace_strz(&w->json, "fault", e->text);
			world_trace_end(&w->json, w);
		}
		if (strcmp(e->text, "hang") == 0) {
			d->hang_pending = true;
		} else {
			d->crash_pending = true;
			world_wake(w, d);
		}
		return;
	case WORLD_IN_STORAGE_FAULT:
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "storage-fault");
			world_trace_strz(&w->json, "fault", e->text);
			world_trace_end(&w->json, w);
		}
		d->flash_fault = strcmp(e->text, "timeout") == 0 ? HAL_FLASH_ETIMEDOUT : HAL_FLASH_EIO;
		return;
	case WORLD_IN_CLOUD_NETWORK:
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "cloud-network");
			world_trace_bool(&w->json, "up", e->value[0] != 0);
			world_trace_end(&w->json, w);
		}
		world_cloud_network(d, e->value[0] != 0);
		return;
	case WORLD_IN_POWER_CUT:
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "power-cut");
			world_trace_num(&w->json, "afterFlashOps", e->value[0]);
			world_trace_end(&w->json, w);
		}
		if (e->value[0] >= 1 && world_device_flash(d) != NULL) {
			sim_flash_cut_after(d->flash, (uint64_t)e->value[0], d->rt.index + 1u);
		} else {
			d->power_cut_pending = true;
			world_wake(w, d);
		}
		return;
	case WORLD_IN_BLE_CAPTURE:
		world_air_capture(w, d, e);
		return;
	case WORLD_IN_AIR_ADV:
		return; /* the scheduler gives these to the air (world_air_event) */
	case WORLD_IN_MOVE:
		d->lat = e->value[0];
		d->lon = e->value[1];
		d->alt = e->value[2];
		world_air_moved(w, d);
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "move");
			world_trace_num(&w->json, "lat", d->lat);
			world_trace_num(&w->json, "long", d->lon);
			world_trace_num(&w->json, "alt", d->alt);
			world_trace_end(&w->json, w);
		}
		return;
	case WORLD_IN_NFC_FIELD:
	case WORLD_IN_NFC_WRITE:
		world_nfc_input(w, d, e);
		return;
	case WORLD_IN_GNSS_FIX:
		world_gnss_fix_event(w, d, e);
		return;
	case WORLD_IN_MODEM_DONE:
		world_modem_done_event(w, d, e);
		return;
	case WORLD_IN_UWB_ROUND:
		world_uwb_round_event(w, d, e);
		return;
	case WORLD_IN_ENERGY:
		world_energy_event(w, d, e);
		return;
	case WORLD_IN_POWER_ON:
		world_device_power_on(w, d);
		return;
	case WORLD_IN_IMU_FAULT:
		d->imu_fault = e->value[0] != 0;
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "imu-fault");
			world_trace_bool(&w->json, "fault", d->imu_fault);
			world_trace_end(&w->json, w);
		}
		return;
	}
}

/*
 * world_hal.c: the HAL of a simulated device, on the world's model of its hardware.
 *
 * Every function works on the current device (the one whose code runs). What needs the host's
 * operating system (the real clock, the lock, cryptography, the end of the process) stays in the
 * port.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hal_clock.h"
#include "hal_console.h"
#include "hal_device.h"
#include "hal_led.h"
#include "hal_sensors.h"
#include "rt_battery.h"
#include "world.h"
#include "rt_reset.h"
#include "world_inputs.h"

static world_device_t *dev(void)
{
	return world_current();
}

/* ------------------------------------------------------------------ clock */

uint64_t hal_clock_ms(void)
{
	world_device_t *d = dev();
	return d != NULL ? world_device_ms(d) : 0;
}

bool hal_clock_utc_ms(int64_t *utc_ms)
{
	world_device_t *d = dev();
	if (d == NULL || !d->utc_synced) {
		return false;
	}
	*utc_ms = d->world->utc_at_start + (int64_t)d->world->now;
	return true;
}

bool hal_clock_wait_until(uint64_t deadline_ms, bool idle)
{
	/* The world owns time: its scheduler, not a device, decides when to run next. */
	(void)deadline_ms;
	(void)idle;
	return false;
}

void hal_clock_wake(void)
{
	/* Inputs wake their device through the world (world_wake). */
}

/* ------------------------------------------------------------------ console */

void hal_console_print(const char *text, size_t len)
{
	world_device_t *d = dev();
	if (d == NULL) {
		return;
	}
	world_t *w = d->world;
	if (w->io.print) {
		w->io.print(w->io.ctx, d->name, w->device_count > 1, text, len);
	}
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "print");
		world_trace_str(&w->json, "text", text, len);
		world_trace_end(&w->json, w);
	}
}

void hal_console_preview(const char *json, size_t len)
{
	world_device_t *d = dev();
	if (d == NULL || !world_tracing(d->world)) {
		return;
	}
	world_t *w = d->world;
	world_trace_begin(&w->json, w, d, "preview");
	world_trace_raw(&w->json, "data", json, len);
	world_trace_end(&w->json, w);
}

void hal_console_app_event(hal_app_event_t event, const char *detail)
{
	static const char *const names[] = {"started", "failed", "stopped", "removed", "restarting"};
	world_device_t *d = dev();
	if (d == NULL || !world_tracing(d->world)) {
		return;
	}
	world_t *w = d->world;
	world_trace_begin(&w->json, w, d, "app");
	world_trace_strz(&w->json, "state", names[event <= HAL_APP_RESTARTING ? event : 0]);
	if (detail != NULL) {
		world_trace_strz(&w->json, "detail", detail);
	}
	world_trace_end(&w->json, w);
}

void hal_console_record(const char *kind, const char *fields)
{
	world_device_t *d = dev();
	if (d == NULL || !world_tracing(d->world)) {
		return;
	}
	world_t *w = d->world;
	world_trace_begin(&w->json, w, d, kind);
	world_trace_fields(&w->json, fields);
	world_trace_end(&w->json, w);
}

void hal_log(hal_log_level_t level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	world_device_t *d = dev();
	if (d == NULL) {
		return;
	}
	world_t *w = d->world;
	if (w->io.log) {
		w->io.log(w->io.ctx, d->name, w->device_count > 1, level, text);
	}
	if (world_tracing(w) && level <= HAL_LOG_WARN) {
		world_trace_begin(&w->json, w, d, "log");
		world_trace_strz(&w->json, "level", names[level]);
		world_trace_strz(&w->json, "text", text);
		world_trace_end(&w->json, w);
	}
}

/* ------------------------------------------------------------------ identity */

size_t hal_device_public_id(uint8_t *buf, size_t cap)
{
	world_device_t *d = dev();
	if (d == NULL) {
		return 0;
	}
	size_t n = cap < d->public_id_len ? cap : d->public_id_len;
	memcpy(buf, d->public_id, n);
	return n;
}

const char *hal_device_hardware(void)
{
	world_device_t *d = dev();
	return d != NULL ? d->profile->hardware : "sim";
}

/* splitmix64's output function: a well-mixed 64-bit value from any 64-bit input. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void hal_device_random(void *buf, size_t len)
{
	/* What a device's entropy source would give, made repeatable: drawn from the world's seed,
	 * the device's index, its boot and how many draws came before. Every device, and every boot
	 * of one, gets its own bytes; the same scenario gives the same bytes on every run. */
	world_device_t *d = dev();
	uint64_t key = 0x5eac0b1d00000000ull;
	if (d != NULL) {
		key = mix64(d->world->seed ^ 0x9e3779b97f4a7c15ull);
		key = mix64(key ^ ((uint64_t)d->identity << 32 | d->boots));
		key = mix64(key ^ d->random_draws++);
	}
	uint8_t *out = buf;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = mix64(key += 0x9e3779b97f4a7c15ull);
		for (size_t j = 0; j < 8 && i + j < len; j++) {
			out[i + j] = (uint8_t)(x >> (8 * j));
		}
	}
}

void hal_device_fatal(const char *reason)
{
	world_fault(rt_reset_cause_of(reason), reason);
}

/* A driver call: where a scripted hang makes the hardware watchdog reset the device. */
static void driver_call(world_device_t *d)
{
	if (d != NULL && d->hang_pending) {
		d->hang_pending = false;
		world_fault(RT_RESET_WATCHDOG, "watchdog: a driver call did not return");
	}
}

uint32_t hal_device_features(void)
{
	world_device_t *d = dev();
	return d != NULL ? d->features : 0;
}

/* ------------------------------------------------------------------ LEDs */

uint32_t hal_led_count(void)
{
	world_device_t *d = dev();
	uint32_t n = d != NULL ? d->profile->leds : 0;
	return n < CONFIG_BEACON_MAX_LEDS ? n : CONFIG_BEACON_MAX_LEDS;
}

/* The verbose summary of the ring: one mark per LED, the colour of lit ones. Written once per
 * step of the device (an app call that sets every LED is one change, not twelve). */
void world_verbose_ring(world_t *w, world_device_t *d)
{
	if (!d->ring_changed || !w->verbose || !w->io.verbose) {
		return;
	}
	d->ring_changed = false;
	char line[256];
	char clock[32];
	uint64_t t = w->now;
	snprintf(clock, sizeof(clock), "%llu.%03llu s", (unsigned long long)(t / 1000),
		 (unsigned long long)(t % 1000));
	int n = snprintf(line, sizeof(line), "[%s %s] LEDs:", d->name, clock);
	uint32_t count = d->profile->leds < CONFIG_BEACON_MAX_LEDS ? d->profile->leds : CONFIG_BEACON_MAX_LEDS;
	for (uint32_t i = 0; i < count && n > 0 && (size_t)n < sizeof(line) - 24; i++) {
		const world_led_t *led = &d->leds[i];
		if (!led->on || led->brightness <= 0.0f) {
			n += snprintf(line + n, sizeof(line) - (size_t)n, " --");
		} else {
			unsigned r = (unsigned)lroundf(led->rgb[0] * led->brightness * 255.0f);
			unsigned g = (unsigned)lroundf(led->rgb[1] * led->brightness * 255.0f);
			unsigned b = (unsigned)lroundf(led->rgb[2] * led->brightness * 255.0f);
			n += snprintf(line + n, sizeof(line) - (size_t)n, " #%02x%02x%02x", r, g, b);
		}
	}
	w->io.verbose(w->io.ctx, line);
}

void hal_led_show(uint32_t index, bool on, const float rgb[3], float brightness)
{
	world_device_t *d = dev();
	driver_call(d);
	if (d == NULL || index >= hal_led_count()) {
		return;
	}
	world_led_t *led = &d->leds[index];
	bool same = d->led_shown[index] && led->on == on && led->brightness == brightness &&
		    memcmp(led->rgb, rgb, sizeof(led->rgb)) == 0;
	/* What the LED looks like: an LED that stays off does not change by a new colour. */
	bool looks_same = d->led_shown[index] && !led->on && !on;
	led->on = on;
	memcpy(led->rgb, rgb, sizeof(led->rgb));
	led->brightness = brightness;
	d->led_shown[index] = true;
	if (same || looks_same) {
		return;
	}
	world_t *w = d->world;
	world_energy_leds(w, d);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "led");
		world_trace_num(&w->json, "led", index);
		world_trace_bool(&w->json, "on", on);
		world_trace_nums(&w->json, "rgb", rgb, 3);
		world_trace_num(&w->json, "brightness", brightness);
		world_trace_end(&w->json, w);
	}
	d->ring_changed = true;
}

/* ------------------------------------------------------------------ IMU */

bool hal_imu_accel(float g[3])
{
	world_device_t *d = dev();
	driver_call(d);
	if (d == NULL || !d->has_imu) {
		g[0] = g[1] = g[2] = 0.0f;
		return false;
	}
	/* Readings clip at the full scale the app chose (2, 4, 8 or 16 g). */
	float full_scale = (float)(2u << d->range);
	for (int i = 0; i < 3; i++) {
		g[i] = fmaxf(-full_scale, fminf(full_scale, d->accel[i]));
	}
	return true;
}

bool hal_imu_gyro(float dps[3])
{
	world_device_t *d = dev();
	driver_call(d);
	if (d == NULL || !d->has_imu || !(d->features & HAL_FEATURE_GYRO)) {
		dps[0] = dps[1] = dps[2] = 0.0f;
		return false;
	}
	memcpy(dps, d->gyro, sizeof(d->gyro));
	return true;
}

void hal_imu_configure(uint8_t sensitivity, uint8_t responsiveness, uint8_t range)
{
	world_device_t *d = dev();
	if (d == NULL) {
		return;
	}
	bool detection = d->sensitivity != sensitivity || d->responsiveness != responsiveness;
	d->sensitivity = sensitivity;
	d->responsiveness = responsiveness;
	d->range = range;
	if (detection) {
		world_motion_reconsider(d->world, d);
	}
}

uint32_t hal_imu_events_supported(void)
{
	world_device_t *d = dev();
	return d != NULL && d->has_imu ? d->profile->imu_events : 0;
}

bool hal_imu_event_enable(hal_imu_event_t event, bool enable, float threshold)
{
	world_device_t *d = dev();
	if (d == NULL || event >= HAL_IMU_EVENT_COUNT) {
		return false;
	}
	if (enable && d->imu_fault) {
		return false;
	}
	if (enable) {
		d->imu_events |= 1u << event;
		d->thresholds[event] = threshold > 0 ? threshold : 0.0f;
	} else {
		d->imu_events &= ~(1u << event);
	}
	return true;
}

/* ------------------------------------------------------------------ power */

void hal_power_read(hal_power_t *power)
{
	world_device_t *d = dev();
	driver_call(d);
	memset(power, 0, sizeof(*power));
	if (d == NULL) {
		return;
	}
	/* The battery as the energy model has drained (or charged) it up to now. */
	double avg_ma = world_energy_avg_ma(d->world, d);
	power->percent = d->battery_percent;
	power->capacity_mah = d->profile->capacity_mah;
	power->external = d->external;
	/* A full battery stops charging even on external power (the spec's isCharging note). */
	power->charging = d->charging && d->battery_percent < 100.0f;
	power->current_ma = power->charging ? -d->profile->charge_current_ma : (float)avg_ma;
	/* The charger lifts the terminal voltage a little above the cell's. */
	power->voltage = rt_battery_cell_voltage(d->battery_percent) +
			 (power->charging ? RT_BATTERY_CHARGING_LIFT_V : 0.0f);
}

/* ------------------------------------------------------------------ temperature */

/* The sensor samples every 30 s, or every second in fast mode, starting at boot; a reading is the
 * last sample: the ambient temperature at that moment, plus 2.5 degrees while charging (the
 * spec's note that charging raises the reading). */
#define WORLD_TEMP_INTERVAL_MS 30000u
#define WORLD_TEMP_FAST_INTERVAL_MS 1000u
#define WORLD_TEMP_CHARGING_RISE 2.5f

float hal_temp_read(void)
{
	world_device_t *d = dev();
	driver_call(d);
	if (d == NULL) {
		return 0.0f;
	}
	uint64_t interval = d->temp_fast ? WORLD_TEMP_FAST_INTERVAL_MS : WORLD_TEMP_INTERVAL_MS;
	uint64_t since_boot = world_device_ms(d);
	uint64_t sampled_at = d->boot_at + since_boot / interval * interval;
	float ambient = d->temp_history[0];
	for (uint32_t i = 0; i < d->temp_count; i++) {
		if (d->temp_since[i] <= sampled_at) {
			ambient = d->temp_history[i];
		}
	}
	return ambient + (d->charging && d->battery_percent < 100.0f ? WORLD_TEMP_CHARGING_RISE : 0.0f);
}

void hal_temp_fast_mode(bool enabled)
{
	world_device_t *d = dev();
	if (d != NULL) {
		d->temp_fast = enabled;
	}
}

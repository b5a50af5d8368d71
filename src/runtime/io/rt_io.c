/*
 * io: the ring LEDs and the buttons. See rt_io.h for the model.
 */
#include "rt_io.h"

#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "hal_device.h"
#include "hal_led.h"
#include "hal_lock.h"
#include "rt_api_version.h"
#include "rt_color.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"
#include "rt_callback.h"

static rt_io_state_t *state(void)
{
	return &rt_device()->io;
}

static uint32_t led_count(void)
{
	uint32_t n = hal_led_count();
	return n < CONFIG_BEACON_MAX_LEDS ? n : CONFIG_BEACON_MAX_LEDS;
}

/* ------------------------------------------------------------------ LEDs */

/* The LEDs an id addresses: [*first, *first + *count). False for an id that is no LED; a side
 * LED group (io.Led) is true with count 0. */
static bool resolve_id(double id, uint32_t *first, uint32_t *count)
{
	uint32_t n = led_count();
	uint32_t side_base = rt_api_version() < RT_API_VERSION(0, 1, 0) ? 0u : 100u;
	bool segments = rt_api_version() < RT_API_VERSION(0, 2, 0);
	if (segments) {
		/* 0.0.9 and 0.1.5: ids 0 to 2 are the ring's segments; in 0.0.9 the side groups
		 * (io.Led) share those numbers, and an id names a segment there too. */
		if (id < 3) {
			uint32_t per = n / 3 ? n / 3 : 1;
			*first = (uint32_t)id * per;
			*count = *first < n ? (id == 2 ? n - *first : per) : 0;
			return *first < n;
		}
		if (side_base != 0 && id >= side_base && id < side_base + 3) {
			*first = 0;
			*count = 0;
			return true;
		}
		return false;
	}
	if (id >= side_base && id < side_base + 3) {
		*first = 0;
		*count = 0;
		return true;
	}
	if (id < n) {
		*first = (uint32_t)id;
		*count = 1;
		return true;
	}
	return false;
}

static eng_value_t bad_id(const char *function, double id)
{
	uint32_t n = led_count();
	if (rt_api_version() < RT_API_VERSION(0, 2, 0)) {
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "%s: id must be a ring segment from 0 to 2 or an io.Led member (got %.0f)",
				 function, id);
	}
	return rt_throw_arg(ENG_ERROR_RANGE,
			 "%s: id must be an LED from 0 to %u or an io.Led member (got %.0f)", function,
			 (unsigned)(n ? n - 1 : 0), id);
}

static void show(uint32_t index)
{
	const rt_led_t *led = &state()->leds[index];
	hal_led_show(index, led->on, led->rgb, led->brightness);
}

typedef void (*led_change_t)(rt_led_t *led, const void *value);

static void change(uint32_t first, uint32_t count, led_change_t fn, const void *value)
{
	for (uint32_t i = first; i < first + count && i < CONFIG_BEACON_MAX_LEDS; i++) {
		fn(&state()->leds[i], value);
		show(i);
	}
}

static void set_on(rt_led_t *led, const void *value)
{
	led->on = *(const bool *)value;
}

static void set_rgb(rt_led_t *led, const void *value)
{
	memcpy(led->rgb, value, sizeof(led->rgb));
}

static void set_brightness(rt_led_t *led, const void *value)
{
	led->brightness = *(const float *)value;
}

void rt_io_power_on(void)
{
	for (uint32_t i = 0; i < CONFIG_BEACON_MAX_LEDS; i++) {
		rt_led_t *led = &state()->leds[i];
		led->on = false;
		led->rgb[0] = led->rgb[1] = led->rgb[2] = 1.0f;
		led->brightness = 1.0f;
	}
	for (uint32_t i = 0; i < led_count(); i++) {
		show(i);
	}
}

eng_value_t rt_io_led(const rt_io_led_args_t *args)
{
	uint32_t first = 0, count = led_count();
	if (args->has_id && !resolve_id(args->id, &first, &count)) {
		return bad_id("io.led", args->id);
	}
	change(first, count, set_on, &args->state);
	return eng_undefined();
}

eng_value_t rt_io_setLedColor(const rt_io_setLedColor_args_t *args)
{
	uint32_t first = 0, count = led_count();
	if (args->has_id && !resolve_id(args->id, &first, &count)) {
		return bad_id("io.setLedColor", args->id);
	}
	float rgb[3];
	if (args->has_color) {
		for (int i = 0; i < 3; i++) {
			rgb[i] = (float)args->color.item[i];
		}
	} else {
		char text[32];
		size_t len = eng_string_copy(args->htmlColor, text, sizeof(text));
		if (len >= sizeof(text) || !rt_color_parse(text, len, rgb)) {
			return rt_throw_arg(ENG_ERROR_RANGE,
					 "io.setLedColor: htmlColor must be a colour name, #rgb or #rrggbb (got '%s')",
					 text);
		}
	}
	change(first, count, set_rgb, rgb);
	return eng_undefined();
}

eng_value_t rt_io_setLedBrightness(const rt_io_setLedBrightness_args_t *args)
{
	uint32_t first = 0, count = led_count();
	if (args->has_id && !resolve_id(args->id, &first, &count)) {
		return bad_id("io.setLedBrightness", args->id);
	}
	float brightness = (float)args->brightness;
	change(first, count, set_brightness, &brightness);
	return eng_undefined();
}

eng_value_t rt_io_getMaxLeds(void)
{
	return eng_number(led_count());
}

/* ------------------------------------------------------------------ buttons */

eng_value_t rt_io_press(const rt_io_press_args_t *args)
{
	uint32_t button = args->has_buttonId ? (uint32_t)args->buttonId : 0;
	uint32_t type = args->has_pressType ? (uint32_t)args->pressType : 0;
	if (button == 1 && !(hal_device_features() & HAL_FEATURE_SIDE_BUTTON) &&
	    !state()->side_missing_warned) {
		/* The spec has the side button "when available": registering is not an error, the
		 * callback just never runs here. */
		state()->side_missing_warned = true;
		hal_log(HAL_LOG_WARN, "io.press: this hardware has no side button");
	}
	rt_callback_keep(&state()->press[button][type], args->callback);
	return eng_undefined();
}

eng_value_t rt_io_onRawPress(const rt_io_onRawPress_args_t *args)
{
	rt_callback_keep(&state()->raw_press, args->callback);
	return eng_undefined();
}

/* Event payloads posted to the loop. */
typedef struct {
	uint8_t button;
	uint8_t pressed;
	int8_t press_type; /* on release: the classified press, or -1 */
} edge_event_t;

static void call_ref(eng_ref_t ref, const eng_value_t *argv, uint32_t argc)
{
	if (!ref) {
		return;
	}
	eng_value_t fn = eng_ref_get(ref);
	rt_loop_invoke(fn, argv, argc);
	eng_release(fn);
}

static void on_edge(const rt_event_t *event)
{
	edge_event_t e;
	memcpy(&e, event->payload, sizeof(e));
	rt_io_state_t *st = state();
	if (st->raw_press) {
		eng_value_t arg = eng_boolean(e.pressed != 0);
		call_ref(st->raw_press, &arg, 1);
		eng_release(arg);
	}
	if (e.press_type >= 0 && e.button < RT_IO_BUTTONS) {
		call_ref(st->press[e.button][e.press_type], NULL, 0);
	}
}

static int classify(uint64_t held_ms)
{
	if (held_ms < RT_IO_SHORT_BELOW_MS) {
		return 0;
	}
	if (held_ms > RT_IO_VERY_LONG_ABOVE_MS) {
		return 2;
	}
	if (held_ms > RT_IO_LONG_ABOVE_MS) {
		return 1;
	}
	return -1;
}

/* Called with device selected (the world selects it; the firmware has only one). */
void rt_io_button_edge(struct rt_device *device, uint8_t button, bool pressed, uint64_t at_ms)
{
	if (button >= RT_IO_BUTTONS) {
		return;
	}
	rt_io_state_t *st = &device->io;
	edge_event_t e = {button, pressed, -1};
	hal_lock_key_t key = hal_lock();
	if (pressed) {
		st->down[button] = true;
		st->down_at[button] = at_ms;
	} else if (st->down[button]) {
		st->down[button] = false;
		e.press_type = (int8_t)classify(at_ms - st->down_at[button]);
	}
	hal_unlock(key);
	if (device->app.state == RT_APP_STOPPED) {
		uint8_t restart_button = (hal_device_features() & HAL_FEATURE_SIDE_BUTTON) ? 1 : 0;
		if (e.press_type == 1 && button == restart_button) {
			device->app.restart_requested = true;
			hal_clock_wake();
		}
		return;
	}
	rt_loop_post_to(device, on_edge, &e, sizeof(e));
}

void rt_io_reset(void)
{
	rt_io_state_t *st = state();
	for (int b = 0; b < RT_IO_BUTTONS; b++) {
		for (int t = 0; t < RT_IO_PRESS_TYPES; t++) {
			rt_callback_drop(&st->press[b][t]);
		}
	}
	rt_callback_drop(&st->raw_press);
	st->side_missing_warned = false;
}

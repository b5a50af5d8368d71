/*
 * hal_led on Zephyr: the ring LEDs.
 *
 * The beacon's ring is an addressable RGB strip (WS2812-class) behind the devicetree alias
 * `led-strip`, driven with the LED strip API: its chain-length property gives the number of ring
 * LEDs (at most CONFIG_BEACON_MAX_LEDS), brightness is applied by scaling the colour, since the
 * strip API has no brightness of its own. Boards without a strip (the nRF52840 and nRF9160 DKs
 * have four single-colour LEDs) use the LEDs behind the aliases led0, led1, ... through the LED
 * API (gpio-leds or pwm-leds): one ring LED each, lit at the brightness of its brightest colour
 * channel (a GPIO LED is simply on or off).
 *
 * The runtime keeps each LED's state and calls hal_led_show() from the JavaScript thread only,
 * so nothing here needs a lock. An LED whose look does not change is not written again.
 */
#include "hal_led.h"
#include "port_zephyr.h"
#include "rt_config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <zephyr/device.h>
#include <zephyr/devicetree.h>
#include <zephyr/logging/log.h>
#include <zephyr/sys/util.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

/* One colour channel (0..1) at a brightness (0..1) on a scale of 0..full, rounded; out-of-range
 * input is clamped rather than wrapped. */
static uint8_t scale(float channel, float brightness, float full)
{
	float x = channel * brightness * full + 0.5f;

	if (!(x > 0.0f)) {
		return 0;
	}
	return x >= full ? (uint8_t)full : (uint8_t)x;
}

#if defined(CONFIG_LED_STRIP) && DT_NODE_HAS_STATUS(DT_ALIAS(led_strip), okay)

/* ------------------------------------------------------------------ addressable strip */

#include <zephyr/drivers/led_strip.h>

#define STRIP_NODE DT_ALIAS(led_strip)
/* chain-length is required by every led-strip binding (dts/bindings/led_strip/led-strip.yaml). */
#define RING_LEDS MIN(DT_PROP(STRIP_NODE, chain_length), CONFIG_BEACON_MAX_LEDS)

static const struct device *const strip = DEVICE_DT_GET(STRIP_NODE);
static bool strip_ok = true;
static bool strip_error_logged;
/* What each LED shows, and the copy handed to the driver: led_strip_update_rgb() "may overwrite
 * pixels" (include/zephyr/drivers/led_strip.h). */
static struct led_rgb shown[RING_LEDS];
static struct led_rgb frame[RING_LEDS];
static bool written;

uint32_t hal_led_count(void)
{
	return strip_ok ? RING_LEDS : 0;
}

void hal_led_show(uint32_t index, bool on, const float rgb[3], float brightness)
{
	if (!strip_ok || index >= RING_LEDS) {
		return;
	}
	struct led_rgb px;

	memset(&px, 0, sizeof(px));
	if (on) {
		px.r = scale(rgb[0], brightness, 255.0f);
		px.g = scale(rgb[1], brightness, 255.0f);
		px.b = scale(rgb[2], brightness, 255.0f);
	}
	if (written && shown[index].r == px.r && shown[index].g == px.g &&
	    shown[index].b == px.b) {
		return;
	}
	shown[index] = px;
	memcpy(frame, shown, sizeof(frame));
	/* The whole chain is shifted out on every change: a WS2812 chain cannot be written in
	 * part. 0 or a negative errno. */
	int rc = led_strip_update_rgb(strip, frame, RING_LEDS);

	if (rc != 0) {
		written = false; /* write everything again next time */
		if (!strip_error_logged) {
			LOG_ERR("LED strip %s: update failed (%d)", strip->name, rc);
			strip_error_logged = true;
		}
		return;
	}
	written = true;
}

void port_zephyr_led_init(void)
{
	if (!device_is_ready(strip)) {
		LOG_ERR("LED strip %s not ready: the ring has no LEDs", strip->name);
		strip_ok = false;
		return;
	}
	LOG_INF("ring: %u LEDs on strip %s", (unsigned)RING_LEDS, strip->name);
}

#elif defined(CONFIG_LED) && DT_NODE_HAS_STATUS(DT_ALIAS(led0), okay)

/* ------------------------------------------------------------------ single LEDs (LED API) */

#include <zephyr/drivers/led.h>

/* The LEDs behind led0 .. led11 that exist, in order: each is its controller (the gpio-leds or
 * pwm-leds parent) and its index among the controller's children, which is how the LED API
 * numbers them. (Zephyr 4.x names this pair `struct led_dt_spec`; 3.7 has only the pair.) */
struct ring_led {
	const struct device *dev;
	uint32_t index;
};

#define RING_LED(n)                                                                                \
	IF_ENABLED(DT_NODE_HAS_STATUS(DT_ALIAS(led##n), okay),                                     \
		   ({.dev = DEVICE_DT_GET(DT_PARENT(DT_ALIAS(led##n))),                            \
		     .index = DT_NODE_CHILD_IDX(DT_ALIAS(led##n))},))

static const struct ring_led ring[] = {
	RING_LED(0) RING_LED(1) RING_LED(2) RING_LED(3) RING_LED(4) RING_LED(5)
	RING_LED(6) RING_LED(7) RING_LED(8) RING_LED(9) RING_LED(10) RING_LED(11)
};

#define RING_LEDS MIN(ARRAY_SIZE(ring), CONFIG_BEACON_MAX_LEDS)
/* led_set_brightness() takes percent (include/zephyr/drivers/led.h). */
#define RING_LED_FULL 100

/* Brightness each LED shows (percent); -1: not written yet or the last write failed. */
static int16_t shown[RING_LEDS];
static bool usable[RING_LEDS];
static bool error_logged;

uint32_t hal_led_count(void)
{
	return RING_LEDS;
}

void hal_led_show(uint32_t index, bool on, const float rgb[3], float brightness)
{
	if (index >= RING_LEDS || !usable[index]) {
		return;
	}
	float peak = rgb[0];

	if (rgb[1] > peak) {
		peak = rgb[1];
	}
	if (rgb[2] > peak) {
		peak = rgb[2];
	}
	uint8_t level = on ? scale(peak, brightness, (float)RING_LED_FULL) : 0;

	if (shown[index] == level) {
		return;
	}
	/* led_set_brightness() falls back to on/off for LEDs without brightness control: any
	 * level above 0 lights a GPIO LED. 0 or a negative errno. */
	int rc = led_set_brightness(ring[index].dev, ring[index].index, level);

	if (rc != 0) {
		shown[index] = -1;
		if (!error_logged) {
			LOG_ERR("ring LED %u: setting brightness failed (%d)", (unsigned)index, rc);
			error_logged = true;
		}
		return;
	}
	shown[index] = level;
}

void port_zephyr_led_init(void)
{
	unsigned int ready = 0;

	for (size_t i = 0; i < RING_LEDS; i++) {
		shown[i] = -1;
		usable[i] = device_is_ready(ring[i].dev);
		if (!usable[i]) {
			LOG_ERR("ring LED %u (%s) not ready", (unsigned)i, ring[i].dev->name);
		} else {
			ready++;
		}
	}
	LOG_INF("ring: %u single LEDs (aliases led0..), %u ready", (unsigned)RING_LEDS, ready);
}

#else

/* ------------------------------------------------------------------ no ring */

uint32_t hal_led_count(void)
{
	return 0;
}

void hal_led_show(uint32_t index, bool on, const float rgb[3], float brightness)
{
	ARG_UNUSED(index);
	ARG_UNUSED(on);
	ARG_UNUSED(rgb);
	ARG_UNUSED(brightness);
}

void port_zephyr_led_init(void)
{
	LOG_WRN("no ring LEDs: no `led-strip` alias (CONFIG_LED_STRIP) nor `led0` (CONFIG_LED)");
}

#endif

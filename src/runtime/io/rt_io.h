/*
 * rt_io.h: the ring LEDs and the buttons (io.*).
 *
 * LEDs: the runtime keeps each LED's on/off state, colour and brightness and shows the result
 * through hal_led. An id below io.getMaxLeds() is one LED; in API 0.0.9 and 0.1.5 ids 0 to 2 are
 * the ring's three segments (a third of the LEDs each); the io.Led values (side LED groups)
 * belong to the system: accepted, with no effect.
 *
 * Buttons: the port reports every edge with rt_io_button_edge(), from any thread. A press is
 * classified when the button comes up, by how long it was down: SHORT under 1 s, LONG over 3 s,
 * VERY_LONG over 5 s (a press of 1 to 3 s is none of them). Raw edges go to io.onRawPress.
 * While the app is stopped, a LONG press of the side button (the main one where there is no side
 * button) starts it again (the spec's "restartable by cycling the side button").
 */
#ifndef RT_IO_H
#define RT_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "rt_config.h"

#define RT_IO_BUTTONS 2
#define RT_IO_PRESS_TYPES 3

/* Press durations, ms. */
#define RT_IO_SHORT_BELOW_MS 1000u
#define RT_IO_LONG_ABOVE_MS 3000u
#define RT_IO_VERY_LONG_ABOVE_MS 5000u

typedef struct {
	bool on;
	float rgb[3];
	float brightness;
} rt_led_t;

typedef struct {
	rt_led_t leds[CONFIG_BEACON_MAX_LEDS];
	/* Callbacks by button and press type, and of onRawPress (0: none). */
	eng_ref_t press[RT_IO_BUTTONS][RT_IO_PRESS_TYPES];
	eng_ref_t raw_press;
	/* Edge timing, written by rt_io_button_edge (any thread, under hal_lock). */
	bool down[RT_IO_BUTTONS];
	uint64_t down_at[RT_IO_BUTTONS];
	bool side_missing_warned;
} rt_io_state_t;

struct rt_device;

/* A button went down (pressed true) or up at at_ms (device time). */
void rt_io_button_edge(struct rt_device *device, uint8_t button, bool pressed, uint64_t at_ms);
/* Release callbacks (before the engine instance goes); LED states are kept. */
void rt_io_reset(void);
/* Give the LEDs their power-on state (all off, white, full brightness). */
void rt_io_power_on(void);

#endif /* RT_IO_H */

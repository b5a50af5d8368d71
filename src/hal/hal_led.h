/*
 * hal_led.h: the LEDs of the main ring.
 *
 * The runtime keeps each LED's logical state (on, colour, brightness) and hands the port the
 * result; the side LEDs (LTE, GPS, BLE groups) belong to the system and are not driven from
 * here.
 */
#ifndef HAL_LED_H
#define HAL_LED_H

#include <stdbool.h>
#include <stdint.h>

/* Number of ring LEDs this hardware has (io.getMaxLeds()). */
uint32_t hal_led_count(void);
/* Show LED index: off, or on with colour (red, green, blue from 0 to 1) at brightness 0 to 1. */
void hal_led_show(uint32_t index, bool on, const float rgb[3], float brightness);

#endif /* HAL_LED_H */

/*
 * port_zephyr.h: what the Zephyr port offers beyond the HAL headers, for the port's own drivers.
 * Portable code never includes this file.
 */
#ifndef PORT_ZEPHYR_H
#define PORT_ZEPHYR_H

#include <stdint.h>

#include "rt_reset.h"

/*
 * Set the UTC clock: utc_ms is milliseconds since 1970 at the moment of the call. Until the first
 * call hal_clock_utc_ms() reports the clock as not synced. Meant for the time sources of the
 * nRF9160 (network time from the LTE modem, GNSS fixes); callable from any thread or ISR. Later
 * calls correct the clock (jumps in both directions are allowed); the JavaScript loop is woken so
 * that timers due at a UTC time are looked at again.
 */
void hal_clock_set_utc_ms(int64_t utc_ms);

struct rt_device;

/*
 * The device-local drivers: ring LEDs (hal_led_zephyr.c), buttons (hal_button_zephyr.c), motion
 * sensor, battery and power, temperature (hal_sensors_zephyr.c). main() brings them up once,
 * after rt_device_select() and before the first app is installed; device is the runtime's one
 * device, to which the drivers post what they detect. Hardware the devicetree does not describe,
 * or that does not answer, is reported in the log and left out (the HAL then reads as "not
 * present"); nothing here stops the firmware from running apps.
 */
void port_zephyr_led_init(void);
void port_zephyr_button_init(struct rt_device *device);
void port_zephyr_sensors_init(struct rt_device *device);
/*
 * The radios beyond BLE, each built only with nRF Connect SDK (docs/firmware.md); without it
 * these do nothing and the HAL reports no hardware: GNSS (hal_gnss_zephyr.c, nrf_modem_gnss),
 * the LTE modem's queries and airplane mode (hal_modem_zephyr.c), the NFC tag
 * (hal_nfc_zephyr.c, nfc_t2t).
 */
void port_zephyr_gnss_init(struct rt_device *device);
void port_zephyr_modem_init(struct rt_device *device);
void port_zephyr_nfc_init(struct rt_device *device);

/* Offer the upload service on the air (upload_service_zephyr.c): Bluetooth on, and a connectable
 * advertisement naming MCUmgr's SMP service in an advertising set beside the app's. Nothing
 * without CONFIG_MCUMGR_TRANSPORT_BT. */
void port_zephyr_upload_service_start(void);

/* Faults (hal_reset_zephyr.c). At boot: the reset record, checked (cleared after power-on), with
 * a hardware watchdog reset the task watchdog did not see recorded. */
rt_reset_record_t *port_zephyr_reset_boot(void);
/* Record a fault and reboot. */
void port_zephyr_reset_fault(rt_reset_cause_t cause, const char *detail) __attribute__((noreturn));
/* The JavaScript thread's watchdog channel: set up once, fed from the event loop. */
void port_zephyr_watchdog_init(void);
void port_zephyr_watchdog_feed(void);

#endif /* PORT_ZEPHYR_H */

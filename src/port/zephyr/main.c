/*
 * Firmware entry point: start the runtime, bring up the device's drivers and run the installed
 * app on this (the main) thread.
 *
 * The installed app is the app store's (rt_app_store.h, on the devicetree's two app partitions:
 * app_store_zephyr.c): the package an upload installed last, checked again at each boot. A
 * package linked into the image at build time (CMake variable BEACON_APP_PACKAGE, zephyr.cmake)
 * is only the factory default, run while the store holds no app that passes its checks.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

#include "app_store_zephyr.h"
#include "hal_clock.h"
#include "glue_app.h"
#include "hal_device.h"
#include "port_zephyr.h"
#include "rt_app.h"
#include "rt_device.h"
#include "rt_reset.h"
#include "rt_signature.h"

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(BEACON_HAVE_APP_PACKAGE)
/* The engine reads the bytecode in place; it follows the 40-byte header, so aligning the package
 * aligns the bytecode too (JerryScript snapshots must be 32-bit aligned). */
static _Alignas(8) const uint8_t app_package[] = {
#include "beacon_app_package.inc"
};
#endif

/* The package to run: the store's installed app, else the factory default. */
static bool installed_package(const uint8_t **package, size_t *len)
{
	const uint8_t *factory = NULL;
	size_t factory_len = 0;
	char msg[160] = "";

#if defined(BEACON_HAVE_APP_PACKAGE)
	factory = app_package;
	factory_len = sizeof(app_package);
#endif
	rt_app_store_t *store = port_zephyr_app_store(NULL, msg, sizeof(msg));

	if (store == NULL) {
		/* Without the store only the factory default can run. */
		LOG_WRN("app store: %s", msg);
		*package = factory;
		*len = factory_len;
		return factory != NULL;
	}
	if (msg[0] != '\0') {
		/* A newer install no longer passes its checks (a flipped bit, a key no longer
		 * trusted, a firmware for another engine): the one before it runs. */
		LOG_ERR("the newest installed app was refused: %s", msg);
	}
	switch (rt_app_store_boot_package(store, factory, factory_len, package, len)) {
	case RT_APP_STORE_FROM_STORE:
		LOG_INF("app: installed, %u bytes (install %u)", (unsigned)*len,
			(unsigned)rt_app_store_sequence(store));
		return true;
	case RT_APP_STORE_FROM_FACTORY:
		LOG_INF("app: the factory default linked into the image, %u bytes", (unsigned)*len);
		return true;
	default:
		return false;
	}
}

static const char *run_result_text(rt_run_result_t result)
{
	switch (result) {
	case RT_RUN_APP_STOPPED:
		return "the app stopped";
	case RT_RUN_TIME_UP:
		return "time is up";
	case RT_RUN_IDLE:
		return "nothing left that could run";
	case RT_RUN_RESTART:
		return "restart";
	case RT_RUN_CONTINUE:
		return "still running";
	}
	return "unknown result";
}

/* The one device this firmware is. */
static rt_device_t device;

/* The device-local drivers post to the runtime's device, so they come up once it is selected,
 * and before the first app: installing one configures the sensors and shows the LEDs. */
static void port_zephyr_drivers_init(rt_device_t *dev)
{
	port_zephyr_led_init();
	port_zephyr_button_init(dev);
	port_zephyr_sensors_init(dev);
	port_zephyr_gnss_init(dev);
	port_zephyr_modem_init(dev);
	port_zephyr_nfc_init(dev);
}

/* After app.stop(): the app may be started again by a LONG press of the side button (the main
 * one without a side button), which rt_io marks and which wakes this thread. Returns true to
 * restart, false if the app cannot run again. */
static bool wait_for_restart(void)
{
	while (rt_app_state() == RT_APP_STOPPED) {
		uint64_t next_ms;

		if (rt_app_step(&next_ms) == RT_RUN_RESTART) {
			return true;
		}
		(void)hal_clock_wait_until(HAL_CLOCK_FOREVER, true);
	}
	return false;
}

int main(void)
{
	const uint8_t *package;
	size_t package_len;

	LOG_INF("beacon runtime on %s", hal_device_hardware());
	rt_reset_record_t *reset = port_zephyr_reset_boot();
	port_zephyr_watchdog_init();
	rt_device_init(&device, 0);
	rt_device_select(&device);
	port_zephyr_drivers_init(&device);
	if (rt_signature_trust_list(CONFIG_BEACON_TRUSTED_KEYS) < 0) {
		/* Refuse to run anything rather than silently run unsigned apps. */
		LOG_ERR("CONFIG_BEACON_TRUSTED_KEYS is malformed: no app runs");
		return 0;
	}
	if (!installed_package(&package, &package_len)) {
		LOG_WRN("no app installed (upload one, or build with -DBEACON_APP_PACKAGE=<app.bapp> "
			"for a factory default)");
		return 0;
	}

	if (reset->app_stopped) {
		/* The reboot-loop guard stopped the app: it waits for a long press of the side
		 * button (or an upload) instead of resetting the device again. */
		LOG_ERR("ESR0002 Reboot loop detected: %u resets in a row within %u min of boot; the "
			"app is stopped", RT_RESET_LOOP_COUNT, RT_RESET_LOOP_WINDOW_MS / 60000u);
		device.app.state = RT_APP_STOPPED;
		if (!wait_for_restart()) {
			return 0;
		}
		rt_reset_record_cleared(reset);
		rt_app_reset_notice((rt_reset_cause_t)reset->cause, reset->detail, true);
	} else if (reset->cause != RT_RESET_NONE) {
		/* The app's error handler hears of the reset once it has set one. */
		rt_app_reset_notice((rt_reset_cause_t)reset->cause, reset->detail, false);
	}

	for (;;) {
		char msg[160] = "";

		/* A refused package or a failing top level is logged by hal_console_app_event. */
		if (glue_app_install(package, package_len, msg, sizeof(msg)) != 0) {
			return 0;
		}
		rt_run_result_t result = rt_app_run(HAL_CLOCK_FOREVER);

		if (result == RT_RUN_APP_STOPPED && rt_app_state() == RT_APP_STOPPED) {
			result = wait_for_restart() ? RT_RUN_RESTART : RT_RUN_APP_STOPPED;
		}
		if (result != RT_RUN_RESTART) {
			LOG_INF("app ended: %s", run_result_text(result));
			return 0;
		}
		/* app.restart() or the side button: a fresh engine and the same package from the
		 * top. */
	}
}

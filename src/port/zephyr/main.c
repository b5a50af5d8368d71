/*
 * Firmware entry point: start the runtime, bring up the device's drivers and run the installed
 * app on this (the main) thread.
 *
 * The installed app is the app store's (rt_app_store.h, on the devicetree's two app partitions:
 * app_store_zephyr.c): the package an upload installed last, checked again at each boot. A
 * package linked into the image at build time (CMake variable BEACON_APP_PACKAGE, zephyr.cmake)
 * is only the factory default, run while the store holds no app that passes its checks. Uploads
 * come through MCUmgr (smp_zephyr.c) while the app runs; an install switches to the new package
 * on this thread.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
#include "smp_zephyr.h"

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(BEACON_HAVE_APP_PACKAGE)
/* The engine reads the bytecode in place; it follows the 40-byte header, so aligning the package
 * aligns the bytecode too (JerryScript snapshots must be 32-bit aligned). */
static _Alignas(8) const uint8_t app_package[] = {
#include "beacon_app_package.inc"
};
#endif

static rt_app_store_t *store;

/* The package to run at boot: the store's installed app, else the factory default. */
static bool installed_package(const uint8_t **package, size_t *len)
{
	const uint8_t *factory = NULL;
	size_t factory_len = 0;

#if defined(BEACON_HAVE_APP_PACKAGE)
	factory = app_package;
	factory_len = sizeof(app_package);
#endif
	if (store == NULL) {
		/* Without the store only the factory default can run. */
		*package = factory;
		*len = factory_len;
		return factory != NULL;
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

/* The package the device runs, and the record of the reset before this boot. */
static const uint8_t *running_package;
static size_t running_len;
static rt_reset_record_t *reset;

/* Start (again) the package the device runs: a fresh engine, its top level. A refused package
 * or a failing top level is logged by hal_console_app_event. */
static int start(char *msg, size_t msg_cap)
{
	return glue_app_install(running_package, running_len, msg, msg_cap);
}

/* An upload was installed (smp_zephyr.c, on this thread): the new package runs from now on. */
static int switch_to(void *ctx, const uint8_t *package, size_t len, char *msg, size_t msg_cap)
{
	ARG_UNUSED(ctx);
	running_package = package;
	running_len = len;
	/* An upload starts the app again, whatever stopped it (the reboot-loop guard included). */
	rt_reset_record_cleared(reset);
	return start(msg, msg_cap);
}

/* The reboot-loop guard is about to stop the app. On a device that takes deployments an app
 * installed over another (from the cloud or an upload) is rolled back to the one before it
 * instead (rt_app_store_roll_back), and the next sync reports it, as the simulator's device does.
 * False when there is nothing to roll back to. */
static bool rolled_back(void)
{
#if defined(CONFIG_MQTT_LIB)
	const uint8_t *installed;
	const uint8_t *before;
	size_t n;
	size_t before_len;
	char msg[160];
	char why[120];

	if (store == NULL || !rt_app_store_installed(store, &installed, &n) ||
	    installed != running_package ||
	    rt_app_store_roll_back(store, msg, sizeof(msg)) != RT_APP_STORE_OK ||
	    !rt_app_store_installed(store, &before, &before_len)) {
		return false;
	}
	snprintf(why, sizeof(why), "ESR0002 Reboot loop detected: %u resets in a row within %u min of boot",
		 RT_RESET_LOOP_COUNT, RT_RESET_LOOP_WINDOW_MS / 60000u);
	/* The rolled-back bytes stay in their slot until the next download erases them. */
	rt_cloud_deploy_rolled_back(&device.cloud_deploy, installed, n, why);
	running_package = before;
	running_len = before_len;
	rt_reset_record_cleared(reset);
	LOG_ERR("%s; the app was rolled back to the one installed before it", why);
	return true;
#else
	return false;
#endif
}

static const char *app_state(void *ctx)
{
	ARG_UNUSED(ctx);
	return rt_app_state_name(rt_app_state());
}

static void wake(void *ctx)
{
	ARG_UNUSED(ctx);
	hal_clock_wake();
}

/*
 * The JavaScript thread's loop, for as long as the device runs: what is due, then a sleep until
 * the next deadline or until a driver, the radio or the upload service wakes it. A stopped app
 * waits for a LONG press of the side button (the main one without a side button), which rt_io
 * marks and which makes rt_app_step() answer RT_RUN_RESTART; app.restart() does the same. A
 * failed or removed app, or none, waits for an upload.
 */
static void run(void)
{
	for (;;) {
		uint64_t next = HAL_CLOCK_FOREVER;
		rt_app_state_t state = rt_app_state();
		rt_run_result_t result = state == RT_APP_RUNNING || state == RT_APP_STOPPED
						 ? rt_app_step(&next)
						 : RT_RUN_APP_STOPPED;

		if (port_zephyr_smp_poll()) {
			continue; /* a new app: its first turn now */
		}
		if (result == RT_RUN_RESTART) {
			char msg[160];

			if (reset->app_stopped) {
				/* The side button started the app the reboot-loop guard stopped. */
				rt_reset_record_cleared(reset);
			}
			(void)start(msg, sizeof(msg));
			continue;
		}
		if (result != RT_RUN_CONTINUE) {
			next = HAL_CLOCK_FOREVER;
		}
		(void)hal_clock_wait_until(next, next == HAL_CLOCK_FOREVER);
	}
}

int main(void)
{
	char msg[160] = "";

	LOG_INF("beacon runtime on %s", hal_device_hardware());
	reset = port_zephyr_reset_boot();
	port_zephyr_watchdog_init();
	rt_device_init(&device, 0);
	rt_device_select(&device);
	port_zephyr_drivers_init(&device);
	if (rt_signature_trust_list(CONFIG_BEACON_TRUSTED_KEYS) < 0) {
		/* Refuse to run anything rather than silently run unsigned apps. */
		LOG_ERR("CONFIG_BEACON_TRUSTED_KEYS is malformed: no app runs");
		return 0;
	}
	store = port_zephyr_app_store(NULL, msg, sizeof(msg));
	if (store == NULL) {
		LOG_WRN("app store: %s", msg);
	} else {
		if (msg[0] != '\0') {
			/* A newer install no longer passes its checks (a flipped bit, a key no longer
			 * trusted, a firmware for another engine): the one before it runs. */
			LOG_ERR("the newest installed app was refused: %s", msg);
		}
		const smp_zephyr_app_t app = {
			.switch_to = switch_to,
			.state = app_state,
			.wake = wake,
		};
		port_zephyr_smp_init(store, &app);
		port_zephyr_upload_service_start();
#if defined(CONFIG_MQTT_LIB)
		/* The sync takes the apps deployed to the device (rt_cloud_deploy.h). */
		device.cloud_deploy.target = port_zephyr_smp_deploy_target();
#endif
	}
	if (!installed_package(&running_package, &running_len)) {
		LOG_WRN("no app installed (upload one, or build with -DBEACON_APP_PACKAGE=<app.bapp> "
			"for a factory default)");
	} else if (reset->app_stopped && !rolled_back()) {
		/* The reboot-loop guard stopped the app: it waits for a long press of the side
		 * button (or an upload) instead of resetting the device again. */
		LOG_ERR("ESR0002 Reboot loop detected: %u resets in a row within %u min of boot; the "
			"app is stopped", RT_RESET_LOOP_COUNT, RT_RESET_LOOP_WINDOW_MS / 60000u);
		device.app.state = RT_APP_STOPPED;
		rt_app_reset_notice((rt_reset_cause_t)reset->cause, reset->detail, true);
	} else {
		if (reset->cause != RT_RESET_NONE) {
			/* The app's error handler hears of the reset once it has set one. */
			rt_app_reset_notice((rt_reset_cause_t)reset->cause, reset->detail, false);
		}
		(void)start(msg, sizeof(msg));
	}
	run();
	return 0;
}

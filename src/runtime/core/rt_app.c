#include "rt_app.h"

#include <stdio.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "rt_alarm.h"
#include "rt_api_version.h"
#include "rt_ble.h"
#include "rt_config.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_handle.h"
#include "rt_io.h"
#include "rt_location.h"
#include "rt_loop.h"
#include "rt_modem.h"
#include "rt_nfc.h"
#include "rt_package.h"
#include "rt_sensors.h"
#include "rt_signature.h"
#include "rt_timers.h"
#include "rt_uwb.h"

static rt_app_lifecycle_t *life(void)
{
	return &rt_device()->app;
}

static void teardown(void)
{
	rt_device_t *dev = rt_device();
	if (dev->engine == NULL) {
		return;
	}
	eng_select(dev->engine);
	eng_scope_enter();
	rt_timers_reset();
	rt_alarm_reset();
	rt_io_reset();
	rt_sensors_reset();
	rt_ble_reset();
	rt_location_reset();
	rt_modem_reset();
	rt_nfc_reset();
	rt_uwb_reset();
	rt_loop_reset();
	rt_handle_reset();
	eng_scope_leave();
	eng_destroy(dev->engine);
	dev->engine = NULL;
	dev->api_bit = -1;
}

void rt_app_deinit(void)
{
	teardown();
	life()->state = RT_APP_NONE;
}

int rt_app_prepare(const uint8_t *package, size_t len, rt_package_t *pkg, char *msg,
		   size_t msg_cap)
{
	rt_device_t *dev = rt_device();
	teardown();
	life()->restart_requested = false;
	if (rt_package_check(package, len, pkg, msg, msg_cap) != RT_PACKAGE_OK ||
	    rt_signature_check(package, pkg, msg, msg_cap) != RT_SIGNATURE_OK) {
		life()->state = RT_APP_FAILED;
		hal_console_app_event(HAL_APP_FAILED, msg);
		return -1;
	}
	dev->api_version = pkg->api_version;
	dev->api_bit = rt_api_version_bit_of(pkg->api_version);
	dev->engine_starting = true;
	dev->engine = eng_create(&dev->engine_config);
	dev->engine_starting = false;
	if (dev->engine == NULL) {
		snprintf(msg, msg_cap, "the JavaScript engine could not start (heap of %u bytes)",
			 (unsigned)dev->engine_config.heap_size);
		life()->state = RT_APP_FAILED;
		hal_console_app_event(HAL_APP_FAILED, msg);
		return -1;
	}
	/* A new app finds the hardware as after power-on: LEDs off, sensor defaults. */
	rt_io_power_on();
	rt_sensors_reset();
	rt_ble_reset();
	return 0;
}

void rt_app_fail(char *msg, size_t msg_cap, const char *why)
{
	snprintf(msg, msg_cap, "%s", why);
	life()->state = RT_APP_FAILED;
	hal_console_app_event(HAL_APP_FAILED, msg);
}

int rt_app_start(const rt_package_t *pkg, char *msg, size_t msg_cap)
{
	life()->started_ms = hal_clock_ms();
	life()->state = RT_APP_RUNNING;
	/* The engine's and the API's start-up use ends here: the device's heap budget is the app's. */
	eng_heap_seal();
	eng_mem_reset_peak();
	eng_scope_enter();
	eng_watchdog_arm();
	eng_value_t result = eng_run_bytecode(pkg->bytecode, pkg->bytecode_size);
	eng_watchdog_disarm();
	int rc = 0;
	if (eng_is_exception(result)) {
		eng_value_t thrown = eng_exception_value(result);
		char text[200];
		eng_describe(thrown, text, sizeof(text));
		snprintf(msg, msg_cap, "the app failed while starting: %s", text);
		eng_release(thrown);
		life()->state = RT_APP_FAILED;
		/* An app that is not running does not keep the radio on. */
		rt_ble_reset();
		hal_console_app_event(HAL_APP_FAILED, msg);
		rc = -1;
	} else {
		eng_release(result);
		hal_console_app_event(HAL_APP_STARTED, NULL);
		rt_loop_run_jobs();
	}
	eng_scope_leave();
	return rc;
}

rt_run_result_t rt_app_step(uint64_t *next_ms)
{
	if (life()->state == RT_APP_STOPPED && life()->restart_requested) {
		life()->restart_requested = false;
		hal_log(HAL_LOG_INFO, "app started again (side button)");
		hal_console_app_event(HAL_APP_RESTARTING, "side button");
		return RT_RUN_RESTART;
	}
	if (life()->state != RT_APP_RUNNING) {
		return RT_RUN_APP_STOPPED;
	}
	return rt_loop_step(next_ms);
}

rt_run_result_t rt_app_run(uint64_t until_ms)
{
	if (life()->state != RT_APP_RUNNING) {
		return RT_RUN_APP_STOPPED;
	}
	return rt_loop_run(until_ms);
}

rt_app_state_t rt_app_state(void)
{
	return (rt_app_state_t)life()->state;
}

const char *rt_app_state_name(rt_app_state_t state)
{
	switch (state) {
	case RT_APP_RUNNING:
		return "running";
	case RT_APP_FAILED:
		return "failed";
	default:
		return "stopped";
	}
}

/* ------------------------------------------------------------------ app namespace */

void rt_app_reset_notice(rt_reset_cause_t cause, const char *detail, bool loop)
{
	life()->notice_cause = (uint8_t)cause;
	life()->notice_loop = loop;
	snprintf(life()->notice_detail, sizeof(life()->notice_detail), "%s", detail ? detail : "");
}

/* The previous reset, told to the handler the app has just set. */
static void tell_reset(const rt_event_t *event)
{
	(void)event;
	rt_app_lifecycle_t *l = life();
	if (l->notice_cause == RT_RESET_NONE && !l->notice_loop) {
		return;
	}
	rt_reset_cause_t cause = (rt_reset_cause_t)l->notice_cause;
	eng_value_t error = l->notice_loop
				    ? rt_error_esr(RT_ESR0002_REBOOT_LOOP,
						   "the app was stopped after %u resets in a row, the last: %s",
						   RT_RESET_LOOP_COUNT, l->notice_detail)
				    : rt_error_esr(RT_ESR0001_UNKNOWN, "the device reset: %s", l->notice_detail);
	eng_value_t name = eng_string_z(rt_reset_cause_name(cause));
	eng_set(error, "reset", name);
	eng_release(name);
	l->notice_cause = RT_RESET_NONE;
	l->notice_loop = false;
	rt_loop_report(RT_ERROR_SYSTEM, error);
	eng_release(error);
}

eng_value_t rt_app_setErrorHandler(const rt_app_setErrorHandler_args_t *args)
{
	eng_type_t t = eng_typeof(args->errorHandler);
	rt_loop_set_error_handler(t == ENG_TYPE_FUNCTION ? eng_ref_new(args->errorHandler) : 0);
	if (t == ENG_TYPE_FUNCTION && (life()->notice_cause != RT_RESET_NONE || life()->notice_loop)) {
		rt_loop_post(tell_reset, NULL, 0);
	}
	return eng_undefined();
}

eng_value_t rt_app_stop(void)
{
	life()->state = RT_APP_STOPPED;
	rt_ble_reset();
	hal_log(HAL_LOG_INFO, "app stopped itself (app.stop())");
	hal_console_app_event(HAL_APP_STOPPED, NULL);
	rt_loop_request_exit(RT_RUN_APP_STOPPED);
	return eng_undefined();
}

eng_value_t rt_app_remove(void)
{
	life()->state = RT_APP_REMOVED;
	rt_ble_reset();
	hal_log(HAL_LOG_INFO, "app removed itself (app.remove())");
	hal_console_app_event(HAL_APP_REMOVED, NULL);
	rt_loop_request_exit(RT_RUN_APP_STOPPED);
	return eng_undefined();
}

eng_value_t rt_app_restart(void)
{
	hal_log(HAL_LOG_INFO, "app restarting (app.restart())");
	hal_console_app_event(HAL_APP_RESTARTING, "app.restart()");
	rt_loop_request_exit(RT_RUN_RESTART);
	return eng_undefined();
}

eng_value_t rt_app_getUptime(void)
{
	return eng_number((double)(hal_clock_ms() - life()->started_ms));
}

eng_value_t rt_app_gc(void)
{
	eng_gc();
	return eng_undefined();
}

eng_value_t rt_app_getMemStats(void)
{
	eng_mem_stats_t stats;
	eng_mem_stats(&stats);
	rt_MemStats_t v = {
		.total = (double)stats.total,
		.used = (double)stats.used,
		.free = (double)(stats.total - stats.used),
		.peak = (double)stats.peak,
	};
	return api_make_MemStats(&v);
}

#include "rt_app.h"

#include <stdio.h>

#include "api_glue.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "rt_config.h"
#include "rt_errors.h"
#include "rt_loop.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "rt_timers.h"

static rt_app_state_t state = RT_APP_NONE;
static uint32_t api_version;
static uint64_t started_ms;
static bool engine_up;

int rt_app_init(void)
{
	state = RT_APP_NONE;
	rt_loop_init();
	return 0;
}

static void teardown(void)
{
	if (!engine_up) {
		return;
	}
	eng_scope_enter();
	rt_timers_reset();
	rt_loop_reset();
	glue_uninstall();
	eng_scope_leave();
	eng_deinit();
	engine_up = false;
}

void rt_app_deinit(void)
{
	teardown();
	state = RT_APP_NONE;
}

int rt_app_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap)
{
	teardown();
	rt_package_t pkg;
	if (rt_package_check(package, len, &pkg, msg, msg_cap) != RT_PACKAGE_OK ||
	    rt_signature_check(package, &pkg, msg, msg_cap) != RT_SIGNATURE_OK) {
		state = RT_APP_FAILED;
		return -1;
	}
	int bit = glue_version_bit(pkg.api_version);
	api_version = pkg.api_version;
	eng_config_t config = {
		.heap_size = RT_JS_HEAP_BYTES,
		.exec_limit_ms = CONFIG_BEACON_EXEC_LIMIT_MS,
	};
	if (eng_init(&config) != 0) {
		snprintf(msg, msg_cap, "the JavaScript engine could not start (heap of %u bytes)",
			 (unsigned)config.heap_size);
		state = RT_APP_FAILED;
		return -1;
	}
	engine_up = true;
	eng_scope_enter();
	if (glue_install(bit) != 0) {
		eng_scope_leave();
		snprintf(msg, msg_cap, "the API %u.%u.%u could not be installed",
			 (unsigned)(pkg.api_version >> 16), (unsigned)((pkg.api_version >> 8) & 0xff),
			 (unsigned)(pkg.api_version & 0xff));
		state = RT_APP_FAILED;
		return -1;
	}
	started_ms = hal_clock_ms();
	state = RT_APP_RUNNING;
	eng_mem_reset_peak();
	eng_watchdog_arm();
	eng_value_t result = eng_run_bytecode(pkg.bytecode, pkg.bytecode_size);
	eng_watchdog_disarm();
	int rc = 0;
	if (eng_is_exception(result)) {
		eng_value_t thrown = eng_exception_value(result);
		char text[200];
		eng_describe(thrown, text, sizeof(text));
		snprintf(msg, msg_cap, "the app failed while starting: %s", text);
		eng_release(thrown);
		state = RT_APP_FAILED;
		rc = -1;
	} else {
		eng_release(result);
		rt_loop_run_jobs();
	}
	eng_scope_leave();
	return rc;
}

rt_run_result_t rt_app_run(uint64_t until_ms)
{
	if (state != RT_APP_RUNNING) {
		return RT_RUN_APP_STOPPED;
	}
	rt_run_result_t result = rt_loop_run(until_ms);
	return result;
}

rt_app_state_t rt_app_state(void)
{
	return state;
}

uint32_t rt_app_api_version(void)
{
	return api_version;
}

/* ------------------------------------------------------------------ app namespace */

eng_value_t rt_app_setErrorHandler(const rt_app_setErrorHandler_args_t *args)
{
	eng_type_t t = eng_typeof(args->errorHandler);
	rt_loop_set_error_handler(t == ENG_TYPE_FUNCTION ? eng_ref_new(args->errorHandler) : 0);
	return eng_undefined();
}

eng_value_t rt_app_stop(void)
{
	state = RT_APP_STOPPED;
	hal_log(HAL_LOG_INFO, "app stopped itself (app.stop())");
	rt_loop_request_exit(RT_RUN_APP_STOPPED);
	return eng_undefined();
}

eng_value_t rt_app_remove(void)
{
	state = RT_APP_REMOVED;
	hal_log(HAL_LOG_INFO, "app removed itself (app.remove())");
	rt_loop_request_exit(RT_RUN_APP_STOPPED);
	return eng_undefined();
}

eng_value_t rt_app_restart(void)
{
	hal_log(HAL_LOG_INFO, "app restarting (app.restart())");
	rt_loop_request_exit(RT_RUN_RESTART);
	return eng_undefined();
}

eng_value_t rt_app_getUptime(void)
{
	return eng_number((double)(hal_clock_ms() - started_ms));
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
	return glue_make_MemStats(&v);
}

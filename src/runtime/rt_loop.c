#include "rt_loop.h"

#include <string.h>

#include "hal_clock.h"
#include "hal_console.h"
#include "hal_lock.h"
#include "rt_config.h"
#include "rt_timers.h"

static rt_event_t queue[CONFIG_BEACON_EVENT_QUEUE_SIZE];
static size_t queue_head, queue_count;
static uint32_t dropped;
static eng_ref_t error_handler;
static bool exit_requested;
static rt_run_result_t exit_reason;
static bool in_error_handler;

void rt_loop_init(void)
{
	rt_loop_reset();
}

void rt_loop_reset(void)
{
	hal_lock_key_t key = hal_lock();
	queue_head = 0;
	queue_count = 0;
	dropped = 0;
	hal_unlock(key);
	if (error_handler) {
		eng_ref_free(error_handler);
		error_handler = 0;
	}
	exit_requested = false;
	in_error_handler = false;
}

bool rt_loop_post(rt_event_handler_t handler, const void *payload, size_t len)
{
	if (len > RT_EVENT_PAYLOAD_MAX) {
		return false;
	}
	hal_lock_key_t key = hal_lock();
	bool ok = queue_count < CONFIG_BEACON_EVENT_QUEUE_SIZE;
	if (ok) {
		rt_event_t *ev = &queue[(queue_head + queue_count) % CONFIG_BEACON_EVENT_QUEUE_SIZE];
		ev->handler = handler;
		ev->len = (uint8_t)len;
		if (len) {
			memcpy(ev->payload, payload, len);
		}
		queue_count++;
	} else {
		dropped++;
	}
	hal_unlock(key);
	if (ok) {
		hal_clock_wake();
	}
	return ok;
}

uint32_t rt_loop_dropped_events(void)
{
	return dropped;
}

static bool pop_event(rt_event_t *out)
{
	hal_lock_key_t key = hal_lock();
	bool ok = queue_count > 0;
	if (ok) {
		*out = queue[queue_head];
		queue_head = (queue_head + 1) % CONFIG_BEACON_EVENT_QUEUE_SIZE;
		queue_count--;
	}
	hal_unlock(key);
	return ok;
}

void rt_loop_set_error_handler(eng_ref_t handler)
{
	if (error_handler) {
		eng_ref_free(error_handler);
	}
	error_handler = handler;
}

static void log_error(const char *what, eng_value_t error)
{
	char text[256];
	eng_describe(error, text, sizeof(text));
	hal_log(HAL_LOG_ERROR, "%s: %s", what, text);
}

void rt_loop_report(rt_error_type_t type, eng_value_t error)
{
	static const char *const what[] = {"", "uncaught exception in a callback",
					   "unhandled promise rejection", "system error"};
	const char *label = what[type <= RT_ERROR_SYSTEM ? type : 0];
	if (!error_handler || in_error_handler) {
		log_error(label, error);
		return;
	}
	eng_value_t handler = eng_ref_get(error_handler);
	eng_value_t args[2];
	args[0] = eng_number(type);
	if (rt_app_api_version() < 0x000100u) {
		/* 0.0.9 handlers take the message as a string. */
		args[1] = eng_to_string(error);
		if (eng_is_exception(args[1])) {
			eng_release(args[1]);
			args[1] = eng_string_z("Error");
		}
	} else {
		args[1] = error;
	}
	in_error_handler = true;
	eng_watchdog_arm();
	eng_value_t result = eng_call(handler, eng_undefined(), args, 2);
	eng_watchdog_disarm();
	in_error_handler = false;
	if (eng_is_exception(result)) {
		eng_value_t thrown = eng_exception_value(result);
		log_error("the error handler threw", thrown);
		log_error(label, error);
		eng_release(thrown);
	} else {
		eng_release(result);
	}
	if (args[1] != error) {
		eng_release(args[1]);
	}
	eng_release(args[0]);
	eng_release(handler);
}

void rt_loop_run_jobs(void)
{
	/* A bounded number of rounds: a job that keeps queueing jobs must not starve the loop. */
	for (int round = 0; round < 1000 && eng_has_pending_jobs(); round++) {
		eng_watchdog_arm();
		eng_value_t result = eng_run_jobs();
		eng_watchdog_disarm();
		if (eng_is_exception(result)) {
			eng_value_t thrown = eng_exception_value(result);
			rt_loop_report(RT_ERROR_UNHANDLED_REJECTION, thrown);
			eng_release(thrown);
		} else {
			eng_release(result);
		}
	}
}

bool rt_loop_invoke(eng_value_t fn, const eng_value_t *argv, uint32_t argc)
{
	eng_watchdog_arm();
	eng_value_t result = eng_call(fn, eng_undefined(), argv, argc);
	eng_watchdog_disarm();
	bool ok = !eng_is_exception(result);
	if (!ok) {
		eng_value_t thrown = eng_exception_value(result);
		rt_loop_report(RT_ERROR_CALLBACK, thrown);
		eng_release(thrown);
	} else {
		eng_release(result);
	}
	rt_loop_run_jobs();
	return ok;
}

void rt_loop_request_exit(rt_run_result_t why)
{
	exit_requested = true;
	exit_reason = why;
}

rt_run_result_t rt_loop_run(uint64_t until_ms)
{
	for (;;) {
		if (exit_requested) {
			exit_requested = false;
			return exit_reason;
		}
		uint64_t now = hal_clock_ms();
		bool worked = false;

		/* Due timers, one at a time: each may stop the app or change other timers. */
		eng_scope_enter();
		worked = rt_timers_run_one_due(now);
		eng_scope_leave();
		if (worked) {
			continue;
		}

		rt_event_t ev;
		if (pop_event(&ev)) {
			eng_scope_enter();
			ev.handler(&ev);
			rt_loop_run_jobs();
			eng_scope_leave();
			continue;
		}

		eng_scope_enter();
		rt_loop_run_jobs();
		eng_scope_leave();

		uint64_t next = rt_timers_next_deadline();
		bool idle = next == HAL_CLOCK_FOREVER;
		if (next > until_ms) {
			next = until_ms;
		}
		if (next <= now) {
			if (now >= until_ms) {
				return RT_RUN_TIME_UP;
			}
			continue;
		}
		if (!hal_clock_wait_until(next, idle)) {
			return RT_RUN_IDLE;
		}
	}
}

#include "rt_loop.h"

#include <string.h>

#include "hal_clock.h"
#include "hal_console.h"
#include "hal_lock.h"
#include "rt_alarm.h"
#include "rt_api_version.h"
#include "rt_device.h"
#include "rt_timers.h"

static rt_loop_state_t *state(void)
{
	return &rt_device()->loop;
}

void rt_loop_reset(void)
{
	rt_loop_state_t *st = state();
	hal_lock_key_t key = hal_lock();
	st->head = 0;
	st->count = 0;
	st->dropped = 0;
	hal_unlock(key);
	st->errors = 0;
	if (st->error_handler) {
		eng_ref_free(st->error_handler);
		st->error_handler = 0;
	}
	st->exit_requested = false;
	st->in_error_handler = false;
}

bool rt_loop_post_to(struct rt_device *device, rt_event_handler_t handler, const void *payload,
		     size_t len)
{
	if (len > RT_EVENT_PAYLOAD_MAX || device == NULL) {
		return false;
	}
	rt_loop_state_t *st = &device->loop;
	hal_lock_key_t key = hal_lock();
	bool ok = st->count < CONFIG_BEACON_EVENT_QUEUE_SIZE;
	if (ok) {
		rt_event_t *ev = &st->queue[(st->head + st->count) % CONFIG_BEACON_EVENT_QUEUE_SIZE];
		ev->handler = handler;
		ev->len = (uint8_t)len;
		if (len) {
			memcpy(ev->payload, payload, len);
		}
		st->count++;
	} else {
		st->dropped++;
	}
	hal_unlock(key);
	if (ok) {
		hal_clock_wake();
	}
	return ok;
}

bool rt_loop_post(rt_event_handler_t handler, const void *payload, size_t len)
{
	return rt_loop_post_to(rt_device(), handler, payload, len);
}

uint32_t rt_loop_dropped_events(void)
{
	return state()->dropped;
}

bool rt_loop_has_events(void)
{
	return rt_loop_has_events_of(rt_device());
}

bool rt_loop_has_events_of(struct rt_device *device)
{
	rt_loop_state_t *st = &device->loop;
	hal_lock_key_t key = hal_lock();
	bool any = st->count > 0;
	hal_unlock(key);
	return any;
}

static bool pop_event(rt_event_t *out)
{
	rt_loop_state_t *st = state();
	hal_lock_key_t key = hal_lock();
	bool ok = st->count > 0;
	if (ok) {
		*out = st->queue[st->head];
		st->head = (st->head + 1) % CONFIG_BEACON_EVENT_QUEUE_SIZE;
		st->count--;
	}
	hal_unlock(key);
	return ok;
}

void rt_loop_set_error_handler(eng_ref_t handler)
{
	rt_loop_state_t *st = state();
	if (st->error_handler) {
		eng_ref_free(st->error_handler);
	}
	st->error_handler = handler;
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
	rt_loop_state_t *st = state();
	const char *label = what[type <= RT_ERROR_SYSTEM ? type : 0];
	if (st->errors < UINT32_MAX) {
		st->errors++;
	}
	if (!st->error_handler || st->in_error_handler) {
		log_error(label, error);
		return;
	}
	eng_value_t handler = eng_ref_get(st->error_handler);
	eng_value_t args[2];
	args[0] = eng_number(type);
	if (rt_api_version() < RT_API_VERSION(0, 1, 0)) {
		/* 0.0.9 handlers take the message as a string. */
		args[1] = eng_to_string(error);
		if (eng_is_exception(args[1])) {
			eng_release(args[1]);
			args[1] = eng_string_z("Error");
		}
	} else {
		args[1] = error;
	}
	st->in_error_handler = true;
	eng_watchdog_arm();
	eng_value_t result = eng_call(handler, eng_undefined(), args, 2);
	eng_watchdog_disarm();
	st->in_error_handler = false;
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
	rt_loop_state_t *st = state();
	st->exit_requested = true;
	st->exit_reason = (uint8_t)why;
}

/* Fire the earliest due timer or alarm (ties: the one set first). Returns whether one fired. */
static bool run_one_due(uint64_t now)
{
	uint64_t timer_deadline, timer_seq, alarm_deadline, alarm_seq;
	bool timer = rt_timers_earliest_due(now, &timer_deadline, &timer_seq);
	bool alarm = rt_alarm_earliest_due(now, &alarm_deadline, &alarm_seq);
	if (!timer && !alarm) {
		return false;
	}
	if (timer && (!alarm || timer_deadline < alarm_deadline ||
		      (timer_deadline == alarm_deadline && timer_seq < alarm_seq))) {
		rt_timers_run_one_due(now);
	} else {
		rt_alarm_run_earliest(now);
	}
	return true;
}

rt_run_result_t rt_loop_step(uint64_t *next_ms)
{
	rt_loop_state_t *st = state();
	for (;;) {
		if (st->exit_requested) {
			st->exit_requested = false;
			return (rt_run_result_t)st->exit_reason;
		}
		uint64_t now = hal_clock_ms();

		/* Due timers and alarms, one at a time: each may stop the app or change others. */
		eng_scope_enter();
		bool worked = run_one_due(now);
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
		if (st->exit_requested || rt_loop_has_events()) {
			continue;
		}
		uint64_t timers = rt_timers_next_deadline();
		uint64_t alarms = rt_alarm_next_deadline();
		*next_ms = timers < alarms ? timers : alarms;
		if (*next_ms <= now) {
			continue; /* became due while the jobs ran */
		}
		return RT_RUN_CONTINUE;
	}
}

rt_run_result_t rt_loop_run(uint64_t until_ms)
{
	for (;;) {
		uint64_t next;
		rt_run_result_t result = rt_loop_step(&next);
		if (result != RT_RUN_CONTINUE) {
			return result;
		}
		bool idle = next == HAL_CLOCK_FOREVER;
		if (next > until_ms) {
			next = until_ms;
		}
		if (next <= hal_clock_ms()) {
			return RT_RUN_TIME_UP;
		}
		if (!hal_clock_wait_until(next, idle)) {
			return RT_RUN_IDLE;
		}
	}
}

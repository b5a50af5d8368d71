#include "rt_timers.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "rt_device.h"
#include "rt_handle.h"
#include "hal_clock.h"
#include "rt_config.h"
#include "rt_errors.h"
#include "rt_loop.h"

typedef enum { TIMER_SINGLE, TIMER_REPEAT, TIMER_AT, TIMER_COUNT } timer_kind_t;
typedef enum { TIMER_RUNNING, TIMER_STOPPED, TIMER_FINISHED } timer_state_t;

#define KEY_CALLBACK "callback"
#define KEY_END "end"

static struct rt_timer *records(void)
{
	return rt_device()->timers.records;
}

/* The records that may be in use: those below the highest ever taken since the reset. */
static size_t used_top(void)
{
	return rt_device()->timers.top;
}

static void timer_finalize(void *ptr)
{
	/* Only a timer that is not running can be collected (a running one is referenced), and
	 * such a record holds no engine references: freeing it needs no engine call. */
	struct rt_timer *t = ptr;
	memset(t, 0, sizeof(*t));
}

const eng_native_type_t rt_timer_native_type = {"timer", timer_finalize};

uint32_t rt_timers_running(void)
{
	uint32_t n = 0;
	for (size_t i = 0; i < used_top(); i++) {
		n += records()[i].in_use && records()[i].state == TIMER_RUNNING;
	}
	return n;
}

uint32_t rt_timers_records(void)
{
	uint32_t n = 0;
	for (size_t i = 0; i < used_top(); i++) {
		n += records()[i].in_use;
	}
	return n;
}

void rt_timers_reset(void)
{
	for (size_t i = 0; i < CONFIG_BEACON_MAX_TIMER_HANDLES; i++) {
		if (records()[i].handle) {
			eng_ref_free(records()[i].handle);
		}
		/* Handle objects still alive are detached when the engine goes: they must not
		 * write into records reused by the next app. */
		memset(&records()[i], 0, sizeof(records()[i]));
	}
	rt_device()->timers.top = 0;
}

static struct rt_timer *find_free(void)
{
	for (size_t i = 0; i < CONFIG_BEACON_MAX_TIMER_HANDLES; i++) {
		if (!records()[i].in_use) {
			return &records()[i];
		}
	}
	return NULL;
}

static uint64_t deadline_after(double interval_ms)
{
	double ms = ceil(interval_ms);
	uint64_t now = hal_clock_ms();
	if (ms >= (double)(HAL_CLOCK_FOREVER - now)) {
		return HAL_CLOCK_FOREVER - 1;
	}
	return now + (uint64_t)ms;
}

static eng_value_t no_free_timer(void)
{
	return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "no free timer (all %d are in use)",
			    CONFIG_BEACON_MAX_TIMERS);
}

/* Move a timer into the running state; fails when the running pool is full. */
static bool run(struct rt_timer *t, eng_value_t handle, uint64_t deadline)
{
	if (t->state != TIMER_RUNNING && rt_timers_running() >= CONFIG_BEACON_MAX_TIMERS) {
		return false;
	}
	t->state = TIMER_RUNNING;
	t->deadline = deadline;
	t->seq = rt_device()->seq++;
	if (!t->handle) {
		t->handle = eng_ref_new(handle);
	}
	return true;
}

static void leave_running(struct rt_timer *t, timer_state_t state)
{
	t->state = (uint8_t)state;
	if (t->handle) {
		eng_ref_free(t->handle);
		t->handle = 0;
	}
}

static eng_value_t start_timer(timer_kind_t kind, size_t proto, double interval_ms,
			       uint64_t deadline, uint32_t count, eng_value_t callback)
{
	if (rt_timers_running() >= CONFIG_BEACON_MAX_TIMERS) {
		return no_free_timer();
	}
	struct rt_timer *t = find_free();
	if (t == NULL) {
		/* Handles the app dropped may still await collection: collect, then look again. */
		eng_gc();
		t = find_free();
		if (t == NULL) {
			return rt_throw_esr(RT_ESR0004_NO_RESOURCES,
					    "no free timer record (the app holds %d timer handles)",
					    CONFIG_BEACON_MAX_TIMER_HANDLES);
		}
	}
	memset(t, 0, sizeof(*t));
	t->in_use = true;
	if ((size_t)(t - records()) >= used_top()) {
		rt_device()->timers.top = (uint16_t)(t - records() + 1);
	}
	t->kind = (uint8_t)kind;
	t->state = TIMER_STOPPED;
	t->interval_ms = interval_ms;
	t->remaining = count;
	eng_value_t handle = rt_handle_new(proto, t);
	eng_set_internal(handle, KEY_CALLBACK, callback);
	if (kind == TIMER_COUNT && count == 0) {
		t->state = TIMER_FINISHED; /* nothing to count down: finished at once */
	} else {
		run(t, handle, deadline);
	}
	return handle;
}

static void settle_end(eng_value_t handle)
{
	eng_value_t promise = eng_get_internal(handle, KEY_END);
	if (eng_typeof(promise) == ENG_TYPE_PROMISE) {
		eng_value_t undefined = eng_undefined();
		eng_promise_resolve(promise, undefined);
		eng_release(undefined);
	}
	eng_release(promise);
}

static struct rt_timer *earliest_due(uint64_t now)
{
	struct rt_timer *t = NULL;
	for (size_t i = 0; i < used_top(); i++) {
		struct rt_timer *c = &records()[i];
		if (c->in_use && c->state == TIMER_RUNNING && c->deadline <= now &&
		    (t == NULL || c->deadline < t->deadline ||
		     (c->deadline == t->deadline && c->seq < t->seq))) {
			t = c;
		}
	}
	return t;
}

bool rt_timers_earliest_due(uint64_t now, uint64_t *deadline, uint64_t *seq)
{
	struct rt_timer *t = earliest_due(now);
	if (t == NULL) {
		return false;
	}
	*deadline = t->deadline;
	*seq = t->seq;
	return true;
}

bool rt_timers_run_one_due(uint64_t now)
{
	struct rt_timer *t = earliest_due(now);
	if (t == NULL) {
		return false;
	}
	eng_value_t handle = eng_ref_get(t->handle);
	eng_value_t callback = eng_get_internal(handle, KEY_CALLBACK);
	eng_value_t arg = 0;
	uint32_t argc = 0;
	bool last;
	switch ((timer_kind_t)t->kind) {
	case TIMER_REPEAT: {
		/* Next deadline from the previous one, so a 1 s timer fires 86,400 times a day; a
		 * callback that overran skips the missed periods rather than bursting. */
		uint64_t step = (uint64_t)ceil(t->interval_ms);
		t->deadline += step;
		if (t->deadline <= now) {
			t->deadline = now + step;
		}
		last = false;
		break;
	}
	case TIMER_COUNT:
		t->remaining--;
		arg = eng_number(t->remaining);
		argc = 1;
		last = t->remaining == 0;
		if (!last) {
			t->deadline += (uint64_t)ceil(t->interval_ms);
		}
		break;
	default:
		last = true;
		break;
	}
	uint64_t fired_seq = t->seq;
	if (last) {
		/* Not running any more while its callback runs, so that a reset() inside the
		 * callback re-arms it; finished (and end() settled) only after the callback. */
		leave_running(t, TIMER_STOPPED);
	}
	rt_loop_invoke(callback, argc ? &arg : NULL, argc);
	if (argc) {
		eng_release(arg);
	}
	eng_release(callback);
	if (last && t->in_use && t->seq == fired_seq && t->state == TIMER_STOPPED) {
		t->state = TIMER_FINISHED;
		settle_end(handle);
		rt_loop_run_jobs();
	}
	eng_release(handle);
	return true;
}

uint64_t rt_timers_next_deadline(void)
{
	uint64_t next = HAL_CLOCK_FOREVER;
	for (size_t i = 0; i < used_top(); i++) {
		if (records()[i].in_use && records()[i].state == TIMER_RUNNING && records()[i].deadline < next) {
			next = records()[i].deadline;
		}
	}
	return next;
}

/* ------------------------------------------------------------------ API */

eng_value_t rt_timers_single(const rt_timers_single_args_t *args)
{
	return start_timer(TIMER_SINGLE, API_PROTO_SingleTimer, args->interval,
			   deadline_after(args->interval), 0, args->callback);
}

eng_value_t rt_timers_repeat(const rt_timers_repeat_args_t *args)
{
	return start_timer(TIMER_REPEAT, API_PROTO_RepeatTimer, args->interval,
			   deadline_after(args->interval), 0, args->callback);
}

eng_value_t rt_timers_at(const rt_timers_at_args_t *args)
{
	int64_t utc_now;
	if (!hal_clock_utc_ms(&utc_now)) {
		return rt_throw_esr(RT_ESR0005_TIME_INVALID,
				    "timers.at needs UTC time, which is not synced yet");
	}
	double delta = args->timestamp - (double)utc_now;
	uint64_t deadline = delta <= 0 ? hal_clock_ms() : deadline_after(delta);
	return start_timer(TIMER_AT, API_PROTO_AtTimer, 0, deadline, 0, args->callback);
}

eng_value_t rt_timers_count(const rt_timers_count_args_t *args)
{
	return start_timer(TIMER_COUNT, API_PROTO_CountTimer, args->interval,
			   deadline_after(args->interval), (uint32_t)args->count, args->callback);
}

eng_value_t rt_setTimeout(const rt_setTimeout_args_t *args)
{
	return start_timer(TIMER_SINGLE, API_PROTO_LegacyTimer, args->interval,
			   deadline_after(args->interval), 0, args->callback);
}

eng_value_t rt_setInterval(const rt_setInterval_args_t *args)
{
	return start_timer(TIMER_REPEAT, API_PROTO_LegacyTimer, args->interval,
			   deadline_after(args->interval), 0, args->callback);
}

eng_value_t rt_timer_stop(struct rt_timer *self, eng_value_t this_value)
{
	if (self->state == TIMER_RUNNING) {
		leave_running(self, TIMER_STOPPED);
	}
	return eng_undefined();
}

eng_value_t rt_clear_timer(const rt_clear_timer_args_t *args)
{
	if (args->has_handler && args->handler != NULL) {
		rt_timer_stop(args->handler, 0);
	}
	return eng_undefined();
}

eng_value_t rt_timer_reset(struct rt_timer *self, eng_value_t this_value,
			   const rt_timer_reset_args_t *args)
{
	if (args->has_interval && args->interval > 0) {
		self->interval_ms = args->interval;
	}
	if (self->state == TIMER_FINISHED) {
		/* The old end() promise is settled; a new run gets a new one. */
		eng_value_t undefined = eng_undefined();
		eng_set_internal(this_value, KEY_END, undefined);
		eng_release(undefined);
	}
	if (!run(self, this_value, deadline_after(self->interval_ms))) {
		return no_free_timer();
	}
	return eng_undefined();
}

eng_value_t rt_timer_restart(struct rt_timer *self, eng_value_t this_value,
			     const rt_timer_restart_args_t *args)
{
	if (self->state != TIMER_STOPPED) {
		return eng_undefined(); /* only a stopped timer restarts */
	}
	if (args->has_interval && args->interval > 0) {
		self->interval_ms = args->interval;
	}
	if (!run(self, this_value, deadline_after(self->interval_ms))) {
		return no_free_timer();
	}
	return eng_undefined();
}

eng_value_t rt_timer_end(struct rt_timer *self, eng_value_t this_value)
{
	eng_value_t promise = eng_get_internal(this_value, KEY_END);
	if (eng_typeof(promise) == ENG_TYPE_PROMISE) {
		return promise;
	}
	eng_release(promise);
	promise = eng_promise_new();
	eng_set_internal(this_value, KEY_END, promise);
	if (self->state == TIMER_FINISHED) {
		eng_value_t undefined = eng_undefined();
		eng_promise_resolve(promise, undefined);
		eng_release(undefined);
	}
	return promise;
}

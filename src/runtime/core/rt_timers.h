/*
 * rt_timers.h: the timer pool behind timers.*, setTimeout/setInterval and their handles.
 *
 * Two fixed pools: at most CONFIG_BEACON_MAX_TIMERS timers run at once (ESR0004 beyond), and
 * CONFIG_BEACON_MAX_TIMER_HANDLES timer records exist, one per handle the app can still reach (a
 * stopped timer can be restarted, a finished single timer reset). The callback and the end()
 * promise live on the handle object as internal properties; the record holds a reference to the
 * handle only while the timer runs. So a stopped timer costs no engine reference, and a callback
 * that refers to its own handle is an ordinary cycle the garbage collector frees.
 */
#ifndef RT_TIMERS_H
#define RT_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "rt_config.h"

struct rt_timer {
	bool in_use;          /* the handle object exists */
	uint8_t kind;         /* timer_kind_t */
	uint8_t state;        /* timer_state_t */
	double interval_ms;
	uint64_t deadline;
	uint64_t seq;         /* start order: equal deadlines fire in this order */
	uint32_t remaining;   /* count timers: calls still to come */
	eng_ref_t handle;     /* only while running */
};

typedef struct {
	struct rt_timer records[CONFIG_BEACON_MAX_TIMER_HANDLES];
	/* No record at or above this index has been used since the reset: the loop looks for due
	 * timers after every event, and an app has a few timers, not CONFIG_BEACON_MAX_TIMER_HANDLES. */
	uint16_t top;
} rt_timers_state_t;

/* The earliest running timer due at or before now: its deadline and start order. */
bool rt_timers_earliest_due(uint64_t now, uint64_t *deadline, uint64_t *seq);
/* Fire the earliest timer due at or before now, if any; returns whether one fired. */
bool rt_timers_run_one_due(uint64_t now);
/* Earliest deadline of a running timer, HAL_CLOCK_FOREVER when none runs. */
uint64_t rt_timers_next_deadline(void);
/* Stop every timer and free every slot (app stop, restart, remove). */
void rt_timers_reset(void);
/* Running timers and records in use, for tests and memory statistics. */
uint32_t rt_timers_running(void);
uint32_t rt_timers_records(void);

#endif /* RT_TIMERS_H */

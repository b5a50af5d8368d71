/*
 * rt_alarm.h: deadlines of the runtime's own work (the next advertisement of a callback
 * advertiser, the end of a scan, the next sync, a location timeout...).
 *
 * JavaScript timers have their own pool (rt_timers.h); alarms are for the services. Both are
 * served by the event loop in deadline order, ties in the order they were set. An alarm fires
 * once; its function runs on the JS thread inside an engine scope and may set it again.
 */
#ifndef RT_ALARM_H
#define RT_ALARM_H

#include <stdbool.h>
#include <stdint.h>

#include "rt_config.h"

typedef void (*rt_alarm_fn_t)(void *context);

/* 0 is "no alarm"; a stale id (of an alarm that fired or was cancelled) is harmless. */
typedef uint32_t rt_alarm_id_t;

typedef struct {
	uint64_t deadline;
	uint64_t seq;
	rt_alarm_fn_t fn;
	void *context;
	uint16_t generation; /* makes the ids of a reused slot differ */
	bool armed;
} rt_alarm_slot_t;

typedef struct {
	rt_alarm_slot_t slots[CONFIG_BEACON_MAX_ALARMS];
} rt_alarm_state_t;

/* Call fn(context) at deadline (ms since boot). Returns 0 when every slot is in use. */
rt_alarm_id_t rt_alarm_at(uint64_t deadline_ms, rt_alarm_fn_t fn, void *context);
/* Cancel *id if it is still pending, and clear *id. */
void rt_alarm_cancel(rt_alarm_id_t *id);
bool rt_alarm_pending(rt_alarm_id_t id);

/* For the event loop: the earliest armed alarm due at or before now (its deadline and order). */
bool rt_alarm_earliest_due(uint64_t now, uint64_t *deadline, uint64_t *seq);
/* Fire that alarm. */
void rt_alarm_run_earliest(uint64_t now);
uint64_t rt_alarm_next_deadline(void);
void rt_alarm_reset(void);

#endif /* RT_ALARM_H */

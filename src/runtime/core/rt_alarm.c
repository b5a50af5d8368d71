#include "rt_alarm.h"

#include <string.h>

#include "hal_clock.h"
#include "rt_device.h"

static rt_alarm_state_t *state(void)
{
	return &rt_device()->alarms;
}

static rt_alarm_slot_t *slot_of(rt_alarm_id_t id)
{
	uint32_t index = (id & 0xffffu);
	if (index == 0 || index > CONFIG_BEACON_MAX_ALARMS) {
		return NULL;
	}
	rt_alarm_slot_t *s = &state()->slots[index - 1];
	return s->armed && s->generation == (uint16_t)(id >> 16) ? s : NULL;
}

rt_alarm_id_t rt_alarm_at(uint64_t deadline_ms, rt_alarm_fn_t fn, void *context)
{
	rt_alarm_state_t *st = state();
	for (uint32_t i = 0; i < CONFIG_BEACON_MAX_ALARMS; i++) {
		rt_alarm_slot_t *s = &st->slots[i];
		if (!s->armed) {
			s->armed = true;
			s->generation++;
			s->deadline = deadline_ms;
			s->seq = rt_device()->seq++;
			s->fn = fn;
			s->context = context;
			return (rt_alarm_id_t)s->generation << 16 | (i + 1);
		}
	}
	return 0;
}

void rt_alarm_cancel(rt_alarm_id_t *id)
{
	rt_alarm_slot_t *s = slot_of(*id);
	if (s != NULL) {
		s->armed = false;
	}
	*id = 0;
}

bool rt_alarm_pending(rt_alarm_id_t id)
{
	return slot_of(id) != NULL;
}

static rt_alarm_slot_t *earliest(uint64_t now)
{
	rt_alarm_slot_t *best = NULL;
	rt_alarm_state_t *st = state();
	for (uint32_t i = 0; i < CONFIG_BEACON_MAX_ALARMS; i++) {
		rt_alarm_slot_t *s = &st->slots[i];
		if (s->armed && s->deadline <= now &&
		    (best == NULL || s->deadline < best->deadline ||
		     (s->deadline == best->deadline && s->seq < best->seq))) {
			best = s;
		}
	}
	return best;
}

bool rt_alarm_earliest_due(uint64_t now, uint64_t *deadline, uint64_t *seq)
{
	rt_alarm_slot_t *s = earliest(now);
	if (s == NULL) {
		return false;
	}
	*deadline = s->deadline;
	*seq = s->seq;
	return true;
}

void rt_alarm_run_earliest(uint64_t now)
{
	rt_alarm_slot_t *s = earliest(now);
	if (s == NULL) {
		return;
	}
	/* Disarmed before the call: the function may set a new alarm, in this slot too. */
	s->armed = false;
	s->fn(s->context);
}

uint64_t rt_alarm_next_deadline(void)
{
	uint64_t next = HAL_CLOCK_FOREVER;
	rt_alarm_state_t *st = state();
	for (uint32_t i = 0; i < CONFIG_BEACON_MAX_ALARMS; i++) {
		if (st->slots[i].armed && st->slots[i].deadline < next) {
			next = st->slots[i].deadline;
		}
	}
	return next;
}

void rt_alarm_reset(void)
{
	rt_alarm_state_t *st = state();
	for (uint32_t i = 0; i < CONFIG_BEACON_MAX_ALARMS; i++) {
		/* Generations survive, so ids from before the reset stay stale. */
		st->slots[i].armed = false;
	}
}

/*
 * Motion detection levels and the motion/rest decision. See rt_motion.h.
 */
#include "rt_motion.h"

#include <string.h>

static uint8_t level(uint8_t l)
{
	return l < RT_MOTION_LEVELS ? l : RT_MOTION_LEVELS - 1;
}

float rt_motion_threshold_g(uint8_t sensitivity)
{
	static const float g[RT_MOTION_LEVELS] = {0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f};
	return g[level(sensitivity)];
}

uint32_t rt_motion_start_delay_ms(uint8_t responsiveness)
{
	static const uint32_t ms[RT_MOTION_LEVELS] = {4000, 2000, 1000, 500, 100};
	return ms[level(responsiveness)];
}

uint32_t rt_motion_stop_delay_ms(uint8_t responsiveness)
{
	static const uint32_t ms[RT_MOTION_LEVELS] = {30000, 20000, 10000, 5000, 2000};
	return ms[level(responsiveness)];
}

void rt_motion_init(rt_motion_t *m, uint32_t hold_ms, bool sensor_reports_rest)
{
	memset(m, 0, sizeof(*m));
	m->hold_ms = hold_ms;
	m->sensor_reports_rest = sensor_reports_rest;
	rt_motion_set_responsiveness(m, 2);
}

void rt_motion_set_responsiveness(rt_motion_t *m, uint8_t responsiveness)
{
	m->start_delay_ms = rt_motion_start_delay_ms(responsiveness);
	m->stop_delay_ms = rt_motion_stop_delay_ms(responsiveness);
}

static bool ended(const rt_motion_t *m, uint64_t now_ms)
{
	return m->active_until != RT_MOTION_NEVER && now_ms >= m->active_until;
}

void rt_motion_activity(rt_motion_t *m, uint64_t now_ms)
{
	/* After a pause longer than the hold, a device not yet reported moving starts over: its
	 * start delay counts from now. One already reported moving simply goes on moving (its rest
	 * is not due yet, or it would have been reported). */
	bool pause = !m->active || (m->active_until != RT_MOTION_NEVER && now_ms > m->active_until);
	if (pause && !m->moving) {
		m->active_since = now_ms;
	}
	m->active = true;
	m->settle_pending = true;
	m->active_until = m->sensor_reports_rest ? RT_MOTION_NEVER : now_ms + m->hold_ms;
}

void rt_motion_rest(rt_motion_t *m, uint64_t now_ms)
{
	if (m->active && (m->active_until == RT_MOTION_NEVER || m->active_until > now_ms)) {
		m->active_until = now_ms;
	}
}

static void earliest(uint64_t *next, uint64_t t)
{
	if (t < *next) {
		*next = t;
	}
}

uint32_t rt_motion_update(rt_motion_t *m, uint64_t now_ms, uint64_t *next_ms)
{
	uint32_t out = 0;
	*next_ms = RT_MOTION_NEVER;
	if (!m->active) {
		return out;
	}
	if (ended(m, now_ms) && m->settle_pending) {
		m->settle_pending = false;
		out |= RT_MOTION_SETTLED;
	}
	uint64_t start_at = m->active_since + m->start_delay_ms;
	if (!m->moving) {
		/* Moving as long as the start delay: motion. Ended sooner: it was only a shake. */
		if (m->active_until >= start_at && now_ms >= start_at) {
			m->moving = true;
			out |= RT_MOTION_STARTED;
		} else if (ended(m, now_ms)) {
			m->active = false;
			return out;
		}
	}
	if (m->moving && m->active_until != RT_MOTION_NEVER &&
	    now_ms >= m->active_until + m->stop_delay_ms) {
		m->moving = false;
		m->active = false;
		m->settle_pending = false;
		return out | RT_MOTION_STOPPED;
	}
	if (m->settle_pending && m->active_until != RT_MOTION_NEVER) {
		earliest(next_ms, m->active_until);
	}
	if (!m->moving) {
		earliest(next_ms, m->active_until >= start_at ? start_at : m->active_until);
	} else if (m->active_until != RT_MOTION_NEVER) {
		earliest(next_ms, m->active_until + m->stop_delay_ms);
	}
	return out;
}

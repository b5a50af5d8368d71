/*
 * rt_sync_cycle.c: see rt_sync_cycle.h.
 */
#include "rt_sync_cycle.h"

#include <string.h>

void rt_sync_cycle_init(rt_sync_cycle_t *c, uint64_t now_ms)
{
	memset(c, 0, sizeof(*c));
	c->period_s = RT_SYNC_PERIOD_DEFAULT_S;
	c->last_end_ms = now_ms;
}

uint64_t rt_sync_cycle_due(const rt_sync_cycle_t *c)
{
	if (c->running) {
		return UINT64_MAX;
	}
	if (c->requested) {
		return 0;
	}
	/* A pending retry stands for the sync that failed: the period, counted from the last
	 * finished sync, has passed already. */
	if (c->retry_at_ms != 0) {
		return c->retry_at_ms;
	}
	return c->last_end_ms + (uint64_t)c->period_s * 1000u;
}

bool rt_sync_cycle_request(rt_sync_cycle_t *c)
{
	if (c->running) {
		return false;
	}
	c->requested = true;
	return true;
}

void rt_sync_cycle_set_period(rt_sync_cycle_t *c, uint32_t period_s)
{
	if (period_s < RT_SYNC_PERIOD_MIN_S) {
		period_s = RT_SYNC_PERIOD_MIN_S;
	} else if (period_s > RT_SYNC_PERIOD_MAX_S) {
		period_s = RT_SYNC_PERIOD_MAX_S;
	}
	c->period_s = period_s;
}

bool rt_sync_cycle_begin(rt_sync_cycle_t *c)
{
	if (c->running) {
		return false;
	}
	c->running = true;
	c->requested = false;
	c->retry_at_ms = 0;
	c->syncs++;
	return true;
}

uint32_t rt_sync_cycle_backoff_ms(uint32_t n)
{
	uint64_t ms = RT_SYNC_RETRY_FIRST_MS;
	for (uint32_t i = 1; i < n && ms < RT_SYNC_RETRY_MAX_MS; i++) {
		ms *= 2;
	}
	return ms > RT_SYNC_RETRY_MAX_MS ? RT_SYNC_RETRY_MAX_MS : (uint32_t)ms;
}

void rt_sync_cycle_end(rt_sync_cycle_t *c, uint64_t now_ms, bool ok)
{
	c->running = false;
	if (ok) {
		c->failures = 0;
		c->retry_at_ms = 0;
		c->last_end_ms = now_ms;
		return;
	}
	c->failures++;
	if (c->failures <= RT_SYNC_RETRIES) {
		c->retry_at_ms = now_ms + rt_sync_cycle_backoff_ms(c->failures);
	} else {
		/* Given up until the next period: the period counts from this attempt, so a device
		 * out of coverage does not keep its modem on. */
		c->failures = 0;
		c->retry_at_ms = 0;
		c->last_end_ms = now_ms;
	}
}

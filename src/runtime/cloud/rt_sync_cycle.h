/*
 * rt_sync_cycle.h: when the device syncs (the States table's "Cloud sync" rows), as a pure state
 * machine over device time in ms: the caller asks it for the next deadline and tells it what
 * happened. rt_sync.c drives it with an alarm; tests drive it directly.
 *
 *  - scheduled: the next sync is at the end of the last finished sync plus the period (counted
 *    from boot until the first); setting the period reschedules it. sync.now(), low battery and
 *    a nearly full queue ask for one at once.
 *  - in progress: from the start handler's call to the end handler's; a request has no effect.
 *  - a failed sync is retried with a growing delay (1, 2, 4, ... minutes, at most an hour),
 *    RT_SYNC_RETRIES times; then the device waits a whole period (or for a request).
 */
#ifndef RT_SYNC_CYCLE_H
#define RT_SYNC_CYCLE_H

#include <stdbool.h>
#include <stdint.h>

#define RT_SYNC_PERIOD_MIN_S 120u
#define RT_SYNC_PERIOD_MAX_S 7776000u
#define RT_SYNC_PERIOD_DEFAULT_S 2592000u /* one month (30 days), the declarations' default */
#define RT_SYNC_RETRIES 5u
#define RT_SYNC_RETRY_FIRST_MS 60000u
#define RT_SYNC_RETRY_MAX_MS 3600000u
/* A returned start-handler promise is awaited at most this long. */
#define RT_SYNC_START_WAIT_MS 300000u

typedef struct rt_sync_cycle {
	uint32_t period_s;
	uint64_t last_end_ms;  /* end of the last finished sync (boot before the first) */
	uint64_t retry_at_ms;  /* a retry is due then (0: none) */
	uint32_t failures;     /* failed attempts in a row */
	bool requested;        /* a sync is asked for now */
	bool running;
	uint32_t syncs;        /* syncs started */
} rt_sync_cycle_t;

void rt_sync_cycle_init(rt_sync_cycle_t *c, uint64_t now_ms);
/* When the next sync is due (ms; now or earlier when one is asked for). UINT64_MAX while one
 * runs. */
uint64_t rt_sync_cycle_due(const rt_sync_cycle_t *c);
/* Ask for a sync now. False (no effect) while one runs. */
bool rt_sync_cycle_request(rt_sync_cycle_t *c);
/* A new period; the pending sync moves to last end + period. */
void rt_sync_cycle_set_period(rt_sync_cycle_t *c, uint32_t period_s);
/* A sync starts (false: one runs already). */
bool rt_sync_cycle_begin(rt_sync_cycle_t *c);
/* The sync ended at now_ms, finished (ok) or failed. */
void rt_sync_cycle_end(rt_sync_cycle_t *c, uint64_t now_ms, bool ok);
/* Delay before retry number n (1-based). */
uint32_t rt_sync_cycle_backoff_ms(uint32_t n);

#endif /* RT_SYNC_CYCLE_H */

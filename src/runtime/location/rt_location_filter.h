/*
 * rt_location_filter.h: the rules of location.startUpdates as a state machine driven by explicit
 * time and fixes, so they can be tested without a clock and shared by the device and the
 * simulated world.
 *
 * Options (spec, Location options): timeout (default 900 s, 0 unlimited), minInterval (default
 * 5 s), minDistance (default 0 m, 0 unused), maxFixWait (0.2.6: 40..600 s, default 180; 0 here
 * means "not in force", as for apps of 0.0.9 and 0.1.5).
 *
 * Delivery. The first position obtained is delivered at once. A later one is delivered when at
 * least minInterval has passed since the last delivered position and, when minDistance is not 0,
 * it lies more than minDistance from it. diff is the distance from the last delivered position
 * (0 for the first).
 *
 * GNSS duty. Without maxFixWait GNSS stays on for the whole session. With it:
 *  - minInterval < maxFixWait (continuous): GNSS stays on for the whole session;
 *  - otherwise (periodic): GNSS goes off when a position is obtained and on again minInterval
 *    later; a wait for a fix that lasts maxFixWait turns GNSS off for minInterval, then it tries
 *    again.
 *
 * The session ends:
 *  - at start, rejected, when minInterval is greater than a non-zero timeout, or an option is
 *    out of range;
 *  - rejected ("fix failed") when maxFixWait is in force and no position was obtained within
 *    maxFixWait of the start, or when the receiver reports an error;
 *  - resolved when timeout has passed since the start, or on stop(true): with the last known
 *    position (the last real fix, of this session or the one given at start), or undefined;
 *  - on stop(false): ended, the promise left as it is.
 * GNSS is off once the session has ended.
 *
 * Mocked positions (mock = true) are delivered under the same interval and distance rules and
 * count as obtained for the fix-failure rule, but neither become the last known position nor
 * change the GNSS duty.
 *
 * Times are the caller's monotonic milliseconds. Each call takes the current time; advance()
 * must be called at next_ms (or later: deadlines passed meanwhile are taken in order, and the
 * GNSS on-time stays exact, but the on/off moments in between are not reported one by one).
 */
#ifndef RT_LOCATION_FILTER_H
#define RT_LOCATION_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#define RT_LOCATION_NO_DEADLINE INT64_MAX

#define RT_LOCATION_DEFAULT_TIMEOUT_MS 900000u
#define RT_LOCATION_DEFAULT_MIN_INTERVAL_MS 5000u
#define RT_LOCATION_DEFAULT_MAX_FIX_WAIT_MS 180000u
#define RT_LOCATION_MIN_MAX_FIX_WAIT_MS 40000u
#define RT_LOCATION_MAX_MAX_FIX_WAIT_MS 600000u

typedef struct {
	uint32_t timeout_ms;      /* 0: unlimited */
	uint32_t min_interval_ms;
	double min_distance_m;    /* 0: unused */
	uint32_t max_fix_wait_ms; /* 0: not in force */
} rt_location_options_t;

/* The defaults; max_fix_wait for apps of 0.2.6. */
void rt_location_options_default(rt_location_options_t *opt, bool max_fix_wait);

/* A position as the callback gets it (the spec's Position). */
typedef struct {
	double lat, lon;  /* degrees */
	double alt;       /* m */
	double speed_kmh;
	double head_deg;
	double prec;      /* HDOP */
	double diff_m;    /* set by the filter */
	int64_t ts_ms;    /* UTC of the fix */
	uint8_t sat;
	bool mock;
} rt_location_position_t;

typedef enum {
	RT_LOCATION_END_NONE = 0,
	RT_LOCATION_END_RESOLVED, /* promise resolved: with result when result_known, else undefined */
	RT_LOCATION_END_REJECTED, /* promise rejected: see reject */
	RT_LOCATION_END_STOPPED,  /* stop(false): ended, promise untouched */
} rt_location_end_t;

typedef enum {
	RT_LOCATION_REJECT_NONE = 0,
	RT_LOCATION_REJECT_MIN_INTERVAL, /* minInterval greater than timeout */
	RT_LOCATION_REJECT_BAD_OPTIONS,  /* maxFixWait outside 40..600 s, minDistance < 0 */
	RT_LOCATION_REJECT_NO_FIX,       /* no position within maxFixWait of the start */
	RT_LOCATION_REJECT_GNSS_ERROR,   /* the receiver reported an error */
} rt_location_reject_t;

const char *rt_location_reject_message(rt_location_reject_t reject);

/* What one call decided. */
typedef struct {
	bool deliver;                    /* call the callback with position */
	rt_location_position_t position;
	bool gnss_on;                    /* the receiver's state after the call */
	bool gnss_changed;               /* it changed during the call */
	rt_location_end_t end;           /* the session ended in this call */
	rt_location_reject_t reject;
	bool result_known;               /* END_RESOLVED with a position */
	rt_location_position_t result;
	int64_t next_ms;                 /* call advance() then, at the latest */
} rt_location_out_t;

typedef struct {
	rt_location_options_t opt;
	bool tracking;
	bool periodic;
	int64_t start_ms;
	int64_t end_ms;          /* timeout, RT_LOCATION_NO_DEADLINE when unlimited */
	bool gnss_on;
	int64_t gnss_since_ms;   /* when GNSS last switched on */
	int64_t wait_until_ms;   /* fix wait deadline, RT_LOCATION_NO_DEADLINE when none */
	int64_t off_until_ms;    /* periodic: switch on again then */
	bool obtained;           /* a position (real or mocked) obtained in this session */
	bool delivered;
	int64_t delivered_ms;
	rt_location_position_t last_delivered;
	bool known;
	rt_location_position_t last_known;
	uint64_t gnss_on_total_ms; /* GNSS on-time, all sessions of this filter */
	uint32_t gnss_starts;      /* times GNSS was switched on */
} rt_location_filter_t;

/* An idle filter; last_known (may be NULL) is the device's last known position. */
void rt_location_filter_init(rt_location_filter_t *f, const rt_location_position_t *last_known);

/* startUpdates. Returns the rejection (and out->end) when the options are refused; otherwise
 * the session runs, GNSS on. A running session is replaced (its promise is the caller's). */
rt_location_reject_t rt_location_filter_start(rt_location_filter_t *f,
					      const rt_location_options_t *opt, int64_t now_ms,
					      rt_location_out_t *out);

/* Time passes to now_ms: fix waits, off periods and the timeout that fell due. */
void rt_location_filter_advance(rt_location_filter_t *f, int64_t now_ms, rt_location_out_t *out);

/* A position at now_ms: from the receiver (only taken while GNSS is on) or mocked. */
void rt_location_filter_fix(rt_location_filter_t *f, int64_t now_ms,
			    const rt_location_position_t *fix, rt_location_out_t *out);

/* The receiver failed: the session is rejected. */
void rt_location_filter_gnss_error(rt_location_filter_t *f, int64_t now_ms,
				   rt_location_out_t *out);

/* location.stop(resolvePromise). */
void rt_location_filter_stop(rt_location_filter_t *f, int64_t now_ms, bool resolve,
			     rt_location_out_t *out);

/* The next deadline, RT_LOCATION_NO_DEADLINE when none. */
int64_t rt_location_filter_next_deadline(const rt_location_filter_t *f);

/* Total GNSS on-time up to now_ms (for energy estimates). */
uint64_t rt_location_filter_gnss_on_ms(const rt_location_filter_t *f, int64_t now_ms);

#endif /* RT_LOCATION_FILTER_H */

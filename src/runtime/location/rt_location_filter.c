#include "rt_location_filter.h"

#include <math.h>
#include <stddef.h>

#include "rt_geo.h"

void rt_location_options_default(rt_location_options_t *opt, bool max_fix_wait)
{
	opt->timeout_ms = RT_LOCATION_DEFAULT_TIMEOUT_MS;
	opt->min_interval_ms = RT_LOCATION_DEFAULT_MIN_INTERVAL_MS;
	opt->min_distance_m = 0.0;
	opt->max_fix_wait_ms = max_fix_wait ? RT_LOCATION_DEFAULT_MAX_FIX_WAIT_MS : 0;
}

const char *rt_location_reject_message(rt_location_reject_t reject)
{
	switch (reject) {
	case RT_LOCATION_REJECT_NONE:
		return "OK";
	case RT_LOCATION_REJECT_MIN_INTERVAL:
		return "minInterval is greater than timeout";
	case RT_LOCATION_REJECT_BAD_OPTIONS:
		return "invalid location options";
	case RT_LOCATION_REJECT_NO_FIX:
		return "no fix within maxFixWait";
	case RT_LOCATION_REJECT_GNSS_ERROR:
		return "GNSS error";
	}
	return "location error";
}

void rt_location_filter_init(rt_location_filter_t *f, const rt_location_position_t *last_known)
{
	*f = (rt_location_filter_t){0};
	f->end_ms = RT_LOCATION_NO_DEADLINE;
	f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
	f->off_until_ms = RT_LOCATION_NO_DEADLINE;
	if (last_known != NULL) {
		f->known = true;
		f->last_known = *last_known;
	}
}

static int64_t add_ms(int64_t t, uint32_t ms)
{
	return t > RT_LOCATION_NO_DEADLINE - (int64_t)ms ? RT_LOCATION_NO_DEADLINE : t + ms;
}

static void out_reset(const rt_location_filter_t *f, rt_location_out_t *out)
{
	*out = (rt_location_out_t){0};
	out->gnss_on = f->gnss_on;
	out->next_ms = RT_LOCATION_NO_DEADLINE;
}

static void out_finish(const rt_location_filter_t *f, rt_location_out_t *out)
{
	out->gnss_on = f->gnss_on;
	out->next_ms = rt_location_filter_next_deadline(f);
}

static void gnss_set(rt_location_filter_t *f, bool on, int64_t now, rt_location_out_t *out)
{
	if (f->gnss_on == on) {
		return;
	}
	if (on) {
		f->gnss_since_ms = now;
		f->gnss_starts++;
	} else {
		f->gnss_on_total_ms += (uint64_t)(now - f->gnss_since_ms);
	}
	f->gnss_on = on;
	out->gnss_changed = true;
}

/* Switches GNSS on and, where maxFixWait applies to this wait, starts the fix wait. */
static void gnss_wake(rt_location_filter_t *f, int64_t now, rt_location_out_t *out)
{
	gnss_set(f, true, now, out);
	f->off_until_ms = RT_LOCATION_NO_DEADLINE;
	bool waits = f->opt.max_fix_wait_ms != 0 && (f->periodic || !f->obtained);
	f->wait_until_ms = waits ? add_ms(now, f->opt.max_fix_wait_ms) : RT_LOCATION_NO_DEADLINE;
}

static void end_session(rt_location_filter_t *f, int64_t now, rt_location_end_t end,
			rt_location_reject_t reject, rt_location_out_t *out)
{
	gnss_set(f, false, now, out);
	f->tracking = false;
	f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
	f->off_until_ms = RT_LOCATION_NO_DEADLINE;
	f->end_ms = RT_LOCATION_NO_DEADLINE;
	out->end = end;
	out->reject = reject;
	if (end == RT_LOCATION_END_RESOLVED && f->known) {
		out->result_known = true;
		out->result = f->last_known;
	}
}

rt_location_reject_t rt_location_filter_start(rt_location_filter_t *f,
					      const rt_location_options_t *opt, int64_t now_ms,
					      rt_location_out_t *out)
{
	out_reset(f, out);
	rt_location_reject_t reject = RT_LOCATION_REJECT_NONE;
	if ((opt->max_fix_wait_ms != 0 && (opt->max_fix_wait_ms < RT_LOCATION_MIN_MAX_FIX_WAIT_MS ||
					   opt->max_fix_wait_ms > RT_LOCATION_MAX_MAX_FIX_WAIT_MS)) ||
	    !(opt->min_distance_m >= 0) || !isfinite(opt->min_distance_m)) {
		reject = RT_LOCATION_REJECT_BAD_OPTIONS;
	} else if (opt->timeout_ms != 0 && opt->min_interval_ms > opt->timeout_ms) {
		reject = RT_LOCATION_REJECT_MIN_INTERVAL;
	}
	if (reject != RT_LOCATION_REJECT_NONE) {
		/* A refused call leaves a running session as it was. */
		out->end = RT_LOCATION_END_REJECTED;
		out->reject = reject;
		out_finish(f, out);
		return reject;
	}
	f->opt = *opt;
	f->tracking = true;
	f->periodic = opt->max_fix_wait_ms != 0 && opt->min_interval_ms >= opt->max_fix_wait_ms;
	f->start_ms = now_ms;
	f->end_ms = opt->timeout_ms != 0 ? add_ms(now_ms, opt->timeout_ms) : RT_LOCATION_NO_DEADLINE;
	f->obtained = false;
	f->delivered = false;
	if (f->gnss_on) {
		/* Replacing a session: the receiver stays on, the new wait starts now. */
		f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
	}
	gnss_wake(f, now_ms, out);
	out_finish(f, out);
	return RT_LOCATION_REJECT_NONE;
}

int64_t rt_location_filter_next_deadline(const rt_location_filter_t *f)
{
	if (!f->tracking) {
		return RT_LOCATION_NO_DEADLINE;
	}
	int64_t t = f->end_ms;
	if (f->gnss_on && f->wait_until_ms < t) {
		t = f->wait_until_ms;
	}
	if (!f->gnss_on && f->off_until_ms < t) {
		t = f->off_until_ms;
	}
	return t;
}

/* Takes the deadlines up to now in time order; the timeout first on a tie, since the app's
 * own bound on the session is what it asked for. */
static void advance(rt_location_filter_t *f, int64_t now, rt_location_out_t *out)
{
	while (f->tracking) {
		int64_t due = rt_location_filter_next_deadline(f);
		if (due > now) {
			return;
		}
		if (due == f->end_ms) {
			end_session(f, due, RT_LOCATION_END_RESOLVED, RT_LOCATION_REJECT_NONE, out);
		} else if (f->gnss_on) {
			/* A fix wait ran out. */
			if (!f->obtained) {
				end_session(f, due, RT_LOCATION_END_REJECTED, RT_LOCATION_REJECT_NO_FIX,
					    out);
			} else {
				gnss_set(f, false, due, out);
				f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
				f->off_until_ms = add_ms(due, f->opt.min_interval_ms);
			}
		} else {
			gnss_wake(f, due, out);
		}
	}
}

void rt_location_filter_advance(rt_location_filter_t *f, int64_t now_ms, rt_location_out_t *out)
{
	out_reset(f, out);
	advance(f, now_ms, out);
	out_finish(f, out);
}

void rt_location_filter_fix(rt_location_filter_t *f, int64_t now_ms,
			    const rt_location_position_t *fix, rt_location_out_t *out)
{
	out_reset(f, out);
	advance(f, now_ms, out);
	/* A receiver that is off gives no fixes: a late one is not taken. */
	if (!f->tracking || (!fix->mock && !f->gnss_on)) {
		out_finish(f, out);
		return;
	}
	f->obtained = true;
	if (!fix->mock) {
		f->known = true;
		f->last_known = *fix;
		f->last_known.diff_m = 0;
		if (f->periodic) {
			gnss_set(f, false, now_ms, out);
			f->off_until_ms = add_ms(now_ms, f->opt.min_interval_ms);
		}
		f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
	} else if (!f->periodic) {
		/* A mocked position ends the wait for the first one (no fix failure while mocked). */
		f->wait_until_ms = RT_LOCATION_NO_DEADLINE;
	}

	double diff = 0.0;
	bool deliver = true;
	if (f->delivered) {
		diff = rt_geo_distance(f->last_delivered.lat, f->last_delivered.lon, fix->lat, fix->lon);
		bool waited = now_ms - f->delivered_ms >= (int64_t)f->opt.min_interval_ms;
		bool moved = f->opt.min_distance_m == 0 || diff > f->opt.min_distance_m;
		deliver = waited && moved;
	}
	if (deliver) {
		out->deliver = true;
		out->position = *fix;
		out->position.diff_m = diff;
		f->delivered = true;
		f->delivered_ms = now_ms;
		f->last_delivered = out->position;
	}
	out_finish(f, out);
}

void rt_location_filter_gnss_error(rt_location_filter_t *f, int64_t now_ms, rt_location_out_t *out)
{
	out_reset(f, out);
	advance(f, now_ms, out);
	if (f->tracking) {
		end_session(f, now_ms, RT_LOCATION_END_REJECTED, RT_LOCATION_REJECT_GNSS_ERROR, out);
	}
	out_finish(f, out);
}

void rt_location_filter_stop(rt_location_filter_t *f, int64_t now_ms, bool resolve,
			     rt_location_out_t *out)
{
	out_reset(f, out);
	advance(f, now_ms, out);
	if (f->tracking) {
		end_session(f, now_ms, resolve ? RT_LOCATION_END_RESOLVED : RT_LOCATION_END_STOPPED,
			    RT_LOCATION_REJECT_NONE, out);
	}
	out_finish(f, out);
}

uint64_t rt_location_filter_gnss_on_ms(const rt_location_filter_t *f, int64_t now_ms)
{
	uint64_t total = f->gnss_on_total_ms;
	if (f->gnss_on && now_ms > f->gnss_since_ms) {
		total += (uint64_t)(now_ms - f->gnss_since_ms);
	}
	return total;
}

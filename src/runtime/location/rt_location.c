/*
 * location: GNSS position updates, mocking and distances. See rt_location.h; the rules are
 * rt_location_filter's (docs/location.md).
 */
#include "rt_location.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "hal_gnss.h"
#include "rt_api_version.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_geo.h"
#include "rt_loop.h"

static rt_location_state_t *state(void)
{
	rt_location_state_t *st = &rt_device()->location;
	if (!st->ready) {
		rt_location_filter_init(&st->filter, NULL);
		st->ready = true;
	}
	return st;
}

static int64_t now_ms(void)
{
	return (int64_t)hal_clock_ms();
}

static void drop(eng_ref_t *slot)
{
	if (*slot) {
		eng_ref_free(*slot);
		*slot = 0;
	}
}

/* ------------------------------------------------------------------ positions */

/* Figures as a receiver reports them: coordinates to 1e-7 degree (1 cm), the rest to a tenth; so
 * no float noise of the driver's single precision reaches the app. */
static double round_to(double x, double step)
{
	return round(x / step) * step;
}

static eng_value_t make_position(const rt_location_position_t *p)
{
	rt_Position_t v = {
		.lat = round_to(p->lat, 1e-7),
		.long_ = round_to(p->lon, 1e-7),
		.speed = round_to(p->speed_kmh, 0.1),
		.alt = round_to(p->alt, 0.1),
		.head = round_to(p->head_deg, 0.1),
		.prec = round_to(p->prec, 0.1),
		.diff = round_to(p->diff_m, 0.1),
		.ts = (double)p->ts_ms,
		.sat = p->sat,
		.mock = p->mock ? 1 : 0,
	};
	return api_make_Position(&v);
}

/* ------------------------------------------------------------------ the session */

static void schedule(rt_location_state_t *st, int64_t next_ms);

static void settle(eng_ref_t *slot, bool resolve, eng_value_t value)
{
	if (!*slot) {
		return;
	}
	eng_value_t promise = eng_ref_get(*slot);
	drop(slot);
	if (resolve) {
		eng_promise_resolve(promise, value);
	} else {
		eng_promise_reject(promise, value);
	}
	eng_release(promise);
}

static eng_value_t reject_error(rt_location_reject_t reject, const rt_location_options_t *opt)
{
	switch (reject) {
	case RT_LOCATION_REJECT_MIN_INTERVAL:
		/* An argument error found after the call: a RangeError, like the glue's, as a
		 * rejection because the spec has the promise rejected. */
		return rt_error_kind(ENG_ERROR_RANGE, RT_ESR0502_ARGUMENTS_DISAGREE,
				     "location.startUpdates: minInterval (%g s) is greater than timeout (%g s)",
				     opt->min_interval_ms / 1000.0, opt->timeout_ms / 1000.0);
	case RT_LOCATION_REJECT_NO_FIX:
		return rt_error_esr(RT_ESR0901_GNSS_NO_FIX,
				    "location.startUpdates: no fix within maxFixWait (%g s)",
				    opt->max_fix_wait_ms / 1000.0);
	case RT_LOCATION_REJECT_GNSS_ERROR:
		return rt_error_esr(RT_ESR0902_GNSS_ERROR, "location.startUpdates: the GNSS receiver failed");
	default:
		return rt_error_esr(RT_ESR0001_UNKNOWN, "location.startUpdates: %s",
				    rt_location_reject_message(reject));
	}
}

static void stop_mock(rt_location_state_t *st)
{
	st->mocking = false;
	rt_alarm_cancel(&st->mock_alarm);
}

/* Carry out what the filter decided: the receiver, the callback, the end of the session. */
static void apply(rt_location_state_t *st, const rt_location_out_t *out)
{
	if (out->gnss_on != st->gnss_on) {
		st->gnss_on = out->gnss_on;
		if (!hal_gnss_set(out->gnss_on) && out->gnss_on) {
			/* The receiver would not start: the session fails as on a receiver error. */
			rt_location_out_t failed;
			rt_location_filter_gnss_error(&st->filter, now_ms(), &failed);
			st->gnss_on = false;
			apply(st, &failed);
			return;
		}
	}
	if (out->end != RT_LOCATION_END_NONE) {
		stop_mock(st);
		rt_alarm_cancel(&st->alarm);
		drop(&st->callback);
		if (out->end == RT_LOCATION_END_RESOLVED) {
			eng_value_t v = out->result_known ? make_position(&out->result) : eng_undefined();
			settle(&st->promise, true, v);
			eng_release(v);
		} else if (out->end == RT_LOCATION_END_REJECTED) {
			eng_value_t e = reject_error(out->reject, &st->filter.opt);
			settle(&st->promise, false, e);
			eng_release(e);
		} else {
			drop(&st->promise); /* stop(false): the promise stays as it is */
		}
		return;
	}
	schedule(st, out->next_ms);
}

static void on_deadline(void *context)
{
	(void)context;
	rt_location_state_t *st = state();
	st->alarm = 0;
	rt_location_out_t out;
	rt_location_filter_advance(&st->filter, now_ms(), &out);
	apply(st, &out);
}

static void schedule(rt_location_state_t *st, int64_t next_ms)
{
	rt_alarm_cancel(&st->alarm);
	if (next_ms != RT_LOCATION_NO_DEADLINE && st->filter.tracking) {
		st->alarm = rt_alarm_at((uint64_t)(next_ms < 0 ? 0 : next_ms), on_deadline, NULL);
	}
}

/* A position for the filter (the receiver's or a mock); the callback runs after the filter's
 * decision is carried out, so a callback that stops or restarts updates sees a settled state. */
static void take(rt_location_state_t *st, const rt_location_position_t *p)
{
	rt_location_out_t out;
	rt_location_filter_fix(&st->filter, now_ms(), p, &out);
	/* Keep the callback alive across apply(), which lets it go when the session ends. */
	eng_ref_t callback = 0;
	if (st->callback) {
		eng_value_t fn = eng_ref_get(st->callback);
		callback = eng_ref_new(fn);
		eng_release(fn);
	}
	apply(st, &out);
	if (out.deliver && callback) {
		st->delivered++;
		eng_value_t fn = eng_ref_get(callback);
		eng_value_t pos = make_position(&out.position);
		rt_loop_invoke(fn, &pos, 1);
		eng_release(pos);
		eng_release(fn);
	}
	if (callback) {
		eng_ref_free(callback);
	}
}

static void on_fix(const rt_event_t *event)
{
	hal_gnss_fix_t fix;
	memcpy(&fix, event->payload, sizeof(fix));
	rt_location_state_t *st = state();
	if (!st->filter.tracking || st->mocking) {
		return; /* a late fix, or one a mock stands in for */
	}
	rt_location_position_t p = {
		.lat = fix.lat,
		.lon = fix.lon,
		.alt = fix.alt,
		.speed_kmh = fix.speed_kmh,
		.head_deg = fix.head_deg,
		.prec = fix.hdop,
		.ts_ms = fix.utc_ms,
		.sat = fix.sat,
		.mock = false,
	};
	take(st, &p);
}

void rt_location_post_fix(struct rt_device *device, const hal_gnss_fix_t *fix)
{
	rt_loop_post_to(device, on_fix, fix, sizeof(*fix));
}

static void on_error(const rt_event_t *event)
{
	(void)event;
	rt_location_state_t *st = state();
	rt_location_out_t out;
	rt_location_filter_gnss_error(&st->filter, now_ms(), &out);
	apply(st, &out);
}

void rt_location_post_error(struct rt_device *device)
{
	rt_loop_post_to(device, on_error, NULL, 0);
}

bool rt_location_tracking(void)
{
	return state()->filter.tracking;
}

void rt_location_reset(void)
{
	rt_location_state_t *st = state();
	if (st->filter.tracking) {
		rt_location_out_t out;
		rt_location_filter_stop(&st->filter, now_ms(), false, &out);
	}
	if (st->gnss_on) {
		hal_gnss_set(false);
		st->gnss_on = false;
	}
	stop_mock(st);
	rt_alarm_cancel(&st->alarm);
	drop(&st->callback);
	drop(&st->promise);
}

/* ------------------------------------------------------------------ API */

eng_value_t rt_location_distance(const rt_location_distance_args_t *args)
{
	/* Metres along the WGS-84 geodesic (Vincenty, rt_geo): the unit of a position's diff. */
	return eng_number(rt_geo_distance(args->from.lat, args->from.long_, args->to.lat,
					  args->to.long_));
}

static uint32_t seconds_to_ms(double s)
{
	double ms = round(s * 1000.0);
	return ms >= 4294967295.0 ? 4294967295u : (uint32_t)ms;
}

eng_value_t rt_location_startUpdates(const rt_location_startUpdates_args_t *args)
{
	rt_location_state_t *st = state();
	rt_location_options_t opt;
	/* maxFixWait is 0.2.6's: before, GNSS stays on for the whole session. */
	bool fix_wait = rt_api_version() >= RT_API_VERSION(0, 2, 0);
	rt_location_options_default(&opt, fix_wait);
	const rt_LocationOptions_t *o = &args->options;
	if (args->has_options) {
		if (o->has_timeout) {
			opt.timeout_ms = seconds_to_ms(o->timeout);
		}
		if (o->has_minInterval) {
			opt.min_interval_ms = seconds_to_ms(o->minInterval);
		}
		if (o->has_minDistance) {
			opt.min_distance_m = o->minDistance;
		}
		if (fix_wait && o->has_maxFixWait) {
			opt.max_fix_wait_ms = seconds_to_ms(o->maxFixWait);
		}
	}
	eng_value_t promise = eng_promise_new();
	bool replacing = st->filter.tracking;
	rt_location_out_t out;
	rt_location_reject_t reject = rt_location_filter_start(&st->filter, &opt, now_ms(), &out);
	if (reject != RT_LOCATION_REJECT_NONE) {
		/* Refused: a running session goes on as it was. */
		eng_value_t e = reject_error(reject, &opt);
		eng_promise_reject(promise, e);
		eng_release(e);
		return promise;
	}
	if (replacing && st->promise) {
		/* One session at a time: the one replaced ends as on stop(true), with the last known
		 * position, so no promise is left pending for ever. */
		eng_value_t v = st->filter.known ? make_position(&st->filter.last_known) : eng_undefined();
		settle(&st->promise, true, v);
		eng_release(v);
	}
	stop_mock(st);
	drop(&st->callback);
	st->callback = eng_ref_new(args->callback);
	st->promise = eng_ref_new(promise);
	apply(st, &out);
	return promise;
}

static void on_mock(void *context)
{
	(void)context;
	rt_location_state_t *st = state();
	st->mock_alarm = 0;
	if (!st->mocking || !st->filter.tracking) {
		return;
	}
	rt_location_position_t p = st->mock;
	int64_t utc;
	p.ts_ms = hal_clock_utc_ms(&utc) ? utc : 0;
	st->mock_alarm = rt_alarm_at(hal_clock_ms() + RT_LOCATION_MOCK_PERIOD_MS, on_mock, NULL);
	take(st, &p);
}

eng_value_t rt_location_mock(const rt_location_mock_args_t *args)
{
	rt_location_state_t *st = state();
	if (!args->has_position) {
		stop_mock(st);
		return eng_undefined();
	}
	if (!st->filter.tracking) {
		hal_log(HAL_LOG_WARN, "location.mock: no location.startUpdates is running; nothing is mocked");
		return eng_undefined();
	}
	const rt_MockPosition_t *m = &args->position;
	st->mock = (rt_location_position_t){
		.lat = m->lat,
		.lon = m->long_,
		.alt = m->has_alt ? m->alt : 0,
		.speed_kmh = m->has_speed ? m->speed : 0,
		.head_deg = m->has_head ? m->head : 0,
		.prec = m->has_prec ? m->prec : 0,
		.sat = m->has_sat ? (uint8_t)m->sat : 0,
		.mock = true,
	};
	st->mocking = true;
	rt_alarm_cancel(&st->mock_alarm);
	/* The first mocked position as soon as the running callback returns, then one a second. */
	st->mock_alarm = rt_alarm_at(hal_clock_ms(), on_mock, NULL);
	return eng_undefined();
}

eng_value_t rt_location_stop(const rt_location_stop_args_t *args)
{
	rt_location_state_t *st = state();
	bool resolve = args->has_resolvePromise ? args->resolvePromise : true;
	rt_location_out_t out;
	rt_location_filter_stop(&st->filter, now_ms(), resolve, &out);
	if (out.end != RT_LOCATION_END_NONE || out.gnss_changed) {
		apply(st, &out);
	}
	return eng_undefined();
}

/*
 * uwb: ultra-wideband ranging of 0.1.5. See rt_uwb.h; the rules of uwb.start are rt_uwb_model's
 * (docs/location.md).
 */
#include "rt_uwb.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_device.h"
#include "hal_uwb.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"

static rt_uwb_state_t *state(void)
{
	return &rt_device()->uwb;
}

static void drop(eng_ref_t *slot)
{
	if (*slot) {
		eng_ref_free(*slot);
		*slot = 0;
	}
}

/* End ranging; resolve: the start promise resolves (else it is let go as it is). */
static void finish(bool resolve)
{
	rt_uwb_state_t *st = state();
	if (st->running) {
		hal_uwb_stop();
		st->running = false;
	}
	rt_alarm_cancel(&st->timeout);
	drop(&st->callback);
	if (st->promise && resolve) {
		eng_value_t promise = eng_ref_get(st->promise);
		eng_value_t undefined = eng_undefined();
		eng_promise_resolve(promise, undefined);
		eng_release(undefined);
		eng_release(promise);
	}
	drop(&st->promise);
}

void rt_uwb_reset(void)
{
	finish(false);
}

static void on_timeout(void *context)
{
	(void)context;
	state()->timeout = 0;
	finish(true);
}

typedef struct {
	double dist_m;
	uint8_t lqi;
	char id[RT_UWB_ID_MAX];
} measurement_t;

static void on_measurement(const rt_event_t *event)
{
	measurement_t m;
	memcpy(&m, event->payload, sizeof(m));
	m.id[RT_UWB_ID_MAX - 1] = '\0';
	rt_uwb_state_t *st = state();
	if (!st->running || !st->callback) {
		return;
	}
	/* The app's window, for either role (the radio reports whatever it measured). */
	if (m.dist_m < st->config.min_distance_m || m.dist_m > st->config.max_distance_m) {
		return;
	}
	rt_UwbMeasurement_t v = {
		.id = eng_string_z(m.id),
		.dist = round(m.dist_m * 100.0) / 100.0, /* the radio resolves centimetres */
		.lqi = m.lqi,
	};
	eng_value_t arg = api_make_UwbMeasurement(&v);
	eng_release(v.id);
	eng_value_t fn = eng_ref_get(st->callback);
	rt_loop_invoke(fn, &arg, 1);
	eng_release(fn);
	eng_release(arg);
}

void rt_uwb_post_measurement(struct rt_device *device, const char *id, double dist_m, uint8_t lqi)
{
	measurement_t m;
	memset(&m, 0, sizeof(m));
	m.dist_m = dist_m;
	m.lqi = lqi;
	strncpy(m.id, id, sizeof(m.id) - 1);
	rt_loop_post_to(device, on_measurement, &m, sizeof(m));
}

eng_value_t rt_uwb_start(const rt_uwb_start_args_t *args)
{
	const rt_UwbOptions_t *o = &args->options;
	rt_uwb_options_in_t in = {
		.has_timeout = o->has_timeout,
		.timeout_s = o->timeout,
		.has_mode = o->has_mode,
		.mode = o->mode,
		.has_pan_id = o->has_panId,
		.pan_id = o->panId,
		.has_min_distance = o->has_minDistance,
		.min_distance_m = o->minDistance,
		.has_max_distance = o->has_maxDistance,
		.max_distance_m = o->maxDistance,
	};
	bool has_callback = eng_typeof(args->callback) == ENG_TYPE_FUNCTION;
	rt_uwb_config_t config;
	const char *detail = "";
	rt_uwb_error_t error = rt_uwb_validate(args->role, args->has_options ? &in : NULL, has_callback,
					       &config, &detail);
	eng_value_t promise = eng_promise_new();
	if (error != RT_UWB_OK) {
		/* uwb.start answers with its promise: bad arguments reject it (`.catch` sees them),
		 * as the glue's own argument errors do (@rejects in the declaration). */
		eng_value_t e = rt_error_esr(error == RT_UWB_ERR_BAD_ARGS_FOR_ROLE ? RT_ESR1701_BAD_ROLE_ARGS
										 : RT_ESR1703_INVALID_OPTIONS,
					     "uwb.start: %s", detail ? detail : "");
		eng_promise_reject(promise, e);
		eng_release(e);
		return promise;
	}
	/* One ranging session at a time: a new start ends the one before, which resolves. */
	finish(true);
	if (!(hal_device_features() & HAL_FEATURE_UWB) ||
	    !hal_uwb_start(config.role, config.mode, config.pan_id)) {
		eng_value_t e = rt_error_esr(RT_ESR0003_UNSUPPORTED, "uwb.start: this hardware has no UWB radio");
		eng_promise_reject(promise, e);
		eng_release(e);
		return promise;
	}
	rt_uwb_state_t *st = state();
	st->running = true;
	st->config = config;
	if (has_callback) {
		st->callback = eng_ref_new(args->callback);
	}
	st->promise = eng_ref_new(promise);
	if (config.timeout_ms != 0) {
		st->timeout = rt_alarm_at(hal_clock_ms() + config.timeout_ms, on_timeout, NULL);
	}
	return promise;
}

eng_value_t rt_uwb_stop(const rt_uwb_stop_args_t *args)
{
	finish(args->has_resolvePromise ? args->resolvePromise : true);
	return eng_undefined();
}

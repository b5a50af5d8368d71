#include "rt_uwb_model.h"

#include <math.h>
#include <stddef.h>

#include "rt_geo.h"

#define UWB_PI 3.14159265358979323846
/* Margin (dB) at which lqi reaches 100. */
#define UWB_LQI_FULL_DB 30.0
/* Closer than this the free-space law says nothing useful (antennas' near field). */
#define UWB_NEAR_M 0.1

const char *rt_uwb_error_code(rt_uwb_error_t error)
{
	switch (error) {
	case RT_UWB_OK:
		return NULL;
	case RT_UWB_ERR_BAD_ARGS_FOR_ROLE:
		return "ESR1701";
	case RT_UWB_ERR_INVALID_OPTIONS:
		return "ESR1703";
	}
	return NULL;
}

const char *rt_uwb_error_message(rt_uwb_error_t error)
{
	switch (error) {
	case RT_UWB_OK:
		return "OK";
	case RT_UWB_ERR_BAD_ARGS_FOR_ROLE:
		return "Bad args for role";
	case RT_UWB_ERR_INVALID_OPTIONS:
		return "Invalid options";
	}
	return "Invalid options";
}

static rt_uwb_error_t fail(rt_uwb_error_t e, const char *why, const char **detail)
{
	if (detail != NULL) {
		*detail = why;
	}
	return e;
}

rt_uwb_error_t rt_uwb_validate(double role, const rt_uwb_options_in_t *options, bool has_callback,
			       rt_uwb_config_t *out, const char **detail)
{
	static const rt_uwb_options_in_t none = {0};
	const rt_uwb_options_in_t *o = options != NULL ? options : &none;
	if (role != RT_UWB_ROLE_RESPONDER && role != RT_UWB_ROLE_INITIATOR) {
		return fail(RT_UWB_ERR_BAD_ARGS_FOR_ROLE, "role is not RESPONDER or INITIATOR", detail);
	}
	/* The callback is optional for both roles, as the spec has it: an initiator without one
	 * still ranges (responders hear it), a responder with one hears each initiator's distance. */
	(void)has_callback;
	if (o->has_timeout && !(isfinite(o->timeout_s) && o->timeout_s >= 0)) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "timeout must be 0 or more seconds", detail);
	}
	if (o->has_mode && o->mode != RT_UWB_MODE_HIGH_PERFORMANCE &&
	    o->mode != RT_UWB_MODE_LONGER_RANGE) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "mode must be 0 or 1", detail);
	}
	if (o->has_pan_id &&
	    !(o->pan_id >= 0 && o->pan_id <= 65535 && o->pan_id == floor(o->pan_id))) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "panId must be an integer 0..65535", detail);
	}
	double min = o->has_min_distance ? o->min_distance_m : 0.0;
	double max = o->has_max_distance ? o->max_distance_m : (double)INFINITY;
	if (o->has_min_distance && !(isfinite(min) && min >= 0)) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "minDistance must be 0 or more", detail);
	}
	if (o->has_max_distance && !(isfinite(max) && max > 0)) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "maxDistance must be more than 0", detail);
	}
	if (min >= max) {
		return fail(RT_UWB_ERR_INVALID_OPTIONS, "minDistance must be below maxDistance", detail);
	}
	out->role = (uint8_t)role;
	out->mode = o->has_mode ? (uint8_t)o->mode : RT_UWB_MODE_HIGH_PERFORMANCE;
	out->pan_id = o->has_pan_id ? (uint16_t)o->pan_id : 0;
	/* Rounded to the millisecond; beyond 2^53 ms (285 000 years) the double already is. */
	out->timeout_ms = o->has_timeout ? (uint64_t)llround(o->timeout_s * 1000.0) : 0;
	out->min_distance_m = min;
	out->max_distance_m = max;
	return RT_UWB_OK;
}

void rt_uwb_model_init(rt_uwb_model_t *model, uint64_t seed)
{
	*model = (rt_uwb_model_t){
		.range_m = {50.0, 120.0},
		.sigma0_m = {0.05, 0.10},
		.sigma_per_m = {0.001, 0.002},
		.seed = seed,
	};
}

double rt_uwb_true_distance(const rt_uwb_position_t *a, const rt_uwb_position_t *b)
{
	double s = rt_geo_distance(a->lat, a->lon, b->lat, b->lon);
	double dz = b->alt - a->alt;
	return isfinite(dz) ? hypot(s, dz) : (double)NAN;
}

uint8_t rt_uwb_lqi(const rt_uwb_model_t *model, uint8_t mode, double d)
{
	if (mode >= RT_UWB_MODES || !(d <= model->range_m[mode])) {
		return 0;
	}
	double margin_db = 20.0 * log10(model->range_m[mode] / fmax(d, UWB_NEAR_M));
	double q = round(100.0 * margin_db / UWB_LQI_FULL_DB);
	return (uint8_t)fmin(100.0, fmax(0.0, q));
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A standard normal number from a hash (Box-Muller). */
static double gaussian(uint64_t seed, uint32_t id, int64_t t)
{
	uint64_t a = mix(seed ^ mix(((uint64_t)id << 32) ^ mix((uint64_t)t)));
	uint64_t b = mix(a);
	double u1 = ((double)(a >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
	double u2 = (double)(b >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * UWB_PI * u2);
}

bool rt_uwb_measure(const rt_uwb_model_t *model, const rt_uwb_config_t *initiator,
		    const rt_uwb_config_t *responder, const rt_uwb_position_t *initiator_at,
		    const rt_uwb_position_t *responder_at, uint32_t responder_id, int64_t t_ms,
		    rt_uwb_measurement_t *out)
{
	*out = (rt_uwb_measurement_t){.true_m = rt_uwb_true_distance(initiator_at, responder_at)};
	double d = out->true_m;
	if (initiator->role != RT_UWB_ROLE_INITIATOR || responder->role != RT_UWB_ROLE_RESPONDER ||
	    initiator->mode != responder->mode || initiator->pan_id != responder->pan_id ||
	    initiator->mode >= RT_UWB_MODES || !(d <= model->range_m[initiator->mode])) {
		return false;
	}
	uint8_t mode = initiator->mode;
	double sigma = model->sigma0_m[mode] + model->sigma_per_m[mode] * d;
	double measured = fmax(0.0, d + sigma * gaussian(model->seed, responder_id, t_ms));
	if (measured < initiator->min_distance_m || measured > initiator->max_distance_m) {
		return false;
	}
	out->dist_m = measured;
	out->lqi = rt_uwb_lqi(model, mode, d);
	return true;
}

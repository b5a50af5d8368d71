/*
 * rt_uwb_model.h: uwb.start of 0.1.5 (the AI hardware variant): the argument rules by role, and
 * the ranging model of two simulated devices.
 *
 * Roles (uwb.Role): RESPONDER = 0 answers ranging polls and measures nothing; INITIATOR = 1 polls
 * responders with its panId and hands each distance to its callback. Modes: 0 high performance,
 * 1 longer range (the spec names the two but not their numbers; these are the firmware's).
 *
 * uwb.start's checks, in this order (the first that fails is thrown):
 *  ESR1701 Bad args for role:
 *    - role is not 0 or 1;
 *    - an initiator without a callback (nothing would receive its distances);
 *    - a responder with a callback (it measures nothing);
 *    - a responder given minDistance or maxDistance (they filter an initiator's measurements).
 *  ESR1703 Invalid options:
 *    - timeout negative or not finite;
 *    - mode other than 0 or 1;
 *    - panId not an integer in 0..65535;
 *    - minDistance negative, maxDistance not positive, either not finite, or
 *      minDistance >= maxDistance (a window nothing can fall in).
 * Defaults: timeout 0 (until uwb.stop), mode 0, panId 0, minDistance 0, maxDistance none (the
 * radio's range decides).
 *
 * Ranging: an initiator measures a responder when both use the same mode and panId and the true
 * distance (geodesic distance and height difference, from the devices' world positions) is
 * within the mode's radio range. The measured distance is the true one plus Gaussian noise
 * (sigma = sigma0 + sigma_per_m * d), drawn from a hash of the seed, the responder and the time,
 * so a run repeats exactly; never negative. It is reported only when it lies in the initiator's
 * [minDistance, maxDistance]. lqi (0..100) follows the link margin of free-space loss: 20 log10
 * (range / d) dB, 100 at 30 dB and more, 0 at the range's edge.
 *
 * Pure: state in the caller's structs, no allocation.
 */
#ifndef RT_UWB_MODEL_H
#define RT_UWB_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum {
	RT_UWB_ROLE_RESPONDER = 0,
	RT_UWB_ROLE_INITIATOR = 1,
};

enum {
	RT_UWB_MODE_HIGH_PERFORMANCE = 0,
	RT_UWB_MODE_LONGER_RANGE = 1,
	RT_UWB_MODES = 2,
};

/* The options of uwb.start as given (timeout in s); has_* false when absent. The same shape as
 * the generated glue's rt_UwbOptions_t, without depending on it. */
typedef struct {
	bool has_timeout;
	double timeout_s;
	bool has_mode;
	double mode;
	bool has_pan_id;
	double pan_id;
	bool has_min_distance;
	double min_distance_m;
	bool has_max_distance;
	double max_distance_m;
} rt_uwb_options_in_t;

/* A checked configuration. */
typedef struct {
	uint8_t role;
	uint8_t mode;
	uint16_t pan_id;
	uint64_t timeout_ms;   /* 0: until uwb.stop */
	double min_distance_m;
	double max_distance_m; /* INFINITY when not given */
} rt_uwb_config_t;

typedef enum {
	RT_UWB_OK = 0,
	RT_UWB_ERR_BAD_ARGS_FOR_ROLE, /* ESR1701 */
	RT_UWB_ERR_INVALID_OPTIONS,   /* ESR1703 */
} rt_uwb_error_t;

/* "ESR1701" or "ESR1703" (NULL for OK) and the spec's wording. */
const char *rt_uwb_error_code(rt_uwb_error_t error);
const char *rt_uwb_error_message(rt_uwb_error_t error);

/* Checks uwb.start's arguments (options NULL when not given). On error *detail (may be NULL)
 * says which rule, and out is untouched. */
rt_uwb_error_t rt_uwb_validate(double role, const rt_uwb_options_in_t *options, bool has_callback,
			       rt_uwb_config_t *out, const char **detail);

typedef struct {
	double range_m[RT_UWB_MODES];
	double sigma0_m[RT_UWB_MODES];
	double sigma_per_m[RT_UWB_MODES];
	uint64_t seed;
} rt_uwb_model_t;

/*
 * Defaults, in line with the published figures of IEEE 802.15.4z radios such as Qorvo's DW3000
 * (line of sight): high performance 50 m, sigma 5 cm + 0.1 %; longer range 120 m, sigma 10 cm
 * + 0.2 %.
 */
void rt_uwb_model_init(rt_uwb_model_t *model, uint64_t seed);

/* A device's place in the world (as GNSS tracks give it). */
typedef struct {
	double lat, lon; /* degrees */
	double alt;      /* m */
} rt_uwb_position_t;

typedef struct {
	double true_m; /* the model's true distance */
	double dist_m; /* measured: the spec's dist */
	uint8_t lqi;   /* the spec's lqi */
} rt_uwb_measurement_t;

/* The distance between two world positions, m (NAN for invalid ones). */
double rt_uwb_true_distance(const rt_uwb_position_t *a, const rt_uwb_position_t *b);

/* lqi at true distance d in a mode. */
uint8_t rt_uwb_lqi(const rt_uwb_model_t *model, uint8_t mode, double d);

/*
 * One ranging exchange at t_ms between an initiator and a responder (responder_id tells the
 * responders apart for the noise). Returns false when there is no measurement for the callback:
 * roles, mode or panId do not match, out of range, or outside the initiator's window. out->
 * true_m is set whenever the positions are valid.
 */
bool rt_uwb_measure(const rt_uwb_model_t *model, const rt_uwb_config_t *initiator,
		    const rt_uwb_config_t *responder, const rt_uwb_position_t *initiator_at,
		    const rt_uwb_position_t *responder_at, uint32_t responder_id, int64_t t_ms,
		    rt_uwb_measurement_t *out);

#endif /* RT_UWB_MODEL_H */

/*
 * rt_gnss_track.h: a GNSS track of the simulated world and the receiver that follows it.
 *
 * The track is a list of timed points (world time in ms, latitude, longitude, altitude, and
 * optionally speed and heading). Between points the device moves along the geodesic at constant
 * speed (rt_geo), so the position at any time, and the speed and heading when the points do not
 * give them, follow from the points alone. Before the first point the device stands at it, after
 * the last at that one.
 *
 * Reception: the sky is good except in outages (tunnels, indoors: [from, to) intervals) and where
 * the satellites in view (a step function over time, with HDOP) are fewer than 4, the least a 3D
 * fix needs. A receiver switched on at on_since needs continuous reception for its time to first
 * fix, which depends on the age of the last fix it had (so of its ephemeris and almanac):
 * hot (last fix at most hot_max_age ago), warm (at most warm_max_age ago) or cold (older, or
 * never). Reception lost before the first fix starts the wait again; a fix lost while on comes
 * back after the same rule applied to the moment it was lost (usually hot).
 *
 * The model answers: with GNSS on since on_since, is there a fix at t, and what is it; and when
 * is the next one. Deterministic: the same track and question give the same answer. Optional
 * noise (noise_m per unit HDOP, 0 = none) is a Gaussian offset drawn from a hash of seed and
 * t, so a fix at a given time is always the same fix.
 *
 * Pure: the arrays are the caller's (no allocation); nothing is kept between calls.
 */
#ifndef RT_GNSS_TRACK_H
#define RT_GNSS_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_GNSS_NEVER INT64_MIN

/* The fewest satellites a 3D fix needs. */
#define RT_GNSS_MIN_SATELLITES 4

typedef struct {
	int64_t t_ms;     /* world time; strictly increasing along the track */
	double lat;       /* degrees, [-90, 90] */
	double lon;       /* degrees, any finite value */
	double alt;       /* metres */
	double speed_kmh; /* NAN: derived from the points */
	double head_deg;  /* NAN: derived; else [0, 360) */
} rt_gnss_point_t;

/* No fix in [from_ms, to_ms). Sorted, not overlapping. */
typedef struct {
	int64_t from_ms;
	int64_t to_ms;
} rt_gnss_outage_t;

/* From t_ms on (until the next entry): satellites in use and HDOP. Sorted by t_ms. */
typedef struct {
	int64_t t_ms;
	uint8_t sat;
	double hdop;
} rt_gnss_sky_t;

typedef struct {
	const rt_gnss_point_t *points;
	size_t n_points;
	const rt_gnss_outage_t *outages;
	size_t n_outages;
	const rt_gnss_sky_t *sky;
	size_t n_sky;
	uint8_t sat;             /* sky before the first entry (or with none) */
	double hdop;
	uint32_t ttff_cold_ms;   /* time to first fix */
	uint32_t ttff_warm_ms;
	uint32_t ttff_hot_ms;
	uint32_t hot_max_age_ms; /* ephemeris still valid */
	uint32_t warm_max_age_ms; /* almanac, time and rough position still good */
	double noise_m;          /* horizontal standard deviation per unit HDOP; 0 = none */
	uint64_t seed;
} rt_gnss_track_t;

/*
 * A track over points[0..n) with the defaults: always 8 satellites, HDOP 1.0; TTFF cold 35 s,
 * warm 25 s, hot 2 s; hot up to 2 h after the last fix (GPS ephemerides are valid for 4 h
 * around their reference time), warm up to 7 days; no noise.
 */
void rt_gnss_track_init(rt_gnss_track_t *track, const rt_gnss_point_t *points, size_t n);

typedef enum {
	RT_GNSS_TRACK_OK = 0,
	RT_GNSS_TRACK_NO_POINTS,
	RT_GNSS_TRACK_POINT_ORDER,  /* t_ms not strictly increasing */
	RT_GNSS_TRACK_POINT_RANGE,  /* lat, lon, alt, speed or heading out of range */
	RT_GNSS_TRACK_OUTAGE_ORDER, /* empty, unsorted or overlapping outage */
	RT_GNSS_TRACK_SKY_ORDER,    /* sky entries not strictly increasing in time */
	RT_GNSS_TRACK_SKY_RANGE,    /* HDOP not positive and finite */
} rt_gnss_track_error_t;

/* Checks a track before use; *index (may be NULL) is the entry at fault. */
rt_gnss_track_error_t rt_gnss_track_check(const rt_gnss_track_t *track, size_t *index);
const char *rt_gnss_track_error_message(rt_gnss_track_error_t error);

/* Where the device is at t, without noise or reception. */
typedef struct {
	double lat, lon, alt;
	double speed_kmh;
	double head_deg;
} rt_gnss_pose_t;

void rt_gnss_track_pose(const rt_gnss_track_t *track, int64_t t_ms, rt_gnss_pose_t *out);

/* True when the sky gives a fix at t (GNSS on and acquired aside). */
bool rt_gnss_track_receiving(const rt_gnss_track_t *track, int64_t t_ms);

typedef struct {
	bool fix;
	int64_t t_ms;
	int64_t acquired_ms; /* when this fix was (re)acquired */
	double lat, lon, alt;
	double speed_kmh;
	double head_deg;
	double hdop;
	uint8_t sat;
} rt_gnss_fix_t;

/*
 * With GNSS switched on at on_since_ms (and kept on), the fix at t_ms. last_fix_ms is the time
 * of the last fix the receiver had before on_since_ms, or RT_GNSS_NEVER. Returns out->fix; with
 * no fix only t_ms, sat and hdop are set.
 */
bool rt_gnss_track_fix(const rt_gnss_track_t *track, int64_t on_since_ms, int64_t last_fix_ms,
		       int64_t t_ms, rt_gnss_fix_t *out);

/* The earliest time >= t_ms at which rt_gnss_track_fix would give a fix, or RT_GNSS_NEVER when
 * the sky never allows one again. */
int64_t rt_gnss_track_next_fix(const rt_gnss_track_t *track, int64_t on_since_ms,
			       int64_t last_fix_ms, int64_t t_ms);

/* The time to first fix a receiver needs when its last fix was at last_fix_ms and reception
 * starts at t_ms (hot, warm or cold). */
uint32_t rt_gnss_track_ttff(const rt_gnss_track_t *track, int64_t last_fix_ms, int64_t t_ms);

#endif /* RT_GNSS_TRACK_H */

#include "rt_gnss_track.h"

#include <math.h>

#include "rt_geo.h"

#define GNSS_PI 3.14159265358979323846

void rt_gnss_track_init(rt_gnss_track_t *track, const rt_gnss_point_t *points, size_t n)
{
	*track = (rt_gnss_track_t){
		.points = points,
		.n_points = n,
		.sat = 8,
		.hdop = 1.0,
		.ttff_cold_ms = 35000,
		.ttff_warm_ms = 25000,
		.ttff_hot_ms = 2000,
		.hot_max_age_ms = 2u * 3600u * 1000u,
		.warm_max_age_ms = 7u * 24u * 3600u * 1000u,
	};
}

const char *rt_gnss_track_error_message(rt_gnss_track_error_t error)
{
	switch (error) {
	case RT_GNSS_TRACK_OK:
		return "OK";
	case RT_GNSS_TRACK_NO_POINTS:
		return "the track has no points";
	case RT_GNSS_TRACK_POINT_ORDER:
		return "track point times must increase strictly";
	case RT_GNSS_TRACK_POINT_RANGE:
		return "track point out of range (lat -90..90, finite lon and alt, speed >= 0, "
		       "heading 0..360)";
	case RT_GNSS_TRACK_OUTAGE_ORDER:
		return "outages must be non-empty, sorted and apart";
	case RT_GNSS_TRACK_SKY_ORDER:
		return "sky entry times must increase strictly";
	case RT_GNSS_TRACK_SKY_RANGE:
		return "HDOP must be positive";
	}
	return "invalid track";
}

rt_gnss_track_error_t rt_gnss_track_check(const rt_gnss_track_t *track, size_t *index)
{
	size_t ignored;
	if (index == NULL) {
		index = &ignored;
	}
	*index = 0;
	if (track->points == NULL || track->n_points == 0) {
		return RT_GNSS_TRACK_NO_POINTS;
	}
	for (size_t i = 0; i < track->n_points; i++) {
		const rt_gnss_point_t *p = &track->points[i];
		*index = i;
		if (i > 0 && p->t_ms <= track->points[i - 1].t_ms) {
			return RT_GNSS_TRACK_POINT_ORDER;
		}
		bool ok = isfinite(p->lat) && p->lat >= -90 && p->lat <= 90 && isfinite(p->lon) &&
			  isfinite(p->alt) &&
			  (isnan(p->speed_kmh) || (isfinite(p->speed_kmh) && p->speed_kmh >= 0)) &&
			  (isnan(p->head_deg) || (p->head_deg >= 0 && p->head_deg < 360));
		if (!ok) {
			return RT_GNSS_TRACK_POINT_RANGE;
		}
	}
	for (size_t i = 0; i < track->n_outages; i++) {
		const rt_gnss_outage_t *o = &track->outages[i];
		*index = i;
		if (o->to_ms <= o->from_ms || (i > 0 && o->from_ms < track->outages[i - 1].to_ms)) {
			return RT_GNSS_TRACK_OUTAGE_ORDER;
		}
	}
	if (!(isfinite(track->hdop) && track->hdop > 0)) {
		*index = 0;
		return RT_GNSS_TRACK_SKY_RANGE;
	}
	for (size_t i = 0; i < track->n_sky; i++) {
		const rt_gnss_sky_t *s = &track->sky[i];
		*index = i;
		if (i > 0 && s->t_ms <= track->sky[i - 1].t_ms) {
			return RT_GNSS_TRACK_SKY_ORDER;
		}
		if (!(isfinite(s->hdop) && s->hdop > 0)) {
			return RT_GNSS_TRACK_SKY_RANGE;
		}
	}
	*index = 0;
	return RT_GNSS_TRACK_OK;
}

/* ------------------------------------------------------------------------------------ pose */

/* The index of the last point at or before t, or -1 before the first. */
static long point_before(const rt_gnss_track_t *track, int64_t t)
{
	size_t lo = 0, hi = track->n_points;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track->points[mid].t_ms <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return (long)lo - 1;
}

/* Segments shorter than this are standing still: no heading of their own. */
#define STILL_M 0.01

/* The heading of the last segment ending at or before point i that moved; 0 if none did. */
static double last_heading(const rt_gnss_track_t *track, long i)
{
	for (long k = i; k >= 1; k--) {
		const rt_gnss_point_t *a = &track->points[k - 1], *b = &track->points[k];
		rt_geo_inverse_t g;
		rt_geo_inverse(a->lat, a->lon, b->lat, b->lon, &g);
		if (g.s12_m >= STILL_M) {
			return g.azi2_deg;
		}
	}
	/* Standing still from the start: look ahead for the first move. */
	for (size_t k = 1; k < track->n_points; k++) {
		const rt_gnss_point_t *a = &track->points[k - 1], *b = &track->points[k];
		rt_geo_inverse_t g;
		rt_geo_inverse(a->lat, a->lon, b->lat, b->lon, &g);
		if (g.s12_m >= STILL_M) {
			return g.azi1_deg;
		}
	}
	return 0.0;
}

static double angle_lerp(double a, double b, double f)
{
	double d = remainder(b - a, 360.0);
	double r = fmod(a + f * d + 360.0, 360.0);
	return r >= 360.0 ? 0.0 : r;
}

static void pose_at_point(const rt_gnss_track_t *track, long i, rt_gnss_pose_t *out)
{
	const rt_gnss_point_t *p = &track->points[i];
	out->lat = p->lat;
	out->lon = remainder(p->lon, 360.0);
	out->alt = p->alt;
	/* Outside the track the device stands still; a point's own heading is kept. */
	out->speed_kmh = 0.0;
	out->head_deg = isnan(p->head_deg) ? last_heading(track, i) : p->head_deg;
}

void rt_gnss_track_pose(const rt_gnss_track_t *track, int64_t t_ms, rt_gnss_pose_t *out)
{
	long i = point_before(track, t_ms);
	if (i < 0) {
		pose_at_point(track, 0, out);
		return;
	}
	if ((size_t)i == track->n_points - 1) {
		pose_at_point(track, i, out);
		return;
	}
	const rt_gnss_point_t *a = &track->points[i], *b = &track->points[i + 1];
	double dt = (double)(b->t_ms - a->t_ms);
	double f = (double)(t_ms - a->t_ms) / dt;
	rt_geo_inverse_t g;
	rt_geo_inverse(a->lat, a->lon, b->lat, b->lon, &g);
	double head = 0;
	if (g.s12_m < STILL_M) {
		out->lat = a->lat;
		out->lon = remainder(a->lon, 360.0);
		head = last_heading(track, i);
	} else {
		rt_geo_destination(a->lat, a->lon, g.azi1_deg, f * g.s12_m, &out->lat, &out->lon, &head);
	}
	out->alt = a->alt + f * (b->alt - a->alt);
	if (!isnan(a->speed_kmh) && !isnan(b->speed_kmh)) {
		out->speed_kmh = a->speed_kmh + f * (b->speed_kmh - a->speed_kmh);
	} else if (!isnan(a->speed_kmh)) {
		out->speed_kmh = a->speed_kmh;
	} else {
		/* m per ms is 3600 km/h. */
		out->speed_kmh = g.s12_m / dt * 3600.0;
	}
	if (!isnan(a->head_deg) && !isnan(b->head_deg)) {
		out->head_deg = angle_lerp(a->head_deg, b->head_deg, f);
	} else if (!isnan(a->head_deg)) {
		out->head_deg = a->head_deg;
	} else {
		out->head_deg = head;
	}
}

/* ------------------------------------------------------------------------------- reception */

static void sky_at(const rt_gnss_track_t *track, int64_t t, uint8_t *sat, double *hdop)
{
	size_t lo = 0, hi = track->n_sky;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track->sky[mid].t_ms <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == 0) {
		*sat = track->sat;
		*hdop = track->hdop;
	} else {
		*sat = track->sky[lo - 1].sat;
		*hdop = track->sky[lo - 1].hdop;
	}
}

bool rt_gnss_track_receiving(const rt_gnss_track_t *track, int64_t t_ms)
{
	/* The first outage ending after t: t is in it when it has begun. */
	size_t lo = 0, hi = track->n_outages;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track->outages[mid].to_ms <= t_ms) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < track->n_outages && track->outages[lo].from_ms <= t_ms) {
		return false;
	}
	uint8_t sat;
	double hdop;
	sky_at(track, t_ms, &sat, &hdop);
	return sat >= RT_GNSS_MIN_SATELLITES;
}

/* The first time after t at which reception may change, INT64_MAX if never. */
static int64_t next_change(const rt_gnss_track_t *track, int64_t t)
{
	int64_t best = INT64_MAX;
	size_t lo = 0, hi = track->n_outages;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track->outages[mid].to_ms <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < track->n_outages) {
		const rt_gnss_outage_t *o = &track->outages[lo];
		best = o->from_ms > t ? o->from_ms : o->to_ms;
	}
	lo = 0;
	hi = track->n_sky;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track->sky[mid].t_ms <= t) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < track->n_sky && track->sky[lo].t_ms < best) {
		best = track->sky[lo].t_ms;
	}
	return best;
}

uint32_t rt_gnss_track_ttff(const rt_gnss_track_t *track, int64_t last_fix_ms, int64_t t_ms)
{
	if (last_fix_ms == RT_GNSS_NEVER || last_fix_ms > t_ms) {
		return track->ttff_cold_ms;
	}
	/* Unsigned: a difference of two int64 times may not fit int64 (t - INT64_MIN + 1). */
	uint64_t age = (uint64_t)t_ms - (uint64_t)last_fix_ms;
	if (age <= track->hot_max_age_ms) {
		return track->ttff_hot_ms;
	}
	if (age <= track->warm_max_age_ms) {
		return track->ttff_warm_ms;
	}
	return track->ttff_cold_ms;
}

/*
 * Walks the reception from on_since to t. Returns the time at or after t at which a fix is held
 * (t itself when there is a fix at t) and sets *acquired to the moment it was acquired; or
 * RT_GNSS_NEVER when there is none (at t, when at_t_only; at all, otherwise).
 */
static int64_t walk(const rt_gnss_track_t *track, int64_t on, int64_t last_fix, int64_t t,
		    bool at_t_only, int64_t *acquired)
{
	int64_t cursor = on;
	bool receiving_before = false;
	int64_t rec_start = 0, fix_from = 0;
	for (;;) {
		bool rec = rt_gnss_track_receiving(track, cursor);
		int64_t nxt = next_change(track, cursor);
		if (rec && !receiving_before) {
			rec_start = cursor;
			uint32_t need = rt_gnss_track_ttff(track, last_fix, rec_start);
			fix_from = rec_start > INT64_MAX - (int64_t)need ? INT64_MAX : rec_start + need;
		} else if (!rec && receiving_before && fix_from <= cursor) {
			/* The fix was held until reception ended here. */
			last_fix = cursor;
		}
		receiving_before = rec;
		if (rec && fix_from < nxt && (at_t_only ? t < nxt : true)) {
			int64_t when = t > fix_from ? t : fix_from;
			if (when < cursor) {
				when = cursor; /* the search went past t without a fix */
			}
			if (when < nxt) {
				if (at_t_only && when != t) {
					return RT_GNSS_NEVER;
				}
				*acquired = fix_from;
				return when;
			}
		}
		if (at_t_only && t < nxt) {
			return RT_GNSS_NEVER;
		}
		if (nxt == INT64_MAX) {
			return RT_GNSS_NEVER;
		}
		cursor = nxt;
	}
}

/* A Gaussian pair from a hash of seed and t (splitmix64 and Box-Muller). */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void gaussian(uint64_t seed, int64_t t, unsigned k, double *g1, double *g2)
{
	uint64_t a = mix(seed ^ mix((uint64_t)t * 2u + k));
	uint64_t b = mix(a);
	double u1 = ((double)(a >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
	double u2 = (double)(b >> 11) / 9007199254740992.0;
	double r = sqrt(-2.0 * log(u1));
	*g1 = r * cos(2.0 * GNSS_PI * u2);
	*g2 = r * sin(2.0 * GNSS_PI * u2);
}

bool rt_gnss_track_fix(const rt_gnss_track_t *track, int64_t on_since_ms, int64_t last_fix_ms,
		       int64_t t_ms, rt_gnss_fix_t *out)
{
	*out = (rt_gnss_fix_t){.fix = false, .t_ms = t_ms};
	sky_at(track, t_ms, &out->sat, &out->hdop);
	if (t_ms < on_since_ms) {
		return false;
	}
	int64_t acquired;
	if (walk(track, on_since_ms, last_fix_ms, t_ms, true, &acquired) == RT_GNSS_NEVER) {
		return false;
	}
	rt_gnss_pose_t pose;
	rt_gnss_track_pose(track, t_ms, &pose);
	out->fix = true;
	out->acquired_ms = acquired;
	out->lat = pose.lat;
	out->lon = pose.lon;
	out->alt = pose.alt;
	out->speed_kmh = pose.speed_kmh;
	out->head_deg = pose.head_deg;
	if (track->noise_m > 0) {
		double n, e, v, unused;
		double sigma = track->noise_m * out->hdop;
		gaussian(track->seed, t_ms, 0, &n, &e);
		gaussian(track->seed, t_ms, 1, &v, &unused);
		/* Vertical error is typically about 1.5 times the horizontal (VDOP > HDOP). */
		out->alt += 1.5 * sigma * v;
		double d = sigma * hypot(n, e);
		if (d > 0) {
			rt_geo_destination(pose.lat, pose.lon, atan2(e, n) * 180.0 / GNSS_PI, d, &out->lat,
					   &out->lon, NULL);
		}
	}
	return true;
}

int64_t rt_gnss_track_next_fix(const rt_gnss_track_t *track, int64_t on_since_ms,
			       int64_t last_fix_ms, int64_t t_ms)
{
	int64_t acquired;
	if (t_ms < on_since_ms) {
		t_ms = on_since_ms;
	}
	return walk(track, on_since_ms, last_fix_ms, t_ms, false, &acquired);
}

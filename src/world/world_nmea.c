/*
 * world_nmea.c: NMEA 0183 sentences of a fix (see world_nmea.h). Only integer formatting: the
 * firmware's C library may print no floating point.
 */
#include "world_nmea.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_utc.h"

/* An NMEA 0183 sentence: at most 82 characters from '$' to LF. */
#define SENTENCE_MAX 82

uint8_t world_nmea_checksum(const char *body, size_t len)
{
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++) {
		sum ^= (uint8_t)body[i];
	}
	return sum;
}

/* x rounded to a whole number of units of 10^-decimals, clamped to [lo, hi] units. */
static int64_t scaled(double x, int decimals, int64_t lo, int64_t hi)
{
	if (isnan(x)) {
		return 0;
	}
	double v = round(x * pow(10.0, decimals));
	return v < (double)lo ? lo : v > (double)hi ? hi : (int64_t)v;
}

/* A fixed-point field: value in units of 10^-decimals (decimals 1..6), a sign when negative. */
static int put_fixed(char *out, size_t cap, int64_t value, int decimals)
{
	static const uint32_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	uint64_t mag = value < 0 ? (uint64_t)-value : (uint64_t)value;
	return snprintf(out, cap, "%s%lu.%0*lu", value < 0 ? "-" : "",
			(unsigned long)(mag / pow10[decimals]), decimals,
			(unsigned long)(mag % pow10[decimals]));
}

/* A latitude (width 2) or longitude (width 3) as d..dmm.mmmmmm and its hemisphere letter. */
static int put_angle(char *out, size_t cap, double deg, int width, char pos, char neg)
{
	int64_t micro_minutes = llround(fabs(deg) * 60e6);
	return snprintf(out, cap, "%0*u%02u.%06u,%c", width, (unsigned)(micro_minutes / 60000000),
			(unsigned)(micro_minutes % 60000000 / 1000000),
			(unsigned)(micro_minutes % 1000000), deg < 0 ? neg : pos);
}

/* Close the sentence begun at start ('$' ... up to len): checksum and CR LF. Returns the
 * sentence's length, or 0 when it does not fit cap or NMEA's 82 characters. */
static size_t finish(char *start, size_t len, size_t cap)
{
	uint8_t sum = world_nmea_checksum(start + 1, len - 1);
	int n = snprintf(start + len, cap > len ? cap - len : 0, "*%02X\r\n", sum);
	size_t total = len + (size_t)n;
	return total >= cap || total > SENTENCE_MAX ? 0 : total;
}

/* Append to a sentence being written; false when out of room. */
#define PUT(expr)                                                                                  \
	do {                                                                                       \
		int n_ = (expr);                                                                   \
		if (n_ < 0 || (size_t)n_ >= cap - len) {                                           \
			return 0;                                                                  \
		}                                                                                  \
		len += (size_t)n_;                                                                 \
	} while (0)

static size_t rmc(const hal_gnss_fix_t *fix, const rt_utc_parts_t *t, char *out, size_t cap)
{
	size_t len = 0;
	PUT(snprintf(out, cap, "$GNRMC,%02u%02u%02u.%03u,A,", t->hour, t->minute, t->ms / 1000,
		     t->ms % 1000));
	PUT(put_angle(out + len, cap - len, fix->lat, 2, 'N', 'S'));
	PUT(snprintf(out + len, cap - len, ","));
	PUT(put_angle(out + len, cap - len, fix->lon, 3, 'E', 'W'));
	/* Speed over ground in knots (1 knot = 1.852 km/h); course over ground in [0, 360). */
	PUT(snprintf(out + len, cap - len, ","));
	PUT(put_fixed(out + len, cap - len, scaled((double)fix->speed_kmh / 1.852, 3, 0, 9999999), 3));
	int64_t course = scaled(fix->head_deg, 2, INT32_MIN, INT32_MAX) % 36000;
	PUT(snprintf(out + len, cap - len, ","));
	PUT(put_fixed(out + len, cap - len, course < 0 ? course + 36000 : course, 2));
	/* Date; no magnetic variation; mode A (autonomous, NMEA 2.3). */
	PUT(snprintf(out + len, cap - len, ",%02u%02u%02u,,,A", t->day, t->month,
		     (unsigned)(t->year % 100)));
	return finish(out, len, cap);
}

static size_t gga(const hal_gnss_fix_t *fix, const rt_utc_parts_t *t, char *out, size_t cap)
{
	size_t len = 0;
	PUT(snprintf(out, cap, "$GNGGA,%02u%02u%02u.%03u,", t->hour, t->minute, t->ms / 1000,
		     t->ms % 1000));
	PUT(put_angle(out + len, cap - len, fix->lat, 2, 'N', 'S'));
	PUT(snprintf(out + len, cap - len, ","));
	PUT(put_angle(out + len, cap - len, fix->lon, 3, 'E', 'W'));
	/* Quality 1 (a GNSS fix), satellites used, HDOP. */
	PUT(snprintf(out + len, cap - len, ",1,%02u,", fix->sat > 99 ? 99u : (unsigned)fix->sat));
	PUT(put_fixed(out + len, cap - len, scaled(fix->hdop, 2, 0, 9999), 2));
	/* Altitude in metres; the geoid's separation 0: the altitude is the ellipsoid's. */
	PUT(snprintf(out + len, cap - len, ","));
	PUT(put_fixed(out + len, cap - len, scaled(fix->alt, 2, -9999999, 9999999), 2));
	PUT(snprintf(out + len, cap - len, ",M,0.0,M,,"));
	return finish(out, len, cap);
}

size_t world_nmea_fix(const hal_gnss_fix_t *fix, char *out, size_t cap)
{
	rt_utc_parts_t t;
	rt_utc_split(fix->utc_ms, &t);
	size_t first = rmc(fix, &t, out, cap);
	size_t second = first == 0 ? 0 : gga(fix, &t, out + first, cap - first);
	if (second == 0) {
		if (cap > 0) {
			out[0] = '\0';
		}
		return 0;
	}
	return first + second;
}

/*
 * world_nmea.c: NMEA 0183 sentences of a fix (see world_nmea.h). Only integer formatting: the
 * firmware's C library may print no floating point.
 */
#include "world_nmea.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* A sentence being written into out: what did not fit makes it full, and it is dropped. */
typedef struct {
	char *out;
	size_t cap, len;
	bool full;
} sentence_t;

static void put(sentence_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sentence_t *s, const char *fmt, ...)
{
	if (s->full) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->out + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->cap - s->len) {
		s->full = true;
		return;
	}
	s->len += (size_t)n;
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

/* ",value": a fixed-point field in units of 10^-decimals (decimals 1..6), a sign when negative. */
static void put_fixed(sentence_t *s, int64_t value, int decimals)
{
	static const uint32_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	uint64_t mag = value < 0 ? (uint64_t)-value : (uint64_t)value;
	put(s, ",%s%lu.%0*lu", value < 0 ? "-" : "", (unsigned long)(mag / pow10[decimals]), decimals,
	    (unsigned long)(mag % pow10[decimals]));
}

/* ",d..dmm.mmmmmm,H": a latitude (width 2) or longitude (width 3) and its hemisphere letter. */
static void put_angle(sentence_t *s, double deg, int width, char pos, char neg)
{
	int64_t micro_minutes = llround(fabs(deg) * 60e6);
	put(s, ",%0*u%02u.%06u,%c", width, (unsigned)(micro_minutes / 60000000),
	    (unsigned)(micro_minutes % 60000000 / 1000000), (unsigned)(micro_minutes % 1000000),
	    deg < 0 ? neg : pos);
}

/* What both sentences start with: $GN<id>,time[,status],lat,N/S,lon,E/W */
static void put_head(sentence_t *s, const char *id, const char *status, const hal_gnss_fix_t *fix,
		     const rt_utc_parts_t *t)
{
	put(s, "$GN%s,%02u%02u%02u.%03u%s", id, t->hour, t->minute, t->ms / 1000, t->ms % 1000, status);
	put_angle(s, fix->lat, 2, 'N', 'S');
	put_angle(s, fix->lon, 3, 'E', 'W');
}

/* Close the sentence: checksum and CR LF. Returns its length, or 0 when it did not fit out or
 * NMEA's 82 characters. */
static size_t finish(sentence_t *s)
{
	if (s->full || s->len < 1) {
		return 0;
	}
	put(s, "*%02X\r\n", world_nmea_checksum(s->out + 1, s->len - 1));
	return s->full || s->len > SENTENCE_MAX ? 0 : s->len;
}

static size_t rmc(const hal_gnss_fix_t *fix, const rt_utc_parts_t *t, char *out, size_t cap)
{
	sentence_t s = {out, cap, 0, cap == 0};
	put_head(&s, "RMC", ",A", fix, t);
	/* Speed over ground in knots (1 knot = 1.852 km/h); course over ground in [0, 360). */
	put_fixed(&s, scaled((double)fix->speed_kmh / 1.852, 3, 0, 9999999), 3);
	int64_t course = scaled(fix->head_deg, 2, INT32_MIN, INT32_MAX) % 36000;
	put_fixed(&s, course < 0 ? course + 36000 : course, 2);
	/* Date; no magnetic variation; mode A (autonomous, NMEA 2.3). */
	put(&s, ",%02u%02u%02u,,,A", t->day, t->month, (unsigned)(t->year % 100));
	return finish(&s);
}

static size_t gga(const hal_gnss_fix_t *fix, const rt_utc_parts_t *t, char *out, size_t cap)
{
	sentence_t s = {out, cap, 0, cap == 0};
	put_head(&s, "GGA", "", fix, t);
	/* Quality 1 (a GNSS fix), satellites used, HDOP. */
	put(&s, ",1,%02u", fix->sat > 99 ? 99u : (unsigned)fix->sat);
	put_fixed(&s, scaled(fix->hdop, 2, 0, 9999), 2);
	/* Altitude in metres; the geoid's separation 0: the altitude is the ellipsoid's. */
	put_fixed(&s, scaled(fix->alt, 2, -9999999, 9999999), 2);
	put(&s, ",M,0.0,M,,");
	return finish(&s);
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

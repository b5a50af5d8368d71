/* The simulated receiver's NMEA 0183 sentences (world_nmea) and the calendar dates under them
 * (rt_utc). Known answers were worked out apart from this code (Python's datetime and its own
 * XOR); the properties hold for fixes all over the globe. Zephyr's generic NMEA driver reads these
 * sentences on the LTE beacon's host chip (bindings-ts/test/bsimPair.test.ts). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_utc.h"
#include "world_nmea.h"

static hal_gnss_fix_t munich(void)
{
	hal_gnss_fix_t fix = {
		.lat = 48.0 + 8.2322 / 60,
		.lon = 11.0 + 34.536 / 60,
		.utc_ms = 1767244029123, /* 2026-01-01 05:07:09.123 */
		.alt = 519.3f,
		.speed_kmh = 5.0004f, /* 2.7 knots */
		.head_deg = 45.5f,
		.hdop = 1.2f,
		.sat = 7,
	};
	return fix;
}

static void test_known_fix(void **state)
{
	hal_gnss_fix_t fix = munich();
	char out[WORLD_NMEA_FIX_MAX];
	size_t n = world_nmea_fix(&fix, out, sizeof(out));
	const char *want =
		"$GNRMC,050709.123,A,4808.232200,N,01134.536000,E,2.700,45.50,010126,,,A*7C\r\n"
		"$GNGGA,050709.123,4808.232200,N,01134.536000,E,1,07,1.20,519.30,M,0.0,M,,*71\r\n";
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void test_checksum_of_the_standard_example(void **state)
{
	/* NMEA 0183's own GGA example, "$GPGGA,...,M,,*47". */
	const char *body = "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,";
	assert_int_equal(world_nmea_checksum(body, strlen(body)), 0x47);
}

/* One field (from 0: the sentence id) of the sentence starting at s. */
static void field(const char *s, int index, char *out, size_t cap)
{
	for (int i = 0; i < index; i++) {
		s = strchr(s, ',') + 1;
	}
	size_t len = strcspn(s, ",*");
	assert_true(len < cap);
	memcpy(out, s, len);
	out[len] = '\0';
}

static double angle(const char *value, const char *hemisphere, int width)
{
	char deg[4] = {0};
	memcpy(deg, value, (size_t)width);
	double d = atof(deg) + atof(value + width) / 60.0;
	return hemisphere[0] == 'S' || hemisphere[0] == 'W' ? -d : d;
}

/* Every sentence: '$', a body, '*', the body's checksum, CR LF, at most 82 characters. */
static const char *check_sentence(const char *s)
{
	const char *star = strchr(s, '*');
	assert_non_null(star);
	assert_int_equal(s[0], '$');
	unsigned sum = 0;
	assert_int_equal(sscanf(star + 1, "%2X", &sum), 1);
	assert_int_equal(sum, world_nmea_checksum(s + 1, (size_t)(star - s - 1)));
	assert_memory_equal(star + 3, "\r\n", 2);
	assert_true(star + 5 - s <= 82);
	return star + 5;
}

static void test_round_trip_over_the_globe(void **state)
{
	uint32_t seed = 12345;
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		double u = (seed >> 8) / 16777216.0;
		seed = seed * 1103515245u + 12345u;
		double v = (seed >> 8) / 16777216.0;
		hal_gnss_fix_t fix = {
			.lat = -90.0 + 180.0 * u,
			.lon = -180.0 + 360.0 * v,
			.utc_ms = 946684800000 + (int64_t)(u * 3155760000000.0), /* 2000..2099 */
			.alt = (float)(-400.0 + 9000.0 * v),
			.speed_kmh = (float)(300.0 * u),
			.head_deg = (float)(360.0 * v),
			.hdop = (float)(0.5 + 20.0 * u),
			.sat = (uint8_t)(i % 40),
		};
		char out[WORLD_NMEA_FIX_MAX];
		assert_true(world_nmea_fix(&fix, out, sizeof(out)) > 0);
		const char *gga = check_sentence(out);
		assert_int_equal(*check_sentence(gga), '\0');

		char a[24], b[24];
		field(out, 3, a, sizeof(a));
		field(out, 4, b, sizeof(b));
		assert_true(fabs(angle(a, b, 2) - fix.lat) <= 1e-6 / 60 + 1e-12);
		field(out, 5, a, sizeof(a));
		field(out, 6, b, sizeof(b));
		assert_true(fabs(angle(a, b, 3) - fix.lon) <= 1e-6 / 60 + 1e-12);
		field(out, 7, a, sizeof(a));
		assert_true(fabs(atof(a) * 1.852 - (double)fix.speed_kmh) <= 0.001);
		field(out, 8, a, sizeof(a));
		double course = atof(a);
		assert_true(course >= 0 && course < 360);
		assert_true(fabs(remainder(course - (double)fix.head_deg, 360.0)) <= 0.005 + 1e-4);

		/* The time and date give back the fix's UTC. */
		rt_utc_parts_t t = {0};
		unsigned hh, mm, ss, ms, dd, mo, yy;
		field(out, 1, a, sizeof(a));
		assert_int_equal(sscanf(a, "%2u%2u%2u.%3u", &hh, &mm, &ss, &ms), 4);
		field(out, 9, b, sizeof(b));
		assert_int_equal(sscanf(b, "%2u%2u%2u", &dd, &mo, &yy), 3);
		t = (rt_utc_parts_t){(int32_t)(2000 + yy), (uint8_t)mo, (uint8_t)dd, (uint8_t)hh,
				     (uint8_t)mm, (uint16_t)(ss * 1000 + ms)};
		assert_true(rt_utc_join(&t) == fix.utc_ms);

		/* GGA: the same time and position, quality 1, satellites, HDOP, altitude. */
		field(gga, 1, b, sizeof(b));
		assert_string_equal(a, b);
		field(gga, 6, a, sizeof(a));
		assert_string_equal(a, "1");
		field(gga, 7, a, sizeof(a));
		assert_int_equal(atoi(a), fix.sat);
		field(gga, 8, a, sizeof(a));
		assert_true(fabs(atof(a) - (double)fix.hdop) <= 0.005 + 1e-6);
		field(gga, 9, a, sizeof(a));
		assert_true(fabs(atof(a) - (double)fix.alt) <= 0.005 + 1e-3);
		field(gga, 11, a, sizeof(a));
		assert_string_equal(a, "0.0");
	}
}

static void test_rounding_carries_into_degrees(void **state)
{
	/* 59.9999999 minutes is 60.000000: a whole degree more, never "4760.000000". */
	hal_gnss_fix_t fix = munich();
	fix.lat = -(47.0 + 59.9999999 / 60);
	fix.lon = -(179.0 + 59.99999996 / 60);
	fix.head_deg = 359.999f; /* rounds to 360.00: course 0.00 */
	char out[WORLD_NMEA_FIX_MAX];
	assert_true(world_nmea_fix(&fix, out, sizeof(out)) > 0);
	char a[24];
	field(out, 3, a, sizeof(a));
	assert_string_equal(a, "4800.000000");
	field(out, 4, a, sizeof(a));
	assert_string_equal(a, "S");
	field(out, 5, a, sizeof(a));
	assert_string_equal(a, "18000.000000");
	field(out, 6, a, sizeof(a));
	assert_string_equal(a, "W");
	field(out, 8, a, sizeof(a));
	assert_string_equal(a, "0.00");
}

static void test_out_of_range_values_are_clamped(void **state)
{
	hal_gnss_fix_t fix = munich();
	fix.alt = 1e7f;
	fix.hdop = 500.0f;
	fix.sat = 200;
	fix.speed_kmh = NAN;
	fix.head_deg = NAN;
	char out[WORLD_NMEA_FIX_MAX];
	assert_true(world_nmea_fix(&fix, out, sizeof(out)) > 0);
	const char *gga = check_sentence(out);
	check_sentence(gga);
	char a[24];
	field(out, 7, a, sizeof(a));
	assert_string_equal(a, "0.000");
	field(out, 8, a, sizeof(a));
	assert_string_equal(a, "0.00");
	field(gga, 7, a, sizeof(a));
	assert_string_equal(a, "99");
	field(gga, 8, a, sizeof(a));
	assert_string_equal(a, "99.99");
	field(gga, 9, a, sizeof(a));
	assert_string_equal(a, "99999.99");
}

static void test_too_small_a_buffer_gives_nothing(void **state)
{
	hal_gnss_fix_t fix = munich();
	char out[WORLD_NMEA_FIX_MAX];
	size_t n = world_nmea_fix(&fix, out, sizeof(out));
	for (size_t cap = 0; cap <= n; cap++) {
		char small[WORLD_NMEA_FIX_MAX];
		memset(small, 'x', sizeof(small));
		assert_int_equal(world_nmea_fix(&fix, small, cap), 0);
		if (cap > 0) {
			assert_int_equal(small[0], '\0');
		}
		for (size_t i = cap; i < sizeof(small); i++) {
			assert_int_equal(small[i], 'x'); /* nothing written past cap */
		}
	}
}

static void test_calendar(void **state)
{
	assert_true(rt_utc_days_from_civil(1970, 1, 1) == 0);
	assert_true(rt_utc_days_from_civil(2000, 3, 1) == 11017);
	assert_true(rt_utc_days_from_civil(1969, 12, 31) == -1);
	rt_utc_parts_t p;
	rt_utc_split(1867017599999, &p); /* 2029-02-28 23:59:59.999 */
	assert_int_equal(p.year, 2029);
	assert_int_equal(p.month, 2);
	assert_int_equal(p.day, 28);
	assert_int_equal(p.hour, 23);
	assert_int_equal(p.minute, 59);
	assert_int_equal(p.ms, 59999);
	rt_utc_split(-1, &p); /* 1969-12-31 23:59:59.999 */
	assert_int_equal(p.year, 1969);
	assert_int_equal(p.day, 31);
	assert_int_equal(p.ms, 59999);
	/* Every day of four centuries (leap years, 2100 is none) splits and joins back. */
	for (int64_t day = -40000; day < 110000; day += 1) {
		int64_t t = day * 86400000 + ((day * 7919) % 86400000 + 86400000) % 86400000;
		rt_utc_split(t, &p);
		assert_true(rt_utc_join(&p) == t);
		assert_true(rt_utc_days_from_civil(p.year, p.month, p.day) == day);
	}
	rt_utc_split(rt_utc_days_from_civil(2100, 2, 28) * 86400000 + 86400000, &p);
	assert_int_equal(p.month, 3);
	assert_int_equal(p.day, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_fix),
		cmocka_unit_test(test_checksum_of_the_standard_example),
		cmocka_unit_test(test_round_trip_over_the_globe),
		cmocka_unit_test(test_rounding_carries_into_degrees),
		cmocka_unit_test(test_out_of_range_values_are_clamped),
		cmocka_unit_test(test_too_small_a_buffer_gives_nothing),
		cmocka_unit_test(test_calendar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

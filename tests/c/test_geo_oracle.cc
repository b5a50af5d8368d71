/*
 * rt_geo against GeographicLib (Debian's libgeographiclib-dev: Karney's algorithm, accurate to
 * 15 nm), the library made for the job, on lines the published examples do not reach: random
 * lines over the whole ellipsoid, lines within a degree of the antipode (where Vincenty's
 * iteration fails and rt_geo's bisection answers) and short lines of 10 cm to 10 km, the
 * distances a tracker compares. The random points come from a fixed seed, so every run checks
 * the same lines.
 *
 * C++ only because GeographicLib's API is C++; rt_geo itself is the portable C of the firmware.
 */
#include <GeographicLib/Geodesic.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "rt_geo.h"
}

using GeographicLib::Geodesic;

namespace {

/* splitmix64: small, fixed, the same on every platform (std::mt19937 would do, but its
 * distributions are not specified bit for bit across standard libraries). */
struct Rng {
	uint64_t s;
	double uniform()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		return (double)(z >> 11) / 9007199254740992.0;
	}
	/* A latitude uniform over the sphere's area. */
	double lat() { return std::asin(2 * uniform() - 1) * 180 / M_PI; }
	double lon() { return 360 * uniform() - 180; }
};

double azimuth_diff(double a, double b)
{
	return std::fabs(std::remainder(a - b, 360.0));
}

struct Worst {
	double dist = 0, azi = 0, direct = 0;
	int fallbacks = 0;
};

enum Kind { ANYWHERE, NEAR_ANTIPODE, SHORT };

Worst compare(Kind kind, int n, uint64_t seed)
{
	const Geodesic &g = Geodesic::WGS84();
	Rng rng{seed};
	Worst w;
	for (int i = 0; i < n; i++) {
		double lat1 = rng.lat(), lon1 = rng.lon(), lat2, lon2;
		if (kind == ANYWHERE) {
			lat2 = rng.lat();
			lon2 = rng.lon();
		} else if (kind == NEAR_ANTIPODE) {
			lat2 = -lat1 + 2 * (rng.uniform() - 0.5);
			lat2 = std::fmax(-90, std::fmin(90, lat2));
			lon2 = lon1 + 180 + 2 * (rng.uniform() - 0.5);
		} else {
			double s = std::pow(10, -1 + 5 * rng.uniform());
			g.Direct(lat1, lon1, 360 * rng.uniform(), s, lat2, lon2);
		}
		double s12, azi1, azi2;
		g.Inverse(lat1, lon1, lat2, lon2, s12, azi1, azi2);
		rt_geo_inverse_t r;
		if (!rt_geo_inverse(lat1, lon1, lat2, lon2, &r)) {
			fail_msg("rejected %.9f %.9f %.9f %.9f", lat1, lon1, lat2, lon2);
		}
		w.dist = std::fmax(w.dist, std::fabs(r.s12_m - s12));
		/* Azimuths of lines shorter than 1 m carry no meaning a tracker uses. */
		if (s12 > 1) {
			w.azi = std::fmax(w.azi, std::fmax(azimuth_diff(r.azi1_deg, azi1),
							   azimuth_diff(r.azi2_deg, azi2)));
		}
		w.fallbacks += r.fallback;

		double az = 360 * rng.uniform();
		double dist = kind == SHORT ? std::pow(10, -1 + 5 * rng.uniform()) : 2e7 * rng.uniform();
		double la, lo, fb, rla, rlo, rfb;
		g.Direct(lat1, lon1, az, dist, la, lo, fb);
		rt_geo_destination(lat1, lon1, az, dist, &rla, &rlo, &rfb);
		double miss;
		g.Inverse(la, lo, rla, rlo, miss);
		w.direct = std::fmax(w.direct, miss);
	}
	return w;
}

void test_anywhere(void **)
{
	Worst w = compare(ANYWHERE, 20000, 1);
	std::printf("anywhere: distance %.3g m, azimuth %.3g deg, direct %.3g m, fallbacks %d\n", w.dist,
		    w.azi, w.direct, w.fallbacks);
	assert_true(w.dist < 0.2e-3);
	assert_true(w.azi < 1e-6);
	assert_true(w.direct < 0.2e-3);
}

void test_near_antipode(void **)
{
	Worst w = compare(NEAR_ANTIPODE, 20000, 2);
	std::printf("near the antipode: distance %.3g m, azimuth %.3g deg, direct %.3g m, "
		    "fallbacks %d\n",
		    w.dist, w.azi, w.direct, w.fallbacks);
	assert_true(w.dist < 0.2e-3);
	assert_true(w.azi < 1e-5);
	/* The region where the fallback answers was reached, so it is what was checked. */
	assert_true(w.fallbacks > 1000);
}

void test_short_lines(void **)
{
	Worst w = compare(SHORT, 20000, 3);
	std::printf("10 cm to 10 km: distance %.3g m, azimuth %.3g deg, direct %.3g m\n", w.dist, w.azi,
		    w.direct);
	assert_true(w.dist < 1e-5);
	assert_true(w.azi < 1e-5);
	assert_true(w.direct < 1e-5);
}

} // namespace

int main()
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anywhere),
		cmocka_unit_test(test_near_antipode),
		cmocka_unit_test(test_short_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

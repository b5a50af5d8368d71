/*
 * Geodesics on WGS-84 (rt_geo) against published values. Tolerances: Vincenty's series are
 * accurate to about 0.1 mm on WGS-84 (tests/c/test_geo_oracle.cc measures it against
 * GeographicLib over many random lines); the published values are given to the digits quoted,
 * and each check allows what those digits allow.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "rt_geo.h"

#define MM 1e-3

/* Smallest difference between two azimuths, degrees. */
static double azimuth_diff(double a, double b)
{
	return fabs(remainder(a - b, 360.0));
}

static void assert_close(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol)) {
		fail_msg("%s: got %.10f, want %.10f (+/- %g)", what, got, want, tol);
	}
}

static double dms(double d, double m, double s)
{
	double v = fabs(d) + m / 60.0 + s / 3600.0;
	return d < 0 ? -v : v;
}

/*
 * The classic example of Vincenty's formulae in Geoscience Australia's Geocentric Datum of
 * Australia Technical Manual (GDA94, on GRS80, whose flattening differs from WGS-84's by 2e-11:
 * under a micrometre on this line): Flinders Peak to Buninyong, 54 972.271 m, forward azimuth
 * 306 52 05.37, reverse azimuth 127 10 25.07 (so 307 10 25.07 is the direction of travel at
 * Buninyong).
 */
static void test_flinders_peak_buninyong(void **state)
{
	double lat1 = dms(-37, 57, 3.72030), lon1 = dms(144, 25, 29.52440);
	double lat2 = dms(-37, 39, 10.15610), lon2 = dms(143, 55, 35.38390);
	rt_geo_inverse_t r;
	assert_true(rt_geo_inverse(lat1, lon1, lat2, lon2, &r));
	assert_close(r.s12_m, 54972.271, 0.5 * MM, "distance");
	/* Azimuths quoted to 0.01": allow half of it. */
	assert_true(azimuth_diff(r.azi1_deg, dms(306, 52, 5.37)) <= 0.005 / 3600);
	assert_true(azimuth_diff(r.azi2_deg, dms(127, 10, 25.07) + 180.0) <= 0.005 / 3600);
	assert_false(r.fallback);
	assert_close(rt_geo_distance(lat1, lon1, lat2, lon2), 54972.271, 0.5 * MM, "distance()");
	assert_close(rt_geo_bearing(lat1, lon1, lat2, lon2), r.azi1_deg, 0, "bearing()");

	/* The direct problem of the same example: from Flinders Peak along 306 52 05.37 for
	 * 54 972.271 m. The quoted azimuth's rounding (0.005") alone moves the end 1.3 mm. */
	double la, lo, fb;
	assert_true(rt_geo_destination(lat1, lon1, dms(306, 52, 5.37), 54972.271, &la, &lo, &fb));
	assert_true(rt_geo_distance(la, lo, lat2, lon2) < 2 * MM);
	assert_true(azimuth_diff(fb, dms(127, 10, 25.07) + 180.0) <= 0.01 / 3600);
}

/*
 * Twenty lines of Karney's GeodTest set (https://doi.org/10.5281/zenodo.32156), as GeographicLib's
 * C library tests them (geographiclib-c, tests/geodtest.c, "testcases"): lat1, lon1, azi1, lat2,
 * lon2, azi2, s12, exact to about 1e-9 m. Some longitudes lie outside [-180, 180].
 */
static const double geodtest[][7] = {
	{35.60777, -139.44815, 111.098748429560326, -11.17491, -69.95921, 129.289270889708762, 8935244.5604818305},
	{55.52454, 106.05087, 22.020059880982801, 77.03196, 197.18234, 109.112041110671519, 4105086.1713924406},
	{-21.97856, 142.59065, -32.44456876433189, 41.84138, 98.56635, -41.84359951440466, 8394328.894657671},
	{-66.99028, 112.2363, 173.73491240878403, -12.70631, 285.90344, 2.512956620913668, 11150344.2312080241},
	{-17.42761, 173.34268, -159.033557661192928, -15.84784, 5.93557, -20.787484651536988, 16076603.1631180673},
	{32.84994, 48.28919, 150.492927788121982, -56.28556, 202.29132, 48.113449399816759, 16727068.9438164461},
	{6.96833, 52.74123, 92.581585386317712, -7.39675, 206.17291, 90.721692165923907, 17102477.2496958388},
	{-50.56724, -16.30485, -105.439679907590164, -33.56571, -94.97412, -47.348547835650331, 6455670.5118668696},
	{-58.93002, -8.90775, 140.965397902500679, -8.91104, 133.13503, 19.255429433416599, 11756066.0219864627},
	{-68.82867, -74.28391, 93.774347763114881, -50.63005, -8.36685, 34.65564085411343, 3956936.926063544},
	{-10.62672, -32.0898, -86.426713286747751, 5.883, -134.31681, -80.473780971034875, 11470869.3864563009},
	{-21.76221, 166.90563, 29.319421206936428, 48.72884, 213.97627, 43.508671946410168, 9098627.3986554915},
	{-19.79938, -174.47484, 71.167275780171533, -11.99349, -154.35109, 65.589099775199228, 2319004.8601169389},
	{-11.95887, -116.94513, 92.712619830452549, 4.57352, 7.16501, 78.64960934409585, 13834722.5801401374},
	{-87.85331, 85.66836, -65.120313040242748, 66.48646, 16.09921, -4.888658719272296, 17286615.3147144645},
	{1.74708, 128.32011, -101.584843631173858, -11.16617, 11.87109, -86.325793296437476, 12942901.1241347408},
	{-25.72959, -144.90758, -153.647468693117198, -57.70581, -269.17879, -48.343983158876487, 9413446.7452453107},
	{-41.22777, 122.32875, 14.285113402275739, -7.57291, 130.37946, 10.805303085187369, 3812686.035106021},
	{11.01307, 138.25278, 79.43682622782374, 6.62726, 247.05981, 103.708090215522657, 11911190.819018408},
	{-29.47124, 95.14681, -163.779130441688382, -27.46601, -69.15955, -15.909335945554969, 13487015.8381145492},
};

static void test_geodtest_inverse(void **state)
{
	for (size_t i = 0; i < sizeof(geodtest) / sizeof(geodtest[0]); i++) {
		const double *c = geodtest[i];
		rt_geo_inverse_t r;
		assert_true(rt_geo_inverse(c[0], c[1], c[3], c[4], &r));
		if (fabs(r.s12_m - c[6]) > 0.5 * MM || azimuth_diff(r.azi1_deg, c[2]) > 1e-8 ||
		    azimuth_diff(r.azi2_deg, c[5]) > 1e-8) {
			fail_msg("GeodTest line %zu: s12 %.6f (want %.6f), azi1 %.9f (want %.9f), "
				 "azi2 %.9f (want %.9f)",
				 i, r.s12_m, c[6], r.azi1_deg, c[2], r.azi2_deg, c[5]);
		}
	}
}

static void test_geodtest_direct(void **state)
{
	for (size_t i = 0; i < sizeof(geodtest) / sizeof(geodtest[0]); i++) {
		const double *c = geodtest[i];
		double la, lo, fb;
		assert_true(rt_geo_destination(c[0], c[1], c[2], c[6], &la, &lo, &fb));
		double miss = rt_geo_distance(la, lo, c[3], c[4]);
		if (miss > 0.5 * MM || azimuth_diff(fb, c[5]) > 1e-8 || lo < -180 || lo > 180) {
			fail_msg("GeodTest line %zu direct: ended %.6f m from the point, azimuth %.9f "
				 "(want %.9f), lon %.9f",
				 i, miss, fb, c[5], lo);
		}
	}
}

/* GeographicLib's GeodSolve0 and GeodSolve1 (geodtest.c): JFK airport to Paris-CDG, 5853226 m
 * with azimuths 53.47022 and 111.59367, quoted to 0.5 m and 0.5e-5 degrees; and the direct line
 * from JFK at 53.5 degrees for 5850 km ending at 49.01467, 2.56106, azimuth 111.62947. */
static void test_jfk_cdg(void **state)
{
	rt_geo_inverse_t r;
	assert_true(rt_geo_inverse(40.6, -73.8, 49.01666667, 2.55, &r));
	assert_close(r.s12_m, 5853226, 0.5, "JFK-CDG distance");
	assert_close(r.azi1_deg, 53.47022, 0.5e-5, "JFK-CDG azi1");
	assert_close(r.azi2_deg, 111.59367, 0.5e-5, "JFK-CDG azi2");

	double la, lo, fb;
	assert_true(rt_geo_destination(40.63972222, -73.77888889, 53.5, 5850e3, &la, &lo, &fb));
	assert_close(la, 49.01467, 0.5e-5, "lat2");
	assert_close(lo, 2.56106, 0.5e-5, "lon2");
	assert_close(fb, 111.62947, 0.5e-5, "azi2");
}

/*
 * Nearly antipodal points, where Vincenty's iteration fails and the bisection takes over:
 * GeographicLib's GeodSolve6, 9, 10, 11 (values to 0.5 mm) and GeodSolve33 (equatorial points
 * 179.5 and 180 degrees apart: the shortest line leaves the equator; to 0.5 m).
 */
static void test_nearly_antipodal(void **state)
{
	static const double lines[][5] = {
		{88.202499451857, 0, -88.202499451857, 179.981022032992859592, 20003898.214},
		{89.262080389218, 0, -89.262080389218, 179.992207982775375662, 20003925.854},
		{89.333123580033, 0, -89.333123580032997687, 179.99295812360148422, 20003926.881},
		{56.320923501171, 0, -56.320923501171, 179.664747671772880215, 19993558.287},
		{52.784459512564, 0, -52.784459512563990912, 179.634407464943777557, 19991596.095},
		{48.522876735459, 0, -48.52287673545898293, 179.599720456223079643, 19989144.774},
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const double *c = lines[i];
		double s = rt_geo_distance(c[0], c[1], c[2], c[3]);
		if (!(fabs(s - c[4]) <= 0.5 * MM)) {
			fail_msg("antipodal line %zu: %.4f m, want %.4f", i, s, c[4]);
		}
	}
	rt_geo_inverse_t r;
	assert_true(rt_geo_inverse(0, 0, 0, 179.5, &r));
	assert_close(r.s12_m, 19980862, 0.5, "0,0 to 0,179.5");
	assert_close(r.azi1_deg, 55.96650, 0.5e-5, "azi1");
	assert_close(r.azi2_deg, 124.03350, 0.5e-5, "azi2");
	assert_true(r.fallback);
	/* Exactly antipodal on the equator: half a meridian, over a pole. */
	assert_true(rt_geo_inverse(0, 0, 0, 180, &r));
	assert_close(r.s12_m, 20003931, 0.5, "0,0 to 0,180");
	assert_true(azimuth_diff(r.azi1_deg, 0) <= 0.5e-5);
	assert_true(azimuth_diff(r.azi2_deg, 180) <= 0.5e-5);
	/* Along the equator up to (1 - f) 180 degrees: GeodSolve33's 179 degrees. */
	assert_true(rt_geo_inverse(0, 0, 0, 179, &r));
	assert_close(r.s12_m, 19926189, 0.5, "0,0 to 0,179");
	assert_close(r.azi1_deg, 90, 0.5e-5, "azi1 along the equator");
}

/* GeographicLib's GeodSolve4: a 7 cm line, where naive formulas lose their digits. */
static void test_short_line(void **state)
{
	double s = rt_geo_distance(36.493349428792, 0, 36.49334942879201, .0000008);
	assert_close(s, 0.072, 0.5e-3, "short line");
}

static void test_simple_geometry(void **state)
{
	/* Coincident points. */
	rt_geo_inverse_t r;
	assert_true(rt_geo_inverse(47.1, 8.5, 47.1, 8.5, &r));
	assert_true(r.s12_m == 0.0 && r.azi1_deg == 0.0);
	/* Due north and due east (on the equator). */
	assert_close(rt_geo_bearing(10, 20, 11, 20), 0, 1e-9, "north");
	assert_close(rt_geo_bearing(0, 20, 0, 21), 90, 1e-9, "east");
	assert_close(rt_geo_bearing(0, 21, 0, 20), 270, 1e-9, "west");
	assert_close(rt_geo_bearing(11, 20, 10, 20), 180, 1e-9, "south");
	/* One degree of longitude on the equator is a * pi / 180. */
	assert_close(rt_geo_distance(0, 0, 0, 1), RT_GEO_WGS84_A * 3.14159265358979323846 / 180, MM,
		     "equator degree");
	/* Across the antimeridian the short way: 0.02 degrees, not 359.98. */
	assert_close(rt_geo_distance(0, 179.99, 0, -179.99), rt_geo_distance(0, 0, 0, 0.02), 1e-6,
		     "antimeridian");
	assert_close(rt_geo_distance(0, 540.0, 0, -179.0), rt_geo_distance(0, 180, 0, 181), 1e-6,
		     "longitudes past 360");
	/* Poles: every longitude is the same point. */
	assert_close(rt_geo_distance(90, 0, 90, 123), 0, MM, "pole");
	/* The quarter meridian of WGS-84 is 10 001 965.729 m (GeographicLib, Geodesic::WGS84). */
	assert_close(rt_geo_distance(0, 0, 90, 0), 10001965.729, MM, "quarter meridian");
}

static void test_destination_walks_the_line(void **state)
{
	/* Walking a line in pieces ends where walking it at once ends, and the way back returns. */
	double lat = 59.3293, lon = 18.0686, brg = 231.4;
	double la1, lo1, fb1, la2, lo2, fb2;
	assert_true(rt_geo_destination(lat, lon, brg, 1234.5, &la1, &lo1, &fb1));
	assert_true(rt_geo_destination(la1, lo1, fb1, 765.5, &la2, &lo2, &fb2));
	double la, lo, fb;
	assert_true(rt_geo_destination(lat, lon, brg, 2000.0, &la, &lo, &fb));
	assert_true(rt_geo_distance(la, lo, la2, lo2) < MM);
	assert_true(azimuth_diff(fb, fb2) < 1e-8);
	/* A negative distance goes backwards. */
	double bl, bo;
	assert_true(rt_geo_destination(la, lo, fb, -2000.0, &bl, &bo, NULL));
	assert_true(rt_geo_distance(bl, bo, lat, lon) < MM);
	/* Zero distance stays. */
	assert_true(rt_geo_destination(lat, lon, brg, 0.0, &la, &lo, NULL));
	assert_close(la, lat, 1e-12, "lat");
	assert_close(lo, lon, 1e-12, "lon");
}

static void test_invalid_input(void **state)
{
	rt_geo_inverse_t r;
	assert_false(rt_geo_inverse(90.5, 0, 0, 0, &r));
	assert_true(isnan(r.s12_m) && isnan(r.azi1_deg) && isnan(r.azi2_deg));
	assert_false(rt_geo_inverse(0, NAN, 0, 0, &r));
	assert_false(rt_geo_inverse(0, 0, -91, 0, &r));
	assert_false(rt_geo_inverse(0, 0, 0, INFINITY, &r));
	assert_true(isnan(rt_geo_distance(NAN, 0, 0, 0)));
	assert_true(isnan(rt_geo_bearing(0, 0, 100, 0)));
	assert_true(isnan(rt_geo_haversine(0, 0, 100, 0)));
	double la = 0, lo = 0, fb = 0;
	assert_false(rt_geo_destination(0, 0, NAN, 10, &la, &lo, &fb));
	assert_true(isnan(la) && isnan(lo) && isnan(fb));
	assert_false(rt_geo_destination(0, 0, 10, INFINITY, &la, &lo, &fb));
	assert_false(rt_geo_destination(95, 0, 10, 10, &la, &lo, NULL));
}

/* The sphere's error, which docs/location.md quotes: within 0.56 % of the ellipsoid for lines
 * of any direction, worst along meridians near the poles and along the equator. */
static void test_haversine_error_bound(void **state)
{
	for (size_t i = 0; i < sizeof(geodtest) / sizeof(geodtest[0]); i++) {
		const double *c = geodtest[i];
		double rel = fabs(rt_geo_haversine(c[0], c[1], c[3], c[4]) - c[6]) / c[6];
		assert_true(rel < 0.0056);
	}
	/* Along the equator the sphere is short by 1 - R1/a = 0.11 %. */
	double eq = rt_geo_distance(0, 0, 0, 10), hv = rt_geo_haversine(0, 0, 0, 10);
	assert_close((eq - hv) / eq, 1 - RT_GEO_MEAN_RADIUS / RT_GEO_WGS84_A, 1e-6, "equator");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flinders_peak_buninyong),
		cmocka_unit_test(test_geodtest_inverse),
		cmocka_unit_test(test_geodtest_direct),
		cmocka_unit_test(test_jfk_cdg),
		cmocka_unit_test(test_nearly_antipodal),
		cmocka_unit_test(test_short_line),
		cmocka_unit_test(test_simple_geometry),
		cmocka_unit_test(test_destination_walks_the_line),
		cmocka_unit_test(test_invalid_input),
		cmocka_unit_test(test_haversine_error_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

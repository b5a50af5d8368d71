/*
 * rt_geo.h: geodesics on the WGS-84 ellipsoid, for location.distance, the diff field of positions,
 * the heading of a GNSS track and walking a track in the simulated world.
 *
 * Distances are Vincenty's inverse formula (Survey Review 23(176), 1975) on the ellipsoid: the
 * GNSS fixes these functions compare are WGS-84 coordinates, and on a sphere the error would be
 * up to 0.5 % (5 m per kilometre), more than a GNSS fix's own error over a few hundred metres.
 * Where Vincenty's iteration does not converge (nearly antipodal points) the same series are
 * solved for the starting azimuth by bisection, as Karney (J. Geodesy 87, 2013, sec. 4) solves
 * the inverse problem. Checked against published lines (tests/c/test_geo.c) and GeographicLib
 * (tests/c/test_geo_oracle.cc); docs/location.md has the choice and the errors measured.
 *
 * Angles are degrees, distances metres. Latitudes must lie in [-90, 90]; longitudes may be any
 * finite number (they are reduced to [-180, 180)). Invalid input gives NaN results (and false
 * where a function returns bool): no function here reads outside its arguments or keeps state.
 */
#ifndef RT_GEO_H
#define RT_GEO_H

#include <stdbool.h>

/* WGS-84: semi-major axis (m) and flattening. */
#define RT_GEO_WGS84_A 6378137.0
#define RT_GEO_WGS84_F (1.0 / 298.257223563)
/* IUGG mean Earth radius R1 = (2a + b) / 3, the sphere of rt_geo_haversine. */
#define RT_GEO_MEAN_RADIUS 6371008.8

/* The inverse problem: the shortest geodesic between two points. */
typedef struct {
	double s12_m;      /* length of the geodesic */
	double azi1_deg;   /* azimuth at point 1, clockwise from north, [0, 360) */
	double azi2_deg;   /* azimuth at point 2 (the direction of travel there), [0, 360) */
	int iterations;    /* Vincenty iterations (or bisection steps of the fallback) */
	bool fallback;     /* Vincenty did not converge: the bisection gave the result */
} rt_geo_inverse_t;

/* Solves the inverse problem. Returns false (and NaNs in out) on invalid input. For coincident
 * points s12 is 0 and both azimuths are 0. */
bool rt_geo_inverse(double lat1, double lon1, double lat2, double lon2, rt_geo_inverse_t *out);

/* The geodesic distance in metres between two points; NaN on invalid input. */
double rt_geo_distance(double lat1, double lon1, double lat2, double lon2);

/* The initial bearing (heading) from point 1 towards point 2, degrees clockwise from north in
 * [0, 360); 0 for coincident points; NaN on invalid input. */
double rt_geo_bearing(double lat1, double lon1, double lat2, double lon2);

/* The direct problem: the point dist_m along the geodesic leaving (lat1, lon1) at bearing_deg,
 * and the bearing there (the direction of travel). dist_m may be negative (backwards). Returns
 * false (and NaNs) on invalid input. final_bearing may be NULL. */
bool rt_geo_destination(double lat1, double lon1, double bearing_deg, double dist_m, double *lat2,
			double *lon2, double *final_bearing);

/* Great-circle distance on a sphere of RT_GEO_MEAN_RADIUS (haversine formula). Not used by the
 * API: kept for comparison (docs/location.md, bench/geo.sh). */
double rt_geo_haversine(double lat1, double lon1, double lat2, double lon2);

#endif /* RT_GEO_H */

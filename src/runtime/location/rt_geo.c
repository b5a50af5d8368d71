/*
 * Geodesics on WGS-84: Vincenty's inverse and direct formulas, and for nearly antipodal points,
 * where Vincenty's iteration on the auxiliary longitude oscillates or leaves [-pi, pi], a
 * bisection on the starting azimuth over the same series.
 *
 * Why hand-written: GeographicLib's C library (Karney's algorithm, accurate to 15 nm) is the
 * reference and the tests compare against it, but it is 21 KB of Cortex-M4 code for the whole
 * library; Vincenty's series are a few KB and accurate to well under a millimetre wherever
 * they converge, a thousand times finer than any GNSS fix. Doubles are needed: a float holds a
 * longitude only to about 2 m.
 */
#include "rt_geo.h"

#include <math.h>
#include <stddef.h>

#define GEO_PI 3.14159265358979323846
#define DEG (GEO_PI / 180.0)

static const double geo_a = RT_GEO_WGS84_A;
static const double geo_f = RT_GEO_WGS84_F;
#define GEO_B (RT_GEO_WGS84_A * (1.0 - RT_GEO_WGS84_F))

/* Vincenty converges to 1e-12 rad (6 um) in 3 to 6 steps except near the antipode, where it
 * slows down or never converges; past 40 steps the bisection (about 55 steps of similar cost)
 * is the cheaper way to the same accuracy. */
#define VINCENTY_MAX_ITERATIONS 40
#define VINCENTY_TOLERANCE 1e-12

static bool lat_ok(double lat)
{
	return isfinite(lat) && lat >= -90.0 && lat <= 90.0;
}

/* sin and cos of the reduced latitude: tan(beta) = (1 - f) tan(phi), without tan's pole. */
static void reduced_latitude(double lat_deg, double *s, double *c)
{
	double phi = lat_deg * DEG;
	double sb = (1.0 - geo_f) * sin(phi);
	double cb = cos(phi);
	double h = hypot(sb, cb);
	*s = sb / h;
	*c = cb / h;
}

static double azimuth_deg(double s, double c)
{
	double deg = atan2(s, c) / DEG;
	deg = fmod(deg + 360.0, 360.0);
	return deg >= 360.0 ? 0.0 : deg;
}

/* Vincenty's distance series: s = b A (sigma - delta sigma). */
static double vincenty_length(double cos2a, double sig, double ssig, double csig, double cos2sm)
{
	double u2 = cos2a * (geo_a * geo_a - GEO_B * GEO_B) / (GEO_B * GEO_B);
	double A = 1.0 + u2 / 16384.0 * (4096.0 + u2 * (-768.0 + u2 * (320.0 - 175.0 * u2)));
	double B = u2 / 1024.0 * (256.0 + u2 * (-128.0 + u2 * (74.0 - 47.0 * u2)));
	double c2 = cos2sm * cos2sm;
	double dsig = B * ssig *
		      (cos2sm + B / 4.0 *
					(csig * (-1.0 + 2.0 * c2) -
					 B / 6.0 * cos2sm * (-3.0 + 4.0 * ssig * ssig) * (-3.0 + 4.0 * c2)));
	return GEO_B * A * (sig - dsig);
}

/* Longitude on the ellipsoid minus longitude on the auxiliary sphere, with the sign reversed:
 * lambda_ellipsoid = omega - term. */
static double vincenty_lambda_term(double sa, double cos2a, double sig, double ssig, double csig,
				   double cos2sm)
{
	double C = geo_f / 16.0 * cos2a * (4.0 + geo_f * (4.0 - 3.0 * cos2a));
	return (1.0 - C) * geo_f * sa *
	       (sig + C * ssig * (cos2sm + C * csig * (-1.0 + 2.0 * cos2sm * cos2sm)));
}

static void set_nan(rt_geo_inverse_t *out)
{
	out->s12_m = NAN;
	out->azi1_deg = NAN;
	out->azi2_deg = NAN;
	out->iterations = 0;
	out->fallback = false;
}

static void norm2(double *s, double *c)
{
	double h = hypot(*s, *c);
	if (h == 0.0) {
		/* Starting on the equator due east or west: the node itself, sigma = 0. */
		*s = 0.0;
		*c = 1.0;
		return;
	}
	*s /= h;
	*c /= h;
}

/* The canonical inverse problem of Karney (2013), sec. 4: beta1 <= 0, |beta2| <= |beta1|,
 * 0 <= lambda12 <= pi; then lambda12 is a non-decreasing function of the azimuth alpha1 on
 * [0, pi], from 0 (due north) to pi (due south, over the pole). */
typedef struct {
	double sbet1, cbet1, sbet2, cbet2;
} geo_canon_t;

typedef struct {
	double lam12, salp1, calp1, salp2, calp2, cos2a, sig12, cos2sm;
} geo_trial_t;

static void geo_trial(const geo_canon_t *k, double alp1, geo_trial_t *t)
{
	double salp1 = sin(alp1), calp1 = cos(alp1);
	double salp0 = salp1 * k->cbet1;
	double calp0 = hypot(calp1, salp1 * k->sbet1);
	double ssig1 = k->sbet1, csig1 = calp1 * k->cbet1;
	double somg1 = salp0 * k->sbet1, comg1 = calp1 * k->cbet1;
	norm2(&ssig1, &csig1);
	norm2(&somg1, &comg1);
	double salp2 = k->cbet2 != k->cbet1 ? salp0 / k->cbet2 : salp1;
	/* Karney's eq. 45, in the better conditioned of its two forms. */
	double calp2;
	if (k->cbet2 != k->cbet1 || fabs(k->sbet2) != -k->sbet1) {
		double d = k->cbet1 < -k->sbet1 ? (k->cbet2 - k->cbet1) * (k->cbet1 + k->cbet2)
						 : (k->sbet1 - k->sbet2) * (k->sbet1 + k->sbet2);
		calp2 = sqrt(calp1 * k->cbet1 * calp1 * k->cbet1 + d) / k->cbet2;
	} else {
		calp2 = fabs(calp1);
	}
	double ssig2 = k->sbet2, csig2 = calp2 * k->cbet2;
	double somg2 = salp0 * k->sbet2, comg2 = calp2 * k->cbet2;
	norm2(&ssig2, &csig2);
	norm2(&somg2, &comg2);
	double sig12 = atan2(fmax(0.0, csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2);
	double omg12 = atan2(fmax(0.0, comg1 * somg2 - somg1 * comg2), comg1 * comg2 + somg1 * somg2);
	double sig1 = atan2(ssig1, csig1);
	t->cos2a = calp0 * calp0;
	t->cos2sm = cos(2.0 * sig1 + sig12);
	t->sig12 = sig12;
	t->lam12 = omg12 - vincenty_lambda_term(salp0, t->cos2a, sig12, sin(sig12), cos(sig12),
						t->cos2sm);
	t->salp1 = salp1;
	t->calp1 = calp1;
	t->salp2 = salp2;
	t->calp2 = calp2;
}

/* lon12 is lon2 - lon1 reduced to [-180, 180]. */
static void inverse_by_bisection(double lat1, double lat2, double lon12, rt_geo_inverse_t *out)
{
	double lonsign = signbit(lon12) ? -1.0 : 1.0;
	lon12 *= lonsign;
	double swapp = fabs(lat1) < fabs(lat2) ? -1.0 : 1.0;
	if (swapp < 0) {
		lonsign = -lonsign;
		double t = lat1;
		lat1 = lat2;
		lat2 = t;
	}
	double latsign = signbit(lat1) ? 1.0 : -1.0;
	lat1 *= latsign;
	lat2 *= latsign;

	geo_canon_t k;
	reduced_latitude(lat1, &k.sbet1, &k.cbet1);
	reduced_latitude(lat2, &k.sbet2, &k.cbet2);
	/* Exact symmetry where it holds, so eq. 45 takes its special case (Karney does the same). */
	if (k.cbet1 < -k.sbet1) {
		if (k.cbet2 == k.cbet1) {
			k.sbet2 = copysign(k.sbet1, k.sbet2);
		}
	} else if (fabs(k.sbet2) == -k.sbet1) {
		k.cbet2 = k.cbet1;
	}

	double target = lon12 * DEG;
	double lo = 0.0, hi = GEO_PI;
	geo_trial_t t;
	int steps = 0;
	while (steps < 64) {
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi) {
			break;
		}
		steps++;
		geo_trial(&k, mid, &t);
		if (t.lam12 < target) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	geo_trial(&k, 0.5 * (lo + hi), &t);

	out->s12_m = vincenty_length(t.cos2a, t.sig12, sin(t.sig12), cos(t.sig12), t.cos2sm);
	double salp1 = t.salp1, calp1 = t.calp1, salp2 = t.salp2, calp2 = t.calp2;
	if (swapp < 0) {
		double s = salp1, c = calp1;
		salp1 = salp2;
		calp1 = calp2;
		salp2 = s;
		calp2 = c;
	}
	salp1 *= swapp * lonsign;
	calp1 *= swapp * latsign;
	salp2 *= swapp * lonsign;
	calp2 *= swapp * latsign;
	out->azi1_deg = azimuth_deg(salp1, calp1);
	out->azi2_deg = azimuth_deg(salp2, calp2);
	out->iterations = steps;
	out->fallback = true;
}

typedef struct {
	double sl, cl, ssig, csig, sig, sa, cos2a, cos2sm;
} vincenty_state_t;

/* The auxiliary-sphere quantities of Vincenty's inverse for the auxiliary longitude lam. */
static void vincenty_eval(vincenty_state_t *v, double lam, double sU1, double cU1, double sU2,
			  double cU2)
{
	v->sl = sin(lam);
	v->cl = cos(lam);
	double t1 = cU2 * v->sl;
	double t2 = cU1 * sU2 - sU1 * cU2 * v->cl;
	v->ssig = hypot(t1, t2);
	v->csig = sU1 * sU2 + cU1 * cU2 * v->cl;
	v->sig = atan2(v->ssig, v->csig);
	v->sa = v->ssig != 0.0 ? cU1 * cU2 * v->sl / v->ssig : 0.0;
	v->cos2a = 1.0 - v->sa * v->sa;
	/* On the equator cos2a is 0 and the term it divides drops out. */
	v->cos2sm = v->cos2a != 0.0 ? v->csig - 2.0 * sU1 * sU2 / v->cos2a : 0.0;
}

bool rt_geo_inverse(double lat1, double lon1, double lat2, double lon2, rt_geo_inverse_t *out)
{
	if (!lat_ok(lat1) || !lat_ok(lat2) || !isfinite(lon1) || !isfinite(lon2)) {
		set_nan(out);
		return false;
	}
	/* remainder of values far apart in magnitude loses nothing: both are reduced first. */
	double lon12 = remainder(remainder(lon2, 360.0) - remainder(lon1, 360.0), 360.0);
	double L = lon12 * DEG;
	double sU1, cU1, sU2, cU2;
	reduced_latitude(lat1, &sU1, &cU1);
	reduced_latitude(lat2, &sU2, &cU2);

	vincenty_state_t v;
	double lam = L;
	int it;
	bool converged = false;
	for (it = 1; it <= VINCENTY_MAX_ITERATIONS; it++) {
		vincenty_eval(&v, lam, sU1, cU1, sU2, cU2);
		if (v.ssig == 0.0) {
			if (v.csig > 0.0) {
				out->s12_m = 0.0;
				out->azi1_deg = 0.0;
				out->azi2_deg = 0.0;
				out->iterations = it;
				out->fallback = false;
				return true;
			}
			break; /* antipodal on the auxiliary sphere: no azimuth to start from */
		}
		double prev = lam;
		lam = L + vincenty_lambda_term(v.sa, v.cos2a, v.sig, v.ssig, v.csig, v.cos2sm);
		if (fabs(lam) > GEO_PI) {
			break;
		}
		if (fabs(lam - prev) < VINCENTY_TOLERANCE) {
			converged = true;
			break;
		}
	}
	if (!converged) {
		inverse_by_bisection(lat1, lat2, lon12, out);
		return true;
	}
	/* Once more with the converged lambda: the tolerance is absolute, and on a line of a metre
	 * lambda itself is 1e-7, so the previous step's value would tilt the azimuth by 1e-5. */
	vincenty_eval(&v, lam, sU1, cU1, sU2, cU2);
	double sl = v.sl, cl = v.cl, cos2a = v.cos2a, sig = v.sig, ssig = v.ssig, csig = v.csig,
	       cos2sm = v.cos2sm;
	out->s12_m = vincenty_length(cos2a, sig, ssig, csig, cos2sm);
	out->azi1_deg = azimuth_deg(cU2 * sl, cU1 * sU2 - sU1 * cU2 * cl);
	out->azi2_deg = azimuth_deg(cU1 * sl, -sU1 * cU2 + cU1 * sU2 * cl);
	out->iterations = it;
	out->fallback = false;
	return true;
}

double rt_geo_distance(double lat1, double lon1, double lat2, double lon2)
{
	rt_geo_inverse_t r;
	rt_geo_inverse(lat1, lon1, lat2, lon2, &r);
	return r.s12_m;
}

double rt_geo_bearing(double lat1, double lon1, double lat2, double lon2)
{
	rt_geo_inverse_t r;
	rt_geo_inverse(lat1, lon1, lat2, lon2, &r);
	return r.azi1_deg;
}

bool rt_geo_destination(double lat1, double lon1, double bearing_deg, double dist_m, double *lat2,
			double *lon2, double *final_bearing)
{
	double dummy;
	if (final_bearing == NULL) {
		final_bearing = &dummy;
	}
	if (!lat_ok(lat1) || !isfinite(lon1) || !isfinite(bearing_deg) || !isfinite(dist_m)) {
		*lat2 = *lon2 = *final_bearing = NAN;
		return false;
	}
	double sU1, cU1;
	reduced_latitude(lat1, &sU1, &cU1);
	double a1 = remainder(bearing_deg, 360.0) * DEG;
	double sa1 = sin(a1), ca1 = cos(a1);
	double sig1 = atan2(sU1, cU1 * ca1);
	double sa = cU1 * sa1;
	double cos2a = 1.0 - sa * sa;
	double u2 = cos2a * (geo_a * geo_a - GEO_B * GEO_B) / (GEO_B * GEO_B);
	double A = 1.0 + u2 / 16384.0 * (4096.0 + u2 * (-768.0 + u2 * (320.0 - 175.0 * u2)));
	double B = u2 / 1024.0 * (256.0 + u2 * (-128.0 + u2 * (74.0 - 47.0 * u2)));

	double sig0 = dist_m / (GEO_B * A);
	double sig = sig0, ssig = 0, csig = 0, cos2sm = 0;
	/* A contraction by about f: converges to 1e-12 in a handful of steps for any distance. */
	for (int it = 0; it < VINCENTY_MAX_ITERATIONS; it++) {
		cos2sm = cos(2.0 * sig1 + sig);
		ssig = sin(sig);
		csig = cos(sig);
		double c2 = cos2sm * cos2sm;
		double dsig = B * ssig *
			      (cos2sm + B / 4.0 *
						(csig * (-1.0 + 2.0 * c2) -
						 B / 6.0 * cos2sm * (-3.0 + 4.0 * ssig * ssig) * (-3.0 + 4.0 * c2)));
		double prev = sig;
		sig = sig0 + dsig;
		if (fabs(sig - prev) < VINCENTY_TOLERANCE) {
			break;
		}
	}
	cos2sm = cos(2.0 * sig1 + sig);
	ssig = sin(sig);
	csig = cos(sig);

	double tmp = sU1 * ssig - cU1 * csig * ca1;
	double phi2 = atan2(sU1 * csig + cU1 * ssig * ca1, (1.0 - geo_f) * hypot(sa, tmp));
	double lam = atan2(ssig * sa1, cU1 * csig - sU1 * ssig * ca1);
	double L = lam - vincenty_lambda_term(sa, cos2a, sig, ssig, csig, cos2sm);
	double lon = remainder(remainder(lon1, 360.0) + L / DEG, 360.0);
	if (lon <= -180.0) {
		lon += 360.0;
	}
	*lat2 = phi2 / DEG;
	*lon2 = lon;
	*final_bearing = azimuth_deg(sa, -tmp);
	return true;
}

double rt_geo_haversine(double lat1, double lon1, double lat2, double lon2)
{
	if (!lat_ok(lat1) || !lat_ok(lat2) || !isfinite(lon1) || !isfinite(lon2)) {
		return NAN;
	}
	double p1 = lat1 * DEG, p2 = lat2 * DEG;
	double dp = p2 - p1;
	double dl = remainder(lon2 - lon1, 360.0) * DEG;
	double h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2);
	return 2.0 * RT_GEO_MEAN_RADIUS * asin(fmin(1.0, sqrt(h)));
}

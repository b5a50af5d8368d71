/* uwb.start's argument rules by role (ESR1701, ESR1703) and the ranging model (rt_uwb_model). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt_geo.h"
#include "rt_uwb_model.h"

static rt_uwb_error_t check(double role, const rt_uwb_options_in_t *o, bool cb, rt_uwb_config_t *c)
{
	const char *detail = NULL;
	rt_uwb_error_t e = rt_uwb_validate(role, o, cb, c, &detail);
	assert_true(e == RT_UWB_OK || detail != NULL);
	return e;
}

static void test_roles(void **state)
{
	rt_uwb_config_t c;
	/* Initiator with a callback; responder without: fine, with the defaults. */
	assert_int_equal(check(RT_UWB_ROLE_INITIATOR, NULL, true, &c), RT_UWB_OK);
	assert_int_equal(c.role, RT_UWB_ROLE_INITIATOR);
	assert_int_equal(c.mode, RT_UWB_MODE_HIGH_PERFORMANCE);
	assert_int_equal(c.pan_id, 0);
	assert_int_equal(c.timeout_ms, 0);
	assert_true(c.min_distance_m == 0 && isinf(c.max_distance_m));
	assert_int_equal(check(RT_UWB_ROLE_RESPONDER, NULL, false, &c), RT_UWB_OK);
	assert_int_equal(c.role, RT_UWB_ROLE_RESPONDER);
	/* The callback is optional for both roles, as the spec has it. */
	assert_int_equal(check(RT_UWB_ROLE_INITIATOR, NULL, false, &c), RT_UWB_OK);
	assert_int_equal(check(RT_UWB_ROLE_RESPONDER, NULL, true, &c), RT_UWB_OK);
	assert_int_equal(c.role, RT_UWB_ROLE_RESPONDER);
	/* ESR1701: a role that is none. */
	assert_int_equal(check(2, NULL, true, &c), RT_UWB_ERR_BAD_ARGS_FOR_ROLE);
	assert_int_equal(check(0.5, NULL, false, &c), RT_UWB_ERR_BAD_ARGS_FOR_ROLE);
	assert_int_equal(check(NAN, NULL, false, &c), RT_UWB_ERR_BAD_ARGS_FOR_ROLE);
	/* A responder's callback has the distance window too. */
	rt_uwb_options_in_t o = {.has_min_distance = true, .min_distance_m = 1,
				 .has_max_distance = true, .max_distance_m = 10};
	assert_int_equal(check(RT_UWB_ROLE_RESPONDER, &o, true, &c), RT_UWB_OK);
	assert_true(c.min_distance_m == 1 && c.max_distance_m == 10);
	/* Options both roles take. */
	o = (rt_uwb_options_in_t){.has_timeout = true, .timeout_s = 12.5, .has_mode = true,
				  .mode = 1, .has_pan_id = true, .pan_id = 0xBEEF};
	assert_int_equal(check(RT_UWB_ROLE_RESPONDER, &o, false, &c), RT_UWB_OK);
	assert_int_equal(c.timeout_ms, 12500);
	assert_int_equal(c.mode, RT_UWB_MODE_LONGER_RANGE);
	assert_int_equal(c.pan_id, 0xBEEF);
	/* The role's fault comes before the options'. */
	o = (rt_uwb_options_in_t){.has_mode = true, .mode = 7};
	assert_int_equal(check(3, &o, true, &c), RT_UWB_ERR_BAD_ARGS_FOR_ROLE);

	assert_string_equal(rt_uwb_error_code(RT_UWB_ERR_BAD_ARGS_FOR_ROLE), "ESR1701");
	assert_string_equal(rt_uwb_error_message(RT_UWB_ERR_BAD_ARGS_FOR_ROLE), "Bad args for role");
	assert_string_equal(rt_uwb_error_code(RT_UWB_ERR_INVALID_OPTIONS), "ESR1703");
	assert_string_equal(rt_uwb_error_message(RT_UWB_ERR_INVALID_OPTIONS), "Invalid options");
}

static void test_invalid_options(void **state)
{
	const rt_uwb_options_in_t bad[] = {
		{.has_timeout = true, .timeout_s = -1},
		{.has_timeout = true, .timeout_s = INFINITY},
		{.has_mode = true, .mode = 2},
		{.has_mode = true, .mode = 0.5},
		{.has_pan_id = true, .pan_id = 65536},
		{.has_pan_id = true, .pan_id = -1},
		{.has_pan_id = true, .pan_id = 1.5},
		{.has_min_distance = true, .min_distance_m = -0.1},
		{.has_max_distance = true, .max_distance_m = 0},
		{.has_max_distance = true, .max_distance_m = NAN},
		{.has_min_distance = true, .min_distance_m = 5, .has_max_distance = true, .max_distance_m = 5},
		{.has_min_distance = true, .min_distance_m = 6, .has_max_distance = true, .max_distance_m = 5},
		{.has_min_distance = true, .min_distance_m = INFINITY},
	};
	rt_uwb_config_t c = {.role = 9};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (check(RT_UWB_ROLE_INITIATOR, &bad[i], true, &c) != RT_UWB_ERR_INVALID_OPTIONS) {
			fail_msg("options case %zu accepted", i);
		}
		assert_int_equal(c.role, 9); /* untouched */
	}
	rt_uwb_options_in_t ok = {.has_min_distance = true, .min_distance_m = 0,
				  .has_max_distance = true, .max_distance_m = 0.01,
				  .has_pan_id = true, .pan_id = 65535, .has_timeout = true, .timeout_s = 0};
	assert_int_equal(check(RT_UWB_ROLE_INITIATOR, &ok, true, &c), RT_UWB_OK);
	assert_true(c.max_distance_m == 0.01);
}

static rt_uwb_position_t east_of(const rt_uwb_position_t *a, double m, double up)
{
	rt_uwb_position_t b = {0, 0, a->alt + up};
	rt_geo_destination(a->lat, a->lon, 90.0, m, &b.lat, &b.lon, NULL);
	return b;
}

static void test_ranging(void **state)
{
	rt_uwb_model_t model;
	rt_uwb_model_init(&model, 7);
	rt_uwb_config_t ini, res;
	rt_uwb_options_in_t o = {.has_pan_id = true, .pan_id = 42};
	assert_int_equal(rt_uwb_validate(RT_UWB_ROLE_INITIATOR, &o, true, &ini, NULL), RT_UWB_OK);
	assert_int_equal(rt_uwb_validate(RT_UWB_ROLE_RESPONDER, &o, false, &res, NULL), RT_UWB_OK);
	rt_uwb_position_t a = {52.52, 13.405, 34};
	/* 3 m apart across and 4 m up: 5 m. */
	rt_uwb_position_t b = east_of(&a, 3.0, 4.0);
	rt_uwb_measurement_t m;
	assert_true(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 1000, &m));
	assert_true(fabs(m.true_m - 5.0) < 1e-6);
	/* Within 5 sigma (sigma = 5 cm + 0.5 cm) of the truth, and repeatable. */
	assert_true(fabs(m.dist_m - 5.0) < 5 * 0.055);
	rt_uwb_measurement_t again;
	assert_true(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 1000, &again));
	assert_true(again.dist_m == m.dist_m && again.lqi == m.lqi);
	/* lqi: 20 log10(50 / 5) = 20 dB of 30: 67. */
	assert_int_equal(m.lqi, 67);
	assert_int_equal(rt_uwb_lqi(&model, 0, 1.0), 100);
	assert_int_equal(rt_uwb_lqi(&model, 0, 50.0), 0);
	assert_int_equal(rt_uwb_lqi(&model, 0, 51.0), 0);
	assert_true(rt_uwb_lqi(&model, 1, 50.0) > 0); /* longer range reaches further */

	/* The noise has the stated spread: at 20 m, sigma = 0.05 + 0.02 = 0.07 m. */
	b = east_of(&a, 20.0, 0.0);
	double sum = 0, sum2 = 0;
	int n = 5000;
	for (int i = 0; i < n; i++) {
		assert_true(rt_uwb_measure(&model, &ini, &res, &a, &b, 3, (int64_t)i * 100, &m));
		double e = m.dist_m - m.true_m;
		sum += e;
		sum2 += e * e;
	}
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	assert_true(fabs(mean) < 0.005);
	assert_true(fabs(sd - 0.07) < 0.005);

	/* Out of range in high performance, in range in longer range (both ends must agree). */
	b = east_of(&a, 80.0, 0.0);
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	assert_true(fabs(m.true_m - 80.0) < 1e-6);
	ini.mode = res.mode = RT_UWB_MODE_LONGER_RANGE;
	assert_true(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	res.mode = RT_UWB_MODE_HIGH_PERFORMANCE;
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	ini.mode = RT_UWB_MODE_HIGH_PERFORMANCE;
	/* Another panId, or two initiators: no exchange. */
	b = east_of(&a, 5.0, 0.0);
	res.pan_id = 43;
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	res.pan_id = 42;
	assert_false(rt_uwb_measure(&model, &ini, &ini, &a, &b, 1, 0, &m));
	/* The initiator's window applies to what it measures. */
	rt_uwb_options_in_t w = {.has_pan_id = true, .pan_id = 42, .has_min_distance = true,
				 .min_distance_m = 6, .has_max_distance = true, .max_distance_m = 10};
	assert_int_equal(rt_uwb_validate(RT_UWB_ROLE_INITIATOR, &w, true, &ini, NULL), RT_UWB_OK);
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	b = east_of(&a, 8.0, 0.0);
	assert_true(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	b = east_of(&a, 12.0, 0.0);
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &b, 1, 0, &m));
	/* Same place: distance 0, never negative whatever the noise. */
	ini.min_distance_m = 0;
	for (int i = 0; i < 100; i++) {
		assert_true(rt_uwb_measure(&model, &ini, &res, &a, &a, 1, i, &m));
		assert_true(m.dist_m >= 0 && m.lqi == 100);
	}
	/* Invalid positions: no measurement. */
	rt_uwb_position_t nowhere = {95, 0, 0};
	assert_false(rt_uwb_measure(&model, &ini, &res, &a, &nowhere, 1, 0, &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_invalid_options),
		cmocka_unit_test(test_ranging),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The Li-ion cell model (rt_battery.h): the simulator's battery voltage by charge level and the
 * firmware's charge level by measured voltage, on the points docs/world.md states.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "rt_battery.h"

static void near(float got, float want, const char *what, float at)
{
	/* Written so that a NaN result fails too. */
	if (!(fabsf(got - want) <= 1e-4f)) {
		fail_msg("%s at %g: %g, expected %g", what, (double)at, (double)got, (double)want);
	}
}

static void test_voltage_at_the_stated_levels(void **state)
{
	/* docs/world.md: 3.0 V empty, 3.75 V at 40 %, 4.2 V full. */
	near(rt_battery_cell_voltage(0), 3.00f, "voltage", 0);
	near(rt_battery_cell_voltage(40), 3.75f, "voltage", 40);
	near(rt_battery_cell_voltage(100), 4.20f, "voltage", 100);
	/* Between points the curve is linear: halfway from 20 % (3.68 V) to 40 % (3.75 V). */
	near(rt_battery_cell_voltage(30), 3.715f, "voltage", 30);
}

static void test_voltage_clamps_outside_the_range(void **state)
{
	near(rt_battery_cell_voltage(-10), 3.00f, "voltage", -10);
	near(rt_battery_cell_voltage(250), 4.20f, "voltage", 250);
	near(rt_battery_cell_voltage(NAN), 3.00f, "voltage", NAN);
}

static void test_voltage_rises_with_charge(void **state)
{
	float last = rt_battery_cell_voltage(0);
	for (float p = 0.5f; p <= 100.0f; p += 0.5f) {
		float v = rt_battery_cell_voltage(p);
		if (!(v > last)) {
			fail_msg("voltage at %g %% (%g V) is not above the one just below (%g V)",
				 (double)p, (double)v, (double)last);
		}
		last = v;
	}
}

static void test_percent_inverts_the_voltage(void **state)
{
	/* A device measuring what the simulator would show reads back the same level. */
	for (float p = 0; p <= 100.0f; p += 2.5f) {
		near(rt_battery_percent(rt_battery_cell_voltage(p), false), p, "percent of voltage", p);
	}
}

static void test_percent_takes_the_charger_lift_off(void **state)
{
	/* While charging the terminal reads RT_BATTERY_CHARGING_LIFT_V above the cell. */
	for (float p = 0; p <= 100.0f; p += 10.0f) {
		float terminal = rt_battery_cell_voltage(p) + RT_BATTERY_CHARGING_LIFT_V;
		near(rt_battery_percent(terminal, true), p, "percent while charging", p);
	}
	/* Not charging, the same reading is a fuller battery. */
	assert_true(rt_battery_percent(3.85f, false) > rt_battery_percent(3.85f, true));
}

static void test_percent_clamps_and_survives_bad_readings(void **state)
{
	near(rt_battery_percent(2.5f, false), 0, "percent", 2.5f);
	near(rt_battery_percent(0, false), 0, "percent", 0);
	near(rt_battery_percent(5.0f, false), 100, "percent", 5.0f);
	near(rt_battery_percent(-1.0f, true), 0, "percent", -1.0f);
	near(rt_battery_percent(NAN, false), 0, "percent", NAN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_voltage_at_the_stated_levels),
		cmocka_unit_test(test_voltage_clamps_outside_the_range),
		cmocka_unit_test(test_voltage_rises_with_charge),
		cmocka_unit_test(test_percent_inverts_the_voltage),
		cmocka_unit_test(test_percent_takes_the_charger_lift_off),
		cmocka_unit_test(test_percent_clamps_and_survives_bad_readings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

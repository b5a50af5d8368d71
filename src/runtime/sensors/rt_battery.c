/*
 * The Li-ion cell model. See rt_battery.h.
 */
#include "rt_battery.h"

#include <stddef.h>

/* State of charge (%) and open-circuit voltage (V) at the points of the curve; both rise, so the
 * table reads both ways. */
static const float soc[] = {0, 5, 10, 20, 40, 60, 80, 100};
static const float volts_at[] = {3.00f, 3.45f, 3.60f, 3.68f, 3.75f, 3.85f, 3.98f, 4.20f};
#define POINTS (sizeof(soc) / sizeof(soc[0]))

/* Linear interpolation of y at x on the rising table xs -> ys, clamped at both ends. */
static float interpolate(const float *xs, const float *ys, float x)
{
	/* Written so that NaN falls to the low end too. */
	if (!(x > xs[0])) {
		return ys[0];
	}
	for (size_t i = 1; i < POINTS; i++) {
		if (x <= xs[i]) {
			float f = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
			return ys[i - 1] + f * (ys[i] - ys[i - 1]);
		}
	}
	return ys[POINTS - 1];
}

float rt_battery_cell_voltage(float percent)
{
	return interpolate(soc, volts_at, percent);
}

float rt_battery_percent(float volts, bool charging)
{
	return interpolate(volts_at, soc, charging ? volts - RT_BATTERY_CHARGING_LIFT_V : volts);
}

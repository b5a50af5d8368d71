/*
 * rt_battery.h: the Li-ion cell model, shared by the simulator (which makes a voltage out of a
 * charge level) and the firmware (which, without a fuel gauge, makes a charge level out of a
 * measured voltage). One table for both, so a device and its simulation agree on what 3.75 V
 * means.
 */
#ifndef RT_BATTERY_H
#define RT_BATTERY_H

#include <stdbool.h>

/* How far the charger lifts the terminal voltage above the cell's open-circuit voltage. */
#define RT_BATTERY_CHARGING_LIFT_V 0.1f

/* Open-circuit voltage of a Li-ion cell at a state of charge (percent, clamped to 0..100):
 * 3.00 V empty, 3.75 V at 40 %, 4.20 V full, linear between the points of a typical
 * 18650/LiPo discharge curve. */
float rt_battery_cell_voltage(float percent);

/* The state of charge (0..100 %) of a cell whose terminal reads volts; while charging the
 * charger's lift is taken off first. The inverse of rt_battery_cell_voltage on the same points;
 * readings outside 3.00..4.20 V give 0 and 100. NaN reads as 0. */
float rt_battery_percent(float volts, bool charging);

#endif /* RT_BATTERY_H */

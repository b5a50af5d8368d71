/*
 * hal_sensors on Zephyr: battery and power (hal_power_read). The battery from a fuel gauge
 * (alias fuel-gauge0, fuel gauge API) or else its voltage through a voltage divider (alias vbatt,
 * with the Li-ion curve of rt_battery.h); external power and charging from a charger (alias
 * charger0, charger API), whose changes are posted to the runtime. See hal_sensors_zephyr.c.
 */
#include "hal_sensors.h"
#include "hal_sensors_internal.h"
#include "rt_battery.h"
#include "rt_sensors.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <zephyr/device.h>
#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/sys/util.h>

#if defined(CONFIG_SENSOR)
#include <zephyr/drivers/sensor.h>
#endif
#if defined(CONFIG_FUEL_GAUGE)
#include <zephyr/drivers/fuel_gauge.h>
#endif
#if defined(CONFIG_CHARGER)
#include <zephyr/drivers/charger.h>
#endif

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(CONFIG_FUEL_GAUGE) && DT_NODE_HAS_STATUS(DT_ALIAS(fuel_gauge0), okay)
#define HAVE_GAUGE 1
#elif defined(CONFIG_SENSOR) && DT_NODE_HAS_STATUS(DT_ALIAS(vbatt), okay)
#define HAVE_VBATT 1
#endif
#if defined(CONFIG_CHARGER) && DT_NODE_HAS_STATUS(DT_ALIAS(charger0), okay)
#define HAVE_CHARGER 1
#endif

#if defined(HAVE_GAUGE)
static const struct device *const gauge = DEVICE_DT_GET(DT_ALIAS(fuel_gauge0));
#elif defined(HAVE_VBATT)
static const struct device *const vbatt = DEVICE_DT_GET(DT_ALIAS(vbatt));
#endif
#if defined(HAVE_CHARGER)
static const struct device *const charger = DEVICE_DT_GET(DT_ALIAS(charger0));
#endif
static bool battery_ok;
static bool charger_ok;

/* Fill what the battery side measures. Call under hal_sensors_lock. */
static void read_battery(hal_power_t *p, bool charging)
{
	if (!battery_ok) {
		return;
	}
#if defined(HAVE_GAUGE)
	/* Units of include/zephyr/drivers/fuel_gauge.h: uV, percent, uA (negative while
	 * discharging), uAh; design capacity in mAh. Each property on its own: a gauge need not
	 * have them all. */
	union fuel_gauge_prop_val v;
	bool have_percent = false;

	if (fuel_gauge_get_prop(gauge, FUEL_GAUGE_VOLTAGE, &v) == 0) {
		p->voltage = (float)v.voltage / 1000000.0f;
	}
	if (fuel_gauge_get_prop(gauge, FUEL_GAUGE_RELATIVE_STATE_OF_CHARGE, &v) == 0) {
		p->percent = (float)v.relative_state_of_charge;
		have_percent = true;
	}
	if (fuel_gauge_get_prop(gauge, FUEL_GAUGE_AVG_CURRENT, &v) == 0) {
		/* The app's sign is the other way round: negative while charging. */
		p->current_ma = -(float)v.avg_current / 1000.0f;
	}
	if (fuel_gauge_get_prop(gauge, FUEL_GAUGE_FULL_CHARGE_CAPACITY, &v) == 0 &&
	    v.full_charge_capacity > 0) {
		p->capacity_mah = (float)v.full_charge_capacity / 1000.0f;
	} else if (fuel_gauge_get_prop(gauge, FUEL_GAUGE_DESIGN_CAPACITY, &v) == 0 &&
		   v.design_cap > 0) {
		p->capacity_mah = (float)v.design_cap;
	}
	if (!have_percent && p->voltage > 0.0f) {
		p->percent = rt_battery_percent(p->voltage, charging);
	}
#elif defined(HAVE_VBATT)
	/* The voltage-divider sensor scales the ADC reading by the divider's resistors and gives
	 * volts (drivers/sensor/voltage_divider). The charge level follows from the Li-ion curve
	 * the simulator uses. */
	struct sensor_value v;
	int rc = sensor_sample_fetch_chan(vbatt, SENSOR_CHAN_VOLTAGE);

	if (rc == 0) {
		rc = sensor_channel_get(vbatt, SENSOR_CHAN_VOLTAGE, &v);
	}
	if (rc == 0) {
		p->voltage = sensor_value_to_float(&v);
		p->percent = rt_battery_percent(p->voltage, charging);
	}
#else
	ARG_UNUSED(p);
	ARG_UNUSED(charging);
#endif
}

/* External power and charging from the charger. Call under hal_sensors_lock. */
static void read_charger(bool *external, bool *charging)
{
	*external = false;
	*charging = false;
#if defined(HAVE_CHARGER)
	if (!charger_ok) {
		return;
	}
	union charger_propval v;

	if (charger_get_prop(charger, CHARGER_PROP_ONLINE, &v) == 0) {
		*external = v.online != CHARGER_ONLINE_OFFLINE;
	}
	if (charger_get_prop(charger, CHARGER_PROP_STATUS, &v) == 0) {
		*charging = v.status == CHARGER_STATUS_CHARGING;
	}
#endif
}

void hal_power_read(hal_power_t *power)
{
	bool charging;

	memset(power, 0, sizeof(*power));
	power->capacity_mah = (float)CONFIG_BEACON_BATTERY_CAPACITY_MAH;
	k_mutex_lock(&hal_sensors_lock, K_FOREVER);
	read_charger(&power->external, &charging);
	read_battery(power, charging);
	k_mutex_unlock(&hal_sensors_lock);
	/* A full battery does not charge, even on external power (the spec's isCharging note). */
	power->charging = charging && power->percent < 100.0f;
}

#if defined(HAVE_CHARGER)
/* What the power listener was last told about. Power work only. */
static bool told_external;
static bool told_charging;

static void on_power_work(struct k_work *work);
static K_WORK_DELAYABLE_DEFINE(power_work, on_power_work);

/* Chargers do not all offer an interrupt callback (charger_register_callback() calls the driver
 * without checking for one), so external power and charging are polled. */
static void on_power_work(struct k_work *work)
{
	ARG_UNUSED(work);
	hal_power_t p;

	hal_power_read(&p);
	if (p.external != told_external || p.charging != told_charging) {
		told_external = p.external;
		told_charging = p.charging;
		rt_sensors_post_power(hal_sensors_target);
	}
	(void)k_work_schedule(&power_work, K_MSEC(CONFIG_BEACON_POWER_POLL_MS));
}
#endif

void hal_power_zephyr_init(void)
{
#if defined(HAVE_GAUGE)
	battery_ok = device_is_ready(gauge);
	LOG_INF("battery: fuel gauge %s%s", gauge->name, battery_ok ? "" : " (not ready)");
#elif defined(HAVE_VBATT)
	battery_ok = device_is_ready(vbatt);
	LOG_INF("battery: voltage divider %s%s, Li-ion curve", vbatt->name,
		battery_ok ? "" : " (not ready)");
#else
	LOG_INF("battery: not measured (no alias fuel-gauge0 or vbatt)");
#endif
#if defined(HAVE_CHARGER)
	charger_ok = device_is_ready(charger);
	LOG_INF("charger: %s%s", charger->name, charger_ok ? "" : " (not ready)");
	if (charger_ok) {
		hal_power_t p;

		hal_power_read(&p);
		told_external = p.external;
		told_charging = p.charging;
		(void)k_work_schedule(&power_work, K_MSEC(CONFIG_BEACON_POWER_POLL_MS));
	}
#else
	ARG_UNUSED(charger_ok);
	LOG_INF("charger: none (no alias charger0): external power and charging read false");
#endif
}

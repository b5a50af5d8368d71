/*
 * ble.build.*: the beacon packets of rt_ble_beacon (docs/ble-packets.md) as packet objects, the
 * telemetry ones filled from the device's sensors.
 */
#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_device.h"
#include "hal_sensors.h"
#include "rt_ble.h"
#include "rt_ble_beacon.h"
#include "rt_ble_internal.h"
#include "rt_device.h"
#include "rt_errors.h"

static rt_ble_state_t *state(void)
{
	return &rt_device()->ble;
}

static int8_t power_arg(bool has, double value, int8_t def)
{
	return has ? (int8_t)lround(value) : def;
}

static eng_value_t built(rt_ble_status_t status, const rt_ble_ad_t *ad, const char *fn)
{
	if (status != RT_BLE_OK) {
		return rt_throw_arg(ENG_ERROR_RANGE, "%s: the arguments cannot be encoded", fn);
	}
	return rt_ble_js_packet(ad);
}

eng_value_t rt_ble_build_eddystoneUrl(const rt_ble_build_eddystoneUrl_args_t *args)
{
	char url[RT_BLE_URL_TEXT_MAX * 4 + 1];
	size_t len = eng_string_copy(args->url, url, sizeof(url));
	rt_ble_ad_t ad;
	rt_ble_status_t s = rt_ble_beacon_eddystone_url(&ad, url, len,
							power_arg(args->has_measuredPower, args->measuredPower, -20));
	switch (s) {
	case RT_BLE_OK:
		return rt_ble_js_packet(&ad);
	case RT_BLE_E_URL_SCHEME:
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "ble.build.eddystoneUrl: url must start with http:// or https:// (got '%s')", url);
	case RT_BLE_E_URL_CHAR:
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "ble.build.eddystoneUrl: url may hold only printable US-ASCII without spaces (got '%s')",
				 url);
	case RT_BLE_E_URL_TOO_LONG:
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "ble.build.eddystoneUrl: url '%s' needs more than the %d bytes one Eddystone-URL frame carries",
				 url, RT_BLE_URL_ENCODED_MAX);
	default:
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "ble.build.eddystoneUrl: url is longer than %d characters", RT_BLE_URL_TEXT_MAX);
	}
}

eng_value_t rt_ble_build_eddystoneUid(const rt_ble_build_eddystoneUid_args_t *args)
{
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_eddystone_uid(&ad, args->namespace.data, args->instance.data,
						 power_arg(args->has_measuredPower, args->measuredPower, -20)),
		     &ad, "ble.build.eddystoneUid");
}

eng_value_t rt_ble_build_iBeacon(const rt_ble_build_iBeacon_args_t *args)
{
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_ibeacon(&ad, args->uuid.data, args->uuid.len, (uint16_t)args->major,
					   (uint16_t)args->minor,
					   power_arg(args->has_measuredPower, args->measuredPower, -50)),
		     &ad, "ble.build.iBeacon");
}

eng_value_t rt_ble_build_altBeacon(const rt_ble_build_altBeacon_args_t *args)
{
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_altbeacon(&ad, args->id.data, args->id.len, (uint16_t)args->manufacturerId,
					     power_arg(args->has_measuredPower, args->measuredPower, -50),
					     args->has_reserved ? (uint16_t)args->reserved : 0),
		     &ad, "ble.build.altBeacon");
}

static size_t public_id(uint8_t id[RT_BLE_VENDOR_DEVICE_ID_LEN])
{
	memset(id, 0, RT_BLE_VENDOR_DEVICE_ID_LEN);
	return hal_device_public_id(id, RT_BLE_VENDOR_DEVICE_ID_LEN);
}

eng_value_t rt_ble_build_vendorLocation(const rt_ble_build_vendorLocation_args_t *args)
{
	uint8_t id[RT_BLE_VENDOR_DEVICE_ID_LEN];
	size_t n = public_id(id);
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_vendor_location(&ad, id, n,
						   power_arg(args->has_measuredPower, args->measuredPower, -50)),
		     &ad, "ble.build.vendorLocation");
}

eng_value_t rt_ble_build_vendorLocationTrigger(const rt_ble_build_vendorLocationTrigger_args_t *args)
{
	uint8_t id[RT_BLE_VENDOR_DEVICE_ID_LEN];
	size_t n = public_id(id);
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_vendor_location_trigger(&ad, id, n,
							   power_arg(args->has_measuredPower, args->measuredPower, -50)),
		     &ad, "ble.build.vendorLocationTrigger");
}

/* What the telemetry packets say about the device, read from the sensors now. */
typedef struct {
	float g[3];
	bool moving;
	uint32_t current_s, previous_s;
	double battery_mv, battery_percent, temperature_c;
	uint64_t now;
} readings_t;

static void read_sensors(readings_t *r)
{
	rt_ble_state_t *st = state();
	memset(r, 0, sizeof(*r));
	r->now = hal_clock_ms();
	if (!hal_imu_accel(r->g)) {
		memset(r->g, 0, sizeof(r->g));
	}
	/* The packets' motion flag: the acceleration differs from gravity by more than 0.1 g. The
	 * durations count from the first time a builder saw the state change. */
	float m = sqrtf(r->g[0] * r->g[0] + r->g[1] * r->g[1] + r->g[2] * r->g[2]);
	bool moving = fabsf(m - 1.0f) > 0.1f;
	if (moving != st->moving) {
		st->motion_previous_ms = r->now - st->motion_since;
		st->motion_since = r->now;
		st->moving = moving;
	}
	r->moving = moving;
	r->current_s = (uint32_t)((r->now - st->motion_since) / 1000);
	r->previous_s = (uint32_t)(st->motion_previous_ms / 1000);
	hal_power_t p;
	memset(&p, 0, sizeof(p));
	hal_power_read(&p);
	r->battery_mv = p.voltage > 0 ? round((double)p.voltage * 1000.0) : (double)NAN;
	r->battery_percent = p.voltage > 0 ? p.percent : NAN;
	r->temperature_c = hal_temp_read();
}

eng_value_t rt_ble_build_eddystoneTlm(void)
{
	readings_t r;
	read_sensors(&r);
	rt_ble_eddystone_tlm_t in = {
		.battery_mv = r.battery_mv,
		.temperature_c = r.temperature_c,
		.adv_count = rt_ble_adv_count(r.now),
		.uptime_ms = r.now,
	};
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_eddystone_tlm(&ad, &in), &ad, "ble.build.eddystoneTlm");
}

eng_value_t rt_ble_build_vendorTelemetry(void)
{
	readings_t r;
	read_sensors(&r);
	uint8_t id[RT_BLE_VENDOR_DEVICE_ID_LEN];
	public_id(id);
	rt_ble_ad_t ad;
	rt_ble_status_t s;
	/* The vendor's beacons alternate the two subframes; so does each call here (A first). */
	rt_ble_state_t *st = state();
	if (st->telemetry_calls++ % 2 == 0) {
		rt_ble_vendor_telemetry_a_t a;
		memset(&a, 0, sizeof(a));
		memcpy(a.short_id, id, 8);
		for (int i = 0; i < 3; i++) {
			a.accel_g[i] = r.g[i];
		}
		a.moving = r.moving;
		a.previous_motion_s = r.previous_s;
		a.current_motion_s = r.current_s;
		a.pressure_pa = NAN;
		s = rt_ble_beacon_vendor_telemetry_a(&ad, &a);
	} else {
		rt_ble_vendor_telemetry_b_t b;
		memset(&b, 0, sizeof(b));
		memcpy(b.short_id, id, 8);
		b.light_lux = NAN; /* no light sensor */
		b.uptime_s = (uint32_t)(r.now / 1000);
		b.temperature_c = r.temperature_c;
		b.battery_mv = r.battery_mv;
		b.battery_percent = r.battery_percent;
		s = rt_ble_beacon_vendor_telemetry_b(&ad, &b);
	}
	return built(s, &ad, "ble.build.vendorTelemetry");
}

eng_value_t rt_ble_build_vendorNearable(void)
{
	readings_t r;
	read_sensors(&r);
	uint8_t id[RT_BLE_VENDOR_DEVICE_ID_LEN];
	public_id(id);
	rt_ble_vendor_nearable_t n;
	memset(&n, 0, sizeof(n));
	memcpy(n.id, id, 8);
	n.temperature_c = r.temperature_c;
	n.moving = r.moving;
	for (int i = 0; i < 3; i++) {
		n.accel_mg[i] = (double)r.g[i] * 1000.0;
	}
	n.current_motion_s = r.current_s;
	n.previous_motion_s = r.previous_s;
	rt_ble_ad_t ad;
	return built(rt_ble_beacon_vendor_nearable(&ad, &n), &ad, "ble.build.vendorNearable");
}

/*
 * ble.parse: a scan record's fields to the beacon format rt_ble_beacon recognises in them, as an
 * object of that format's fields (docs/ble-packets.md).
 */
#include <math.h>

#include "api_types.h"
#include "rt_ble_beacon.h"
#include "rt_ble_internal.h"
#include "rt_hex.h"

static void put_num(eng_value_t o, const char *key, double x)
{
	/* NAN in C is "not measured": the field is left out (undefined). */
	if (!isnan(x)) {
		rt_ble_js_set(o, key, eng_number(x));
	}
}

static void put_hex(eng_value_t o, const char *key, const uint8_t *bytes, size_t n)
{
	char hex[2 * 20 + 1];
	rt_hex_encode(bytes, n, hex);
	hex[2 * n] = '\0';
	rt_ble_js_set(o, key, eng_string_z(hex));
}

static void put_bool(eng_value_t o, const char *key, bool b)
{
	rt_ble_js_set(o, key, eng_boolean(b));
}

static eng_value_t xyz(double x, double y, double z)
{
	eng_value_t o = eng_object();
	put_num(o, "x", x);
	put_num(o, "y", y);
	put_num(o, "z", z);
	return o;
}

static eng_value_t durations(uint32_t previous, uint32_t current)
{
	eng_value_t o = eng_object();
	put_num(o, "previous", previous);
	put_num(o, "current", current);
	return o;
}

static eng_value_t parsed_to_js(const rt_ble_parsed_t *p)
{
	eng_value_t o = eng_object();
	rt_ble_js_set(o, "type", eng_string_z(rt_ble_beacon_type_name(p->type)));
	switch (p->type) {
	case RT_BLE_TYPE_IBEACON:
		put_hex(o, "uuid", p->ibeacon.uuid, 16);
		put_num(o, "major", p->ibeacon.major);
		put_num(o, "minor", p->ibeacon.minor);
		put_num(o, "measuredPower", p->ibeacon.measured_power);
		break;
	case RT_BLE_TYPE_EDDYSTONE_UID:
		put_hex(o, "namespace", p->eddystone_uid.namespace_id, 10);
		put_hex(o, "instance", p->eddystone_uid.instance, 6);
		put_num(o, "measuredPower", p->eddystone_uid.measured_power);
		break;
	case RT_BLE_TYPE_EDDYSTONE_URL:
		rt_ble_js_set(o, "url", eng_string(p->eddystone_url.url, p->eddystone_url.url_len));
		put_num(o, "measuredPower", p->eddystone_url.measured_power);
		break;
	case RT_BLE_TYPE_EDDYSTONE_TLM:
		put_num(o, "battery", p->eddystone_tlm.battery_mv);
		put_num(o, "temperature", p->eddystone_tlm.temperature_c);
		put_num(o, "advCount", p->eddystone_tlm.adv_count);
		put_num(o, "uptime", p->eddystone_tlm.uptime_ds / 10.0);
		break;
	case RT_BLE_TYPE_ALTBEACON:
		put_hex(o, "id", p->altbeacon.id, 20);
		put_num(o, "manufacturerId", p->altbeacon.manufacturer_id);
		put_num(o, "measuredPower", p->altbeacon.measured_power);
		put_num(o, "reserved", p->altbeacon.reserved);
		break;
	case RT_BLE_TYPE_VENDOR_TELEMETRY: {
		const rt_ble_telemetry_info_t *t = &p->vendor_telemetry;
		put_num(o, "version", t->version);
		rt_ble_js_set(o, "subframe", eng_string_z(t->subframe == RT_BLE_TELEMETRY_A ? "A" : "B"));
		put_hex(o, "shortId", t->short_id, 8);
		if (t->subframe == RT_BLE_TELEMETRY_A) {
			rt_ble_js_set(o, "acceleration", xyz(t->a.accel_g[0], t->a.accel_g[1], t->a.accel_g[2]));
			put_bool(o, "moving", t->a.moving);
			rt_ble_js_set(o, "motionDuration", durations(t->a.previous_motion_s, t->a.current_motion_s));
			put_num(o, "gpio", t->a.gpio);
			put_num(o, "pressure", t->a.pressure_pa);
		} else {
			rt_ble_js_set(o, "magneticField", xyz(t->b.magnetic[0], t->b.magnetic[1], t->b.magnetic[2]));
			put_num(o, "light", t->b.light_lux);
			put_num(o, "uptime", t->b.uptime_s);
			put_num(o, "temperature", t->b.temperature_c);
			put_num(o, "battery", t->b.battery_mv);
			put_num(o, "batteryLevel", t->b.battery_percent);
		}
		if (t->has_errors) {
			put_bool(o, "firmwareError", t->firmware_error);
			put_bool(o, "clockError", t->clock_error);
		}
		break;
	}
	case RT_BLE_TYPE_VENDOR_NEARABLE:
		put_hex(o, "id", p->vendor_nearable.id, 8);
		put_num(o, "temperature", p->vendor_nearable.temperature_c);
		put_bool(o, "moving", p->vendor_nearable.moving);
		rt_ble_js_set(o, "acceleration", xyz(p->vendor_nearable.accel_mg[0], p->vendor_nearable.accel_mg[1],
						 p->vendor_nearable.accel_mg[2]));
		rt_ble_js_set(o, "motionDuration", durations(p->vendor_nearable.previous_motion_s,
							 p->vendor_nearable.current_motion_s));
		break;
	case RT_BLE_TYPE_VENDOR_LOCATION:
	case RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER:
		put_hex(o, "deviceId", p->vendor_location.device_id, RT_BLE_VENDOR_DEVICE_ID_LEN);
		put_num(o, "measuredPower", p->vendor_location.measured_power);
		put_num(o, "version", p->vendor_location.version);
		break;
	default:
		break;
	}
	return o;
}

eng_value_t rt_ble_parse(const rt_ble_parse_args_t *args)
{
	const rt_ScanRecord_t *r = &args->scanRecord;
	rt_ble_js_fields_t f = {
		.has_name = r->has_name, .name = r->name,
		.has_manuf = r->has_manufData, .manuf = r->manufData,
		.has_sd = r->has_serviceData, .sd = r->serviceData,
		.has_uuids = r->has_serviceUUIDs, .uuids = r->serviceUUIDs,
		.has_tx = r->has_txPower, .tx = r->txPower,
		.has_flags = r->has_flags, .flags = r->flags,
	};
	/* The parser reads the fields only: a record it cannot read whole is simply not recognised
	 * (ble.parse never throws on what a scan delivered). */
	rt_ble_ad_t ad;
	eng_value_t e = rt_ble_js_to_ad(&ad, &f, r->manufData.data, r->manufData.len, "ble.parse");
	if (eng_is_exception(e)) {
		eng_value_t thrown = eng_exception_value(e);
		eng_release(thrown);
		return eng_undefined();
	}
	rt_ble_parsed_t parsed;
	if (rt_ble_beacon_parse(&ad, &parsed) == RT_BLE_TYPE_NONE) {
		return eng_undefined();
	}
	return parsed_to_js(&parsed);
}

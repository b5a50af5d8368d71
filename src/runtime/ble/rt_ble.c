/*
 * ble: advertising, scanning, and the beacon packet builders and parser. See rt_ble.h.
 *
 * The generated glue has checked and converted every argument before these run. Packets are
 * encoded here (rt_ble_ad, rt_ble_beacon: docs/ble-packets.md), so the radio and the simulated air
 * only ever carry AD bytes, and a packet is refused with a clear error before anything is sent.
 */
#include "rt_ble.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api_types.h"
#include "hal_ble.h"
#include "hal_clock.h"
#include "hal_device.h"
#include "hal_sensors.h"
#include "rt_api_version.h"
#include "rt_ble_ad.h"
#include "rt_ble_beacon.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_handle.h"
#include "rt_hex.h"
#include "rt_loop.h"

#define KEY_CALLBACK "callback"

static rt_ble_state_t *state(void)
{
	return &rt_device()->ble;
}

/* The handle's record: it lives until the handle object is collected (a running advertiser
 * keeps its handle alive), so a stopped handle can be stopped again. */
static void advertiser_finalize(void *ptr)
{
	struct rt_advertiser *a = ptr;
	memset(a, 0, sizeof(*a));
}

/* Handles of ble.advertise; the engine checks this type before any method runs. */
const eng_native_type_t rt_advertiser_native_type = {"advertiser", advertiser_finalize};

/* A fresh handle to the same object, for methods that chain. */
static eng_value_t same(eng_value_t value)
{
	eng_ref_t ref = eng_ref_new(value);
	eng_value_t copy = eng_ref_get(ref);
	eng_ref_free(ref);
	return copy;
}

/* ------------------------------------------------------------------ packets to and from JS */

static eng_value_t buffer(const uint8_t *data, size_t len)
{
	return eng_arraybuffer(data, len);
}

static void set_value(eng_value_t object, const char *key, eng_value_t v)
{
	eng_set(object, key, v);
	eng_release(v);
}

/* The fields of a packet object shared by BlePacket and ScanRecord. */
typedef struct {
	bool has_name, has_manuf, has_sd, has_uuids, has_tx, has_flags;
	eng_value_t name, sd, uuids;
	rt_bytes_t manuf;
	double tx, flags;
} fields_t;

static void fields_of(const rt_ble_ad_t *ad, fields_t *f)
{
	memset(f, 0, sizeof(*f));
	if (ad->present & RT_BLE_HAS_NAME) {
		f->has_name = true;
		f->name = eng_string((const char *)rt_ble_ad_bytes(ad, ad->name), ad->name.len);
	}
	if ((ad->present & RT_BLE_HAS_MANUF) && ad->manuf.len <= RT_BYTES_MAX) {
		f->has_manuf = true;
		f->manuf.len = ad->manuf.len;
		memcpy(f->manuf.data, rt_ble_ad_bytes(ad, ad->manuf), ad->manuf.len);
	}
	if (ad->service_data_count) {
		f->has_sd = true;
		f->sd = eng_object();
		for (uint8_t i = 0; i < ad->service_data_count; i++) {
			const rt_ble_service_data_t *e = &ad->service_data[i];
			char key[RT_BLE_UUID_HEX_MAX + 1];
			rt_ble_ad_uuid_to_hex(&e->uuid, key);
			set_value(f->sd, key, buffer(rt_ble_ad_bytes(ad, e->data), e->data.len));
		}
	}
	if (ad->uuid_count) {
		f->has_uuids = true;
		f->uuids = eng_array(0);
		for (uint8_t i = 0; i < ad->uuid_count; i++) {
			eng_value_t b = buffer(ad->uuids[i].bytes, ad->uuids[i].len);
			eng_set_index(f->uuids, i, b);
			eng_release(b);
		}
	}
	if (ad->present & RT_BLE_HAS_TX_POWER) {
		f->has_tx = true;
		f->tx = ad->tx_power;
	}
	if (ad->present & RT_BLE_HAS_FLAGS) {
		f->has_flags = true;
		f->flags = ad->flags;
	}
}

static void fields_release(fields_t *f)
{
	if (f->has_name) {
		eng_release(f->name);
	}
	if (f->has_sd) {
		eng_release(f->sd);
	}
	if (f->has_uuids) {
		eng_release(f->uuids);
	}
}

static eng_value_t packet_to_js(const rt_ble_ad_t *ad)
{
	fields_t f;
	fields_of(ad, &f);
	rt_BlePacket_t p = {
		.has_name = f.has_name, .name = f.name,
		.has_manufData = f.has_manuf, .manufData = f.manuf,
		.has_serviceData = f.has_sd, .serviceData = f.sd,
		.has_serviceUUIDs = f.has_uuids, .serviceUUIDs = f.uuids,
		.has_txPower = f.has_tx, .txPower = f.tx,
		.has_flags = f.has_flags, .flags = f.flags,
	};
	eng_value_t v = api_make_BlePacket(&p);
	/* The generated maker leaves byte fields to the service (they are ArrayBuffers). */
	if (f.has_manuf) {
		set_value(v, "manufData", buffer(f.manuf.data, f.manuf.len));
	}
	fields_release(&f);
	return v;
}

/* Why a packet object was refused: a TypeError or RangeError naming the field (thrown). */
static eng_value_t refuse(eng_error_kind_t kind, const char *fn, const char *what)
{
	return eng_throw(kind, NULL, "%s: %s", fn, what);
}

static eng_value_t bytes_of(eng_value_t v, const uint8_t **data, size_t *len)
{
	eng_type_t t = eng_typeof(v);
	if (t != ENG_TYPE_ARRAYBUFFER && t != ENG_TYPE_TYPEDARRAY) {
		return eng_boolean(false);
	}
	*data = eng_buffer_data(v, len);
	if (*data == NULL && *len) {
		return eng_boolean(false);
	}
	return eng_boolean(true);
}

static eng_value_t add_service_data(rt_ble_ad_t *ad, eng_value_t sd, const char *fn)
{
	if (!eng_is_object(sd) || eng_typeof(sd) == ENG_TYPE_ARRAY || eng_typeof(sd) == ENG_TYPE_FUNCTION) {
		return refuse(ENG_ERROR_TYPE, fn, "serviceData must be an object of ArrayBuffers by UUID");
	}
	eng_value_t keys = eng_keys(sd);
	if (eng_is_exception(keys)) {
		return keys;
	}
	eng_value_t result = eng_undefined();
	uint32_t n = eng_array_length(keys);
	for (uint32_t i = 0; i < n && !eng_is_exception(result); i++) {
		eng_value_t key = eng_get_index(keys, i);
		char text[48];
		size_t klen = eng_string_copy(key, text, sizeof(text));
		eng_release(key);
		rt_ble_uuid_t uuid;
		if (klen >= sizeof(text) || rt_ble_ad_uuid_from_hex(text, klen, &uuid) != RT_BLE_OK) {
			result = eng_throw(ENG_ERROR_RANGE, NULL,
					   "%s: serviceData key '%s' is not a UUID of 4, 8 or 32 hex digits", fn,
					   klen < sizeof(text) ? text : "(too long)");
			break;
		}
		eng_value_t v = eng_get(sd, text);
		if (eng_is_exception(v)) {
			result = v;
			break;
		}
		const uint8_t *data = NULL;
		size_t len = 0;
		if (!eng_get_boolean(bytes_of(v, &data, &len))) {
			result = eng_throw(ENG_ERROR_TYPE, NULL, "%s: serviceData['%s'] must be an ArrayBuffer", fn,
					   text);
		} else if (rt_ble_ad_add_service_data(ad, &uuid, data, len) != RT_BLE_OK) {
			result = eng_throw(ENG_ERROR_RANGE, NULL, "%s: serviceData['%s'] does not fit a packet", fn,
					   text);
		}
		eng_release(v);
	}
	eng_release(keys);
	return result;
}

static eng_value_t add_uuids(rt_ble_ad_t *ad, eng_value_t list, const char *fn)
{
	if (eng_typeof(list) != ENG_TYPE_ARRAY) {
		return refuse(ENG_ERROR_TYPE, fn, "serviceUUIDs must be an array of ArrayBuffers");
	}
	uint32_t n = eng_array_length(list);
	eng_value_t result = eng_undefined();
	for (uint32_t i = 0; i < n && !eng_is_exception(result); i++) {
		eng_value_t v = eng_get_index(list, i);
		const uint8_t *data = NULL;
		size_t len = 0;
		rt_ble_uuid_t uuid;
		if (eng_is_exception(v)) {
			return v;
		}
		if (!eng_get_boolean(bytes_of(v, &data, &len)) ||
		    rt_ble_ad_uuid_from_bytes(data, len, &uuid) != RT_BLE_OK) {
			result = eng_throw(ENG_ERROR_TYPE, NULL,
					   "%s: serviceUUIDs[%u] must be an ArrayBuffer of 2, 4 or 16 bytes", fn,
					   (unsigned)i);
		} else if (rt_ble_ad_add_uuid(ad, &uuid) != RT_BLE_OK) {
			result = eng_throw(ENG_ERROR_RANGE, NULL, "%s: more than %d serviceUUIDs", fn,
					   RT_BLE_AD_MAX_UUIDS);
		}
		eng_release(v);
	}
	return result;
}

/* Fill ad from the fields of a packet object; undefined or the exception to throw. */
static eng_value_t ad_from_fields(rt_ble_ad_t *ad, const fields_t *f, const uint8_t *manuf,
				  size_t manuf_len, const char *fn)
{
	rt_ble_ad_init(ad);
	if (f->has_flags) {
		if (!(f->flags >= 0 && f->flags <= 255) || f->flags != floor(f->flags)) {
			return refuse(ENG_ERROR_RANGE, fn, "flags must be a whole number from 0 to 255");
		}
		rt_ble_ad_set_flags(ad, (uint8_t)f->flags);
	}
	if (f->has_tx) {
		if (!(f->tx >= -127 && f->tx <= 127)) {
			return refuse(ENG_ERROR_RANGE, fn, "txPower must be from -127 to 127 dBm");
		}
		rt_ble_ad_set_tx_power(ad, (int8_t)lround(f->tx));
	}
	if (f->has_uuids) {
		eng_value_t r = add_uuids(ad, f->uuids, fn);
		if (eng_is_exception(r)) {
			return r;
		}
	}
	if (f->has_sd) {
		eng_value_t r = add_service_data(ad, f->sd, fn);
		if (eng_is_exception(r)) {
			return r;
		}
	}
	if (f->has_manuf) {
		if (manuf_len < 2 || rt_ble_ad_set_manuf(ad, manuf, manuf_len) != RT_BLE_OK) {
			return refuse(ENG_ERROR_RANGE, fn,
				      "manufData must hold the 2-byte company identifier and fit a packet");
		}
	}
	if (f->has_name) {
		if (eng_typeof(f->name) != ENG_TYPE_STRING) {
			return refuse(ENG_ERROR_TYPE, fn, "name must be a string");
		}
		char name[RT_BLE_AD_LEGACY_MAX + 2];
		size_t len = eng_string_copy(f->name, name, sizeof(name));
		if (len > RT_BLE_AD_LEGACY_MAX - 2) {
			return refuse(ENG_ERROR_RANGE, fn, "name does not fit a packet (at most 29 bytes)");
		}
		rt_ble_ad_set_name(ad, name, len, true);
	}
	return eng_undefined();
}

/* Encode for legacy advertising; a packet that does not fit is a RangeError saying which part
 * is the largest (docs/ble-packets.md). */
static eng_value_t encode(const rt_ble_ad_t *ad, uint8_t *out, uint8_t *out_len, const char *fn)
{
	size_t len = 0;
	rt_ble_ad_fit_t fit;
	if (rt_ble_ad_encode(ad, out, HAL_BLE_AD_MAX, &len, &fit) != RT_BLE_OK) {
		char msg[160];
		rt_ble_ad_fit_message(&fit, msg, sizeof(msg));
		return eng_throw(ENG_ERROR_RANGE, NULL, "%s: %s", fn, msg);
	}
	*out_len = (uint8_t)len;
	return eng_undefined();
}

/* A packet object returned by an advertise callback, read property by property. */
static eng_value_t ad_from_object(eng_value_t obj, rt_ble_ad_t *ad, const char *fn)
{
	if (!eng_is_object(obj) || eng_typeof(obj) == ENG_TYPE_ARRAY || eng_typeof(obj) == ENG_TYPE_FUNCTION) {
		return refuse(ENG_ERROR_TYPE, fn, "the callback must return a packet object");
	}
	fields_t f;
	memset(&f, 0, sizeof(f));
	static const char *const keys[] = {"name", "manufData", "serviceData", "serviceUUIDs", "txPower", "flags"};
	eng_value_t v[6];
	for (int i = 0; i < 6; i++) {
		v[i] = eng_get(obj, keys[i]);
		if (eng_is_exception(v[i])) {
			for (int k = 0; k < i; k++) {
				eng_release(v[k]);
			}
			return v[i];
		}
	}
	const uint8_t *manuf = NULL;
	size_t manuf_len = 0;
	eng_value_t result = eng_undefined();
	f.has_name = eng_typeof(v[0]) != ENG_TYPE_UNDEFINED;
	f.name = v[0];
	if (eng_typeof(v[1]) != ENG_TYPE_UNDEFINED) {
		f.has_manuf = true;
		if (!eng_get_boolean(bytes_of(v[1], &manuf, &manuf_len))) {
			result = refuse(ENG_ERROR_TYPE, fn, "manufData must be an ArrayBuffer");
		}
	}
	f.has_sd = eng_typeof(v[2]) != ENG_TYPE_UNDEFINED;
	f.sd = v[2];
	f.has_uuids = eng_typeof(v[3]) != ENG_TYPE_UNDEFINED;
	f.uuids = v[3];
	for (int i = 4; i < 6; i++) {
		if (eng_typeof(v[i]) == ENG_TYPE_UNDEFINED) {
			continue;
		}
		if (eng_typeof(v[i]) != ENG_TYPE_NUMBER && !eng_is_exception(result)) {
			result = eng_throw(ENG_ERROR_TYPE, NULL, "%s: %s must be a number", fn, keys[i]);
		}
	}
	f.has_tx = eng_typeof(v[4]) == ENG_TYPE_NUMBER;
	f.tx = eng_get_number(v[4]);
	f.has_flags = eng_typeof(v[5]) == ENG_TYPE_NUMBER;
	f.flags = eng_get_number(v[5]);
	if (!eng_is_exception(result)) {
		result = ad_from_fields(ad, &f, manuf, manuf_len, fn);
	}
	for (int i = 0; i < 6; i++) {
		eng_release(v[i]);
	}
	return result;
}

/* ------------------------------------------------------------------ builders */

static int8_t power_arg(bool has, double value, int8_t def)
{
	return has ? (int8_t)lround(value) : def;
}

static eng_value_t built(rt_ble_status_t status, const rt_ble_ad_t *ad, const char *fn)
{
	if (status != RT_BLE_OK) {
		return eng_throw(ENG_ERROR_RANGE, NULL, "%s: the arguments cannot be encoded", fn);
	}
	return packet_to_js(ad);
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
		return packet_to_js(&ad);
	case RT_BLE_E_URL_SCHEME:
		return eng_throw(ENG_ERROR_RANGE, NULL,
				 "ble.build.eddystoneUrl: url must start with http:// or https:// (got '%s')", url);
	case RT_BLE_E_URL_CHAR:
		return eng_throw(ENG_ERROR_RANGE, NULL,
				 "ble.build.eddystoneUrl: url may hold only printable US-ASCII without spaces (got '%s')",
				 url);
	case RT_BLE_E_URL_TOO_LONG:
		return eng_throw(ENG_ERROR_RANGE, NULL,
				 "ble.build.eddystoneUrl: url '%s' needs more than the %d bytes one Eddystone-URL frame carries",
				 url, RT_BLE_URL_ENCODED_MAX);
	default:
		return eng_throw(ENG_ERROR_RANGE, NULL,
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

/* ------------------------------------------------------------------ ble.parse */

static void put_num(eng_value_t o, const char *key, double x)
{
	/* NAN in C is "not measured": the field is left out (undefined). */
	if (!isnan(x)) {
		set_value(o, key, eng_number(x));
	}
}

static void put_hex(eng_value_t o, const char *key, const uint8_t *bytes, size_t n)
{
	char hex[2 * 20 + 1];
	rt_hex_encode(bytes, n, hex);
	hex[2 * n] = '\0';
	set_value(o, key, eng_string_z(hex));
}

static void put_bool(eng_value_t o, const char *key, bool b)
{
	set_value(o, key, eng_boolean(b));
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
	set_value(o, "type", eng_string_z(rt_ble_beacon_type_name(p->type)));
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
		set_value(o, "url", eng_string(p->eddystone_url.url, p->eddystone_url.url_len));
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
		set_value(o, "subframe", eng_string_z(t->subframe == RT_BLE_TELEMETRY_A ? "A" : "B"));
		put_hex(o, "shortId", t->short_id, 8);
		if (t->subframe == RT_BLE_TELEMETRY_A) {
			set_value(o, "acceleration", xyz(t->a.accel_g[0], t->a.accel_g[1], t->a.accel_g[2]));
			put_bool(o, "moving", t->a.moving);
			set_value(o, "motionDuration", durations(t->a.previous_motion_s, t->a.current_motion_s));
			put_num(o, "gpio", t->a.gpio);
			put_num(o, "pressure", t->a.pressure_pa);
		} else {
			set_value(o, "magneticField", xyz(t->b.magnetic[0], t->b.magnetic[1], t->b.magnetic[2]));
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
		set_value(o, "acceleration", xyz(p->vendor_nearable.accel_mg[0], p->vendor_nearable.accel_mg[1],
						 p->vendor_nearable.accel_mg[2]));
		set_value(o, "motionDuration", durations(p->vendor_nearable.previous_motion_s,
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
	fields_t f = {
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
	eng_value_t e = ad_from_fields(&ad, &f, r->manufData.data, r->manufData.len, "ble.parse");
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

/* ------------------------------------------------------------------ advertisers */

static uint32_t sets_in_use(void)
{
	uint32_t n = 0;
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		uint8_t s = state()->advertisers[i].state;
		n += s == RT_ADV_RUNNING || s == RT_ADV_PAUSED;
	}
	return n;
}

static int free_set(void)
{
	uint32_t sets = hal_ble_adv_sets();
	for (uint32_t set = 0; set < sets && set < CONFIG_BEACON_BLE_ADVERTISERS; set++) {
		bool used = false;
		for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
			const struct rt_advertiser *a = &state()->advertisers[i];
			used |= (a->state == RT_ADV_RUNNING || a->state == RT_ADV_PAUSED) && a->set == set;
		}
		if (!used) {
			return (int)set;
		}
	}
	return -1;
}

/* Advertising events since the advertiser's current run began (the first at its start). */
static uint32_t events_before(const struct rt_advertiser *a, uint64_t now)
{
	if (a->state != RT_ADV_RUNNING || !a->interval || a->ad_len == 0 || now < a->since) {
		return 0;
	}
	return (uint32_t)((now - a->since + a->interval - 1) / a->interval);
}

uint32_t rt_ble_adv_count(uint64_t now_ms)
{
	rt_ble_state_t *st = state();
	uint32_t n = st->adv_count_base;
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		const struct rt_advertiser *a = &st->advertisers[i];
		if (a->state == RT_ADV_RUNNING && a->interval && a->ad_len && now_ms >= a->since) {
			n += (uint32_t)((now_ms - a->since) / a->interval) + 1;
		}
	}
	return n;
}

/* Close the current run of PDU counting (before a change of state or interval). */
static void fold(struct rt_advertiser *a)
{
	uint64_t now = hal_clock_ms();
	state()->adv_count_base += events_before(a, now);
	a->since = now;
}

static void radio_start(struct rt_advertiser *a)
{
	if (a->ad_len) {
		hal_ble_adv_start(a->set, a->ad, a->ad_len, a->interval, a->power);
	}
}

static void next_packet(void *context);

static void schedule(struct rt_advertiser *a, uint64_t at)
{
	rt_alarm_cancel(&a->alarm);
	a->alarm = rt_alarm_at(at, next_packet, a);
}

/* A callback advertiser's next advertisement: ask the callback for the packet. */
static void next_packet(void *context)
{
	struct rt_advertiser *a = context;
	a->alarm = 0;
	if (a->state != RT_ADV_RUNNING || !a->handle) {
		return;
	}
	eng_value_t handle = eng_ref_get(a->handle);
	eng_value_t fn = eng_get_internal(handle, KEY_CALLBACK);
	eng_value_t arg = eng_number(a->power);
	eng_watchdog_arm();
	eng_value_t result = eng_call(fn, eng_undefined(), &arg, 1);
	eng_watchdog_disarm();
	eng_release(arg);
	eng_release(fn);
	eng_release(handle);
	/* The callback may have stopped or paused its own advertiser. */
	bool still = a->state == RT_ADV_RUNNING;
	if (eng_is_exception(result)) {
		eng_value_t thrown = eng_exception_value(result);
		rt_loop_report(RT_ERROR_CALLBACK, thrown);
		eng_release(thrown);
	} else if (still) {
		rt_ble_ad_t ad;
		uint8_t bytes[HAL_BLE_AD_MAX];
		uint8_t len = 0;
		eng_value_t e = ad_from_object(result, &ad, "ble.advertise");
		if (!eng_is_exception(e)) {
			e = encode(&ad, bytes, &len, "ble.advertise");
		}
		if (eng_is_exception(e)) {
			/* A bad packet is reported; the previous one stays in the air. */
			eng_value_t thrown = eng_exception_value(e);
			rt_loop_report(RT_ERROR_CALLBACK, thrown);
			eng_release(thrown);
		} else {
			bool first = a->ad_len == 0;
			memcpy(a->ad, bytes, len);
			a->ad_len = len;
			if (first) {
				a->since = hal_clock_ms();
				radio_start(a);
			} else {
				hal_ble_adv_update(a->set, a->ad, a->ad_len);
			}
		}
		eng_release(result);
	} else {
		eng_release(result);
	}
	rt_loop_run_jobs();
	if (a->state == RT_ADV_RUNNING && !a->alarm) {
		schedule(a, hal_clock_ms() + a->interval);
	}
}

static struct rt_advertiser *free_record(void)
{
	rt_ble_state_t *st = state();
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		if (st->advertisers[i].state == RT_ADV_FREE) {
			return &st->advertisers[i];
		}
	}
	return NULL;
}

static eng_value_t no_advertiser(void)
{
	return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "ble.advertise: no free advertiser (all %d are in use)",
			    CONFIG_BEACON_BLE_ADVERTISERS);
}

eng_value_t rt_ble_advertise(const rt_ble_advertise_args_t *args)
{
	uint8_t bytes[HAL_BLE_AD_MAX];
	uint8_t len = 0;
	if (args->has_data) {
		const rt_BlePacket_t *p = &args->data;
		fields_t f = {
			.has_name = p->has_name, .name = p->name,
			.has_manuf = p->has_manufData, .manuf = p->manufData,
			.has_sd = p->has_serviceData, .sd = p->serviceData,
			.has_uuids = p->has_serviceUUIDs, .uuids = p->serviceUUIDs,
			.has_tx = p->has_txPower, .tx = p->txPower,
			.has_flags = p->has_flags, .flags = p->flags,
		};
		rt_ble_ad_t ad;
		eng_value_t e = ad_from_fields(&ad, &f, p->manufData.data, p->manufData.len, "ble.advertise");
		if (eng_is_exception(e)) {
			return e;
		}
		e = encode(&ad, bytes, &len, "ble.advertise");
		if (eng_is_exception(e)) {
			return e;
		}
	}
	int set = sets_in_use() < CONFIG_BEACON_BLE_ADVERTISERS ? free_set() : -1;
	struct rt_advertiser *a = set >= 0 ? free_record() : NULL;
	if (a == NULL) {
		/* Stopped handles the app dropped may still await collection. */
		eng_gc();
		set = sets_in_use() < CONFIG_BEACON_BLE_ADVERTISERS ? free_set() : -1;
		a = set >= 0 ? free_record() : NULL;
		if (a == NULL) {
			return no_advertiser();
		}
	}
	memset(a, 0, sizeof(*a));
	a->state = RT_ADV_RUNNING;
	a->set = (uint8_t)set;
	a->power = RT_BLE_DEFAULT_POWER;
	a->interval = RT_BLE_DEFAULT_INTERVAL_MS;
	a->since = hal_clock_ms();
	eng_value_t handle = rt_handle_new(API_PROTO_Advertiser, a);
	a->handle = eng_ref_new(handle);
	if (args->has_data) {
		memcpy(a->ad, bytes, len);
		a->ad_len = len;
		radio_start(a);
	} else {
		eng_set_internal(handle, KEY_CALLBACK, args->callback);
		/* The first packet is asked for as soon as the calling code returns. */
		schedule(a, hal_clock_ms());
	}
	return handle;
}

/* Leave the running or paused state: the set goes back to the radio. */
static void leave(struct rt_advertiser *a, rt_adv_state_t next)
{
	fold(a);
	rt_alarm_cancel(&a->alarm);
	hal_ble_adv_stop(a->set);
	a->state = (uint8_t)next;
}

eng_value_t rt_advertiser_stop(struct rt_advertiser *self, eng_value_t this_value)
{
	(void)this_value;
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		leave(self, RT_ADV_STOPPED);
		/* The handle may now be collected; its record is freed then. */
		if (self->handle) {
			eng_ref_free(self->handle);
			self->handle = 0;
		}
	}
	return eng_undefined();
}

eng_value_t rt_advertiser_pause(struct rt_advertiser *self, eng_value_t this_value)
{
	if (self->state == RT_ADV_RUNNING) {
		leave(self, RT_ADV_PAUSED);
	}
	return same(this_value);
}

eng_value_t rt_advertiser_resume(struct rt_advertiser *self, eng_value_t this_value)
{
	if (self->state == RT_ADV_PAUSED) {
		self->state = RT_ADV_RUNNING;
		self->since = hal_clock_ms();
		if (eng_typeof(eng_get_internal(this_value, KEY_CALLBACK)) == ENG_TYPE_FUNCTION) {
			schedule(self, hal_clock_ms());
		} else {
			radio_start(self);
		}
	}
	return same(this_value);
}

eng_value_t rt_advertiser_interval(struct rt_advertiser *self, eng_value_t this_value,
				   const rt_advertiser_interval_args_t *args)
{
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		if (self->state == RT_ADV_RUNNING) {
			fold(self);
		}
		self->interval = (uint32_t)ceil(args->interval);
		if (self->state == RT_ADV_RUNNING) {
			radio_start(self);
			if (self->alarm) {
				schedule(self, hal_clock_ms() + self->interval);
			}
		}
	}
	return same(this_value);
}

eng_value_t rt_advertiser_power(struct rt_advertiser *self, eng_value_t this_value,
				const rt_advertiser_power_args_t *args)
{
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		self->power = (int8_t)args->power;
		if (self->state == RT_ADV_RUNNING) {
			radio_start(self);
		}
	}
	return same(this_value);
}

/* ------------------------------------------------------------------ scanning */

static void end_scan(bool resolve)
{
	rt_ble_state_t *st = state();
	if (!st->scanning) {
		return;
	}
	st->scanning = false;
	st->scan_session++;
	hal_ble_scan_stop();
	rt_alarm_cancel(&st->scan_alarm);
	if (st->scan_callback) {
		eng_ref_free(st->scan_callback);
		st->scan_callback = 0;
	}
	if (st->scan_promise) {
		if (resolve) {
			eng_value_t promise = eng_ref_get(st->scan_promise);
			eng_promise_resolve(promise, eng_undefined());
			eng_release(promise);
		}
		/* Not resolved: the promise stays pending for good, as stopScan(false) says. */
		eng_ref_free(st->scan_promise);
		st->scan_promise = 0;
	}
}

static void scan_time_up(void *context)
{
	(void)context;
	state()->scan_alarm = 0;
	end_scan(true);
	rt_loop_run_jobs();
}

eng_value_t rt_ble_startScan(const rt_ble_startScan_args_t *args)
{
	rt_ble_state_t *st = state();
	hal_ble_scan_t p = {
		.interval_ms = RT_BLE_DEFAULT_SCAN_INTERVAL_MS,
		.window_ms = RT_BLE_DEFAULT_SCAN_WINDOW_MS,
		.channels = HAL_BLE_CH_ALL,
	};
	bool dedup = false;
	if (args->has_options) {
		const rt_ScanOptions_t *o = &args->options;
		if (o->has_interval) {
			p.interval_ms = (uint32_t)ceil(o->interval);
		}
		if (o->has_window) {
			p.window_ms = (uint32_t)ceil(o->window);
		}
		if (o->has_channels && o->channels) {
			p.channels = o->channels & HAL_BLE_CH_ALL;
		}
		p.passive = o->has_passive && o->passive;
		p.scan_requests = o->has_scanRequests && o->scanRequests;
		dedup = o->has_deduplicate && o->deduplicate;
		/* A window as long as the interval or longer listens all the time (the radio takes no
		 * window longer than its interval). */
		if (p.window_ms > p.interval_ms) {
			p.window_ms = p.interval_ms;
		}
	}
	double duration = args->has_duration ? args->duration : RT_BLE_DEFAULT_SCAN_MS;
	/* A new scan ends the one running (its promise resolves) and starts a new session. */
	end_scan(true);
	if (!hal_ble_scan_start(&p)) {
		return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "ble.startScan: the radio could not start scanning");
	}
	st->scanning = true;
	st->dedup = dedup;
	st->dedup_count = 0;
	st->scan_callback = eng_ref_new(args->callback);
	eng_value_t promise = eng_promise_new();
	st->scan_promise = eng_ref_new(promise);
	if (duration > 0) {
		st->scan_alarm = rt_alarm_at(hal_clock_ms() + (uint64_t)ceil(duration), scan_time_up, NULL);
	}
	return promise;
}

eng_value_t rt_ble_stopScan(const rt_ble_stopScan_args_t *args)
{
	end_scan(!args->has_resolvePromise || args->resolvePromise);
	return eng_undefined();
}

typedef struct {
	uint32_t session;
	rt_ble_rx_t rx;
} scan_event_t;

_Static_assert(sizeof(scan_event_t) <= RT_EVENT_PAYLOAD_MAX, "a scan record fits one loop event");

static bool seen(rt_ble_state_t *st, const uint8_t addr[HAL_BLE_ADDR_LEN])
{
	for (uint16_t i = 0; i < st->dedup_count; i++) {
		if (memcmp(st->dedup_addrs[i], addr, HAL_BLE_ADDR_LEN) == 0) {
			return true;
		}
	}
	if (st->dedup_count < CONFIG_BEACON_BLE_DEDUP_ADDRS) {
		memcpy(st->dedup_addrs[st->dedup_count++], addr, HAL_BLE_ADDR_LEN);
	}
	return false;
}

static void on_scan(const rt_event_t *event)
{
	scan_event_t e;
	memcpy(&e, event->payload, sizeof(e));
	rt_ble_state_t *st = state();
	if (!st->scanning || e.session != st->scan_session || !st->scan_callback) {
		return; /* queued before its scan ended */
	}
	if (st->dedup && seen(st, e.rx.addr)) {
		return;
	}
	rt_ble_ad_t ad;
	rt_ble_ad_decode(e.rx.data, e.rx.len, &ad);
	fields_t f;
	fields_of(&ad, &f);
	rt_ScanRecord_t r = {
		.rssi = e.rx.rssi,
		.channel = e.rx.channel,
		.scanResponse = (e.rx.kind & RT_BLE_RX_SCAN_RESPONSE) != 0,
		.connectable = (e.rx.kind & RT_BLE_RX_CONNECTABLE) != 0,
		.has_name = f.has_name, .name = f.name,
		.has_manufData = f.has_manuf, .manufData = f.manuf,
		.has_serviceData = f.has_sd, .serviceData = f.sd,
		.has_serviceUUIDs = f.has_uuids, .serviceUUIDs = f.uuids,
		.has_txPower = f.has_tx, .txPower = f.tx,
		.has_flags = f.has_flags, .flags = f.flags,
	};
	r.addr.len = HAL_BLE_ADDR_LEN;
	memcpy(r.addr.data, e.rx.addr, HAL_BLE_ADDR_LEN);
	eng_value_t record = api_make_ScanRecord(&r);
	set_value(record, "addr", buffer(r.addr.data, r.addr.len));
	if (f.has_manuf) {
		set_value(record, "manufData", buffer(f.manuf.data, f.manuf.len));
	}
	fields_release(&f);
	eng_value_t fn = eng_ref_get(st->scan_callback);
	rt_loop_invoke(fn, &record, 1);
	eng_release(fn);
	eng_release(record);
}

void rt_ble_post_scan(struct rt_device *device, const rt_ble_rx_t *rx)
{
	scan_event_t e;
	memset(&e, 0, sizeof(e));
	e.session = device->ble.scan_session;
	e.rx = *rx;
	if (e.rx.len > HAL_BLE_AD_MAX) {
		e.rx.len = HAL_BLE_AD_MAX;
	}
	rt_loop_post_to(device, on_scan, &e, sizeof(e));
}

/* ------------------------------------------------------------------ reset */

void rt_ble_reset(void)
{
	rt_ble_state_t *st = state();
	end_scan(false);
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		struct rt_advertiser *a = &st->advertisers[i];
		if (a->state == RT_ADV_RUNNING || a->state == RT_ADV_PAUSED) {
			leave(a, RT_ADV_STOPPED);
		}
		if (a->handle) {
			eng_ref_free(a->handle);
		}
		/* Handle objects still alive are detached when the engine goes: they must not write
		 * into records reused by the next app. */
		memset(a, 0, sizeof(*a));
	}
	st->telemetry_calls = 0;
}

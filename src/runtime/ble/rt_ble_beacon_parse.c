/*
 * The beacon parser (rt_ble_beacon.h): which format a received packet is, and its fields; the
 * builders are in rt_ble_beacon.c.
 */
#include <math.h>
#include <string.h>

#include "rt_ble_beacon.h"
#include "rt_ble_beacon_internal.h"

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)get_le16(p + 2) << 16 | get_le16(p);
}

/* A signed field of `bits` bits (two's complement) as an integer. */
static int32_t sign_extend(uint32_t raw, unsigned bits)
{
	uint32_t sign = 1u << (bits - 1);
	return (int32_t)((raw ^ sign) - sign);
}

static rt_ble_beacon_type_t parse_manuf(const uint8_t *m, size_t n, rt_ble_parsed_t *out)
{
	if (n >= IBEACON_MANUF_LEN && get_le16(m) == RT_BLE_COMPANY_APPLE && m[2] == IBEACON_TYPE &&
	    m[3] == IBEACON_LEN) {
		memcpy(out->ibeacon.uuid, m + 4, 16);
		out->ibeacon.major = get_be16(m + 20);
		out->ibeacon.minor = get_be16(m + 22);
		out->ibeacon.measured_power = (int8_t)m[24];
		return RT_BLE_TYPE_IBEACON;
	}
	if (n >= ALTBEACON_MANUF_LEN && m[2] == ALTBEACON_CODE_HI && m[3] == ALTBEACON_CODE_LO) {
		out->altbeacon.manufacturer_id = get_le16(m);
		memcpy(out->altbeacon.id, m + 4, ALTBEACON_ID_LEN);
		out->altbeacon.measured_power = (int8_t)m[24];
		out->altbeacon.reserved = m[25];
		return RT_BLE_TYPE_ALTBEACON;
	}
	if (n < 3 || get_le16(m) != RT_BLE_COMPANY_VENDOR) {
		return RT_BLE_TYPE_NONE;
	}
	if (m[2] == VENDOR_FRAME_NEARABLE && n >= VENDOR_NEARABLE_LEN) {
		memcpy(out->vendor_nearable.id, m + 3, 8);
		out->vendor_nearable.temperature_c = sign_extend(get_le16(m + 13) & 0x0fff, 12) / 16.0;
		/* Bit 6 of byte 15, as the document's comment says (its code compares the masked
		 * value with 1, which is never true). */
		out->vendor_nearable.moving = (m[15] & 0x40) != 0;
		for (int i = 0; i < 3; i++) {
			out->vendor_nearable.accel_mg[i] = (int8_t)m[16 + i] * 15.625;
		}
		out->vendor_nearable.current_motion_s = rt_ble_beacon_duration_decode(m[19]);
		out->vendor_nearable.previous_motion_s = rt_ble_beacon_duration_decode(m[20]);
		return RT_BLE_TYPE_VENDOR_NEARABLE;
	}
	if ((m[2] == VENDOR_FRAME_LOCATION || m[2] == VENDOR_FRAME_LOCATION_TRIGGER) && n >= VENDOR_LOCATION_LEN &&
	    m[3] == RT_BLE_VENDOR_LOCATION_VERSION) {
		out->vendor_location.version = m[3];
		memcpy(out->vendor_location.device_id, m + 4, RT_BLE_VENDOR_DEVICE_ID_LEN);
		out->vendor_location.measured_power = (int8_t)m[4 + RT_BLE_VENDOR_DEVICE_ID_LEN];
		return m[2] == VENDOR_FRAME_LOCATION ? RT_BLE_TYPE_VENDOR_LOCATION : RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER;
	}
	return RT_BLE_TYPE_NONE;
}

static rt_ble_beacon_type_t parse_eddystone(const uint8_t *f, size_t n, rt_ble_parsed_t *out)
{
	if (n < 2) {
		return RT_BLE_TYPE_NONE;
	}
	switch (f[0]) {
	case EDDYSTONE_UID:
		if (n < EDDYSTONE_UID_MIN_LEN) {
			return RT_BLE_TYPE_NONE;
		}
		out->eddystone_uid.measured_power = (int8_t)f[1];
		memcpy(out->eddystone_uid.namespace_id, f + 2, 10);
		memcpy(out->eddystone_uid.instance, f + 12, 6);
		return RT_BLE_TYPE_EDDYSTONE_UID;
	case EDDYSTONE_URL:
		if (!rt_ble_beacon_url_decode(f + 2, n - 2, out->eddystone_url.url, &out->eddystone_url.url_len)) {
			return RT_BLE_TYPE_NONE;
		}
		out->eddystone_url.measured_power = (int8_t)f[1];
		return RT_BLE_TYPE_EDDYSTONE_URL;
	case EDDYSTONE_TLM:
		if (f[1] == 0x00 && n >= EDDYSTONE_TLM_LEN) {
			uint16_t mv = get_be16(f + 2);
			uint16_t temp = get_be16(f + 4);
			out->eddystone_tlm.battery_mv = mv == 0 ? NAN : mv;
			out->eddystone_tlm.temperature_c = temp == 0x8000 ? (double)NAN : sign_extend(temp, 16) / 256.0;
			out->eddystone_tlm.adv_count = get_be32(f + 6);
			out->eddystone_tlm.uptime_ds = get_be32(f + 10);
			return RT_BLE_TYPE_EDDYSTONE_TLM;
		}
		if (f[1] == 0x01 && n >= EDDYSTONE_ETLM_LEN) {
			return RT_BLE_TYPE_EDDYSTONE_ETLM;
		}
		return RT_BLE_TYPE_NONE;
	case EDDYSTONE_EID:
		return n >= EDDYSTONE_EID_LEN ? RT_BLE_TYPE_EDDYSTONE_EID : RT_BLE_TYPE_NONE;
	default:
		return RT_BLE_TYPE_NONE;
	}
}

static rt_ble_beacon_type_t parse_vendor_telemetry(const uint8_t *f, size_t n, rt_ble_parsed_t *out)
{
	if (n < VENDOR_TELEMETRY_LEN || (f[0] & 0x0f) != VENDOR_FRAME_TELEMETRY || f[0] >> 4 > 2 ||
	    (f[9] & 0x03) > RT_BLE_TELEMETRY_B) {
		return RT_BLE_TYPE_NONE;
	}
	rt_ble_telemetry_info_t *t = &out->vendor_telemetry;
	t->version = f[0] >> 4;
	t->subframe = f[9] & 0x03;
	memcpy(t->short_id, f + 1, 8);
	t->has_errors = false;
	t->firmware_error = false;
	t->clock_error = false;
	if (t->subframe == RT_BLE_TELEMETRY_A) {
		for (int i = 0; i < 3; i++) {
			t->a.accel_g[i] = (int8_t)f[10 + i] * 2 / 127.0;
		}
		t->a.previous_motion_s = rt_ble_beacon_duration_decode(f[13]);
		t->a.current_motion_s = rt_ble_beacon_duration_decode(f[14]);
		t->a.moving = (f[15] & 0x03) == 1;
		t->a.gpio = f[15] >> 4;
		t->a.pressure_pa = NAN;
		if (t->version == 2) {
			t->has_errors = true;
			t->firmware_error = (f[15] & 0x04) != 0;
			t->clock_error = (f[15] & 0x08) != 0;
			uint32_t raw = get_le32(f + 16);
			t->a.pressure_pa = raw == 0xffffffffu ? (double)NAN : raw / 256.0;
		} else if (t->version == 1) {
			t->has_errors = true;
			t->firmware_error = (f[16] & 0x01) != 0;
			t->clock_error = (f[16] & 0x02) != 0;
		}
		return RT_BLE_TYPE_VENDOR_TELEMETRY;
	}
	for (int i = 0; i < 3; i++) {
		t->b.magnetic[i] = (int8_t)f[10 + i] / 128.0;
	}
	t->b.light_lux = (double)(1u << (f[13] >> 4)) * (f[13] & 0x0f) * 0.72;
	static const uint32_t units[4] = {1, 60, 3600, 86400};
	t->b.uptime_s = (uint32_t)((f[15] & 0x0f) << 8 | f[14]) * units[(f[15] >> 4) & 0x03];
	uint32_t temp = (uint32_t)(f[17] & 0x03) << 10 | (uint32_t)f[16] << 2 | f[15] >> 6;
	t->b.temperature_c = sign_extend(temp, 12) / 16.0;
	uint16_t mv = (uint16_t)(f[18] << 6 | f[17] >> 2);
	t->b.battery_mv = mv == 0x3fff ? NAN : mv;
	t->b.battery_percent = NAN;
	if (t->version == 0) {
		t->has_errors = true;
		t->firmware_error = (f[19] & 0x01) != 0;
		t->clock_error = (f[19] & 0x02) != 0;
	} else if (f[19] != 0xff) {
		t->b.battery_percent = f[19];
	}
	return RT_BLE_TYPE_VENDOR_TELEMETRY;
}

rt_ble_beacon_type_t rt_ble_beacon_parse(const rt_ble_ad_t *ad, rt_ble_parsed_t *out)
{
	memset(out, 0, sizeof(*out));
	rt_ble_beacon_type_t type = RT_BLE_TYPE_NONE;
	if (ad->present & RT_BLE_HAS_MANUF) {
		type = parse_manuf(rt_ble_ad_bytes(ad, ad->manuf), ad->manuf.len, out);
	}
	for (size_t i = 0; i < ad->service_data_count && type == RT_BLE_TYPE_NONE; i++) {
		const rt_ble_service_data_t *e = &ad->service_data[i];
		if (e->uuid.len != 2) {
			continue;
		}
		uint16_t uuid = get_be16(e->uuid.bytes);
		const uint8_t *data = rt_ble_ad_bytes(ad, e->data);
		if (uuid == RT_BLE_UUID16_EDDYSTONE) {
			type = parse_eddystone(data, e->data.len, out);
		} else if (uuid == RT_BLE_UUID16_VENDOR) {
			type = parse_vendor_telemetry(data, e->data.len, out);
		}
	}
	if (type == RT_BLE_TYPE_NONE) {
		memset(out, 0, sizeof(*out));
	}
	out->type = type;
	return type;
}

const char *rt_ble_beacon_type_name(rt_ble_beacon_type_t type)
{
	switch (type) {
	case RT_BLE_TYPE_IBEACON:
		return "iBeacon";
	case RT_BLE_TYPE_EDDYSTONE_UID:
		return "eddystoneUid";
	case RT_BLE_TYPE_EDDYSTONE_URL:
		return "eddystoneUrl";
	case RT_BLE_TYPE_EDDYSTONE_TLM:
		return "eddystoneTlm";
	case RT_BLE_TYPE_EDDYSTONE_ETLM:
		return "eddystoneEtlm";
	case RT_BLE_TYPE_EDDYSTONE_EID:
		return "eddystoneEid";
	case RT_BLE_TYPE_ALTBEACON:
		return "altBeacon";
	case RT_BLE_TYPE_VENDOR_TELEMETRY:
		return "vendorTelemetry";
	case RT_BLE_TYPE_VENDOR_NEARABLE:
		return "vendorNearable";
	case RT_BLE_TYPE_VENDOR_LOCATION:
		return "vendorLocation";
	case RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER:
		return "vendorLocationTrigger";
	case RT_BLE_TYPE_NONE:
		break;
	}
	return NULL;
}

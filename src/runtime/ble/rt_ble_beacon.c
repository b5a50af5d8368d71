/* The beacon builders (rt_ble_beacon.h) and the URL and duration codecs; the parser is in
 * rt_ble_beacon_parse.c. */
#include "rt_ble_beacon.h"

#include <math.h>
#include <string.h>

#include "rt_ble_beacon_internal.h"

/* --------------------------------------------------------------------------------- conversions */

/* v rounded half away from zero and clamped to lo..hi; 0 for NAN (callers that have a code for
 * "not measured" check for NAN first). */
static int64_t round_clamp(double v, int64_t lo, int64_t hi)
{
	if (isnan(v)) {
		return 0;
	}
	if (v <= (double)lo) {
		return lo;
	}
	if (v >= (double)hi) {
		return hi;
	}
	return v >= 0 ? (int64_t)(v + 0.5) : -(int64_t)(-v + 0.5);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* ----------------------------------------------------------------------------- packet scaffold */

static void beacon_init(rt_ble_ad_t *ad)
{
	rt_ble_ad_init(ad);
	rt_ble_ad_set_flags(ad, RT_BLE_FLAGS_BEACON);
}

/* An Eddystone frame: the service UUID list and the service data, both 0xfeaa, as the protocol
 * specification's common elements require. */
static rt_ble_status_t eddystone(rt_ble_ad_t *ad, const uint8_t *frame, size_t len)
{
	rt_ble_uuid_t uuid = rt_ble_ad_uuid16(RT_BLE_UUID16_EDDYSTONE);
	beacon_init(ad);
	rt_ble_status_t st = rt_ble_ad_add_uuid(ad, &uuid);
	return st != RT_BLE_OK ? st : rt_ble_ad_add_service_data(ad, &uuid, frame, len);
}

/* ------------------------------------------------------------------------------------ iBeacon */

rt_ble_status_t rt_ble_beacon_ibeacon(rt_ble_ad_t *ad, const uint8_t *uuid, size_t uuid_len, uint16_t major,
				     uint16_t minor, int8_t measured_power)
{
	if (uuid_len == 0 || uuid_len > 16) {
		return RT_BLE_E_ARG;
	}
	uint8_t m[IBEACON_MANUF_LEN] = {0};
	put_le16(m, RT_BLE_COMPANY_APPLE);
	m[2] = IBEACON_TYPE;
	m[3] = IBEACON_LEN;
	memcpy(m + 4, uuid, uuid_len);
	put_be16(m + 20, major);
	put_be16(m + 22, minor);
	m[24] = (uint8_t)measured_power;
	beacon_init(ad);
	return rt_ble_ad_set_manuf(ad, m, sizeof(m));
}

/* ---------------------------------------------------------------------------------- Eddystone */

rt_ble_status_t rt_ble_beacon_eddystone_uid(rt_ble_ad_t *ad, const uint8_t namespace_id[10],
					   const uint8_t instance[6], int8_t measured_power)
{
	uint8_t f[EDDYSTONE_UID_LEN] = {0};
	f[0] = EDDYSTONE_UID;
	f[1] = (uint8_t)measured_power;
	memcpy(f + 2, namespace_id, 10);
	memcpy(f + 12, instance, 6);
	return eddystone(ad, f, sizeof(f));
}

/* URL scheme prefixes and expansion codes (Eddystone-URL specification). */
static const char *const url_schemes[4] = {"http://www.", "https://www.", "http://", "https://"};
static const char *const url_codes[14] = {".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
					   ".com",  ".org",  ".edu",  ".net",  ".info",	 ".biz",  ".gov"};

static bool prefix_nocase(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	if (len < n) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		if (c != prefix[i]) {
			return false;
		}
	}
	return true;
}

rt_ble_status_t rt_ble_beacon_url_encode(const char *url, size_t len, uint8_t *out, size_t *out_len)
{
	/* The scheme is case-insensitive (RFC 3986) and comes back in lowercase; "www." belongs to
	 * the host and, like the expansions, is folded only when written as the table writes it. */
	int scheme;
	size_t i;
	if (prefix_nocase(url, len, "https://")) {
		scheme = 3;
		i = 8;
	} else if (prefix_nocase(url, len, "http://")) {
		scheme = 2;
		i = 7;
	} else {
		return RT_BLE_E_URL_SCHEME;
	}
	if (len - i >= 4 && memcmp(url + i, "www.", 4) == 0) {
		scheme -= 2;
		i += 4;
	}
	size_t n = 0;
	out[n++] = (uint8_t)scheme;
	while (i < len) {
		unsigned char c = (unsigned char)url[i];
		if (c <= 0x20 || c >= 0x7f) {
			return RT_BLE_E_URL_CHAR;
		}
		/* The longest expansion that matches here: ".com/" before ".com". */
		int code = -1;
		size_t code_len = 0;
		if (c == '.') {
			for (int k = 0; k < 14; k++) {
				size_t m = strlen(url_codes[k]);
				if (m > code_len && m <= len - i && memcmp(url + i, url_codes[k], m) == 0) {
					code = k;
					code_len = m;
				}
			}
		}
		/* Past the limit only count, so that a bad character is reported before the length. */
		if (n <= RT_BLE_URL_ENCODED_MAX) {
			out[n] = code >= 0 ? (uint8_t)code : c;
		}
		n++;
		i += code >= 0 ? code_len : 1;
	}
	if (n > 1 + RT_BLE_URL_ENCODED_MAX) {
		return RT_BLE_E_URL_TOO_LONG;
	}
	*out_len = n;
	return RT_BLE_OK;
}

bool rt_ble_beacon_url_decode(const uint8_t *enc, size_t len, char *out, size_t *out_len)
{
	if (len < 1 || len > 1 + RT_BLE_URL_ENCODED_MAX || enc[0] > 3) {
		return false;
	}
	size_t n = strlen(url_schemes[enc[0]]);
	memcpy(out, url_schemes[enc[0]], n);
	for (size_t i = 1; i < len; i++) {
		uint8_t b = enc[i];
		if (b < 14) {
			size_t m = strlen(url_codes[b]);
			memcpy(out + n, url_codes[b], m);
			n += m;
		} else if (b <= 0x20 || b >= 0x7f) {
			return false; /* reserved for future use */
		} else {
			out[n++] = (char)b;
		}
	}
	out[n] = '\0';
	*out_len = n;
	return true;
}

rt_ble_status_t rt_ble_beacon_eddystone_url(rt_ble_ad_t *ad, const char *url, size_t len, int8_t measured_power)
{
	if (len > RT_BLE_URL_TEXT_MAX) {
		return RT_BLE_E_ARG;
	}
	uint8_t f[2 + 1 + RT_BLE_URL_ENCODED_MAX];
	size_t n;
	rt_ble_status_t st = rt_ble_beacon_url_encode(url, len, f + 2, &n);
	if (st != RT_BLE_OK) {
		return st;
	}
	f[0] = EDDYSTONE_URL;
	f[1] = (uint8_t)measured_power;
	return eddystone(ad, f, 2 + n);
}

rt_ble_status_t rt_ble_beacon_eddystone_tlm(rt_ble_ad_t *ad, const rt_ble_eddystone_tlm_t *in)
{
	uint8_t f[EDDYSTONE_TLM_LEN];
	f[0] = EDDYSTONE_TLM;
	f[1] = 0x00; /* version: unencrypted */
	put_be16(f + 2, (uint16_t)round_clamp(in->battery_mv, 0, 0xffff)); /* NAN: 0, not supported */
	/* 0x8000 (-128.0) means "not supported", so a measured value stops one step above it. */
	uint16_t temp = isnan(in->temperature_c)
				? 0x8000
				: (uint16_t)(int16_t)round_clamp(in->temperature_c * 256.0, -32767, 32767);
	put_be16(f + 4, temp);
	put_be32(f + 6, in->adv_count);
	put_be32(f + 10, (uint32_t)(in->uptime_ms / 100u));
	return eddystone(ad, f, sizeof(f));
}

/* ---------------------------------------------------------------------------------- AltBeacon */

rt_ble_status_t rt_ble_beacon_altbeacon(rt_ble_ad_t *ad, const uint8_t *id, size_t id_len,
					uint16_t manufacturer_id, int8_t measured_power, uint16_t reserved)
{
	if (id_len < 16 || id_len > ALTBEACON_ID_LEN || reserved > 256) {
		return RT_BLE_E_ARG;
	}
	uint8_t m[ALTBEACON_MANUF_LEN] = {0};
	put_le16(m, manufacturer_id);
	m[2] = ALTBEACON_CODE_HI;
	m[3] = ALTBEACON_CODE_LO;
	memcpy(m + 4, id, id_len);
	m[24] = (uint8_t)measured_power;
	/* The spec's 0..256 for a one-byte field: 256 is stored as a byte stores it, 0x00. */
	m[25] = (uint8_t)reserved;
	beacon_init(ad);
	return rt_ble_ad_set_manuf(ad, m, sizeof(m));
}

/* ------------------------------------------------------------------------ the vendor's packets */

static rt_ble_status_t vendor_location(rt_ble_ad_t *ad, uint8_t frame, const uint8_t *device_id, size_t len,
				       int8_t measured_power)
{
	if (len > RT_BLE_VENDOR_DEVICE_ID_LEN) {
		return RT_BLE_E_ARG;
	}
	uint8_t m[VENDOR_LOCATION_LEN] = {0};
	put_le16(m, RT_BLE_COMPANY_VENDOR);
	m[2] = frame;
	m[3] = RT_BLE_VENDOR_LOCATION_VERSION;
	if (len > 0) {
		memcpy(m + 4, device_id, len);
	}
	m[4 + RT_BLE_VENDOR_DEVICE_ID_LEN] = (uint8_t)measured_power;
	beacon_init(ad);
	return rt_ble_ad_set_manuf(ad, m, sizeof(m));
}

rt_ble_status_t rt_ble_beacon_vendor_location(rt_ble_ad_t *ad, const uint8_t *device_id, size_t len,
					     int8_t measured_power)
{
	return vendor_location(ad, VENDOR_FRAME_LOCATION, device_id, len, measured_power);
}

rt_ble_status_t rt_ble_beacon_vendor_location_trigger(rt_ble_ad_t *ad, const uint8_t *device_id, size_t len,
						     int8_t measured_power)
{
	return vendor_location(ad, VENDOR_FRAME_LOCATION_TRIGGER, device_id, len, measured_power);
}

uint8_t rt_ble_beacon_duration_encode(uint32_t s)
{
	/* The finest unit whose 6-bit number holds the duration; days only up to 31, then weeks
	 * (numbers 32..63 of the day unit), at most 31 weeks. */
	if (s <= 63) {
		return (uint8_t)s;
	}
	if (s / 60 <= 63) {
		return (uint8_t)(0x40 | s / 60);
	}
	if (s / 3600 <= 63) {
		return (uint8_t)(0x80 | s / 3600);
	}
	if (s / 86400 <= 31) {
		return (uint8_t)(0xc0 | s / 86400);
	}
	uint32_t weeks = s / 604800;
	return (uint8_t)(0xc0 | (32 + (weeks > 31 ? 31 : weeks)));
}

uint32_t rt_ble_beacon_duration_decode(uint8_t byte)
{
	uint32_t n = byte & 0x3f;
	switch (byte >> 6) {
	case 0:
		return n;
	case 1:
		return n * 60;
	case 2:
		return n * 3600;
	default:
		return n < 32 ? n * 86400 : (n - 32) * 604800;
	}
}

static uint8_t int8_of(double v, double scale)
{
	return (uint8_t)(int8_t)round_clamp(v * scale, -128, 127);
}

/* Bytes 0..9 of a telemetry frame: frame type and version, short identifier, subframe. */
static void telemetry_head(uint8_t *f, const uint8_t short_id[8], uint8_t subframe)
{
	f[0] = (uint8_t)(RT_BLE_VENDOR_TELEMETRY_VERSION << 4 | VENDOR_FRAME_TELEMETRY);
	memcpy(f + 1, short_id, 8);
	f[9] = subframe;
}

static rt_ble_status_t vendor_service_data(rt_ble_ad_t *ad, const uint8_t *frame, size_t len)
{
	rt_ble_uuid_t uuid = rt_ble_ad_uuid16(RT_BLE_UUID16_VENDOR);
	beacon_init(ad);
	return rt_ble_ad_add_service_data(ad, &uuid, frame, len);
}

rt_ble_status_t rt_ble_beacon_vendor_telemetry_a(rt_ble_ad_t *ad, const rt_ble_vendor_telemetry_a_t *in)
{
	uint8_t f[VENDOR_TELEMETRY_LEN] = {0};
	telemetry_head(f, in->short_id, RT_BLE_TELEMETRY_A);
	for (int i = 0; i < 3; i++) {
		f[10 + i] = int8_of(in->accel_g[i], 127.0 / 2.0);
	}
	f[13] = rt_ble_beacon_duration_encode(in->previous_motion_s);
	f[14] = rt_ble_beacon_duration_encode(in->current_motion_s);
	f[15] = (uint8_t)((in->moving ? 0x01 : 0x00) | (in->firmware_error ? 0x04 : 0x00) |
			  (in->clock_error ? 0x08 : 0x00) | (in->gpio & 0x0f) << 4);
	uint32_t pressure = isnan(in->pressure_pa)
				    ? 0xffffffffu
				    : (uint32_t)round_clamp(in->pressure_pa * 256.0, 0, 0xfffffffe);
	put_le16(f + 16, (uint16_t)pressure);
	put_le16(f + 18, (uint16_t)(pressure >> 16));
	return vendor_service_data(ad, f, sizeof(f));
}

/* Ambient light: lux = 2^e * m * 0.72 with 4-bit e and m; the smallest e, the finest step. */
static uint8_t light_encode(double lux)
{
	if (isnan(lux) || lux <= 0) {
		return 0;
	}
	double raw = lux / 0.72;
	for (unsigned e = 0; e < 16; e++) {
		int64_t m = round_clamp(raw / (double)(1u << e), 0, 16);
		if (m <= 15) {
			return (uint8_t)(e << 4 | (unsigned)m);
		}
	}
	return 0xff;
}

/* Uptime: a 12-bit number of seconds, minutes, hours or days (unit in bits 12..13). */
static uint16_t uptime_encode(uint32_t s)
{
	static const uint32_t units[4] = {1, 60, 3600, 86400};
	for (unsigned u = 0; u < 4; u++) {
		uint32_t n = s / units[u];
		if (n <= 0xfff || u == 3) {
			return (uint16_t)(u << 12 | (n > 0xfff ? 0xfff : n));
		}
	}
	return 0;
}

rt_ble_status_t rt_ble_beacon_vendor_telemetry_b(rt_ble_ad_t *ad, const rt_ble_vendor_telemetry_b_t *in)
{
	uint8_t f[VENDOR_TELEMETRY_LEN] = {0};
	telemetry_head(f, in->short_id, RT_BLE_TELEMETRY_B);
	for (int i = 0; i < 3; i++) {
		f[10 + i] = int8_of(in->magnetic[i], 128.0);
	}
	f[13] = light_encode(in->light_lux);
	uint16_t up = uptime_encode(in->uptime_s);
	uint16_t temp = (uint16_t)(round_clamp(in->temperature_c * 16.0, -2048, 2047) & 0xfff);
	uint16_t mv = isnan(in->battery_mv) ? 0x3fff : (uint16_t)round_clamp(in->battery_mv, 0, 0x3ffe);
	f[14] = (uint8_t)up;
	f[15] = (uint8_t)((up >> 8 & 0x0f) | (up >> 12 & 0x03) << 4 | (temp & 0x03) << 6);
	f[16] = (uint8_t)(temp >> 2);
	f[17] = (uint8_t)((temp >> 10 & 0x03) | (mv & 0x3f) << 2);
	f[18] = (uint8_t)(mv >> 6);
	f[19] = isnan(in->battery_percent) ? 0xff : (uint8_t)round_clamp(in->battery_percent, 0, 100);
	return vendor_service_data(ad, f, sizeof(f));
}

rt_ble_status_t rt_ble_beacon_vendor_nearable(rt_ble_ad_t *ad, const rt_ble_vendor_nearable_t *in)
{
	uint8_t m[VENDOR_NEARABLE_LEN] = {0};
	put_le16(m, RT_BLE_COMPANY_VENDOR);
	m[2] = VENDOR_FRAME_NEARABLE;
	memcpy(m + 3, in->id, 8);
	/* Bytes 11 and 12 and the bits the public document does not describe stay 0. */
	put_le16(m + 13, (uint16_t)(round_clamp(in->temperature_c * 16.0, -2048, 2047) & 0xfff));
	m[15] = in->moving ? 0x40 : 0x00;
	for (int i = 0; i < 3; i++) {
		m[16 + i] = int8_of(in->accel_mg[i], 1.0 / 15.625);
	}
	m[19] = rt_ble_beacon_duration_encode(in->current_motion_s);
	m[20] = rt_ble_beacon_duration_encode(in->previous_motion_s);
	beacon_init(ad);
	return rt_ble_ad_set_manuf(ad, m, sizeof(m));
}

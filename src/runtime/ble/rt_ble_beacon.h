/*
 * rt_ble_beacon.h: the beacon packet formats: builders that fill an rt_ble_ad_t (ble.build.*) and
 * the parser that recognises a received packet (ble.parse). docs/ble-packets.md has the byte
 * tables of every format and where each comes from.
 *
 * Every builder starts from an empty packet with flags 0x06 (LE General Discoverable, BR/EDR not
 * supported): a beacon is advertised non-connectable, and an app that wants other flags sets the
 * packet's flags field. Multi-byte values are big-endian in the Apple, Google and AltBeacon
 * formats (except the AltBeacon company identifier) and little-endian in the vendor's.
 *
 * Physical inputs and outputs are doubles in the unit their name says; NAN means "not measured"
 * where the format has a code for that (the parser gives NAN for that code, the JS layer shows
 * it as undefined). Values beyond what a field holds are clamped to its range.
 */
#ifndef RT_BLE_BEACON_H
#define RT_BLE_BEACON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_ble_ad.h"

/* Company identifiers (Bluetooth SIG assigned numbers) and 16-bit service UUIDs. */
#define RT_BLE_COMPANY_APPLE 0x004c
#define RT_BLE_COMPANY_VENDOR 0x015d /* the vendor's, as its public packet specs use it */
#define RT_BLE_UUID16_EDDYSTONE 0xfeaa
#define RT_BLE_UUID16_VENDOR 0xfe9a /* the vendor's service UUID, for its telemetry */

/* Eddystone-URL: characters of URL text ble.build.eddystoneUrl takes, encoded bytes after the
 * scheme one frame carries, and the longest text a frame can expand to (scheme "https://www."
 * and 17 codes of ".info/"). */
#define RT_BLE_URL_TEXT_MAX 50
#define RT_BLE_URL_ENCODED_MAX 17
#define RT_BLE_URL_DECODED_MAX (12 + RT_BLE_URL_ENCODED_MAX * 6)

/* Device identifier bytes the vendor location packets carry (sys.getPublicId()). */
#define RT_BLE_VENDOR_DEVICE_ID_LEN 16
/* Protocol version of the vendor location packets defined in docs/ble-packets.md. */
#define RT_BLE_VENDOR_LOCATION_VERSION 0
/* Telemetry protocol version the builders write (the parser reads 0 to 2). */
#define RT_BLE_VENDOR_TELEMETRY_VERSION 2

/* ----------------------------------------------------------------------------------- builders */

/* iBeacon: uuid 1 to 16 bytes (a shorter one is padded with zero bytes after it). */
rt_ble_status_t rt_ble_beacon_ibeacon(rt_ble_ad_t *ad, const uint8_t *uuid, size_t uuid_len, uint16_t major,
				     uint16_t minor, int8_t measured_power);

/* Eddystone-UID: 10-byte namespace, 6-byte instance, power at 0 m; the two RFU bytes are 0. */
rt_ble_status_t rt_ble_beacon_eddystone_uid(rt_ble_ad_t *ad, const uint8_t namespace_id[10],
					   const uint8_t instance[6], int8_t measured_power);

/*
 * Eddystone-URL: url (len characters, at most RT_BLE_URL_TEXT_MAX, else RT_BLE_E_ARG) must start
 * with http:// or https:// in either case (the scheme byte; it decodes in lowercase); "www." after
 * it goes into the scheme byte too. The rest is printable US-ASCII without space; the expansion
 * codes replace ".com/", ".org", ... where the URL has them in lowercase, as the table writes
 * them (host names keep their case). RT_BLE_E_URL_SCHEME, _CHAR or _TOO_LONG (more than 17 bytes
 * after the scheme byte) otherwise; a bad character is reported before the length.
 */
rt_ble_status_t rt_ble_beacon_eddystone_url(rt_ble_ad_t *ad, const char *url, size_t len,
					     int8_t measured_power);

/* The URL encoding alone: the scheme byte and up to 17 bytes into out (18 bytes), *out_len. */
rt_ble_status_t rt_ble_beacon_url_encode(const char *url, size_t len, uint8_t *out, size_t *out_len);
/* Encoded bytes (scheme byte first) back to text, NUL-terminated in out (RT_BLE_URL_DECODED_MAX + 1
 * characters). False for an unknown scheme, a reserved code or more than 17 bytes after the
 * scheme. */
bool rt_ble_beacon_url_decode(const uint8_t *enc, size_t len, char *out, size_t *out_len);

/* Eddystone-TLM, unencrypted, version 0. */
typedef struct {
	double battery_mv; /* NAN or 0: not supported (written as 0) */
	double temperature_c; /* NAN: not supported (0x8000); 8.8 fixed point, clamped */
	uint32_t adv_count; /* advertising PDUs sent since boot */
	uint64_t uptime_ms; /* time since boot; the frame counts 0.1 s (modulo 2^32) */
} rt_ble_eddystone_tlm_t;
rt_ble_status_t rt_ble_beacon_eddystone_tlm(rt_ble_ad_t *ad, const rt_ble_eddystone_tlm_t *in);

/* AltBeacon: id 16 to 20 bytes (a shorter one first, zero bytes after it); reserved 0..256,
 * where 256 is written as 0x00 (see docs/ble-packets.md). */
rt_ble_status_t rt_ble_beacon_altbeacon(rt_ble_ad_t *ad, const uint8_t *id, size_t id_len,
					uint16_t manufacturer_id, int8_t measured_power, uint16_t reserved);

/* The vendor's location and location-trigger packets (layout in docs/ble-packets.md): device_id
 * up to 16 bytes, the device's public identifier; a shorter one is padded with zero bytes. */
rt_ble_status_t rt_ble_beacon_vendor_location(rt_ble_ad_t *ad, const uint8_t *device_id, size_t len,
					     int8_t measured_power);
rt_ble_status_t rt_ble_beacon_vendor_location_trigger(rt_ble_ad_t *ad, const uint8_t *device_id, size_t len,
						     int8_t measured_power);

/* The vendor's telemetry, subframe A (motion, GPIO, pressure). Durations of the motion states are
 * written in the format's 6-bit number and unit, as precisely as it allows (rounded down). */
typedef struct {
	uint8_t short_id[8]; /* the first 8 bytes of the device identifier */
	double accel_g[3]; /* x, y, z; the format carries -2..2 g */
	bool moving;
	uint32_t previous_motion_s; /* how long the previous motion state lasted */
	uint32_t current_motion_s; /* how long the current one has lasted */
	uint8_t gpio; /* bits 0..3: pins 0..3 high */
	bool firmware_error;
	bool clock_error;
	double pressure_pa; /* NAN: not measured (0xffffffff) */
} rt_ble_vendor_telemetry_a_t;

/* The vendor's telemetry, subframe B (magnetometer, light, uptime, temperature, battery). */
typedef struct {
	uint8_t short_id[8];
	double magnetic[3]; /* normalised -1..1; 0 while the sensor is not calibrated */
	double light_lux; /* NAN or negative: written as 0 */
	uint32_t uptime_s; /* 12-bit number in seconds, minutes, hours or days */
	double temperature_c; /* 1/16 degree steps, -128..127.9375 */
	double battery_mv; /* NAN: not measured (all ones) */
	double battery_percent; /* NAN: not measured (0xff) */
} rt_ble_vendor_telemetry_b_t;

rt_ble_status_t rt_ble_beacon_vendor_telemetry_a(rt_ble_ad_t *ad, const rt_ble_vendor_telemetry_a_t *in);
rt_ble_status_t rt_ble_beacon_vendor_telemetry_b(rt_ble_ad_t *ad, const rt_ble_vendor_telemetry_b_t *in);

/* The vendor's nearable packet. */
typedef struct {
	uint8_t id[8];
	double temperature_c; /* 1/16 degree steps, -128..127.9375 */
	bool moving;
	double accel_mg[3]; /* 15.625 mg steps */
	uint32_t current_motion_s;
	uint32_t previous_motion_s;
} rt_ble_vendor_nearable_t;
rt_ble_status_t rt_ble_beacon_vendor_nearable(rt_ble_ad_t *ad, const rt_ble_vendor_nearable_t *in);

/* The telemetry formats' motion-state duration byte (6-bit number, 2-bit unit) and back. */
uint8_t rt_ble_beacon_duration_encode(uint32_t seconds);
uint32_t rt_ble_beacon_duration_decode(uint8_t byte);

/* ------------------------------------------------------------------------------------- parser */

typedef enum {
	RT_BLE_TYPE_NONE = 0,
	RT_BLE_TYPE_IBEACON,
	RT_BLE_TYPE_EDDYSTONE_UID,
	RT_BLE_TYPE_EDDYSTONE_URL,
	RT_BLE_TYPE_EDDYSTONE_TLM,
	RT_BLE_TYPE_EDDYSTONE_ETLM,
	RT_BLE_TYPE_EDDYSTONE_EID,
	RT_BLE_TYPE_ALTBEACON,
	RT_BLE_TYPE_VENDOR_TELEMETRY,
	RT_BLE_TYPE_VENDOR_NEARABLE,
	RT_BLE_TYPE_VENDOR_LOCATION,
	RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER,
} rt_ble_beacon_type_t;

/* Telemetry subframes. */
#define RT_BLE_TELEMETRY_A 0
#define RT_BLE_TELEMETRY_B 1

/* What a telemetry frame says. */
typedef struct {
	uint8_t version; /* 0, 1 or 2 */
	uint8_t subframe; /* RT_BLE_TELEMETRY_A or _B */
	uint8_t short_id[8];
	bool has_errors; /* A from version 1, B in version 0 */
	bool firmware_error;
	bool clock_error;
	union {
		struct {
			double accel_g[3];
			bool moving;
			uint32_t previous_motion_s;
			uint32_t current_motion_s;
			uint8_t gpio;
			double pressure_pa; /* NAN: before version 2, or not measured */
		} a;
		struct {
			double magnetic[3];
			double light_lux;
			uint32_t uptime_s;
			double temperature_c;
			double battery_mv; /* NAN: not measured */
			double battery_percent; /* NAN: version 0, or not measured */
		} b;
	};
} rt_ble_telemetry_info_t;

typedef struct {
	rt_ble_beacon_type_t type;
	union {
		struct {
			uint8_t uuid[16];
			uint16_t major;
			uint16_t minor;
			int8_t measured_power;
		} ibeacon;
		struct {
			uint8_t namespace_id[10];
			uint8_t instance[6];
			int8_t measured_power;
		} eddystone_uid;
		struct {
			int8_t measured_power;
			size_t url_len;
			char url[RT_BLE_URL_DECODED_MAX + 1];
		} eddystone_url;
		struct {
			double battery_mv; /* NAN: 0 in the frame, not supported */
			double temperature_c; /* NAN: 0x8000, not supported */
			uint32_t adv_count;
			uint32_t uptime_ds; /* 0.1 s */
		} eddystone_tlm;
		struct {
			uint16_t manufacturer_id;
			uint8_t id[20];
			int8_t measured_power;
			uint8_t reserved;
		} altbeacon;
		rt_ble_telemetry_info_t vendor_telemetry;
		struct {
			uint8_t id[8];
			double temperature_c;
			bool moving;
			double accel_mg[3];
			uint32_t current_motion_s;
			uint32_t previous_motion_s;
		} vendor_nearable;
		struct {
			uint8_t version;
			uint8_t device_id[RT_BLE_VENDOR_DEVICE_ID_LEN];
			int8_t measured_power;
		} vendor_location; /* location and location trigger */
	};
} rt_ble_parsed_t;

/*
 * Recognises the packet in ad. Manufacturer data is looked at first (iBeacon, AltBeacon, the
 * vendor's nearable and location packets), then each service data entry in order (Eddystone,
 * the vendor's telemetry): the first format that matches is the result. Returns its type
 * (also in out->type), RT_BLE_TYPE_NONE when nothing matched. Reads only what ad holds.
 */
rt_ble_beacon_type_t rt_ble_beacon_parse(const rt_ble_ad_t *ad, rt_ble_parsed_t *out);

/* The type as ble.parse names it ("iBeacon", "eddystoneUid", ...); NULL for RT_BLE_TYPE_NONE. */
const char *rt_ble_beacon_type_name(rt_ble_beacon_type_t type);

#endif /* RT_BLE_BEACON_H */

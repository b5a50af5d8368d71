/*
 * rt_ble_ad.h: BLE advertising data (AD), the bytes a packet carries in the air, and the fields of
 * a packet as the API shows them (BlePacket, ScanRecord): flags, local name, manufacturer data,
 * service data, service UUID lists, transmit power level.
 *
 * AD is a sequence of structures [length][type][data...] (Core Specification Supplement, Part A);
 * the length counts the type byte and the data. Legacy advertising carries 31 bytes of AD;
 * extended advertising more. rt_ble_ad_decode() reads up to RT_BLE_AD_EXT_MAX bytes.
 *
 * A packet's fields live in an rt_ble_ad_t the caller owns: no allocation, no pointers into other
 * buffers (the variable-length values are copied into the struct's own store), so the struct can
 * be copied with memcpy and outlives the bytes it was decoded from.
 *
 * UUIDs are kept most significant byte first, as they are written ("feaa", "0000feaa-0000-1000-
 * 8000-00805f9b34fb"); the air carries every UUID little-endian and the codec reverses them. The
 * API shows the written order everywhere: a serviceData key is the UUID as lowercase hex in that
 * order (4, 8 or 32 digits, e.g. 'feaa' for Eddystone) and a serviceUUIDs ArrayBuffer holds the
 * same bytes, so toHex(serviceUUIDs[i]) is the matching serviceData key.
 */
#ifndef RT_BLE_AD_H
#define RT_BLE_AD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* AD bytes of a legacy advertising PDU (ADV_IND, ADV_NONCONN_IND, scan response). */
#define RT_BLE_AD_LEGACY_MAX 31
/* AD bytes the decoder reads and the store holds: one extended advertising report. */
#define RT_BLE_AD_EXT_MAX 255
/* Data bytes of one AD structure: its length byte counts the type too. */
#define RT_BLE_AD_DATA_MAX 254

/* How many service UUIDs and service data entries one rt_ble_ad_t holds. More in the air are
 * counted in `dropped`; a legacy packet has room for at most 14 UUIDs and 7 service data entries. */
#define RT_BLE_AD_MAX_UUIDS 16
#define RT_BLE_AD_MAX_SERVICE_DATA 8

/* AD types (Bluetooth Assigned Numbers, "Common Data Types"). */
#define RT_BLE_AD_TYPE_FLAGS 0x01
#define RT_BLE_AD_TYPE_UUID16_INCOMPLETE 0x02
#define RT_BLE_AD_TYPE_UUID16_COMPLETE 0x03
#define RT_BLE_AD_TYPE_UUID32_INCOMPLETE 0x04
#define RT_BLE_AD_TYPE_UUID32_COMPLETE 0x05
#define RT_BLE_AD_TYPE_UUID128_INCOMPLETE 0x06
#define RT_BLE_AD_TYPE_UUID128_COMPLETE 0x07
#define RT_BLE_AD_TYPE_NAME_SHORT 0x08
#define RT_BLE_AD_TYPE_NAME_COMPLETE 0x09
#define RT_BLE_AD_TYPE_TX_POWER 0x0a
#define RT_BLE_AD_TYPE_SERVICE_DATA16 0x16
#define RT_BLE_AD_TYPE_SERVICE_DATA32 0x20
#define RT_BLE_AD_TYPE_SERVICE_DATA128 0x21
#define RT_BLE_AD_TYPE_MANUFACTURER 0xff

/* Flags bits (CSS Part A, 1.3). Beacons advertise LE General Discoverable + BR/EDR not supported. */
#define RT_BLE_FLAG_LE_LIMITED 0x01
#define RT_BLE_FLAG_LE_GENERAL 0x02
#define RT_BLE_FLAG_NO_BREDR 0x04
#define RT_BLE_FLAGS_BEACON (RT_BLE_FLAG_LE_GENERAL | RT_BLE_FLAG_NO_BREDR)

/* Outcomes of the encoder, the setters and the packet builders (rt_ble_beacon.h). */
typedef enum {
	RT_BLE_OK = 0,
	/* The packet needs more bytes than the advertising set carries (rt_ble_ad_fit_t says which
	 * part is biggest), or one value is longer than any AD structure can hold. */
	RT_BLE_E_TOO_BIG,
	/* More UUIDs or service data entries than an rt_ble_ad_t holds, or its store is full. */
	RT_BLE_E_FULL,
	/* A UUID that is not 2, 4 or 16 bytes (4, 8 or 32 hex digits, or the 36-character form). */
	RT_BLE_E_BAD_UUID,
	/* An argument outside what the format can carry (an empty iBeacon uuid, an AltBeacon id of
	 * 15 bytes, a reserved byte of 300, a URL longer than 50 characters). */
	RT_BLE_E_ARG,
	/* Eddystone-URL: the URL does not start with http:// or https://. */
	RT_BLE_E_URL_SCHEME,
	/* Eddystone-URL: a character the format cannot carry (only printable US-ASCII, no space). */
	RT_BLE_E_URL_CHAR,
	/* Eddystone-URL: even with the expansion codes the URL needs more than 17 bytes, more than
	 * one frame carries. The JS layer throws a RangeError naming the url. */
	RT_BLE_E_URL_TOO_LONG,
} rt_ble_status_t;

/* A service UUID: 2, 4 or 16 bytes, most significant first. */
typedef struct {
	uint8_t len;
	uint8_t bytes[16];
} rt_ble_uuid_t;

/* Hex digits of the longest UUID, without dashes. */
#define RT_BLE_UUID_HEX_MAX 32

/* A value in an rt_ble_ad_t's store: rt_ble_ad_bytes() gives its address. */
typedef struct {
	uint8_t off;
	uint8_t len;
} rt_ble_span_t;

typedef struct {
	rt_ble_uuid_t uuid;
	rt_ble_span_t data;
} rt_ble_service_data_t;

/* Which optional fields are present. */
#define RT_BLE_HAS_FLAGS 0x01
#define RT_BLE_HAS_TX_POWER 0x02
#define RT_BLE_HAS_NAME 0x04
#define RT_BLE_HAS_MANUF 0x08

/* uuid_incomplete bits: the list of that width is advertised as incomplete. */
#define RT_BLE_UUID16_LIST 0x01
#define RT_BLE_UUID32_LIST 0x02
#define RT_BLE_UUID128_LIST 0x04

typedef struct {
	uint8_t present; /* RT_BLE_HAS_* */
	uint8_t flags;
	int8_t tx_power; /* dBm */
	bool name_complete; /* complete (0x09) or shortened (0x08) local name */
	uint8_t uuid_incomplete; /* RT_BLE_UUID*_LIST */
	rt_ble_span_t name; /* UTF-8 as received, not NUL-terminated */
	rt_ble_span_t manuf; /* starting with the company identifier, little-endian */
	uint8_t uuid_count;
	uint8_t service_data_count;
	rt_ble_uuid_t uuids[RT_BLE_AD_MAX_UUIDS];
	rt_ble_service_data_t service_data[RT_BLE_AD_MAX_SERVICE_DATA];

	/* What rt_ble_ad_decode() could not keep (the setters leave these alone). */
	uint16_t unknown; /* structures of types a packet object has no field for */
	uint16_t invalid; /* structures of a known type whose data has the wrong length */
	/* UUIDs and service data beyond the pools; a repeated name, manufacturer data, flags, tx power */
	uint16_t dropped;
	bool truncated; /* a structure ran past the end of the data (or the data past 255 bytes) */

	uint16_t used; /* bytes of store in use */
	uint8_t store[RT_BLE_AD_EXT_MAX];
} rt_ble_ad_t;

/* Parts of a packet, to name the one an error is about. */
typedef enum {
	RT_BLE_FIELD_NONE = 0,
	RT_BLE_FIELD_FLAGS,
	RT_BLE_FIELD_TX_POWER,
	RT_BLE_FIELD_NAME,
	RT_BLE_FIELD_MANUF,
	RT_BLE_FIELD_UUIDS,
	RT_BLE_FIELD_SERVICE_DATA,
} rt_ble_field_t;

/* Why a packet did not fit: what it needs, what there is, and its biggest part (the one to
 * shorten), in bytes of air including the structure's length and type bytes. */
typedef struct {
	size_t need;
	size_t cap;
	rt_ble_field_t field;
	size_t field_bytes;
	rt_ble_uuid_t uuid; /* for RT_BLE_FIELD_SERVICE_DATA: which entry */
} rt_ble_ad_fit_t;

/* An empty packet: no fields. */
void rt_ble_ad_init(rt_ble_ad_t *ad);

/* The bytes of a value of ad (name, manuf, service data). */
static inline const uint8_t *rt_ble_ad_bytes(const rt_ble_ad_t *ad, rt_ble_span_t span)
{
	return ad->store + span.off;
}

/* Setters for packets made in the firmware (the builders, a packet object from an app). Values
 * are copied into the store; setting a field again replaces it (its old bytes stay used). */
void rt_ble_ad_set_flags(rt_ble_ad_t *ad, uint8_t flags);
void rt_ble_ad_set_tx_power(rt_ble_ad_t *ad, int8_t dbm);
rt_ble_status_t rt_ble_ad_set_name(rt_ble_ad_t *ad, const char *name, size_t len, bool complete);
rt_ble_status_t rt_ble_ad_set_manuf(rt_ble_ad_t *ad, const uint8_t *data, size_t len);
rt_ble_status_t rt_ble_ad_add_uuid(rt_ble_ad_t *ad, const rt_ble_uuid_t *uuid);
rt_ble_status_t rt_ble_ad_add_service_data(rt_ble_ad_t *ad, const rt_ble_uuid_t *uuid, const uint8_t *data,
					   size_t len);

/*
 * The AD bytes of ad, at most cap (RT_BLE_AD_LEGACY_MAX for legacy advertising). Structures go in
 * this order: flags, tx power, 16-, 32-, 128-bit UUID lists, service data in the order added,
 * manufacturer data, name. Flags 0 are left out (CSS 1.3: they may be omitted when no bit is set),
 * other fields are written only when present. A packet that does not fit is not cut: the result
 * is RT_BLE_E_TOO_BIG, *len is left alone and fit (when not NULL) says why.
 */
rt_ble_status_t rt_ble_ad_encode(const rt_ble_ad_t *ad, uint8_t *out, size_t cap, size_t *len,
				 rt_ble_ad_fit_t *fit);

/* Bytes rt_ble_ad_encode() writes for ad. */
size_t rt_ble_ad_encoded_size(const rt_ble_ad_t *ad);

/*
 * The message of an encode error, NUL-terminated in buf (truncated to cap), e.g. "packet needs
 * 35 bytes, advertising carries 31; largest part: manufData (27 bytes)". Part names are the
 * packet object's property names (serviceData['feaa'] for an entry). Returns the length the
 * whole message has.
 */
size_t rt_ble_ad_fit_message(const rt_ble_ad_fit_t *fit, char *buf, size_t cap);

/* The property name of a part: "flags", "txPower", "name", "manufData", "serviceUUIDs",
 * "serviceData". */
const char *rt_ble_ad_field_name(rt_ble_field_t field);

/*
 * Reads AD bytes (any length; the first RT_BLE_AD_EXT_MAX are read) into ad, which it
 * initialises. Never fails: a structure of length 0 ends the data (the rest is padding, as
 * scanners report 31 bytes with zeros after the last structure); a structure running past the
 * end ends the walk (truncated); structures of other types are skipped (unknown); a structure of
 * a known type with a wrong length is skipped (invalid), but a UUID list keeps its whole UUIDs.
 * The first name, manufacturer data, flags and tx power count; later ones are dropped, as are
 * UUIDs and service data entries beyond the pools. Both lists of one width (complete and
 * incomplete) go into uuids; the width is marked incomplete if either was.
 * Returns true when everything in the data was kept (unknown types do not count against it).
 */
bool rt_ble_ad_decode(const uint8_t *data, size_t len, rt_ble_ad_t *ad);

/* UUIDs. A key or ArrayBuffer of the API: 2, 4 or 16 bytes, most significant first. */
rt_ble_status_t rt_ble_ad_uuid_from_bytes(const uint8_t *bytes, size_t len, rt_ble_uuid_t *uuid);
/* From hex text: 4, 8 or 32 digits, either case, or the 36-character form with dashes at 8, 13,
 * 18 and 23 ("0000feaa-0000-1000-8000-00805f9b34fb"). Not NUL-terminated. */
rt_ble_status_t rt_ble_ad_uuid_from_hex(const char *hex, size_t len, rt_ble_uuid_t *uuid);
/* As lowercase hex without dashes and a NUL: out holds RT_BLE_UUID_HEX_MAX + 1 characters.
 * Returns the number of digits. */
size_t rt_ble_ad_uuid_to_hex(const rt_ble_uuid_t *uuid, char *out);
rt_ble_uuid_t rt_ble_ad_uuid16(uint16_t value);
bool rt_ble_ad_uuid_equal(const rt_ble_uuid_t *a, const rt_ble_uuid_t *b);

#endif /* RT_BLE_AD_H */

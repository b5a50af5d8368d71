/*
 * Beacon packets: the advertising-data codec (rt_ble_ad.h) and the packet formats
 * (rt_ble_beacon.h).
 *
 * The expected bytes are written from the public documents, field by field, not taken from the
 * builders; the comment beside each vector names the document. Round trips then take every
 * builder's packet through encode, decode and parse, and scanner-style captures (complete AD
 * payloads as a scanner reports them) are parsed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt_ble_ad.h"
#include "rt_ble_beacon.h"

/* ------------------------------------------------------------------------------------ helpers */

/* Hex text with spaces between bytes as bytes; the test fails on a malformed vector. */
static size_t unhex(const char *text, uint8_t *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = text; *p;) {
		if (*p == ' ') {
			p++;
			continue;
		}
		unsigned byte;
		if (n >= cap || sscanf(p, "%2x", &byte) != 1 || !p[1] || p[1] == ' ') {
			fail_msg("bad test vector at '%s'", p);
		}
		out[n++] = (uint8_t)byte;
		p += 2;
	}
	return n;
}

static void tohex(const uint8_t *bytes, size_t n, char *out)
{
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		sprintf(out + strlen(out), i ? " %02x" : "%02x", bytes[i]);
	}
}

static void expect_bytes(const uint8_t *got, size_t got_len, const char *want_hex, const char *what)
{
	uint8_t want[300];
	size_t want_len = unhex(want_hex, want, sizeof(want));
	if (got_len != want_len || memcmp(got, want, want_len) != 0) {
		char got_hex[1000];
		tohex(got, got_len, got_hex);
		fail_msg("%s:\n  got  %s\n  want %s", what, got_hex, want_hex);
	}
}

/* The packet as legacy advertising data must be exactly want_hex. */
static void expect_air(const rt_ble_ad_t *ad, const char *want_hex, const char *what)
{
	uint8_t air[RT_BLE_AD_LEGACY_MAX];
	size_t len = 0;
	rt_ble_ad_fit_t fit;
	assert_int_equal(rt_ble_ad_encode(ad, air, sizeof(air), &len, &fit), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(ad), len);
	expect_bytes(air, len, want_hex, what);
}

/* Decodes hex AD bytes and parses them. */
static rt_ble_beacon_type_t parse_hex(const char *hex, rt_ble_ad_t *ad, rt_ble_parsed_t *out)
{
	uint8_t air[300];
	size_t len = unhex(hex, air, sizeof(air));
	rt_ble_ad_decode(air, len, ad);
	return rt_ble_beacon_parse(ad, out);
}

/* Builder output through the air and back: encode, decode, parse. */
static rt_ble_beacon_type_t through_air(const rt_ble_ad_t *built, rt_ble_parsed_t *out)
{
	uint8_t air[RT_BLE_AD_LEGACY_MAX];
	size_t len = 0;
	assert_int_equal(rt_ble_ad_encode(built, air, sizeof(air), &len, NULL), RT_BLE_OK);
	rt_ble_ad_t received;
	assert_true(rt_ble_ad_decode(air, len, &received));
	assert_int_equal(received.unknown, 0);
	return rt_ble_beacon_parse(&received, out);
}

static void expect_uuid_hex(const rt_ble_uuid_t *uuid, const char *want)
{
	char hex[RT_BLE_UUID_HEX_MAX + 1];
	rt_ble_ad_uuid_to_hex(uuid, hex);
	assert_string_equal(hex, want);
}

static const uint8_t vendor_short_id[8] = {1, 2, 3, 4, 5, 6, 7, 8};

/* ------------------------------------------------------------------------- vectors: iBeacon */

static void test_ibeacon_vector(void **state)
{
	/* Apple, Proximity Beacon Specification R1, "iBeacon advertising packet": flags AD
	 * 02 01 06, then manufacturer-specific AD of length 0x1a: company 0x004c little-endian,
	 * beacon type 0x02, length 0x15, proximity UUID, major and minor big-endian, measured power
	 * (signed, dBm at 1 m). UUID: Apple's AirLocate sample E2C56DB5-DFFB-48D2-B060-D0F5A71096E0;
	 * major 1, minor 2, -59 dBm. */
	static const uint8_t uuid[16] = {0xe2, 0xc5, 0x6d, 0xb5, 0xdf, 0xfb, 0x48, 0xd2,
					 0xb0, 0x60, 0xd0, 0xf5, 0xa7, 0x10, 0x96, 0xe0};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, uuid, 16, 1, 2, -59), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5",
		   "iBeacon, AirLocate UUID");
}

static void test_ibeacon_short_uuid_is_padded(void **state)
{
	/* ble.d.ts: a uuid shorter than 16 bytes is padded with zero bytes to the 16 the packet
	 * carries. Major 10100 (0x2774), minor 1, -50 dBm (0xce). */
	static const uint8_t uuid[4] = {0xb5, 0xb1, 0x82, 0xc7};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, uuid, 4, 10100, 1, -50), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 1a ff 4c 00 02 15 b5 b1 82 c7 00 00 00 00 00 00 00 00 00 00 00 00 27 74 00 01 ce",
		   "iBeacon, 4-byte uuid");
	/* Empty and over-long uuids are refused, not padded or cut. */
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, uuid, 0, 1, 1, -50), RT_BLE_E_ARG);
	uint8_t long_uuid[17] = {0};
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, long_uuid, 17, 1, 1, -50), RT_BLE_E_ARG);
}

/* ----------------------------------------------------------------------- vectors: Eddystone */

static void test_eddystone_uid_vector(void **state)
{
	/* google/eddystone protocol-specification.md (common elements: flags, complete list of
	 * 16-bit service UUIDs with 0xFEAA, service data for 0xFEAA) and eddystone-uid/README.md
	 * (frame type 0x00, ranging data, 10-byte namespace, 6-byte instance, two RFU bytes 0x00;
	 * "the value of the Service Data Length byte must be 0x17"; the frame fills all 31 bytes).
	 * Namespace: the README's elided UUID example 8b0ca750095477cb3e77; instance 0123456789ab;
	 * -20 dBm at 0 m (0xec). */
	static const uint8_t ns[10] = {0x8b, 0x0c, 0xa7, 0x50, 0x09, 0x54, 0x77, 0xcb, 0x3e, 0x77};
	static const uint8_t inst[6] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_eddystone_uid(&ad, ns, inst, -20), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 03 03 aa fe 17 16 aa fe 00 ec 8b 0c a7 50 09 54 77 cb 3e 77 01 23 45 67 89 ab 00 00",
		   "Eddystone-UID");
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 31);
}

static void test_eddystone_url_vector(void **state)
{
	/* google/eddystone protocol-specification.md's example URL https://goo.gl/Aq18zF;
	 * eddystone-url/README.md: frame type 0x10, TX power at 0 m, scheme 0x03 (https://), then
	 * the URL characters (".gl" has no expansion code). Service data length: type, UUID, frame
	 * type, power, scheme and 13 characters = 0x13. */
	const char *url = "https://goo.gl/Aq18zF";
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_eddystone_url(&ad, url, strlen(url), -20), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 03 03 aa fe 13 16 aa fe 10 ec 03 67 6f 6f 2e 67 6c 2f 41 71 31 38 7a 46",
		   "Eddystone-URL goo.gl");
}

static void test_eddystone_url_encoding_table(void **state)
{
	/* Every scheme prefix and expansion code of eddystone-url/README.md ("URL Scheme Prefix",
	 * "Eddystone-URL HTTP URL encoding"). "example" is 65 78 61 6d 70 6c 65. The last cases are
	 * from AltBeacon/android-beacon-library UrlBeaconUrlCompressorTest (compress ".ca", a
	 * subdomain, the scheme in capitals). */
	static const struct {
		const char *url;
		const char *hex;
	} cases[] = {
		{"http://www.example.com/", "00 65 78 61 6d 70 6c 65 00"},
		{"https://www.example.org/", "01 65 78 61 6d 70 6c 65 01"},
		{"http://example.edu/", "02 65 78 61 6d 70 6c 65 02"},
		{"https://example.net/", "03 65 78 61 6d 70 6c 65 03"},
		{"http://a.info/", "02 61 04"},
		{"http://a.biz/", "02 61 05"},
		{"http://a.gov/", "02 61 06"},
		{"http://a.com", "02 61 07"},
		{"http://a.org", "02 61 08"},
		{"http://a.edu", "02 61 09"},
		{"http://a.net", "02 61 0a"},
		{"http://a.info", "02 61 0b"},
		{"http://a.biz", "02 61 0c"},
		{"http://a.gov", "02 61 0d"},
		/* Codes anywhere in the URL, and a ".com" that only starts a longer word. */
		{"http://a.com/b.org/c", "02 61 00 62 01 63"},
		{"http://a.company", "02 61 07 70 61 6e 79"},
		/* An empty URL body: the frame carries the scheme alone (Encoded URL length 0-17). */
		{"http://", "02"},
		{"http://google.ca", "02 67 6f 6f 67 6c 65 2e 63 61"},
		{"http://www.forums.google.com/", "00 66 6f 72 75 6d 73 2e 67 6f 6f 67 6c 65 00"},
		{"HTTPS://www.Example.com", "01 45 78 61 6d 70 6c 65 07"},
		/* Expansions, and "www.", fold only the table's lowercase text: "WWW." and ".COM" stay
		 * as they are written (the host keeps its case; only the scheme is case-insensitive). */
		{"http://WWW.a.COM", "02 57 57 57 2e 61 2e 43 4f 4d"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t enc[1 + RT_BLE_URL_ENCODED_MAX];
		size_t n = 0;
		rt_ble_status_t st = rt_ble_beacon_url_encode(cases[i].url, strlen(cases[i].url), enc, &n);
		if (st != RT_BLE_OK) {
			fail_msg("'%s': status %d", cases[i].url, st);
		}
		expect_bytes(enc, n, cases[i].hex, cases[i].url);
	}
}

static void test_eddystone_url_decoding(void **state)
{
	/* The same tables read back; the scheme comes back in lowercase. */
	static const struct {
		const char *hex;
		const char *url;
	} cases[] = {
		{"00 65 78 61 6d 70 6c 65 00", "http://www.example.com/"},
		{"03 67 6f 6f 2e 67 6c 2f 41 71 31 38 7a 46", "https://goo.gl/Aq18zF"},
		{"02 61 04 62 0b", "http://a.info/b.info"},
		{"01 61 0d", "https://www.a.gov"},
		{"02", "http://"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t enc[32];
		size_t n = unhex(cases[i].hex, enc, sizeof(enc));
		char url[RT_BLE_URL_DECODED_MAX + 1];
		size_t len = 0;
		assert_true(rt_ble_beacon_url_decode(enc, n, url, &len));
		assert_string_equal(url, cases[i].url);
		assert_int_equal(len, strlen(cases[i].url));
	}
	/* The longest text a frame can carry fits the buffer: "https://www." and 17 x ".info/". */
	uint8_t enc[1 + RT_BLE_URL_ENCODED_MAX];
	enc[0] = 0x01;
	memset(enc + 1, 0x04, RT_BLE_URL_ENCODED_MAX);
	char url[RT_BLE_URL_DECODED_MAX + 1];
	size_t len = 0;
	assert_true(rt_ble_beacon_url_decode(enc, sizeof(enc), url, &len));
	assert_int_equal(len, RT_BLE_URL_DECODED_MAX);
	/* Scheme 4 and up, and the codes reserved for future use (0x0e..0x20, 0x7f..0xff), are not
	 * a URL; nor are more than 17 bytes after the scheme. */
	static const char *const bad[] = {"04 61", "02 0e", "02 20", "02 61 7f", "02 ff", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t b[8];
		size_t n = unhex(bad[i], b, sizeof(b));
		if (rt_ble_beacon_url_decode(b, n, url, &len)) {
			fail_msg("'%s' was decoded as '%s'", bad[i], url);
		}
	}
	uint8_t long_enc[2 + RT_BLE_URL_ENCODED_MAX];
	long_enc[0] = 0x02;
	memset(long_enc + 1, 'a', sizeof(long_enc) - 1);
	assert_false(rt_ble_beacon_url_decode(long_enc, sizeof(long_enc), url, &len));
}

static void test_eddystone_url_errors(void **state)
{
	rt_ble_ad_t ad;
	static const struct {
		const char *url;
		rt_ble_status_t status;
	} cases[] = {
		{"ftp://example.com", RT_BLE_E_URL_SCHEME},
		{"www.example.com", RT_BLE_E_URL_SCHEME},
		{"http:/a", RT_BLE_E_URL_SCHEME},
		{"", RT_BLE_E_URL_SCHEME},
		{"http://a b.com", RT_BLE_E_URL_CHAR},
		{"http://a\tb", RT_BLE_E_URL_CHAR},
		{"http://a\x7f", RT_BLE_E_URL_CHAR},
		{"http://caf\xc3\xa9.fr", RT_BLE_E_URL_CHAR},
		/* 17 bytes after the scheme fill the frame; 18 do not. */
		{"http://abcdefghijklmnopq", RT_BLE_OK},
		{"http://abcdefghijklmnopqr", RT_BLE_E_URL_TOO_LONG},
		{"https://www.abcdefghijklmnop.com/", RT_BLE_OK},
		{"https://www.abcdefghijklmnopq.com/", RT_BLE_E_URL_TOO_LONG},
		/* Within the 50 characters of the API but not within one frame (22 bytes after the
		 * scheme, as android-beacon-library's compressor test shows them). */
		{"http://www.forums.google.com/123/456", RT_BLE_E_URL_TOO_LONG},
		{"https://example.com/a/rather/long/path/to/a/page", RT_BLE_E_URL_TOO_LONG},
		/* A bad character is reported before the length. */
		{"https://example.com/a/rather/long/path/to/a/pa ge", RT_BLE_E_URL_CHAR},
		/* More than the API's 50 characters is an argument error before anything else. */
		{"https://example.com/a/rather/long/path/to/a/page/xy", RT_BLE_E_ARG},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rt_ble_status_t st = rt_ble_beacon_eddystone_url(&ad, cases[i].url, strlen(cases[i].url), -20);
		if (st != cases[i].status) {
			fail_msg("'%s': status %d, expected %d", cases[i].url, st, cases[i].status);
		}
	}
}

static void test_eddystone_tlm_vector(void **state)
{
	/* google/eddystone eddystone-tlm/tlm-plain.md: frame type 0x20, version 0x00, VBATT 1 mV per
	 * bit, TEMP signed 8.8 fixed point, ADV_CNT, SEC_CNT in 0.1 s, all big-endian; "the value of
	 * the Service Data Length byte must be 0x11". 3000 mV = 0bb8; 20.5 C = 0x1480; 1000 PDUs =
	 * 000003e8; 1000 s = 10000 tenths = 00002710. */
	rt_ble_eddystone_tlm_t in = {.battery_mv = 3000, .temperature_c = 20.5, .adv_count = 1000,
				     .uptime_ms = 1000000};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 03 03 aa fe 11 16 aa fe 20 00 0b b8 14 80 00 00 03 e8 00 00 27 10",
		   "Eddystone-TLM");

	/* "If not supported the value should be zeroed" (battery) and "set to 0x8000" (temperature).
	 * -1.5 C in 8.8 is 0xfe80. The 0.1 s counter drops what is below 0.1 s. */
	in = (rt_ble_eddystone_tlm_t){.battery_mv = NAN, .temperature_c = NAN, .adv_count = 7, .uptime_ms = 99};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 03 03 aa fe 11 16 aa fe 20 00 00 00 80 00 00 00 00 07 00 00 00 00",
		   "Eddystone-TLM, nothing supported");
	in = (rt_ble_eddystone_tlm_t){.battery_mv = 2999.6, .temperature_c = -1.5, .uptime_ms = 12345};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 03 03 aa fe 11 16 aa fe 20 00 0b b8 fe 80 00 00 00 00 00 00 00 7b",
		   "Eddystone-TLM, negative temperature");
	/* Out of range temperatures clamp; a measured value never becomes the 0x8000 code. */
	in = (rt_ble_eddystone_tlm_t){.temperature_c = -300};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 03 03 aa fe 11 16 aa fe 20 00 00 00 80 01 00 00 00 00 00 00 00 00",
		   "Eddystone-TLM, -300 C");
}

/* ----------------------------------------------------------------------- vectors: AltBeacon */

static void test_altbeacon_vector(void **state)
{
	/* AltBeacon/spec README (AD length 0x1b, type 0xff, MFG ID little-endian, beacon code 0xBEAC
	 * big-endian, 20-byte id, reference RSSI, MFG reserved), with the vector of the format's
	 * reference implementation, AltBeacon/android-beacon-library AltBeaconTest
	 * (02011a1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c509: company 0x0118, -59 dBm,
	 * reserved 9). That capture's flags are 0x1a: the app's packet sets them. */
	static const uint8_t id[20] = {0x2f, 0x23, 0x44, 0x54, 0xcf, 0x6d, 0x4a, 0x0f, 0xad, 0xf2,
				       0xf4, 0x91, 0x1b, 0xa9, 0xff, 0xa6, 0x00, 0x01, 0x00, 0x02};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 20, 0x0118, -59, 9), RT_BLE_OK);
	rt_ble_ad_set_flags(&ad, 0x1a);
	expect_air(&ad,
		   "02 01 1a 1b ff 18 01 be ac 2f 23 44 54 cf 6d 4a 0f ad f2 f4 91 1b a9 ff a6 00 01 00 02 c5 09",
		   "AltBeacon, android-beacon-library vector");
}

static void test_altbeacon_short_id_and_reserved(void **state)
{
	/* A 16-byte id takes the first 16 bytes of the 20-byte field (the spec's "first 16+ bytes"
	 * that identify the organisation), zero bytes after it. Reserved 256, the spec's upper
	 * bound, is the byte 0x00; 255 is 0xff. */
	uint8_t id[16];
	for (int i = 0; i < 16; i++) {
		id[i] = (uint8_t)(0xa0 + i);
	}
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 16, 0x015d, -50, 256), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 1b ff 5d 01 be ac a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af 00 00 00 00 ce 00",
		   "AltBeacon, 16-byte id, reserved 256");
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 16, 0x015d, -50, 255), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 1b ff 5d 01 be ac a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae af 00 00 00 00 ce ff",
		   "AltBeacon, reserved 255");
	uint8_t long_id[21] = {0};
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 15, 1, -50, 0), RT_BLE_E_ARG);
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, long_id, 21, 1, -50, 0), RT_BLE_E_ARG);
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 16, 1, -50, 257), RT_BLE_E_ARG);
}

/* -------------------------------------------------------------------- vectors: the vendor's */

static void test_vendor_telemetry_a_vector(void **state)
{
	/* Estimote/estimote-specs estimote-telemetry.js, subframe A, protocol version 2: service data
	 * for 0xfe9a; byte 0 frame type 2 in the low nibble, version in the high one (0x22); bytes
	 * 1-8 short identifier; byte 9 subframe 0; bytes 10-12 acceleration (raw * 2 / 127 g);
	 * 13 previous and 14 current motion state duration (6-bit number, unit in the top 2 bits:
	 * 3 minutes = 0x43, 10 s = 0x0a); byte 15 motion state in bits 0-1 (1 = moving), firmware
	 * error bit 2, clock error bit 3, GPIO pins 0-3 in bits 4-7; bytes 16-19 pressure, raw / 256
	 * Pa, little-endian: the document's own example bytes 12 34 56 78 (raw 0x78563412). */
	rt_ble_vendor_telemetry_a_t in = {
		.accel_g = {63 * 2 / 127.0, -64 * 2 / 127.0, 2.0},
		.moving = true,
		.previous_motion_s = 180,
		.current_motion_s = 10,
		.gpio = 0x09,
		.firmware_error = true,
		.pressure_pa = 0x78563412 / 256.0,
	};
	memcpy(in.short_id, vendor_short_id, 8);
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_vendor_telemetry_a(&ad, &in), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 17 16 9a fe 22 01 02 03 04 05 06 07 08 00 3f c0 7f 43 0a 95 12 34 56 78",
		   "vendor telemetry A");
	/* Pressure not measured: all ones, as the format marks other values it lacks. */
	in.pressure_pa = NAN;
	in.moving = false;
	in.firmware_error = false;
	in.clock_error = true;
	in.gpio = 0;
	assert_int_equal(rt_ble_beacon_vendor_telemetry_a(&ad, &in), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 17 16 9a fe 22 01 02 03 04 05 06 07 08 00 3f c0 7f 43 0a 08 ff ff ff ff",
		   "vendor telemetry A, no pressure");
}

static void test_vendor_telemetry_b_vector(void **state)
{
	/* estimote-telemetry.js, subframe B: bytes 10-12 magnetic field (raw / 128); byte 13 ambient
	 * light 2^upper * lower * 0.72 lx; byte 14 and bits 0-3 of byte 15 a 12-bit uptime, unit in
	 * bits 4-5 (1 = minutes); temperature, 12-bit signed / 16, from bits 6-7 of byte 15, byte 16
	 * and bits 0-1 of byte 17; battery mV, 14 bits, bits 2-7 of byte 17 and byte 18; byte 19
	 * battery level in percent.
	 * Magnetic 0.5, -1, 0 = 40 80 00. 28.8 lx = 2^2 * 10 * 0.72 = 0x2a (the finest step).
	 * Uptime 7200 s = 120 minutes = 0x078, unit 1. -5.0625 C = -81 = 0xfaf: bits 0-1 (3) in byte
	 * 15's top bits, 0xeb in byte 16, bits 10-11 (3) in byte 17. 3000 mV = 0xbb8: low 6 bits
	 * 0x38 << 2 = 0xe0 in byte 17, 3000 >> 6 = 0x2e in byte 18. 87 % = 0x57.
	 * Byte 15 = 0xc0 | 0x10 = 0xd0; byte 17 = 0xe0 | 0x03 = 0xe3. */
	rt_ble_vendor_telemetry_b_t in = {
		.magnetic = {0.5, -1.0, 0.0},
		.light_lux = 28.8,
		.uptime_s = 7200,
		.temperature_c = -5.0625,
		.battery_mv = 3000,
		.battery_percent = 87,
	};
	memcpy(in.short_id, vendor_short_id, 8);
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_vendor_telemetry_b(&ad, &in), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 17 16 9a fe 22 01 02 03 04 05 06 07 08 01 40 80 00 2a 78 d0 eb e3 2e 57",
		   "vendor telemetry B");
	/* Battery voltage and level not measured: all ones (the document's "if all bits are set to
	 * 1, it means it hasn't been measured yet"). Uptime past 4095 minutes goes to hours. */
	in = (rt_ble_vendor_telemetry_b_t){.battery_mv = NAN, .battery_percent = NAN, .uptime_s = 4096 * 60};
	memcpy(in.short_id, vendor_short_id, 8);
	assert_int_equal(rt_ble_beacon_vendor_telemetry_b(&ad, &in), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 17 16 9a fe 22 01 02 03 04 05 06 07 08 01 00 00 00 00 44 20 00 fc ff ff",
		   "vendor telemetry B, nothing measured");
}

static void test_vendor_nearable_vector(void **state)
{
	/* Estimote/estimote-specs estimote-nearable.js: manufacturer data, company 0x015d
	 * little-endian; byte 2 frame type 0x01; bytes 3-10 nearable id; bytes 13-14 temperature
	 * (uint16 LE & 0x0fff, 12-bit signed / 16); byte 15 bit 6 moving; bytes 16-18 acceleration
	 * (raw * 15.625 mg); byte 19 current and byte 20 previous motion state duration. Bytes 11-12
	 * are not described: 0. 22.5 C = 360 = 0x168 (68 01); -1000, 0, 1000 mg = c0 00 40;
	 * current 5 min = 0x45; previous 2 h = 0x82. */
	rt_ble_vendor_nearable_t in = {
		.id = {0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8},
		.temperature_c = 22.5,
		.moving = true,
		.accel_mg = {-1000, 0, 1000},
		.current_motion_s = 300,
		.previous_motion_s = 7200,
	};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_vendor_nearable(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 16 ff 5d 01 01 a1 a2 a3 a4 a5 a6 a7 a8 00 00 68 01 40 c0 00 40 45 82",
		   "vendor nearable");
	/* -3.25 C = -52 = 0xfcc in 12 bits: cc 0f. */
	in.temperature_c = -3.25;
	in.moving = false;
	assert_int_equal(rt_ble_beacon_vendor_nearable(&ad, &in), RT_BLE_OK);
	expect_air(&ad, "02 01 06 16 ff 5d 01 01 a1 a2 a3 a4 a5 a6 a7 a8 00 00 cc 0f 00 c0 00 40 45 82",
		   "vendor nearable, below zero");
}

static void test_vendor_location_vectors(void **state)
{
	/* docs/ble-packets.md (the product's own layout): manufacturer data, company 0x015d
	 * little-endian, frame type (0x02 location, 0x03 location trigger), protocol version 0,
	 * 16-byte device id, measured power. */
	static const uint8_t id[16] = {0x5e, 0xac, 0x0b, 0x1d, 0x00, 0x00, 0x4d, 0x0c,
				       0xbe, 0xac, 0x05, 0x1a, 0x00, 0x00, 0x00, 0x01};
	rt_ble_ad_t ad;
	assert_int_equal(rt_ble_beacon_vendor_location(&ad, id, 16, -50), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 16 ff 5d 01 02 00 5e ac 0b 1d 00 00 4d 0c be ac 05 1a 00 00 00 01 ce",
		   "vendor location");
	assert_int_equal(rt_ble_beacon_vendor_location_trigger(&ad, id, 16, -4), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 16 ff 5d 01 03 00 5e ac 0b 1d 00 00 4d 0c be ac 05 1a 00 00 00 01 fc",
		   "vendor location trigger");
	/* A shorter public id is padded with zero bytes; a longer one is refused. */
	assert_int_equal(rt_ble_beacon_vendor_location(&ad, id, 4, -50), RT_BLE_OK);
	expect_air(&ad,
		   "02 01 06 16 ff 5d 01 02 00 5e ac 0b 1d 00 00 00 00 00 00 00 00 00 00 00 00 ce",
		   "vendor location, 4-byte id");
	uint8_t long_id[17] = {0};
	assert_int_equal(rt_ble_beacon_vendor_location(&ad, long_id, 17, -50), RT_BLE_E_ARG);
}

static void test_vendor_motion_durations(void **state)
{
	/* estimote-telemetry.js: lower 6 bits a number, upper 2 bits the unit: seconds, minutes,
	 * hours, and days for numbers under 32, else number - 32 weeks. The encoder takes the finest
	 * unit that holds the duration, rounding down. */
	static const struct {
		uint32_t seconds;
		uint8_t byte;
		uint32_t back;
	} cases[] = {
		{0, 0x00, 0},
		{63, 0x3f, 63},
		{64, 0x41, 60},
		{180, 0x43, 180},
		{63 * 60 + 59, 0x7f, 63 * 60},
		{64 * 60, 0x81, 3600},
		{63 * 3600, 0xbf, 63 * 3600},
		{64 * 3600, 0xc2, 2 * 86400},
		{31 * 86400, 0xdf, 31 * 86400},
		{32 * 86400, 0xe4, 4 * 604800},
		{5 * 604800 + 86400, 0xe5, 5 * 604800},
		{31 * 604800, 0xff, 31 * 604800},
		{100 * 604800, 0xff, 31 * 604800},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t b = rt_ble_beacon_duration_encode(cases[i].seconds);
		if (b != cases[i].byte) {
			fail_msg("%u s gave 0x%02x, expected 0x%02x", (unsigned)cases[i].seconds, b, cases[i].byte);
		}
		assert_int_equal(rt_ble_beacon_duration_decode(b), cases[i].back);
	}
}

/* --------------------------------------------------------------- round trips through the air */

static void test_round_trip_ibeacon(void **state)
{
	static const uint8_t uuid[16] = {0xe2, 0xc5, 0x6d, 0xb5, 0xdf, 0xfb, 0x48, 0xd2,
					 0xb0, 0x60, 0xd0, 0xf5, 0xa7, 0x10, 0x96, 0xe0};
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, uuid, 16, 65535, 1, -127), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_IBEACON);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "iBeacon");
	assert_memory_equal(p.ibeacon.uuid, uuid, 16);
	assert_int_equal(p.ibeacon.major, 65535);
	assert_int_equal(p.ibeacon.minor, 1);
	assert_int_equal(p.ibeacon.measured_power, -127);
}

static void test_round_trip_eddystone(void **state)
{
	static const uint8_t ns[10] = {0x8b, 0x0c, 0xa7, 0x50, 0x09, 0x54, 0x77, 0xcb, 0x3e, 0x77};
	static const uint8_t inst[6] = {0, 0, 0, 0, 0, 42};
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;

	assert_int_equal(rt_ble_beacon_eddystone_uid(&ad, ns, inst, 20), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_EDDYSTONE_UID);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "eddystoneUid");
	assert_memory_equal(p.eddystone_uid.namespace_id, ns, 10);
	assert_memory_equal(p.eddystone_uid.instance, inst, 6);
	assert_int_equal(p.eddystone_uid.measured_power, 20);

	static const char *const urls[] = {"https://goo.gl/Aq18zF", "http://www.example.com/",
					   "https://a.com/b.org/c.net", "http://x.info/y.gov/z.biz"};
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		assert_int_equal(rt_ble_beacon_eddystone_url(&ad, urls[i], strlen(urls[i]), -100), RT_BLE_OK);
		assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_EDDYSTONE_URL);
		assert_string_equal(p.eddystone_url.url, urls[i]);
		assert_int_equal(p.eddystone_url.url_len, strlen(urls[i]));
		assert_int_equal(p.eddystone_url.measured_power, -100);
	}
	assert_string_equal(rt_ble_beacon_type_name(RT_BLE_TYPE_EDDYSTONE_URL), "eddystoneUrl");

	rt_ble_eddystone_tlm_t tlm = {.battery_mv = 2950, .temperature_c = -12.25, .adv_count = 0xfffffffe,
				      .uptime_ms = 3600000};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &tlm), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_EDDYSTONE_TLM);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "eddystoneTlm");
	assert_true(p.eddystone_tlm.battery_mv == 2950);
	assert_true(p.eddystone_tlm.temperature_c == -12.25);
	assert_int_equal(p.eddystone_tlm.adv_count, 0xfffffffe);
	assert_int_equal(p.eddystone_tlm.uptime_ds, 36000);
	tlm = (rt_ble_eddystone_tlm_t){.battery_mv = NAN, .temperature_c = NAN};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &tlm), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_EDDYSTONE_TLM);
	assert_true(isnan(p.eddystone_tlm.battery_mv));
	assert_true(isnan(p.eddystone_tlm.temperature_c));
}

static void test_round_trip_altbeacon(void **state)
{
	uint8_t id[20];
	for (int i = 0; i < 20; i++) {
		id[i] = (uint8_t)(i * 13);
	}
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, id, 20, 0xabcd, -77, 200), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_ALTBEACON);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "altBeacon");
	assert_int_equal(p.altbeacon.manufacturer_id, 0xabcd);
	assert_memory_equal(p.altbeacon.id, id, 20);
	assert_int_equal(p.altbeacon.measured_power, -77);
	assert_int_equal(p.altbeacon.reserved, 200);
}

static void test_round_trip_vendor(void **state)
{
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;

	rt_ble_vendor_telemetry_a_t a = {
		.accel_g = {-128 * 2 / 127.0, 1 * 2 / 127.0, 100 * 2 / 127.0},
		.moving = true,
		.previous_motion_s = 3 * 86400,
		.current_motion_s = 45 * 60,
		.gpio = 0x0a,
		.clock_error = true,
		.pressure_pa = 101325.5,
	};
	memcpy(a.short_id, vendor_short_id, 8);
	assert_int_equal(rt_ble_beacon_vendor_telemetry_a(&ad, &a), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_VENDOR_TELEMETRY);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "vendorTelemetry");
	const rt_ble_telemetry_info_t *t = &p.vendor_telemetry;
	assert_int_equal(t->version, 2);
	assert_int_equal(t->subframe, RT_BLE_TELEMETRY_A);
	assert_memory_equal(t->short_id, vendor_short_id, 8);
	for (int i = 0; i < 3; i++) {
		assert_true(t->a.accel_g[i] == a.accel_g[i]);
	}
	assert_true(t->a.moving);
	assert_int_equal(t->a.previous_motion_s, 3 * 86400);
	assert_int_equal(t->a.current_motion_s, 45 * 60);
	assert_int_equal(t->a.gpio, 0x0a);
	assert_true(t->has_errors && !t->firmware_error && t->clock_error);
	assert_true(t->a.pressure_pa == 101325.5);

	rt_ble_vendor_telemetry_b_t b = {
		.magnetic = {-0.25, 0.125, 127 / 128.0},
		.light_lux = 3 * 0.72,
		.uptime_s = 100 * 3600,
		.temperature_c = 36.6875,
		.battery_mv = 2987,
		.battery_percent = 100,
	};
	memcpy(b.short_id, vendor_short_id, 8);
	assert_int_equal(rt_ble_beacon_vendor_telemetry_b(&ad, &b), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_VENDOR_TELEMETRY);
	assert_int_equal(t->subframe, RT_BLE_TELEMETRY_B);
	for (int i = 0; i < 3; i++) {
		assert_true(t->b.magnetic[i] == b.magnetic[i]);
	}
	assert_true(t->b.light_lux == 3 * 0.72);
	assert_int_equal(t->b.uptime_s, 100 * 3600);
	assert_true(t->b.temperature_c == 36.6875);
	assert_true(t->b.battery_mv == 2987);
	assert_true(t->b.battery_percent == 100);
	assert_false(t->has_errors);

	rt_ble_vendor_nearable_t n = {
		.id = {8, 7, 6, 5, 4, 3, 2, 1},
		.temperature_c = -40.5,
		.moving = true,
		.accel_mg = {-2000, 15.625, 1984.375},
		.current_motion_s = 20,
		.previous_motion_s = 10 * 604800,
	};
	assert_int_equal(rt_ble_beacon_vendor_nearable(&ad, &n), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_VENDOR_NEARABLE);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "vendorNearable");
	assert_memory_equal(p.vendor_nearable.id, n.id, 8);
	assert_true(p.vendor_nearable.temperature_c == -40.5);
	assert_true(p.vendor_nearable.moving);
	for (int i = 0; i < 3; i++) {
		assert_true(p.vendor_nearable.accel_mg[i] == n.accel_mg[i]);
	}
	assert_int_equal(p.vendor_nearable.current_motion_s, 20);
	assert_int_equal(p.vendor_nearable.previous_motion_s, 10 * 604800);

	uint8_t id[16];
	for (int i = 0; i < 16; i++) {
		id[i] = (uint8_t)(0xf0 ^ i);
	}
	assert_int_equal(rt_ble_beacon_vendor_location(&ad, id, 16, -60), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_VENDOR_LOCATION);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "vendorLocation");
	assert_memory_equal(p.vendor_location.device_id, id, 16);
	assert_int_equal(p.vendor_location.measured_power, -60);
	assert_int_equal(p.vendor_location.version, 0);
	assert_int_equal(rt_ble_beacon_vendor_location_trigger(&ad, id, 16, 3), RT_BLE_OK);
	assert_int_equal(through_air(&ad, &p), RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "vendorLocationTrigger");
	assert_int_equal(p.vendor_location.measured_power, 3);
}

/* ------------------------------------------------------------------ scanner-style captures */

static void test_capture_ibeacon_with_padding(void **state)
{
	/* A scanner's raw 31 bytes: flags first, the iBeacon, one byte of zero padding (a length of
	 * zero ends the data). UUID: the default of wiki.aprbrother.com's iBeacon packet page,
	 * B5B182C7-EAB1-4988-AA99-B5C1517008D9; major 10100, minor 3000, -58 dBm. */
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(parse_hex("02 01 06 1a ff 4c 00 02 15 b5 b1 82 c7 ea b1 49 88 aa 99 b5 c1 51 70 08 d9"
				   " 27 74 0b b8 c6 00",
				   &ad, &p),
			 RT_BLE_TYPE_IBEACON);
	assert_false(ad.truncated);
	assert_int_equal(ad.flags, 0x06);
	static const uint8_t uuid[16] = {0xb5, 0xb1, 0x82, 0xc7, 0xea, 0xb1, 0x49, 0x88,
					 0xaa, 0x99, 0xb5, 0xc1, 0x51, 0x70, 0x08, 0xd9};
	assert_memory_equal(p.ibeacon.uuid, uuid, 16);
	assert_int_equal(p.ibeacon.major, 10100);
	assert_int_equal(p.ibeacon.minor, 3000);
	assert_int_equal(p.ibeacon.measured_power, -58);
}

static void test_capture_altbeacon(void **state)
{
	/* AltBeacon/android-beacon-library AltBeaconTest's scan bytes: "manData should be parsed",
	 * reserved 9. */
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(parse_hex("02011a1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c509", &ad, &p),
			 RT_BLE_TYPE_ALTBEACON);
	assert_int_equal(ad.flags, 0x1a);
	assert_int_equal(p.altbeacon.manufacturer_id, 0x0118);
	assert_int_equal(p.altbeacon.measured_power, -59);
	assert_int_equal(p.altbeacon.reserved, 9);
	static const uint8_t tail[4] = {0x00, 0x01, 0x00, 0x02};
	assert_memory_equal(p.altbeacon.id + 16, tail, 4);
}

static void test_capture_eddystone_frames(void **state)
{
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	/* An Eddystone-UID beacon of an implementation that drops the RFU bytes (service data
	 * length 0x15, which eddystone-uid/README.md says existing implementations use). */
	assert_int_equal(parse_hex("02 01 06 03 03 aa fe 15 16 aa fe 00 e7 f7 82 6d a6 4f a2 4e 98 80 24 bc 5b"
				   " 71 e0 89 3e",
				   &ad, &p),
			 RT_BLE_TYPE_EDDYSTONE_UID);
	assert_int_equal(p.eddystone_uid.measured_power, -25);
	assert_int_equal(p.eddystone_uid.instance[5], 0x3e);
	/* TLM with the tx power level AD a scanner also shows (tlm-plain.md field layout). */
	assert_int_equal(parse_hex("02 01 06 02 0a f4 03 03 aa fe 11 16 aa fe 20 00 0c 1c 17 40 00 01 86 a0 00"
				   " 36 ee 80",
				   &ad, &p),
			 RT_BLE_TYPE_EDDYSTONE_TLM);
	assert_true(ad.present & RT_BLE_HAS_TX_POWER);
	assert_int_equal(ad.tx_power, -12);
	assert_true(p.eddystone_tlm.battery_mv == 3100);
	assert_true(p.eddystone_tlm.temperature_c == 23.25);
	assert_int_equal(p.eddystone_tlm.adv_count, 100000);
	assert_int_equal(p.eddystone_tlm.uptime_ds, 3600000);
	/* Encrypted TLM (eddystone-tlm/tlm-encrypted.md: 0x20, version 0x01, 12 bytes, salt, MIC)
	 * and EID (eddystone-eid/README.md: 0x30, power, 8-byte ephemeral id): type only. */
	assert_int_equal(parse_hex("02 01 06 03 03 aa fe 15 16 aa fe 20 01 11 22 33 44 55 66 77 88 99 aa bb cc"
				   " de ad be ef",
				   &ad, &p),
			 RT_BLE_TYPE_EDDYSTONE_ETLM);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "eddystoneEtlm");
	assert_int_equal(parse_hex("02 01 06 03 03 aa fe 0d 16 aa fe 30 ec 01 02 03 04 05 06 07 08", &ad, &p),
			 RT_BLE_TYPE_EDDYSTONE_EID);
	assert_string_equal(rt_ble_beacon_type_name(p.type), "eddystoneEid");
	/* The Eddystone entry need not be the first service data. */
	assert_int_equal(parse_hex("05 16 0a 18 01 02 0d 16 aa fe 10 f6 02 61 62 63 2e 64 65 07", &ad, &p),
			 RT_BLE_TYPE_EDDYSTONE_URL);
	assert_string_equal(p.eddystone_url.url, "http://abc.de.com");
}

static void test_capture_vendor_telemetry_older_versions(void **state)
{
	/* estimote-telemetry.js: in version 0 the error bits are in subframe B's byte 19 and there
	 * is no battery level; in version 1 they are in subframe A's byte 16 and there is no
	 * pressure. Ambient light 0x35 = 2^3 * 5 * 0.72 = 28.8 lx. */
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(parse_hex("17 16 9a fe 02 01 02 03 04 05 06 07 08 01 00 00 00 35 0a 00 00 00 ff 02", &ad, &p),
			 RT_BLE_TYPE_VENDOR_TELEMETRY);
	const rt_ble_telemetry_info_t *t = &p.vendor_telemetry;
	assert_int_equal(t->version, 0);
	assert_int_equal(t->subframe, RT_BLE_TELEMETRY_B);
	assert_true(t->has_errors && !t->firmware_error && t->clock_error);
	assert_true(isnan(t->b.battery_percent));
	assert_true(fabs(t->b.light_lux - 28.8) < 1e-9);
	assert_int_equal(t->b.uptime_s, 10);
	assert_true(isnan(t->b.battery_mv) == false && t->b.battery_mv == (0xff << 6));

	assert_int_equal(parse_hex("17 16 9a fe 12 01 02 03 04 05 06 07 08 00 00 00 00 00 00 01 01 00 00 00", &ad, &p),
			 RT_BLE_TYPE_VENDOR_TELEMETRY);
	assert_int_equal(t->version, 1);
	assert_int_equal(t->subframe, RT_BLE_TELEMETRY_A);
	assert_true(t->has_errors && t->firmware_error && !t->clock_error);
	assert_true(t->a.moving);
	assert_true(isnan(t->a.pressure_pa));

	/* Version 3, an unknown subframe and another frame type are not telemetry this parser
	 * understands. */
	assert_int_equal(parse_hex("17 16 9a fe 32 01 02 03 04 05 06 07 08 00 00 00 00 00 00 01 01 00 00 00", &ad, &p),
			 RT_BLE_TYPE_NONE);
	assert_int_equal(parse_hex("17 16 9a fe 22 01 02 03 04 05 06 07 08 02 00 00 00 00 00 01 01 00 00 00", &ad, &p),
			 RT_BLE_TYPE_NONE);
	assert_int_equal(parse_hex("17 16 9a fe 21 01 02 03 04 05 06 07 08 00 00 00 00 00 00 01 01 00 00 00", &ad, &p),
			 RT_BLE_TYPE_NONE);
}

static void test_capture_not_beacons(void **state)
{
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	/* A phone's Apple "Nearby" manufacturer data (type 0x10, not 0x02): not an iBeacon. */
	assert_int_equal(parse_hex("02 01 1a 0a ff 4c 00 10 05 01 18 3f 6a 41", &ad, &p), RT_BLE_TYPE_NONE);
	assert_null(rt_ble_beacon_type_name(p.type));
	/* A heart-rate sensor: name, 16-bit service list, appearance (unknown to the packet object). */
	assert_int_equal(parse_hex("02 01 06 03 03 0d 18 03 19 41 03 06 09 48 52 4d 2d 31", &ad, &p),
			 RT_BLE_TYPE_NONE);
	assert_int_equal(ad.unknown, 1);
	assert_true(ad.present & RT_BLE_HAS_NAME);
	assert_true(ad.name_complete);
	assert_int_equal(ad.name.len, 5);
	assert_memory_equal(rt_ble_ad_bytes(&ad, ad.name), "HRM-1", 5);
	expect_uuid_hex(&ad.uuids[0], "180d");
	/* iBeacon look-alikes: wrong length byte, wrong company, one byte short. */
	assert_int_equal(parse_hex("1a ff 4c 00 02 16 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 01 c5",
				   &ad, &p),
			 RT_BLE_TYPE_NONE);
	assert_int_equal(parse_hex("1a ff 4d 00 02 15 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 01 c5",
				   &ad, &p),
			 RT_BLE_TYPE_NONE);
	assert_int_equal(parse_hex("19 ff 4c 00 02 15 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 01",
				   &ad, &p),
			 RT_BLE_TYPE_NONE);
	/* Eddystone frame bytes with the reserved low bits set, a reserved frame type, TLM version
	 * 2, a URL with an unknown scheme, a UID one byte short. */
	static const char *const bad_eddystone[] = {
		"0c 16 aa fe 11 ec 02 61 62 63 2e 64 65",
		"05 16 aa fe 40 00",
		"11 16 aa fe 20 02 0b b8 14 80 00 00 03 e8 00 00 27 10",
		"07 16 aa fe 10 ec 04 61",
		"14 16 aa fe 00 ec 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
	};
	for (size_t i = 0; i < sizeof(bad_eddystone) / sizeof(bad_eddystone[0]); i++) {
		if (parse_hex(bad_eddystone[i], &ad, &p) != RT_BLE_TYPE_NONE) {
			fail_msg("'%s' was recognised as %s", bad_eddystone[i], rt_ble_beacon_type_name(p.type));
		}
	}
	/* The vendor's location frame of another protocol version. */
	assert_int_equal(parse_hex("16 ff 5d 01 02 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ce", &ad, &p),
			 RT_BLE_TYPE_NONE);
}

static void test_manufacturer_data_first(void **state)
{
	/* Extended advertising with an iBeacon and an Eddystone-URL: manufacturer data is looked at
	 * first. */
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	assert_int_equal(parse_hex("02 01 06 0a 16 aa fe 10 ec 02 61 62 63 07"
				   " 1a ff 4c 00 02 15 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 01 00 01 c5",
				   &ad, &p),
			 RT_BLE_TYPE_IBEACON);
}

/* -------------------------------------------------------------------------------- the decoder */

static void test_decode_edges(void **state)
{
	rt_ble_ad_t ad;
	uint8_t b[300];

	assert_true(rt_ble_ad_decode(NULL, 0, &ad));
	assert_int_equal(ad.present, 0);

	/* A zero length ends the data: what follows is padding, not a structure. */
	size_t n = unhex("02 01 06 00 05 ff 4c 00 02 15", b, sizeof(b));
	assert_true(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.present, RT_BLE_HAS_FLAGS);

	/* A length past the end ends the walk; what came before stays. */
	n = unhex("02 01 06 1a ff 4c 00", b, sizeof(b));
	assert_false(rt_ble_ad_decode(b, n, &ad));
	assert_true(ad.truncated);
	assert_int_equal(ad.present, RT_BLE_HAS_FLAGS);

	/* Unknown types are skipped and do not make the data bad. */
	n = unhex("03 19 c1 03 02 01 04", b, sizeof(b));
	assert_true(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.unknown, 1);
	assert_int_equal(ad.flags, 0x04);

	/* Wrong lengths of known types: skipped (a UUID list keeps its whole UUIDs). */
	n = unhex("04 03 aa fe bb 02 16 aa 03 0a 01 02 01 ff 01 01", b, sizeof(b));
	assert_false(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.invalid, 5);
	assert_int_equal(ad.uuid_count, 1);
	expect_uuid_hex(&ad.uuids[0], "feaa");
	assert_int_equal(ad.service_data_count, 0);
	assert_int_equal(ad.present, 0);

	/* Repeats: the first manufacturer data, flags and tx power count, a complete name wins over a
	 * shortened one whichever comes first. */
	n = unhex("03 ff 01 02 03 ff 03 04 02 01 06 02 01 05 02 0a 01 02 0a 02 02 08 41 03 09 42 43 02 08 44", b,
		  sizeof(b));
	assert_false(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.dropped, 5);
	assert_int_equal(ad.flags, 0x06);
	assert_int_equal(ad.tx_power, 1);
	expect_bytes(rt_ble_ad_bytes(&ad, ad.manuf), ad.manuf.len, "01 02", "first manufacturer data");
	expect_bytes(rt_ble_ad_bytes(&ad, ad.name), ad.name.len, "42 43", "complete name");
	assert_true(ad.name_complete);

	/* More UUIDs and service data than the pools hold. */
	n = 0;
	b[n++] = 1 + 2 * 20;
	b[n++] = RT_BLE_AD_TYPE_UUID16_INCOMPLETE;
	for (int i = 0; i < 20; i++) {
		b[n++] = (uint8_t)i;
		b[n++] = 0x18;
	}
	for (int i = 0; i < RT_BLE_AD_MAX_SERVICE_DATA + 2; i++) {
		b[n++] = 4;
		b[n++] = RT_BLE_AD_TYPE_SERVICE_DATA16;
		b[n++] = (uint8_t)i;
		b[n++] = 0xfe;
		b[n++] = (uint8_t)(0xa0 + i);
	}
	assert_false(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.uuid_count, RT_BLE_AD_MAX_UUIDS);
	assert_int_equal(ad.service_data_count, RT_BLE_AD_MAX_SERVICE_DATA);
	assert_int_equal(ad.dropped, 20 - RT_BLE_AD_MAX_UUIDS + 2);
	assert_true(ad.uuid_incomplete & RT_BLE_UUID16_LIST);
	expect_uuid_hex(&ad.uuids[15], "180f");
	expect_uuid_hex(&ad.service_data[7].uuid, "fe07");
	expect_bytes(rt_ble_ad_bytes(&ad, ad.service_data[7].data), ad.service_data[7].data.len, "a7", "entry 7");

	/* 255 bytes of extended advertising data: a 253-byte manufacturer value. */
	b[0] = 254;
	b[1] = RT_BLE_AD_TYPE_MANUFACTURER;
	for (int i = 2; i < 255; i++) {
		b[i] = (uint8_t)i;
	}
	assert_true(rt_ble_ad_decode(b, 255, &ad));
	assert_int_equal(ad.manuf.len, 253);
	assert_int_equal(rt_ble_ad_bytes(&ad, ad.manuf)[252], 254);
	/* Past 255 bytes only the first 255 are read. */
	assert_false(rt_ble_ad_decode(b, 300, &ad));
	assert_true(ad.truncated);
	assert_int_equal(ad.manuf.len, 253);
}

static void test_uuid_byte_order(void **state)
{
	/* UUIDs travel little-endian; keys and ArrayBuffers show them as written. */
	rt_ble_ad_t ad;
	uint8_t b[64];
	size_t n = unhex("03 03 aa fe 05 05 78 56 34 12 11 07 fb 34 9b 5f 80 00 00 80 00 10 00 00 aa fe 00 00"
			 " 07 20 78 56 34 12 01 02",
			 b, sizeof(b));
	assert_true(rt_ble_ad_decode(b, n, &ad));
	assert_int_equal(ad.uuid_count, 3);
	expect_uuid_hex(&ad.uuids[0], "feaa");
	expect_uuid_hex(&ad.uuids[1], "12345678");
	expect_uuid_hex(&ad.uuids[2], "0000feaa00001000800000805f9b34fb");
	assert_int_equal(ad.uuids[0].bytes[0], 0xfe);
	expect_uuid_hex(&ad.service_data[0].uuid, "12345678");
	expect_bytes(rt_ble_ad_bytes(&ad, ad.service_data[0].data), 2, "01 02", "32-bit service data");
	/* And back to the same bytes (complete lists stay complete). */
	uint8_t out[64];
	size_t len = 0;
	assert_int_equal(rt_ble_ad_encode(&ad, out, sizeof(out), &len, NULL), RT_BLE_OK);
	expect_bytes(out, len,
		     "03 03 aa fe 05 05 78 56 34 12 11 07 fb 34 9b 5f 80 00 00 80 00 10 00 00 aa fe 00 00"
		     " 07 20 78 56 34 12 01 02",
		     "UUID lists re-encoded");
}

static void test_uuid_hex(void **state)
{
	rt_ble_uuid_t u;
	assert_int_equal(rt_ble_ad_uuid_from_hex("feaa", 4, &u), RT_BLE_OK);
	assert_int_equal(u.len, 2);
	assert_true(rt_ble_ad_uuid_equal(&u, &(rt_ble_uuid_t){.len = 2, .bytes = {0xfe, 0xaa}}));
	rt_ble_uuid_t e = rt_ble_ad_uuid16(RT_BLE_UUID16_EDDYSTONE);
	assert_true(rt_ble_ad_uuid_equal(&u, &e));
	assert_int_equal(rt_ble_ad_uuid_from_hex("FE9A", 4, &u), RT_BLE_OK);
	expect_uuid_hex(&u, "fe9a");
	assert_int_equal(rt_ble_ad_uuid_from_hex("12345678", 8, &u), RT_BLE_OK);
	expect_uuid_hex(&u, "12345678");
	const char *dashed = "0000FEAA-0000-1000-8000-00805f9b34fb";
	assert_int_equal(rt_ble_ad_uuid_from_hex(dashed, strlen(dashed), &u), RT_BLE_OK);
	expect_uuid_hex(&u, "0000feaa00001000800000805f9b34fb");
	assert_int_equal(rt_ble_ad_uuid_from_hex("0000feaa00001000800000805f9b34fb", 32, &u), RT_BLE_OK);
	assert_int_equal(u.len, 16);
	static const char *const bad[] = {"",	  "fea",     "feaag", "feaa0", "1234567", "123456789a",
					  "0000feaa-0000-1000-8000x00805f9b34fb", "0000feaa00001000800000805f9b34fb00",
					  "-eaa"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rt_ble_ad_uuid_from_hex(bad[i], strlen(bad[i]), &u) != RT_BLE_E_BAD_UUID) {
			fail_msg("'%s' was taken as a UUID", bad[i]);
		}
	}
	uint8_t three[3] = {1, 2, 3};
	assert_int_equal(rt_ble_ad_uuid_from_bytes(three, 3, &u), RT_BLE_E_BAD_UUID);
	assert_int_equal(rt_ble_ad_uuid_from_bytes(three, 2, &u), RT_BLE_OK);
	expect_uuid_hex(&u, "0102");
}

/* -------------------------------------------------------------------------------- the encoder */

static void test_encode_order_and_fields(void **state)
{
	/* An app's packet with every field: flags, tx power, the UUID lists by width, service data,
	 * manufacturer data, name. */
	rt_ble_ad_t ad;
	rt_ble_ad_init(&ad);
	rt_ble_ad_set_flags(&ad, 0x06);
	rt_ble_ad_set_tx_power(&ad, -4);
	rt_ble_uuid_t u16 = rt_ble_ad_uuid16(0x180f), u32;
	assert_int_equal(rt_ble_ad_uuid_from_hex("12345678", 8, &u32), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_add_uuid(&ad, &u32), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_add_uuid(&ad, &u16), RT_BLE_OK);
	static const uint8_t level[1] = {0x64};
	assert_int_equal(rt_ble_ad_add_service_data(&ad, &u16, level, 1), RT_BLE_OK);
	static const uint8_t manuf[3] = {0xff, 0xff, 0x01};
	assert_int_equal(rt_ble_ad_set_manuf(&ad, manuf, 3), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_set_name(&ad, "bcn", 3, true), RT_BLE_OK);
	expect_air(&ad, "02 01 06 02 0a fc 03 03 0f 18 05 05 78 56 34 12 04 16 0f 18 64 04 ff ff ff 01 04 09 62 63 6e",
		   "every field");
	/* Flags 0 leave the flags structure out; a shortened name is type 0x08. */
	rt_ble_ad_init(&ad);
	rt_ble_ad_set_flags(&ad, 0);
	assert_int_equal(rt_ble_ad_set_name(&ad, "b", 1, false), RT_BLE_OK);
	expect_air(&ad, "02 08 62", "flags 0, short name");
	/* Nothing at all is an empty packet. */
	rt_ble_ad_init(&ad);
	expect_air(&ad, "", "empty packet");
}

static void test_encode_too_big_names_the_part(void **state)
{
	rt_ble_ad_t ad;
	uint8_t air[RT_BLE_AD_LEGACY_MAX];
	size_t len = 12345;
	rt_ble_ad_fit_t fit;
	char msg[160];

	/* 28 bytes of data fill the legacy packet with the flags (3 + 2 + 26 = 31); one more does
	 * not fit, and the packet is not cut. */
	uint8_t data[40] = {0};
	rt_ble_ad_init(&ad);
	rt_ble_ad_set_flags(&ad, 0x06);
	assert_int_equal(rt_ble_ad_set_manuf(&ad, data, 26), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encode(&ad, air, sizeof(air), &len, &fit), RT_BLE_OK);
	assert_int_equal(len, 31);
	assert_int_equal(rt_ble_ad_set_manuf(&ad, data, 27), RT_BLE_OK);
	len = 12345;
	assert_int_equal(rt_ble_ad_encode(&ad, air, sizeof(air), &len, &fit), RT_BLE_E_TOO_BIG);
	assert_int_equal(len, 12345);
	assert_int_equal(fit.need, 32);
	assert_int_equal(fit.cap, 31);
	assert_int_equal(fit.field, RT_BLE_FIELD_MANUF);
	assert_int_equal(fit.field_bytes, 29);
	rt_ble_ad_fit_message(&fit, msg, sizeof(msg));
	assert_string_equal(msg, "packet needs 32 bytes, advertising carries 31; largest part: manufData (29 bytes)");

	/* The biggest part is named, not the last one written. */
	rt_ble_ad_init(&ad);
	const char *name = "a name of twenty chars";
	assert_int_equal(rt_ble_ad_set_name(&ad, name, strlen(name), true), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_set_manuf(&ad, data, 8), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encode(&ad, air, sizeof(air), &len, &fit), RT_BLE_E_TOO_BIG);
	assert_int_equal(fit.field, RT_BLE_FIELD_NAME);
	rt_ble_ad_fit_message(&fit, msg, sizeof(msg));
	assert_string_equal(msg, "packet needs 34 bytes, advertising carries 31; largest part: name (24 bytes)");

	/* A service data entry is named by its key. */
	rt_ble_ad_init(&ad);
	rt_ble_uuid_t u = rt_ble_ad_uuid16(RT_BLE_UUID16_EDDYSTONE);
	assert_int_equal(rt_ble_ad_add_uuid(&ad, &u), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_add_service_data(&ad, &u, data, 30), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encode(&ad, air, sizeof(air), &len, &fit), RT_BLE_E_TOO_BIG);
	assert_int_equal(fit.field, RT_BLE_FIELD_SERVICE_DATA);
	rt_ble_ad_fit_message(&fit, msg, sizeof(msg));
	assert_string_equal(msg,
			    "packet needs 38 bytes, advertising carries 31; largest part: serviceData['feaa'] (34 bytes)");
	/* The same packet fits extended advertising. */
	uint8_t ext[RT_BLE_AD_EXT_MAX];
	assert_int_equal(rt_ble_ad_encode(&ad, ext, sizeof(ext), &len, &fit), RT_BLE_OK);
	assert_int_equal(len, 38);
	/* A cut message still ends in a NUL and says how long the whole one is. */
	char small[8];
	size_t whole = rt_ble_ad_fit_message(&fit, small, sizeof(small));
	assert_int_equal(strlen(small), 7);
	assert_true(whole > 7);
}

static void test_setters_refuse_what_cannot_be_carried(void **state)
{
	rt_ble_ad_t ad;
	uint8_t data[300] = {0};
	rt_ble_ad_init(&ad);
	/* No AD structure carries more than 254 bytes of data. */
	assert_int_equal(rt_ble_ad_set_manuf(&ad, data, 255), RT_BLE_E_TOO_BIG);
	assert_int_equal(rt_ble_ad_set_name(&ad, (const char *)data, 255, true), RT_BLE_E_TOO_BIG);
	rt_ble_uuid_t u = rt_ble_ad_uuid16(0x1234);
	assert_int_equal(rt_ble_ad_add_service_data(&ad, &u, data, 253), RT_BLE_E_TOO_BIG);
	assert_int_equal(ad.present, 0);
	/* The store holds 255 bytes: a second big value does not fit and nothing changes. */
	assert_int_equal(rt_ble_ad_set_manuf(&ad, data, 200), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_set_name(&ad, (const char *)data, 100, true), RT_BLE_E_FULL);
	assert_false(ad.present & RT_BLE_HAS_NAME);
	/* Pools. */
	for (int i = 0; i < RT_BLE_AD_MAX_UUIDS; i++) {
		assert_int_equal(rt_ble_ad_add_uuid(&ad, &u), RT_BLE_OK);
	}
	assert_int_equal(rt_ble_ad_add_uuid(&ad, &u), RT_BLE_E_FULL);
	for (int i = 0; i < RT_BLE_AD_MAX_SERVICE_DATA; i++) {
		assert_int_equal(rt_ble_ad_add_service_data(&ad, &u, data, 1), RT_BLE_OK);
	}
	assert_int_equal(rt_ble_ad_add_service_data(&ad, &u, data, 1), RT_BLE_E_FULL);
	rt_ble_uuid_t odd = {.len = 3};
	assert_int_equal(rt_ble_ad_add_uuid(&ad, &odd), RT_BLE_E_BAD_UUID);
	assert_int_equal(rt_ble_ad_add_service_data(&ad, &odd, data, 1), RT_BLE_E_BAD_UUID);
}

static void test_every_builder_fits_legacy_advertising(void **state)
{
	/* The largest packet of each format fits 31 bytes, with room for nothing hidden. */
	rt_ble_ad_t ad;
	uint8_t z[20] = {0};
	assert_int_equal(rt_ble_beacon_ibeacon(&ad, z, 16, 1, 1, 0), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 30);
	assert_int_equal(rt_ble_beacon_eddystone_uid(&ad, z, z, 0), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 31);
	assert_int_equal(rt_ble_beacon_eddystone_url(&ad, "http://abcdefghijklmnopq", 24, 0), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 31);
	rt_ble_eddystone_tlm_t tlm = {0};
	assert_int_equal(rt_ble_beacon_eddystone_tlm(&ad, &tlm), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 25);
	assert_int_equal(rt_ble_beacon_altbeacon(&ad, z, 20, 1, 0, 0), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 31);
	assert_int_equal(rt_ble_beacon_vendor_location(&ad, z, 16, 0), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 26);
	rt_ble_vendor_telemetry_a_t a = {0};
	assert_int_equal(rt_ble_beacon_vendor_telemetry_a(&ad, &a), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 27);
	rt_ble_vendor_nearable_t n = {0};
	assert_int_equal(rt_ble_beacon_vendor_nearable(&ad, &n), RT_BLE_OK);
	assert_int_equal(rt_ble_ad_encoded_size(&ad), 26);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibeacon_vector),
		cmocka_unit_test(test_ibeacon_short_uuid_is_padded),
		cmocka_unit_test(test_eddystone_uid_vector),
		cmocka_unit_test(test_eddystone_url_vector),
		cmocka_unit_test(test_eddystone_url_encoding_table),
		cmocka_unit_test(test_eddystone_url_decoding),
		cmocka_unit_test(test_eddystone_url_errors),
		cmocka_unit_test(test_eddystone_tlm_vector),
		cmocka_unit_test(test_altbeacon_vector),
		cmocka_unit_test(test_altbeacon_short_id_and_reserved),
		cmocka_unit_test(test_vendor_telemetry_a_vector),
		cmocka_unit_test(test_vendor_telemetry_b_vector),
		cmocka_unit_test(test_vendor_nearable_vector),
		cmocka_unit_test(test_vendor_location_vectors),
		cmocka_unit_test(test_vendor_motion_durations),
		cmocka_unit_test(test_round_trip_ibeacon),
		cmocka_unit_test(test_round_trip_eddystone),
		cmocka_unit_test(test_round_trip_altbeacon),
		cmocka_unit_test(test_round_trip_vendor),
		cmocka_unit_test(test_capture_ibeacon_with_padding),
		cmocka_unit_test(test_capture_altbeacon),
		cmocka_unit_test(test_capture_eddystone_frames),
		cmocka_unit_test(test_capture_vendor_telemetry_older_versions),
		cmocka_unit_test(test_capture_not_beacons),
		cmocka_unit_test(test_manufacturer_data_first),
		cmocka_unit_test(test_decode_edges),
		cmocka_unit_test(test_uuid_byte_order),
		cmocka_unit_test(test_uuid_hex),
		cmocka_unit_test(test_encode_order_and_fields),
		cmocka_unit_test(test_encode_too_big_names_the_part),
		cmocka_unit_test(test_setters_refuse_what_cannot_be_carried),
		cmocka_unit_test(test_every_builder_fits_legacy_advertising),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

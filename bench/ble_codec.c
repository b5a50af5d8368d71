/*
 * beacon-bench-ble: the BLE packet codec N times over, for instruction counts under callgrind.
 * Run once per mode; the cost of one operation is (count(mode) - count(loop)) / N.
 *
 *   beacon-bench-ble MODE N
 *
 * Modes, all on a typical iBeacon (flags, then the 26-byte manufacturer structure: 30 bytes of
 * advertising data, as a scanner receives it):
 *   loop          the loop alone
 *   decode        rt_ble_ad_decode of the 30 bytes
 *   decode_parse  rt_ble_ad_decode, then rt_ble_beacon_parse: what ble.parse of a scan record
 *                 costs below the engine
 *   encode        rt_ble_ad_encode of the packet's fields into 31 bytes: what each advertisement
 *                 of a fixed packet costs
 *   build_encode  rt_ble_beacon_ibeacon, then rt_ble_ad_encode: ble.build.iBeacon and its first
 *                 advertisement
 * The library is a separate object (no LTO), so the calls cannot be folded away; results go to a
 * volatile sink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_ble_ad.h"
#include "rt_ble_beacon.h"

static const uint8_t ibeacon_air[30] = {0x02, 0x01, 0x06, 0x1a, 0xff, 0x4c, 0x00, 0x02, 0x15, 0xe2,
					0xc5, 0x6d, 0xb5, 0xdf, 0xfb, 0x48, 0xd2, 0xb0, 0x60, 0xd0,
					0xf5, 0xa7, 0x10, 0x96, 0xe0, 0x00, 0x01, 0x00, 0x02, 0xc5};

static volatile unsigned sink;

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: beacon-bench-ble loop|decode|decode_parse|encode|build_encode N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = strtol(argv[2], NULL, 10);
	static rt_ble_ad_t ad;
	static rt_ble_parsed_t parsed;
	uint8_t out[RT_BLE_AD_LEGACY_MAX];
	size_t len = 0;
	rt_ble_ad_decode(ibeacon_air, sizeof(ibeacon_air), &ad);

	if (strcmp(mode, "loop") == 0) {
		for (long i = 0; i < n; i++) {
			sink += (unsigned)i;
		}
	} else if (strcmp(mode, "decode") == 0) {
		for (long i = 0; i < n; i++) {
			sink += rt_ble_ad_decode(ibeacon_air, sizeof(ibeacon_air), &ad);
		}
	} else if (strcmp(mode, "decode_parse") == 0) {
		for (long i = 0; i < n; i++) {
			rt_ble_ad_decode(ibeacon_air, sizeof(ibeacon_air), &ad);
			sink += rt_ble_beacon_parse(&ad, &parsed);
		}
	} else if (strcmp(mode, "encode") == 0) {
		for (long i = 0; i < n; i++) {
			sink += rt_ble_ad_encode(&ad, out, sizeof(out), &len, NULL) + (unsigned)len;
		}
	} else if (strcmp(mode, "build_encode") == 0) {
		for (long i = 0; i < n; i++) {
			sink += rt_ble_beacon_ibeacon(&ad, ibeacon_air + 9, 16, 1, 2, -59);
			sink += rt_ble_ad_encode(&ad, out, sizeof(out), &len, NULL) + (unsigned)len;
		}
	} else {
		fprintf(stderr, "beacon-bench-ble: unknown mode '%s'\n", mode);
		return 2;
	}
	/* The work must have been real: the decoded packet is the iBeacon. */
	if (rt_ble_beacon_parse(&ad, &parsed) != RT_BLE_TYPE_IBEACON) {
		fprintf(stderr, "beacon-bench-ble: the benchmark packet is not an iBeacon\n");
		return 1;
	}
	return 0;
}

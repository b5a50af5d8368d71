/*
 * rt_ble_beacon_internal.h: the frame bytes of the beacon formats (docs/ble-packets.md has the
 * tables and their sources), shared by the builders (rt_ble_beacon.c) and the parser
 * (rt_ble_beacon_parse.c) and by nothing outside the ble service.
 */
#ifndef RT_BLE_BEACON_INTERNAL_H
#define RT_BLE_BEACON_INTERNAL_H

#include "rt_ble_beacon.h"

#define IBEACON_TYPE 0x02
#define IBEACON_LEN 0x15
#define IBEACON_MANUF_LEN 25
#define ALTBEACON_CODE_HI 0xbe
#define ALTBEACON_CODE_LO 0xac
#define ALTBEACON_ID_LEN 20
#define ALTBEACON_MANUF_LEN 26
#define EDDYSTONE_UID 0x00
#define EDDYSTONE_URL 0x10
#define EDDYSTONE_TLM 0x20
#define EDDYSTONE_EID 0x30
#define EDDYSTONE_UID_LEN 20 /* with the two RFU bytes; 18 from implementations that omit them */
#define EDDYSTONE_UID_MIN_LEN 18
#define EDDYSTONE_TLM_LEN 14
#define EDDYSTONE_ETLM_LEN 18
#define EDDYSTONE_EID_LEN 10
#define VENDOR_FRAME_TELEMETRY 0x2 /* low nibble of byte 0 of the fe9a service data */
#define VENDOR_TELEMETRY_LEN 20
#define VENDOR_FRAME_NEARABLE 0x01 /* byte 2 of the manufacturer data */
#define VENDOR_NEARABLE_LEN 21
#define VENDOR_FRAME_LOCATION 0x02
#define VENDOR_FRAME_LOCATION_TRIGGER 0x03
#define VENDOR_LOCATION_LEN (4 + RT_BLE_VENDOR_DEVICE_ID_LEN + 1)

#endif /* RT_BLE_BEACON_INTERNAL_H */

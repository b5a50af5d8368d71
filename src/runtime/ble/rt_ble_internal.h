/*
 * rt_ble_internal.h: what the files of the ble service share and nothing outside it uses.
 *
 *   rt_ble.c        advertisers (ble.advertise and its handles), rt_ble_reset
 *   rt_ble_scan.c   scanning (ble.startScan, stopScan) and the scan records posted by the radio
 *   rt_ble_build.c  the packet builders (ble.build.*)
 *   rt_ble_parse.c  the packet parser (ble.parse)
 *   rt_ble_js.c     packet objects (BlePacket, ScanRecord) to and from the AD codec, for all of them
 */
#ifndef RT_BLE_INTERNAL_H
#define RT_BLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api_types.h"
#include "engine.h"
#include "rt_ble_ad.h"

/* The fields of a packet object shared by BlePacket and ScanRecord. */
typedef struct {
	bool has_name, has_manuf, has_sd, has_uuids, has_tx, has_flags;
	eng_value_t name, sd, uuids;
	rt_bytes_t manuf;
	double tx, flags;
} rt_ble_js_fields_t;

/* An ArrayBuffer holding a copy of the bytes. */
eng_value_t rt_ble_js_buffer(const uint8_t *data, size_t len);
/* object[key] = v, and v released. */
void rt_ble_js_set(eng_value_t object, const char *key, eng_value_t v);
/* The fields of a decoded packet as engine values (release them with rt_ble_js_fields_release). */
void rt_ble_js_fields_of(const rt_ble_ad_t *ad, rt_ble_js_fields_t *f);
void rt_ble_js_fields_release(rt_ble_js_fields_t *f);
/* A BlePacket object of a packet. */
eng_value_t rt_ble_js_packet(const rt_ble_ad_t *ad);
/* Fill ad from the fields of a packet object; undefined or the exception to throw (a TypeError or
 * RangeError naming the field, from the function fn). */
eng_value_t rt_ble_js_to_ad(rt_ble_ad_t *ad, const rt_ble_js_fields_t *f, const uint8_t *manuf,
			    size_t manuf_len, const char *fn);
/* The same from a packet object an advertise callback returned, read property by property. */
eng_value_t rt_ble_js_object_to_ad(eng_value_t obj, rt_ble_ad_t *ad, const char *fn);
/* Encode for legacy advertising into out (HAL_BLE_AD_MAX bytes); a packet that does not fit is a
 * RangeError saying which part is the largest. */
eng_value_t rt_ble_js_encode(const rt_ble_ad_t *ad, uint8_t *out, uint8_t *out_len, const char *fn);

/* End the running scan, if any: its promise resolves when resolve is true, else stays pending. */
void rt_ble_scan_end(bool resolve);

#endif /* RT_BLE_INTERNAL_H */

/*
 * rt_ble.h: advertising, scanning and the beacon packets of the ble namespace.
 *
 * Packets are encoded and decoded here with rt_ble_ad / rt_ble_beacon; the radio (hal_ble.h)
 * only carries AD bytes. Advertisers come from a fixed pool (CONFIG_BEACON_BLE_ADVERTISERS, each
 * one a radio advertising set); running out throws ESR0004. Received packets are posted from the
 * driver's thread with rt_ble_post_scan() and delivered to the scan callback on the JS thread.
 */
#ifndef RT_BLE_H
#define RT_BLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "hal_ble.h"
#include "rt_alarm.h"

#ifndef CONFIG_BEACON_BLE_ADVERTISERS
#define CONFIG_BEACON_BLE_ADVERTISERS 4
#endif
/* Advertiser records: one per handle the app holds (a stopped handle keeps its record until it
 * is collected, so stopping it again is harmless); at most CONFIG_BEACON_BLE_ADVERTISERS of them
 * advertise or are paused at a time. */
#ifndef CONFIG_BEACON_BLE_ADV_RECORDS
#define CONFIG_BEACON_BLE_ADV_RECORDS 16
#endif
/* Addresses one deduplicating scan session remembers; beyond them new senders are delivered
 * every time (never silently lost). */
#ifndef CONFIG_BEACON_BLE_DEDUP_ADDRS
#define CONFIG_BEACON_BLE_DEDUP_ADDRS 64
#endif

/* Defaults of the spec. */
#define RT_BLE_DEFAULT_POWER (-4)
#define RT_BLE_DEFAULT_INTERVAL_MS 500
#define RT_BLE_MIN_INTERVAL_MS 100
#define RT_BLE_DEFAULT_SCAN_MS 10000
#define RT_BLE_DEFAULT_SCAN_INTERVAL_MS 150
#define RT_BLE_DEFAULT_SCAN_WINDOW_MS 100

typedef enum {
	RT_ADV_FREE = 0,
	RT_ADV_RUNNING,
	RT_ADV_PAUSED,
	RT_ADV_STOPPED, /* the handle lives on; the set is free for another advertiser */
} rt_adv_state_t;

/* One advertiser: a handle's native pointer points at it while the handle is live. */
struct rt_advertiser {
	uint8_t state;     /* rt_adv_state_t */
	uint8_t set;       /* the radio's advertising set */
	int8_t power;      /* dBm */
	uint32_t interval; /* ms */
	eng_ref_t callback;       /* callback advertiser, or 0 */
	eng_ref_t handle;         /* weak in spirit: cleared with the handle's native pointer */
	rt_alarm_id_t alarm;      /* next callback run */
	uint64_t since;           /* device ms when the current run of PDU counting started */
	uint8_t ad[HAL_BLE_AD_MAX];
	uint8_t ad_len;
};

/* A received packet as the driver posts it: fits one loop event. */
typedef struct {
	uint8_t addr[HAL_BLE_ADDR_LEN];
	int8_t rssi;
	uint8_t channel;      /* 37, 38, 39 */
	uint8_t kind;         /* RT_BLE_RX_* bits */
	uint8_t len;
	uint8_t data[HAL_BLE_AD_MAX];
} rt_ble_rx_t;

#define RT_BLE_RX_SCAN_RESPONSE 0x01
#define RT_BLE_RX_CONNECTABLE 0x02
#define RT_BLE_RX_SCAN_REQUEST 0x04 /* a scan request to this device (scanRequests option) */

typedef struct {
	struct rt_advertiser advertisers[CONFIG_BEACON_BLE_ADV_RECORDS];
	/* Advertising PDUs sent before the current runs of the advertisers (Eddystone-TLM). */
	uint32_t adv_count_base;

	bool scanning;
	eng_ref_t scan_callback;
	eng_ref_t scan_promise;
	rt_alarm_id_t scan_alarm;
	uint32_t scan_session; /* records of an ended session still queued are dropped */
	bool dedup;
	uint16_t dedup_count;
	uint8_t dedup_addrs[CONFIG_BEACON_BLE_DEDUP_ADDRS][HAL_BLE_ADDR_LEN];
	uint32_t telemetry_calls; /* vendor telemetry alternates its subframes */
	/* Motion state durations of the vendor packets: when the device last changed state. */
	bool moving;
	uint64_t motion_since, motion_previous_ms;
} rt_ble_state_t;

struct rt_device;

/* A packet received while scanning: from any thread (copies rx into the loop's queue). */
bool rt_ble_post_scan(struct rt_device *device, const rt_ble_rx_t *rx);

/* Advertising PDUs the device sent since boot (Eddystone-TLM's count), at device time now_ms. */
uint32_t rt_ble_adv_count(uint64_t now_ms);

/* Stop every advertiser and the scan, release callbacks (app start and end). */
void rt_ble_reset(void);

#endif /* RT_BLE_H */

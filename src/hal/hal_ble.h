/*
 * hal_ble.h: the BLE radio: advertising sets and the scanner.
 *
 * The runtime encodes every packet itself (rt_ble_ad.h), so the radio only ever sees AD bytes:
 * the port never interprets a packet and the simulated air carries what the radio would send.
 * Advertising is legacy (31 bytes of AD), non-connectable and scannable: an active scanner gets
 * the device's scan response (its complete local name). Received packets reach the runtime from
 * the driver's thread through rt_ble_post_scan() (rt_ble.h).
 */
#ifndef HAL_BLE_H
#define HAL_BLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* AD bytes of one legacy advertising PDU or scan response. */
#define HAL_BLE_AD_MAX 31
#define HAL_BLE_ADDR_LEN 6

/* Advertising channel bits of hal_ble_scan_t.channels. */
#define HAL_BLE_CH37 0x1u
#define HAL_BLE_CH38 0x2u
#define HAL_BLE_CH39 0x4u
#define HAL_BLE_CH_ALL (HAL_BLE_CH37 | HAL_BLE_CH38 | HAL_BLE_CH39)

/* How many advertising sets the radio has (the runtime's pool never exceeds it). */
uint32_t hal_ble_adv_sets(void);

/*
 * Start (or reconfigure) advertising set `set` with its AD bytes, every interval_ms at power_dbm.
 * A running set takes the new values from its next advertising event. Returns false when the
 * radio refused (the runtime reports it as ESR0004).
 */
bool hal_ble_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms,
		       int8_t power_dbm);
/* New AD bytes for a running set (a callback advertiser's next packet). */
bool hal_ble_adv_update(uint32_t set, const uint8_t *ad, size_t len);
/* Stop a set; stopping a stopped set does nothing. */
void hal_ble_adv_stop(uint32_t set);

typedef struct {
	uint32_t interval_ms; /* time between the starts of two scan windows */
	uint32_t window_ms;   /* listening time in each interval (<= interval_ms) */
	uint32_t channels;    /* HAL_BLE_CH* bits, never 0 */
	bool passive;         /* send no scan requests: no scan responses arrive */
	bool scan_requests;   /* also report scan requests received by this device's sets */
} hal_ble_scan_t;

/* Start scanning (a running scan takes the new parameters). Returns false on a radio error. */
bool hal_ble_scan_start(const hal_ble_scan_t *params);
void hal_ble_scan_stop(void);

/* The device's own address (static random), as scan records of others show it: most
 * significant byte first. */
void hal_ble_address(uint8_t addr[HAL_BLE_ADDR_LEN]);

#endif /* HAL_BLE_H */

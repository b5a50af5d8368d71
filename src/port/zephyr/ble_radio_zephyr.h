/*
 * ble_radio_zephyr.h: the BLE radio on Zephyr's Bluetooth host, under the runtime's radio HAL
 * (hal_ble.h: hal_ble_zephyr.c forwards each call) on a device, and under the simulated world's
 * device on a test board with a radio (world_zephyr.c). The functions are hal_ble.h's; what the
 * scanner receives goes to the device that started the scan (rt_ble_post_scan, from the
 * Bluetooth RX thread). Built with CONFIG_BT only.
 */
#ifndef BLE_RADIO_ZEPHYR_H
#define BLE_RADIO_ZEPHYR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_ble.h"
#include "rt_ble.h"

uint32_t ble_radio_adv_sets(void);
bool ble_radio_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms,
			 int8_t power_dbm);
bool ble_radio_adv_update(uint32_t set, const uint8_t *ad, size_t len);
void ble_radio_adv_stop(uint32_t set);
bool ble_radio_scan_start(const hal_ble_scan_t *params);
void ble_radio_scan_stop(void);
void ble_radio_address(uint8_t addr[HAL_BLE_ADDR_LEN]);

/* Called (from the Bluetooth RX thread) after each reception is posted, with what was posted:
 * what wakes a JavaScript thread that does not wait on the runtime's clock (the simulated
 * world's), and lets it trace the reception. NULL: nothing. */
void ble_radio_on_receive(void (*hook)(const rt_ble_rx_t *rx));
/* The name the app's advertising sets answer scan requests with (NULL: the Bluetooth device
 * name). The string must outlive the radio's use. */
void ble_radio_set_response_name(const char *name);
/* The identity address (static random, most significant byte first), before Bluetooth is
 * enabled; false when it is too late or the host refused it. */
bool ble_radio_set_identity(const uint8_t addr[HAL_BLE_ADDR_LEN]);

#endif /* BLE_RADIO_ZEPHYR_H */

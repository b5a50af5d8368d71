/*
 * hal_ble_zephyr.c: the BLE radio (hal_ble.h) of a device: Zephyr's Bluetooth host through
 * ble_radio_zephyr.c, or none on a board without a Bluetooth controller.
 */
#include "hal_ble.h"

#include <string.h>

#include <zephyr/kernel.h>

#if defined(CONFIG_BT)

#include "ble_radio_zephyr.h"

uint32_t hal_ble_adv_sets(void)
{
	return ble_radio_adv_sets();
}

bool hal_ble_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms, int8_t power_dbm)
{
	return ble_radio_adv_start(set, ad, len, interval_ms, power_dbm);
}

bool hal_ble_adv_update(uint32_t set, const uint8_t *ad, size_t len)
{
	return ble_radio_adv_update(set, ad, len);
}

void hal_ble_adv_stop(uint32_t set)
{
	ble_radio_adv_stop(set);
}

bool hal_ble_scan_start(const hal_ble_scan_t *params)
{
	return ble_radio_scan_start(params);
}

void hal_ble_scan_stop(void)
{
	ble_radio_scan_stop();
}

void hal_ble_address(uint8_t addr[HAL_BLE_ADDR_LEN])
{
	ble_radio_address(addr);
}

#else /* !CONFIG_BT */

/* A board without a Bluetooth controller (CONFIG_BT=n): ble.advertise throws ESR0004 and
 * ble.startScan reports that the radio could not start. */
uint32_t hal_ble_adv_sets(void)
{
	return 0;
}

bool hal_ble_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms, int8_t power_dbm)
{
	ARG_UNUSED(set);
	ARG_UNUSED(ad);
	ARG_UNUSED(len);
	ARG_UNUSED(interval_ms);
	ARG_UNUSED(power_dbm);
	return false;
}

bool hal_ble_adv_update(uint32_t set, const uint8_t *ad, size_t len)
{
	ARG_UNUSED(set);
	ARG_UNUSED(ad);
	ARG_UNUSED(len);
	return false;
}

void hal_ble_adv_stop(uint32_t set)
{
	ARG_UNUSED(set);
}

bool hal_ble_scan_start(const hal_ble_scan_t *params)
{
	ARG_UNUSED(params);
	return false;
}

void hal_ble_scan_stop(void)
{
}

void hal_ble_address(uint8_t addr[HAL_BLE_ADDR_LEN])
{
	memset(addr, 0, HAL_BLE_ADDR_LEN);
}

#endif /* CONFIG_BT */

/*
 * hal_device on Zephyr: the chip's device id from the hwinfo driver (FICR DEVICEID on nRF; on
 * the nRF9160's non-secure side read through TF-M), the board name from Kconfig, what the
 * hardware has from the devicetree and Kconfig, and the reset that ends a fatal error.
 */
#include "hal_device.h"
#include "port_zephyr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zephyr/devicetree.h>
#include <zephyr/drivers/hwinfo.h>
#include <zephyr/logging/log.h>
#include <zephyr/logging/log_ctrl.h>
#include <zephyr/sys/reboot.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

size_t hal_device_public_id(uint8_t *buf, size_t cap)
{
	static bool reported;
	ssize_t len;

	if (buf == NULL || cap == 0) {
		return 0;
	}
	len = hwinfo_get_device_id(buf, cap);
	if (len < 0) {
		/* -ENOSYS when no hwinfo driver serves this SoC configuration. The id then reads
		 * as empty rather than as made-up bytes. */
		if (!reported) {
			LOG_WRN("device id unavailable (hwinfo error %d)", (int)len);
			reported = true;
		}
		return 0;
	}
	return (size_t)len;
}

const char *hal_device_hardware(void)
{
	/* CONFIG_BOARD is the board's name ("nrf52840dk", "nrf9160dk"); a revision given at build
	 * time (-b nrf9160dk@1.1.0/...) is appended. */
#if defined(CONFIG_BOARD_REVISION)
	if (sizeof(CONFIG_BOARD_REVISION) > 1) {
		return CONFIG_BOARD "-" CONFIG_BOARD_REVISION;
	}
#endif
	return CONFIG_BOARD;
}

uint32_t hal_device_features(void)
{
	/* Decided at build time: the runtime may ask from an interrupt (rt_io_button_edge), so
	 * this reads no driver. */
	uint32_t features = 0;

#if DT_NODE_HAS_STATUS(DT_ALIAS(sw1), okay)
	/* The side button is the one behind sw1 (hal_button_zephyr.c). */
	features |= HAL_FEATURE_SIDE_BUTTON;
#endif
#if defined(CONFIG_SENSOR) && DT_NODE_HAS_STATUS(DT_ALIAS(gyro0), okay)
	features |= HAL_FEATURE_GYRO;
#endif
#if defined(CONFIG_NRF_MODEM_LIB)
	/* The nRF91 modem library (nRF Connect SDK) brings LTE-M/NB-IoT and GNSS together. */
	features |= HAL_FEATURE_LTE | HAL_FEATURE_GNSS;
#endif
#if defined(CONFIG_IEEE802154_DW1000)
	/* Zephyr's driver for the Decawave DW1000 UWB radio. */
	features |= HAL_FEATURE_UWB;
#endif
#if defined(CONFIG_NFC_T2T_NRFXLIB) || defined(CONFIG_NFC_T4T_NRFXLIB)
	/* The NFC tag libraries of nRF Connect SDK on the nRF52840's NFCT peripheral. */
	features |= HAL_FEATURE_NFC;
#endif
	return features;
}

void hal_device_fatal(const char *reason)
{
	/* The engine's out-of-memory, a failed engine assertion, a system failure: a reset with
	 * its cause kept for the next boot (hal_reset_zephyr.c). */
	port_zephyr_reset_fault(rt_reset_cause_of(reason), reason);
}

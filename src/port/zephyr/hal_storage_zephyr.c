/*
 * hal_storage_zephyr.c: the device's storage partition (app records and the cloud's queued
 * events), the devicetree's `storage_partition` through the flash map.
 *
 * The partition is opened on first use and kept open: flash_area_open() only looks the area up,
 * and the record store holds on to the hal_flash_t for as long as the device runs.
 */
#include <stdbool.h>

#include <zephyr/storage/flash_map.h>

#include "hal_flash.h"
#include "hal_flash_zephyr.h"

const hal_flash_t *hal_storage_area(void)
{
	static hal_flash_zephyr_t storage;
	static bool opened;

	if (!opened) {
		if (hal_flash_zephyr_open(&storage, FIXED_PARTITION_ID(storage_partition)) != 0) {
			return NULL;
		}
		opened = true;
	}
	return &storage.flash;
}

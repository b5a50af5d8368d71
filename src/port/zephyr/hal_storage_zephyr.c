/*
 * hal_storage_zephyr.c: the device's storage partition (app records and the cloud's queued
 * events), the devicetree's `storage_partition` through the flash map.
 *
 * The partition is opened on first use and kept open (hal_flash_zephyr_storage()).
 */
#include "hal_flash.h"
#include "hal_flash_zephyr.h"

const hal_flash_t *hal_storage_area(void)
{
	return hal_flash_zephyr_storage();
}

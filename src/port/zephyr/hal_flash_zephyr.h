/*
 * hal_flash_zephyr.h: a hal_flash_t over one of Zephyr's flash areas (a fixed partition), for
 * the record store (src/runtime/storage/rt_records.h) on the device.
 *
 *   static hal_flash_zephyr_t storage;
 *   hal_flash_zephyr_open(&storage, FIXED_PARTITION_ID(storage_partition));
 *   rt_records_config_t config = {.flash = &storage.flash, .pages_per_sector = 4, ...};
 *
 * Needs CONFIG_FLASH=y, CONFIG_FLASH_MAP=y and CONFIG_FLASH_PAGE_LAYOUT=y (docs/storage.md);
 * without them hal_flash_zephyr_open() fails with HAL_FLASH_EIO.
 */
#ifndef HAL_FLASH_ZEPHYR_H
#define HAL_FLASH_ZEPHYR_H

#include <stdint.h>

#include "hal_flash.h"

struct flash_area;

typedef struct hal_flash_zephyr {
	hal_flash_t flash; /* hand &z->flash to the store */
	const struct flash_area *area;
} hal_flash_zephyr_t;

/*
 * Open flash area area_id and describe it. Refused (HAL_FLASH_EIO) when the area does not
 * start on a page boundary, has pages of different sizes, is not a whole number of pages, or does
 * not erase to 0xFF: the store needs uniform erase pages that read 0xFF once erased.
 */
int hal_flash_zephyr_open(hal_flash_zephyr_t *z, uint8_t area_id);

/* The devicetree's storage_partition, opened on first use and kept open (flash_area_open() only
 * looks the area up; the record store holds on to it for as long as the device runs); NULL when
 * the board has none or it cannot be used. */
const hal_flash_t *hal_flash_zephyr_storage(void);

#endif /* HAL_FLASH_ZEPHYR_H */

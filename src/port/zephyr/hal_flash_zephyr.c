/*
 * hal_flash on Zephyr: the record store's flash area through the flash map (flash_area_read,
 * flash_area_write, flash_area_erase), which checks bounds and calls the SoC's flash driver.
 * On the nRF52840 and nRF9160 that driver programs 32-bit words and erases 4 KB pages, the rules
 * the store is written and tested for (src/world/sim_flash.h). With Bluetooth on, the nRF
 * driver fits each operation between radio events itself (CONFIG_SOC_FLASH_NRF_RADIO_SYNC_*),
 * so nothing here waits for the radio.
 *
 * Why not ZMS: docs/storage.md ("On the device").
 */
#include "hal_flash_zephyr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zephyr/device.h>
#include <zephyr/drivers/flash.h>
#include <zephyr/storage/flash_map.h>

#if defined(CONFIG_FLASH_MAP) && defined(CONFIG_FLASH_PAGE_LAYOUT)

static int result(int rc)
{
	return rc == 0 ? HAL_FLASH_OK : HAL_FLASH_EIO;
}

static int zephyr_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	const hal_flash_zephyr_t *z = ctx;
	return result(flash_area_read(z->area, (off_t)offset, dst, len));
}

static int zephyr_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	const hal_flash_zephyr_t *z = ctx;
	return result(flash_area_write(z->area, (off_t)offset, src, len));
}

static int zephyr_erase(void *ctx, uint32_t page)
{
	const hal_flash_zephyr_t *z = ctx;
	if (page >= z->flash.page_count) {
		return HAL_FLASH_ERANGE;
	}
	return result(flash_area_erase(z->area, (off_t)page * (off_t)z->flash.page_size,
				       z->flash.page_size));
}

static const hal_flash_ops_t zephyr_ops = {
	.read = zephyr_read,
	.program = zephyr_program,
	.erase = zephyr_erase,
};

int hal_flash_zephyr_open(hal_flash_zephyr_t *z, uint8_t area_id)
{
	const struct flash_area *fa;
	if (flash_area_open(area_id, &fa) != 0) {
		return HAL_FLASH_EIO;
	}
	const struct device *dev = flash_area_get_device(fa);
	struct flash_pages_info first, last, page;
	if (dev == NULL || !device_is_ready(dev) || flash_area_erased_val(fa) != 0xFF ||
	    fa->fa_size == 0 ||
	    flash_get_page_info_by_offs(dev, fa->fa_off, &first) != 0 ||
	    flash_get_page_info_by_offs(dev, fa->fa_off + (off_t)fa->fa_size - 1, &last) != 0 ||
	    first.start_offset != fa->fa_off || first.size == 0 || fa->fa_size % first.size != 0) {
		flash_area_close(fa);
		return HAL_FLASH_EIO;
	}
	/* The store erases by page number: every page of the area must be the same size. */
	for (uint32_t i = first.index; i <= last.index; i++) {
		if (flash_get_page_info_by_idx(dev, i, &page) != 0 || page.size != first.size) {
			flash_area_close(fa);
			return HAL_FLASH_EIO;
		}
	}
	z->area = fa;
	z->flash.ops = &zephyr_ops;
	z->flash.ctx = z;
	z->flash.page_size = (uint32_t)first.size;
	z->flash.write_block = flash_area_align(fa);
	z->flash.page_count = (uint32_t)(fa->fa_size / first.size);
	return HAL_FLASH_OK;
}

const hal_flash_t *hal_flash_zephyr_storage(void)
{
#if DT_NODE_EXISTS(DT_NODELABEL(storage_partition))
	static hal_flash_zephyr_t storage;
	static bool opened;

	if (!opened) {
		if (hal_flash_zephyr_open(&storage, FIXED_PARTITION_ID(storage_partition)) != 0) {
			return NULL;
		}
		opened = true;
	}
	return &storage.flash;
#else
	return NULL;
#endif
}

#else /* !(CONFIG_FLASH_MAP && CONFIG_FLASH_PAGE_LAYOUT) */

int hal_flash_zephyr_open(hal_flash_zephyr_t *z, uint8_t area_id)
{
	ARG_UNUSED(area_id);
	z->area = NULL;
	return HAL_FLASH_EIO;
}

const hal_flash_t *hal_flash_zephyr_storage(void)
{
	return NULL;
}

#endif

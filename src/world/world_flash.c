/*
 * world_flash.c: a simulated device's storage partition: the simulated nRF52840 flash (sim_flash)
 * with the power cuts a scenario scripts. When the cut comes in the middle of a write, the device
 * goes down at that point, as a real one would: its RAM is lost (the reset record too) and it
 * boots again with the flash as the cut left it. A port with flash of its own for the storage
 * (d->storage_backing) gets every completed write too, so the records outlive the process.
 */
#include <stdlib.h>

#include "hal_flash.h"
#include "world.h"

static int cut_check(world_device_t *d, int rc)
{
	if (rc == HAL_FLASH_EPOWER) {
		/* Power comes back with the next boot. */
		sim_flash_power_on(d->flash);
		world_fault(RT_RESET_NONE, "power lost");
	}
	return rc;
}

static int flash_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	world_device_t *d = ctx;
	return cut_check(d, d->flash->flash.ops->read(d->flash->flash.ctx, offset, dst, len));
}

/* A scripted controller fault: the write or erase it hits fails and changes nothing. */
static int take_fault(world_device_t *d)
{
	int rc = d->flash_fault;
	d->flash_fault = 0;
	return rc;
}

static int flash_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	world_device_t *d = ctx;
	if (d->flash_fault != 0) {
		return take_fault(d);
	}
	world_energy_flash(d->world, d, (len + 3) / 4, 0);
	int rc = cut_check(d, d->flash->flash.ops->program(d->flash->flash.ctx, offset, src, len));
	if (rc == HAL_FLASH_OK && d->storage_backing != NULL) {
		rc = hal_flash_program(d->storage_backing, offset, src, len);
	}
	return rc;
}

static int flash_erase(void *ctx, uint32_t page)
{
	world_device_t *d = ctx;
	if (d->flash_fault != 0) {
		return take_fault(d);
	}
	world_energy_flash(d->world, d, 0, 1);
	int rc = cut_check(d, d->flash->flash.ops->erase(d->flash->flash.ctx, page));
	if (rc == HAL_FLASH_OK && d->storage_backing != NULL) {
		rc = hal_flash_erase(d->storage_backing, page);
	}
	return rc;
}

static const hal_flash_ops_t world_flash_ops = {flash_read, flash_program, flash_erase};

sim_flash_t *world_device_flash(world_device_t *d)
{
	if (d->flash == NULL) {
		d->flash = calloc(1, sizeof(*d->flash));
		d->flash_mem = malloc((size_t)WORLD_FLASH_PAGE_SIZE * WORLD_FLASH_PAGES);
		if (d->flash == NULL || d->flash_mem == NULL ||
		    !sim_flash_init(d->flash, d->flash_mem, WORLD_FLASH_PAGE_SIZE, WORLD_FLASH_PAGES)) {
			free(d->flash);
			free(d->flash_mem);
			d->flash = NULL;
			d->flash_mem = NULL;
			return NULL;
		}
		/* The port's own flash holds what the storage had when the process last ended. */
		const hal_flash_t *backing = d->storage_backing;
		if (backing != NULL && (backing->page_size != WORLD_FLASH_PAGE_SIZE ||
					backing->page_count != WORLD_FLASH_PAGES ||
					hal_flash_read(backing, 0, d->flash_mem,
						       (size_t)WORLD_FLASH_PAGE_SIZE * WORLD_FLASH_PAGES) != 0)) {
			d->storage_backing = NULL;
		}
		d->flash_area = d->flash->flash;
		d->flash_area.ops = &world_flash_ops;
		d->flash_area.ctx = d;
	}
	return d->flash;
}

const hal_flash_t *hal_storage_area(void)
{
	world_device_t *d = world_current();
	if (d == NULL || world_device_flash(d) == NULL) {
		return NULL;
	}
	return &d->flash_area;
}

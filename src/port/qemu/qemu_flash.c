/* Flash areas of the emulated device and the bounded malloc arena: see qemu_flash.h. */
#include "qemu_flash.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rt_package.h"

#define PAGE_SIZE 4096u
#define WRITE_BLOCK 4u
/* The slot starts with the package's length (one write block), then the package. */
#define SLOT_HEADER 4u

extern uint8_t __app_slot_start[], __app_slot_end[], __storage_start[], __storage_end[];
extern uint8_t __heap_start[], __heap_end[];

typedef struct {
	uint8_t *base;
	uint32_t size;
} area_t;

static int area_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	const area_t *a = ctx;
	if (offset > a->size || len > a->size - offset) {
		return HAL_FLASH_ERANGE;
	}
	memcpy(dst, a->base + offset, len);
	return HAL_FLASH_OK;
}

static int area_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	const area_t *a = ctx;
	if (offset > a->size || len > a->size - offset) {
		return HAL_FLASH_ERANGE;
	}
	if (offset % WRITE_BLOCK || len % WRITE_BLOCK) {
		return HAL_FLASH_EALIGN;
	}
	const uint8_t *in = src;
	for (size_t i = 0; i < len; i += WRITE_BLOCK) {
		uint32_t cell;
		memcpy(&cell, a->base + offset + i, sizeof(cell));
		if (cell != 0xFFFFFFFFu) {
			return HAL_FLASH_ENOTERASED;
		}
	}
	/* NOR flash: programming clears bits; an erased block takes the data as it is. */
	for (size_t i = 0; i < len; i++) {
		a->base[offset + i] &= in[i];
	}
	return HAL_FLASH_OK;
}

static int area_erase(void *ctx, uint32_t page)
{
	const area_t *a = ctx;
	if (page >= a->size / PAGE_SIZE) {
		return HAL_FLASH_ERANGE;
	}
	memset(a->base + (size_t)page * PAGE_SIZE, 0xFF, PAGE_SIZE);
	return HAL_FLASH_OK;
}

static const hal_flash_ops_t area_ops = {area_read, area_program, area_erase};

/* The port's own state: one board, one set of areas (a device has exactly one). */
static area_t slot_area, storage_area, staging_area;
static hal_flash_t slot_flash, storage_flash, staging_flash;
static bool areas_ready;

static void areas_init(void)
{
	if (areas_ready) {
		return;
	}
	slot_area = (area_t){__app_slot_start, (uint32_t)(__app_slot_end - __app_slot_start)};
	storage_area = (area_t){__storage_start, (uint32_t)(__storage_end - __storage_start)};
	slot_flash = (hal_flash_t){&area_ops, &slot_area, PAGE_SIZE, WRITE_BLOCK, slot_area.size / PAGE_SIZE};
	storage_flash = (hal_flash_t){&area_ops, &storage_area, PAGE_SIZE, WRITE_BLOCK,
				      storage_area.size / PAGE_SIZE};
	staging_area = (area_t){(uint8_t *)(uintptr_t)QEMU_EXT_FLASH_BASE, slot_area.size};
	staging_flash = (hal_flash_t){&area_ops, &staging_area, PAGE_SIZE, WRITE_BLOCK,
				      staging_area.size / PAGE_SIZE};
	areas_ready = true;
}

int qemu_app_slot_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap)
{
	areas_init();
	rt_package_t parsed;
	if (rt_package_check(package, len, &parsed, msg, msg_cap) != RT_PACKAGE_OK) {
		return -1;
	}
	uint32_t size = hal_flash_size(&slot_flash);
	if (len > size - SLOT_HEADER) {
		snprintf(msg, msg_cap, "package of %u bytes does not fit the app slot (%u bytes)",
			 (unsigned)len, (unsigned)(size - SLOT_HEADER));
		return -1;
	}
	uint32_t pages = (uint32_t)((SLOT_HEADER + len + PAGE_SIZE - 1) / PAGE_SIZE);
	for (uint32_t p = 0; p < pages; p++) {
		if (hal_flash_erase(&slot_flash, p) != HAL_FLASH_OK) {
			snprintf(msg, msg_cap, "app slot: erasing page %u failed", (unsigned)p);
			return -1;
		}
	}
	/* The package first and its length last: a slot cut while written reads as empty. */
	size_t whole = len - len % WRITE_BLOCK;
	int rc = hal_flash_program(&slot_flash, SLOT_HEADER, package, whole);
	if (rc == HAL_FLASH_OK && whole < len) {
		uint8_t tail[WRITE_BLOCK];
		memset(tail, 0xFF, sizeof(tail));
		memcpy(tail, package + whole, len - whole);
		rc = hal_flash_program(&slot_flash, (uint32_t)(SLOT_HEADER + whole), tail, sizeof(tail));
	}
	uint32_t stored = (uint32_t)len;
	if (rc == HAL_FLASH_OK) {
		rc = hal_flash_program(&slot_flash, 0, &stored, sizeof(stored));
	}
	if (rc != HAL_FLASH_OK || memcmp(slot_area.base + SLOT_HEADER, package, len) != 0) {
		snprintf(msg, msg_cap, "app slot: writing the package failed (%d)", rc);
		return -1;
	}
	return 0;
}

int qemu_app_slot_flash_file(FILE *file, char *msg, size_t msg_cap)
{
	areas_init();
	for (uint32_t p = 0; p < slot_flash.page_count; p++) {
		if (hal_flash_erase(&slot_flash, p) != HAL_FLASH_OK) {
			snprintf(msg, msg_cap, "app slot: erasing page %u failed", (unsigned)p);
			return -1;
		}
	}
	uint8_t chunk[256];
	uint32_t len = 0, room = slot_area.size - SLOT_HEADER;
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), file)) > 0) {
		if (got > room - len) {
			snprintf(msg, msg_cap, "package does not fit the app slot (%u bytes)", (unsigned)room);
			return -1;
		}
		size_t padded = (got + WRITE_BLOCK - 1) / WRITE_BLOCK * WRITE_BLOCK;
		memset(chunk + got, 0xFF, padded - got);
		if (hal_flash_program(&slot_flash, SLOT_HEADER + len, chunk, padded) != HAL_FLASH_OK) {
			snprintf(msg, msg_cap, "app slot: writing the package failed");
			return -1;
		}
		len += (uint32_t)got;
		if (got % WRITE_BLOCK) {
			break; /* a short read is the end of the file */
		}
	}
	if (ferror(file)) {
		snprintf(msg, msg_cap, "reading the package failed");
		return -1;
	}
	rt_package_t parsed;
	if (rt_package_check(slot_area.base + SLOT_HEADER, len, &parsed, msg, msg_cap) != RT_PACKAGE_OK) {
		return -1;
	}
	return hal_flash_program(&slot_flash, 0, &len, sizeof(len)) == HAL_FLASH_OK ? 0 : -1;
}

int qemu_app_slot_get(const uint8_t **package, size_t *len)
{
	areas_init();
	uint32_t stored;
	memcpy(&stored, slot_area.base, sizeof(stored));
	if (stored == 0xFFFFFFFFu || stored == 0 || stored > slot_area.size - SLOT_HEADER) {
		return -1;
	}
	*package = slot_area.base + SLOT_HEADER;
	*len = stored;
	return 0;
}

const hal_flash_t *qemu_staging_flash(void)
{
	areas_init();
	return &staging_flash;
}

const uint8_t *qemu_staging_base(void)
{
	areas_init();
	return staging_area.base;
}

const hal_flash_t *qemu_storage_flash(void)
{
	areas_init();
	return &storage_flash;
}

#define STORAGE_INDEX 128u
static rt_records_entry_t storage_index[STORAGE_INDEX];
static rt_records_t storage;

rt_records_t *qemu_storage(void)
{
	areas_init();
	if (storage.mounted) {
		return &storage;
	}
	rt_records_config_t config = {&storage_flash, 4, storage_index, STORAGE_INDEX};
	rt_records_err_t err = rt_records_mount(&storage, &config);
	if (err == RT_RECORDS_EFORMAT) {
		/* A blank board (QEMU starts code memory zeroed, not erased): erase, then format. */
		for (uint32_t p = 0; p < storage_flash.page_count; p++) {
			(void)hal_flash_erase(&storage_flash, p);
		}
		err = rt_records_mount(&storage, &config);
	}
	return err == RT_RECORDS_OK ? &storage : NULL;
}

/*
 * malloc's arena is the linker script's heap region, not "everything up to the stack" as
 * newlib's default _sbrk has it: the RAM budget then holds for the heap too, and running out is
 * a refused allocation (which the engine turns into its out-of-memory fault), never a collision
 * with the stack.
 */
static uint8_t *brk_now;
static size_t brk_peak;

void *__wrap__sbrk(ptrdiff_t incr);
void *__wrap__sbrk(ptrdiff_t incr)
{
	if (brk_now == NULL) {
		brk_now = __heap_start;
	}
	if ((incr > 0 && incr > __heap_end - brk_now) || (incr < 0 && -incr > brk_now - __heap_start)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	uint8_t *old = brk_now;
	brk_now += incr;
	if ((size_t)(brk_now - __heap_start) > brk_peak) {
		brk_peak = (size_t)(brk_now - __heap_start);
	}
	return old;
}

size_t qemu_malloc_peak(void)
{
	return brk_peak;
}

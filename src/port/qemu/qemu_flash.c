/* Flash areas of the emulated device and the bounded malloc arena: see qemu_flash.h. */
#include "qemu_flash.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rt_package.h"

#define PAGE_SIZE 4096u
#define WRITE_BLOCK 4u

extern uint8_t __app_store_start[], __app_store_end[], __storage_start[], __storage_end[];
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

/* The port's own state: one board, one set of areas (a device has exactly one). The app store's
 * region is cut in two equal slots, as the device's two partitions. */
static area_t slot_area[2], storage_area;
static hal_flash_t slot_flash[2], storage_flash;
static bool areas_ready;

static void areas_init(void)
{
	if (areas_ready) {
		return;
	}
	uint32_t slot_size = (uint32_t)(__app_store_end - __app_store_start) / 2u;
	for (int i = 0; i < 2; i++) {
		slot_area[i] = (area_t){__app_store_start + (size_t)i * slot_size, slot_size};
		slot_flash[i] = (hal_flash_t){&area_ops, &slot_area[i], PAGE_SIZE, WRITE_BLOCK, slot_size / PAGE_SIZE};
	}
	storage_area = (area_t){__storage_start, (uint32_t)(__storage_end - __storage_start)};
	storage_flash = (hal_flash_t){&area_ops, &storage_area, PAGE_SIZE, WRITE_BLOCK,
				      storage_area.size / PAGE_SIZE};
	areas_ready = true;
}

static rt_app_store_t app_store;

rt_app_store_t *qemu_app_store(void)
{
	return app_store.mounted ? &app_store : qemu_app_store_boot();
}

rt_app_store_t *qemu_app_store_boot(void)
{
	areas_init();
	rt_app_store_config_t config = {{{&slot_flash[0], slot_area[0].base}, {&slot_flash[1], slot_area[1].base}}};
	char msg[160];
	rt_app_store_err_t err = rt_app_store_mount(&app_store, &config, msg, sizeof(msg));
	if (msg[0] != '\0') {
		fflush(stdout);
		fprintf(stderr, "beacon-qemu: app store: %s\n", msg);
	}
	return err == RT_APP_STORE_OK || err == RT_APP_STORE_ENOAPP ? &app_store : NULL;
}

int qemu_app_store_install_file(FILE *file, char *msg, size_t msg_cap)
{
	rt_app_store_t *store = qemu_app_store();
	if (store == NULL) {
		snprintf(msg, msg_cap, "the app store cannot be used");
		return -1;
	}
	long size;
	if (fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
		snprintf(msg, msg_cap, "cannot tell the package's size");
		return -1;
	}
	uint8_t chunk[256];
	if (size < (long)RT_PACKAGE_HEADER_SIZE) {
		/* Too short to stage: the check says so in the simulator's words. */
		rt_package_t parsed;
		size_t got = fread(chunk, 1, (size_t)size, file);
		(void)rt_package_check(chunk, got, &parsed, msg, msg_cap);
		return -1;
	}
	if ((unsigned long)size > rt_app_store_capacity(store)) {
		snprintf(msg, msg_cap, "package of %ld bytes does not fit the app slot (%lu bytes)", size,
			 (unsigned long)rt_app_store_capacity(store));
		return -1;
	}
	rt_app_store_err_t err = rt_app_store_stage_begin(store, (uint32_t)size);
	uint32_t off = 0;
	while (err == RT_APP_STORE_OK && off < (uint32_t)size) {
		size_t want = (uint32_t)size - off < sizeof(chunk) ? (uint32_t)size - off : sizeof(chunk);
		size_t got = fread(chunk, 1, want, file);
		if (got == 0) {
			snprintf(msg, msg_cap, "reading the package failed");
			return -1;
		}
		err = rt_app_store_stage_write(store, off, chunk, got);
		off += (uint32_t)got;
	}
	if (err != RT_APP_STORE_OK) {
		snprintf(msg, msg_cap, "app store: staging the package failed: %s", rt_app_store_strerror(err));
		return -1;
	}
	rt_package_t pkg;
	return rt_app_store_install(store, (uint32_t)size, &pkg, msg, msg_cap) == RT_APP_STORE_OK ? 0 : -1;
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

/*
 * hal_flash.h: one flash area (a partition), as the record store sees it.
 *
 * The rules are those of the nRF52840's NVMC, which the store is written for: the area is erased
 * a page at a time (every byte then reads 0xFF), and programmed a write block at a time (4 bytes
 * there). Programming can only clear bits, and a block may be programmed once per erase: a block
 * that is not erased must not be programmed again. Reads are of any length at any offset.
 *
 * An area is a struct of function pointers plus its geometry, not a set of global functions, so
 * that a simulator can hold several devices (each with its own flash) in one process and a test
 * can make as many areas as it likes. The device port (src/port/zephyr/hal_flash_zephyr.c) makes
 * one over Zephyr's flash_area API; the simulator's (src/world/sim_flash.h) is RAM-backed with
 * power-cut injection.
 */
#ifndef HAL_FLASH_H
#define HAL_FLASH_H

#include <stddef.h>
#include <stdint.h>

/* Results of the operations: 0 or one of these (negative). */
enum {
	HAL_FLASH_OK = 0,
	HAL_FLASH_EIO = -1,         /* the device reported an error */
	HAL_FLASH_ERANGE = -2,      /* outside the area */
	HAL_FLASH_EALIGN = -3,      /* offset or length not a multiple of the write block */
	HAL_FLASH_ENOTERASED = -4,  /* programming a block that is not erased (simulator only) */
	HAL_FLASH_EPOWER = -5,      /* power was lost (simulator's power-cut injection) */
	HAL_FLASH_ETIMEDOUT = -6,   /* the controller did not finish in time */
};

typedef struct hal_flash_ops {
	/* Read len bytes at offset (any alignment). */
	int (*read)(void *ctx, uint32_t offset, void *dst, size_t len);
	/* Program len bytes at offset; both multiples of write_block, every block erased. */
	int (*program)(void *ctx, uint32_t offset, const void *src, size_t len);
	/* Erase page number page (0 .. page_count - 1) to 0xFF. */
	int (*erase)(void *ctx, uint32_t page);
} hal_flash_ops_t;

typedef struct hal_flash {
	const hal_flash_ops_t *ops;
	void *ctx;
	uint32_t page_size;   /* bytes per erase page (4096 on the nRF52840 and the nRF9160) */
	uint32_t write_block; /* bytes per program unit (4 on both) */
	uint32_t page_count;  /* pages in the area */
} hal_flash_t;

static inline uint32_t hal_flash_size(const hal_flash_t *flash)
{
	return flash->page_size * flash->page_count;
}

static inline int hal_flash_read(const hal_flash_t *flash, uint32_t offset, void *dst, size_t len)
{
	return flash->ops->read(flash->ctx, offset, dst, len);
}

static inline int hal_flash_program(const hal_flash_t *flash, uint32_t offset, const void *src,
				    size_t len)
{
	return flash->ops->program(flash->ctx, offset, src, len);
}

static inline int hal_flash_erase(const hal_flash_t *flash, uint32_t page)
{
	return flash->ops->erase(flash->ctx, page);
}

/* The device's storage partition, which the record store (app storage, the cloud event queue,
 * settings) owns; NULL when the device has none. */
const hal_flash_t *hal_storage_area(void);

#endif /* HAL_FLASH_H */

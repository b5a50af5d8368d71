/*
 * rt_flash_window.h: a flash area (hal_flash_t) made of a run of whole pages of another one.
 *
 * The device has one partition per area (the app store's two slots, the record store's storage);
 * a host or an emulated board that keeps several areas in one flash image (one simulated flash,
 * one file, one power-cut counter for all of them) cuts it into windows instead. A window checks
 * its own bounds and passes everything else through, faults and power cuts included.
 */
#ifndef RT_FLASH_WINDOW_H
#define RT_FLASH_WINDOW_H

#include <stdint.h>

#include "hal_flash.h"

typedef struct rt_flash_window {
	hal_flash_t flash;        /* hand &w->flash to the store */
	const hal_flash_t *under; /* the flash the window is cut from */
	uint32_t first_page;      /* its first page there */
} rt_flash_window_t;

/* Make w the pages [first_page, first_page + page_count) of under. Returns 0, or -1 when they
 * are not all in it (or page_count is 0). */
int rt_flash_window_init(rt_flash_window_t *w, const hal_flash_t *under, uint32_t first_page,
			 uint32_t page_count);

#endif /* RT_FLASH_WINDOW_H */

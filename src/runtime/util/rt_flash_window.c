/* A flash area cut from another: see rt_flash_window.h. */
#include "rt_flash_window.h"

#include <stddef.h>

static int window_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	const rt_flash_window_t *w = ctx;
	if (offset > hal_flash_size(&w->flash) || len > hal_flash_size(&w->flash) - offset) {
		return HAL_FLASH_ERANGE;
	}
	return hal_flash_read(w->under, w->first_page * w->flash.page_size + offset, dst, len);
}

static int window_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	const rt_flash_window_t *w = ctx;
	if (offset > hal_flash_size(&w->flash) || len > hal_flash_size(&w->flash) - offset) {
		return HAL_FLASH_ERANGE;
	}
	return hal_flash_program(w->under, w->first_page * w->flash.page_size + offset, src, len);
}

static int window_erase(void *ctx, uint32_t page)
{
	const rt_flash_window_t *w = ctx;
	if (page >= w->flash.page_count) {
		return HAL_FLASH_ERANGE;
	}
	return hal_flash_erase(w->under, w->first_page + page);
}

static const hal_flash_ops_t window_ops = {window_read, window_program, window_erase};

int rt_flash_window_init(rt_flash_window_t *w, const hal_flash_t *under, uint32_t first_page,
			 uint32_t page_count)
{
	if (under == NULL || page_count == 0 || first_page > under->page_count ||
	    page_count > under->page_count - first_page) {
		return -1;
	}
	w->under = under;
	w->first_page = first_page;
	w->flash = (hal_flash_t){&window_ops, w, under->page_size, under->write_block, page_count};
	return 0;
}

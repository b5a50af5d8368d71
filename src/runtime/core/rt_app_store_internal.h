/*
 * rt_app_store_internal.h: what the app store's files share (rt_app_store.c, the slots and the
 * switch; rt_app_store_claim.c, the staging slot's owner; rt_app_store_report.c, the deployment
 * report records). Not for other modules: rt_app_store.h is the interface.
 */
#ifndef RT_APP_STORE_INTERNAL_H
#define RT_APP_STORE_INTERNAL_H

#include "rt_app_store.h"

/* Record the flash driver's error; RT_APP_STORE_EFLASH. */
rt_app_store_err_t rt_app_store_flash_failed(rt_app_store_t *s, int rc);
/* The slot an upload goes to: never the installed app's. */
int rt_app_store_staging_slot(const rt_app_store_t *s);
/* Program whole write blocks at off of a slot, leaving blocks that already hold the bytes. */
rt_app_store_err_t rt_app_store_program(rt_app_store_t *s, int slot, uint32_t off, const uint8_t *src,
					size_t n);
/* Where the pages an upload of len bytes erases in a slot end: the package's and the report
 * records' after it, at most the slot. */
uint32_t rt_app_store_erased_end(const rt_app_store_t *s, int slot, uint32_t len);
/* The length of the package the next switch installs (the complete staged one, else the app a
 * roll back returns to); 0: none. */
uint32_t rt_app_store_next_len(const rt_app_store_t *s);

#endif /* RT_APP_STORE_INTERNAL_H */

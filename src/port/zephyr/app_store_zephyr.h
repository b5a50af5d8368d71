/*
 * app_store_zephyr.h: the device's app store on its two app partitions (app_store_zephyr.c).
 */
#ifndef APP_STORE_ZEPHYR_H
#define APP_STORE_ZEPHYR_H

#include <stddef.h>

#include "hal_flash.h"
#include "rt_app_store.h"

/*
 * The app store, mounted on first call (the trusted keys must be set before: the mount checks
 * the installed package as an install does). wrap, when not NULL, is given each slot's flash and
 * returns what the store should use instead (a test board's power-cut injection). NULL with msg
 * when the board has no app partitions or they cannot be used; otherwise the store, installed
 * app or not, with msg saying why a newer installed package was refused ("" when none was).
 */
rt_app_store_t *port_zephyr_app_store(const hal_flash_t *(*wrap)(const hal_flash_t *flash),
				      char *msg, size_t msg_cap);

#endif /* APP_STORE_ZEPHYR_H */

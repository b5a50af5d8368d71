/*
 * qemu_flash.h: the emulated device's flash areas and its memory arena.
 *
 * Areas in the board's code memory, after the image (beacon-qemu.ld places them; the budget
 * counts them as the device's partitions): the app store's two slots (rt_app_store.h: the
 * installed app, run from flash where it lies, memory-mapped as on the nRF52840's internal flash,
 * and the staging slot uploads land in), and the storage area of the record store (rt_records.h).
 * All behave as the nRF52840's NVMC (hal_flash.h): 4 KB pages erased to 0xFF, 4-byte blocks
 * programmed once per erase, programming only clears bits.
 */
#ifndef QEMU_FLASH_H
#define QEMU_FLASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hal_flash.h"
#include "rt_app_store.h"
#include "rt_records.h"

/* The app store on its two slots, mounted at first use (QEMU starts code memory zeroed: a store
 * with no app). A newer app the mount refuses is reported on stderr. NULL when the slots cannot
 * be used. */
rt_app_store_t *qemu_app_store(void);
/* Mount the app store again, as a boot does (the benchmark's boot lookup). */
rt_app_store_t *qemu_app_store_boot(void);
/* Install the package read from a host file into the app store as an upload would be: staged in
 * chunks (it need not fit the device's RAM), checked where it lies in the staging slot, then
 * switched to. A refused package leaves the store as it was. Returns 0, or -1 with msg (the
 * simulator's words for a package it refuses). */
int qemu_app_store_install_file(FILE *file, char *msg, size_t msg_cap);

/* The storage area, and the record store mounted on it (formatted when blank); NULL when it
 * cannot be mounted. */
const hal_flash_t *qemu_storage_flash(void);
rt_records_t *qemu_storage(void);

/* Highest point the malloc arena reached, bytes from its start. */
size_t qemu_malloc_peak(void);

#endif /* QEMU_FLASH_H */

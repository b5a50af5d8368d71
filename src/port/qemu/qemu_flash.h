/*
 * qemu_flash.h: the emulated device's flash areas and its memory arena.
 *
 * Two areas in the board's code memory, after the image (beacon-qemu.ld places them; the budget
 * counts them as the device's partitions): the app slot, where a package is written and run from
 * (memory-mapped, as the nRF52840's internal flash), and the storage area of the record store
 * (rt_records.h). Both behave as the nRF52840's NVMC (hal_flash.h): 4 KB pages erased to 0xFF,
 * 4-byte blocks programmed once per erase, programming only clears bits.
 */
#ifndef QEMU_FLASH_H
#define QEMU_FLASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hal_flash.h"
#include "rt_records.h"

/* Check a package (layout, CRC, engine, API: rt_package_check) and write it into the app slot,
 * then read it back. A package that fails the check is refused with msg and the slot keeps what it
 * held. Returns 0, or -1 with msg. */
int qemu_app_slot_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap);
/* Flash the package read from a host file into the app slot (as `west flash` writes a device's
 * app: no staging area, so a refused package leaves the slot empty), then check it in place as
 * qemu_app_slot_install does. Read in chunks: the package need not fit the device's RAM.
 * Returns 0, or -1 with msg. */
int qemu_app_slot_flash_file(FILE *file, char *msg, size_t msg_cap);
/* The package in the app slot, in place; -1 when the slot holds none. */
int qemu_app_slot_get(const uint8_t **package, size_t *len);

/*
 * The update's staging area (the secondary slot): on the device it is on the board's external
 * QSPI flash (docs/budget.md), so here it lies outside the device's 1 MB, in the emulated
 * board's code memory at QEMU_EXT_FLASH_BASE, as large as the app slot. Same page and write rules
 * as the other areas. Uploads (qemu_listen.h) land here, are verified in place and only then
 * copied into the app slot, so a refused or cut upload never touches the running app.
 */
const hal_flash_t *qemu_staging_flash(void);
/* The staging area's bytes, memory-mapped (read-only use: write through qemu_staging_flash). */
const uint8_t *qemu_staging_base(void);

/* The storage area, and the record store mounted on it (formatted when blank); NULL when it
 * cannot be mounted. */
const hal_flash_t *qemu_storage_flash(void);
rt_records_t *qemu_storage(void);

/* Highest point the malloc arena reached, bytes from its start. */
size_t qemu_malloc_peak(void);

#endif /* QEMU_FLASH_H */

/*
 * rt_store.h: the device's record store, mounted once and shared.
 *
 * One flash partition holds the app's storage records and the cloud's non-volatile event queue,
 * in namespaces of one rt_records store (docs/storage.md): they share the space, and
 * storage.getStats() reports it whole, as the spec asks. The store is mounted on first use, so a
 * device whose app never touches storage pays nothing at boot; after a flash error it is mounted
 * again on the next use (rt_records asks for that).
 */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stdbool.h>

#include "rt_config.h"
#include "rt_records.h"

#ifndef CONFIG_BEACON_STORE_RECORDS
/*
 * Live records the RAM index holds (8 bytes each, 8 KB): app records and queued events
 * together. Sized so that the flash, not the index, is what fills: 1,024 records of 240 bytes
 * of flash each cover the 256 KB partition's 245 KB, so a month of hourly 200-byte events (744)
 * and the app's records fit with room (docs/storage.md, "The RAM index").
 */
#define CONFIG_BEACON_STORE_RECORDS 1024
#endif

/* 4 KB pages per sector: 16 KB sectors hold a 12 kB record with room to spare
 * (docs/storage.md). */
#define RT_STORE_PAGES_PER_SECTOR 4u

typedef struct rt_store_state {
	rt_records_t records;
	rt_records_entry_t index[CONFIG_BEACON_STORE_RECORDS];
} rt_store_state_t;

/*
 * The selected device's store, mounted; NULL when it cannot be, with the reason in *err
 * (RT_RECORDS_EFLASH: the device has no storage partition or it failed; RT_RECORDS_EFORMAT: the
 * partition holds something else, which is left as it is).
 */
rt_records_t *rt_store_open(rt_records_err_t *err);

#endif /* RT_STORE_H */

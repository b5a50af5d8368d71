/*
 * rt_records.h: the flash record store. App storage (storage.save/read/remove/readAll/clear),
 * the persistent cloud event queue and system settings live here, each in its own namespace of
 * one flash area, so one partition and one garbage collector serve them all.
 *
 * A record is (namespace, 32-bit id) -> 0..max_record bytes. Writes replace atomically: the new
 * record is written and read back before its entry is committed, so a power cut at any point
 * leaves the old value or the new one, never a broken record, and mount recovers from any
 * interrupted write, delete, clear or garbage collection. docs/storage.md has the on-flash
 * layout, the recovery rules and the figures; in short:
 *
 *  - The area is cut into sectors of pages_per_sector pages (the sector is the erase unit of
 *    the store and bounds the largest record: 4 pages of 4 KB hold 16,304 bytes, enough for the
 *    API's 12 kB records). Sectors are used in ring order; one is always kept erased (the spare)
 *    so that garbage collection has somewhere to copy to.
 *  - In a sector, data grows from the start and 20-byte entries ("ATEs", as in Zephyr's NVS and
 *    ZMS) from the end: a sector header, then one entry per record, delete, clear or finished
 *    collection, each with its own CRC-32 and the record's data CRC-32. One damaged entry costs
 *    its own record only.
 *  - A RAM index of the live records (caller-owned array of rt_records_entry_t, 8 bytes each,
 *    kept sorted by namespace and id) answers lookups, iteration and statistics without reading
 *    flash. Its capacity is the caller's; a record beyond it is refused with
 *    RT_RECORDS_EINDEX_FULL.
 *
 * No allocation and no globals: all state is in rt_records_t, which the caller owns. Not thread
 * safe: one caller (the JS thread) at a time.
 */
#ifndef RT_RECORDS_H
#define RT_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_flash.h"

/* Namespaces of the firmware. Values up to RT_RECORDS_NS_MAX may be used. */
#define RT_RECORDS_NS_APP 0u      /* storage.save/read: the app's ids */
#define RT_RECORDS_NS_EVENTS 1u   /* the non-volatile cloud event queue: sequence numbers */
#define RT_RECORDS_NS_SYSTEM 2u   /* firmware settings */
#define RT_RECORDS_NS_ALL 0xFFu   /* rt_records_clear(): every namespace */

/* Size of one allocation table entry on flash, and so the per-record overhead beyond padding. */
#define RT_RECORDS_ATE_SIZE 20u

/*
 * Results. The JS layer maps them: ENOSPC and EINDEX_FULL to ESR0202 (No storage space), ETOOBIG
 * to ESR0204 (Message too big), EFLASH and EFORMAT to ESR0201 (Storage error), ETIMEDOUT to
 * ESR0205 (Data store timeout; ESR0201 before 0.2.6); ENOTFOUND and
 * ECORRUPT make storage.read() return undefined (ECORRUPT is also logged).
 */
typedef enum rt_records_err {
	RT_RECORDS_OK = 0,
	RT_RECORDS_ENOTFOUND,   /* no such record */
	RT_RECORDS_ENOSPC,      /* does not fit, even after garbage collection */
	RT_RECORDS_EINDEX_FULL, /* the RAM index has no free entry for another record */
	RT_RECORDS_ETOOBIG,     /* record over max_record, or the read buffer is too small */
	RT_RECORDS_EFLASH,      /* the flash failed (the store must be mounted again) */
	RT_RECORDS_ECORRUPT,    /* the record's CRC fails: treated as absent */
	RT_RECORDS_EFORMAT,     /* the area holds something else, or a store of another geometry */
	RT_RECORDS_EINVAL,      /* bad argument or geometry */
	RT_RECORDS_ENOTMOUNTED, /* not mounted, or a flash error since the last mount */
	RT_RECORDS_ETIMEDOUT,   /* the flash did not answer in time (as EFLASH: mount again) */
} rt_records_err_t;

/*
 * One live record in the RAM index: 8 bytes, so that a month of hourly events (744) and the
 * app's records fit the index in a few kilobytes of the device's RAM (docs/storage.md, "The RAM
 * index"). The fields are as narrow as the store's geometry allows, and mount refuses a geometry
 * that does not fit them: data up to RT_RECORDS_LEN_MAX bytes, namespaces 0..3, up to
 * RT_RECORDS_SECTORS_MAX sectors of up to RT_RECORDS_SLOTS_MAX entry slots each.
 */
typedef struct rt_records_entry {
	uint32_t id;
	uint32_t len : 14;    /* data bytes */
	uint32_t ns : 2;
	uint32_t flags : 1;   /* RT_RECORDS_ENTRY_CORRUPT */
	uint32_t sector : 4;
	uint32_t slot : 11;   /* entry slot in its sector */
} rt_records_entry_t;

#define RT_RECORDS_LEN_MAX 16383u     /* 14 bits: a 16 KB sector's largest record, 16,304 */
#define RT_RECORDS_NS_MAX 3u          /* 2 bits */
#define RT_RECORDS_SECTORS_MAX 16u    /* 4 bits: 256 KB of 16 KB sectors */
#define RT_RECORDS_SLOTS_MAX 2048u    /* 11 bits: sectors up to 40 KB */

#define RT_RECORDS_ENTRY_CORRUPT 0x01u

typedef struct rt_records_config {
	const hal_flash_t *flash;   /* the whole area belongs to the store */
	uint32_t pages_per_sector;  /* 4 on 4 KB pages for 12 kB records; see docs/storage.md */
	rt_records_entry_t *index;  /* RAM index, the caller's */
	uint32_t index_capacity;    /* records the index can hold */
} rt_records_config_t;

typedef struct rt_records {
	const hal_flash_t *flash;
	rt_records_entry_t *index;
	uint32_t index_capacity;
	uint32_t count;          /* live records in the index */
	uint32_t sector_size;
	uint32_t sector_count;
	uint32_t pages_per_sector;
	uint32_t head;           /* sector being written */
	uint32_t head_seq;       /* its sequence number (sectors are numbered as they are opened) */
	uint32_t head_slot;      /* next free entry slot in the head sector */
	uint32_t head_data;      /* next free data offset in the head sector */
	bool head_gc_done;       /* the head holds a GC_DONE entry (its reserve is used) */
	uint32_t used;           /* flash bytes of the live records (entries and padded data) */
	uint32_t corrupt;        /* live records found with a bad data CRC since mount */
	uint32_t damaged;        /* entries whose own CRC failed at mount */
	uint32_t gc_runs;        /* sectors collected since mount */
	int flash_error;         /* the flash driver's last error (HAL_FLASH_E*) */
	bool mounted;
} rt_records_t;

typedef struct rt_records_stats {
	uint32_t total;       /* bytes records can occupy: all sectors but the spare, less headers */
	uint32_t used;        /* bytes the live records occupy (entries and padded data) */
	uint32_t free;        /* total - used: what garbage collection can make room for */
	uint32_t records;     /* live records, every namespace */
	uint32_t max_record;  /* largest record, bytes */
	uint32_t corrupt;     /* records found damaged since mount (treated as absent) */
	uint32_t damaged;     /* damaged or interrupted entries found at mount */
	uint32_t gc_runs;     /* sectors garbage-collected since mount */
} rt_records_stats_t;

/* Iteration cursor: records of one namespace in increasing id order. */
typedef struct rt_records_iter {
	uint32_t next_id;
	uint8_t ns;
	bool done;
} rt_records_iter_t;

/*
 * Mount the store on config->flash, recovering from an interrupted operation: a half-written
 * record is ignored, a garbage collection cut while copying is rolled back and one cut while
 * erasing is finished. An erased area becomes an empty store. Live records are checked against
 * their data CRC; damaged ones are kept out (rt_records_stats().corrupt counts them).
 * RT_RECORDS_EFORMAT: the area holds something else or a store with other sectors (nothing is
 * written); RT_RECORDS_EINDEX_FULL: more live records than index entries.
 */
rt_records_err_t rt_records_mount(rt_records_t *store, const rt_records_config_t *config);

/* Largest record for this geometry (pages_per_sector * page_size - 80, at most
 * RT_RECORDS_LEN_MAX). */
uint32_t rt_records_max_record(const rt_records_t *store);

/*
 * Write (ns, id) = data[0..len), replacing any previous value atomically. Writing the value a
 * record already has does not touch flash. May run garbage collection (erasing and copying a
 * sector: up to a few hundred milliseconds on the nRF52840).
 */
rt_records_err_t rt_records_write(rt_records_t *store, uint8_t ns, uint32_t id, const void *data,
				  size_t len);

/*
 * Read (ns, id) into buf. *len gets the record's length (also when RT_RECORDS_ETOOBIG says buf
 * is too small). The data CRC is checked on every read: RT_RECORDS_ECORRUPT for a damaged one.
 */
rt_records_err_t rt_records_read(rt_records_t *store, uint8_t ns, uint32_t id, void *buf,
				 size_t buf_size, size_t *len);

/* Length of (ns, id) without reading it. */
rt_records_err_t rt_records_size(const rt_records_t *store, uint8_t ns, uint32_t id, size_t *len);

/* Delete (ns, id). RT_RECORDS_ENOTFOUND when there is none (nothing is written). */
rt_records_err_t rt_records_delete(rt_records_t *store, uint8_t ns, uint32_t id);

/* Delete every record of ns (RT_RECORDS_NS_ALL: of every namespace), atomically. */
rt_records_err_t rt_records_clear(rt_records_t *store, uint8_t ns);

/*
 * Iterate over the live records of ns in increasing id order. The cursor holds the next id, not a
 * position, so records may be written or deleted between calls (readAll's callback may save).
 * rt_records_iter_next() returns RT_RECORDS_OK with the id and length, or RT_RECORDS_ENOTFOUND
 * at the end. Damaged records are skipped.
 */
void rt_records_iter_init(rt_records_iter_t *iter, uint8_t ns);
rt_records_err_t rt_records_iter_next(const rt_records_t *store, rt_records_iter_t *iter,
				      uint32_t *id, size_t *len);

/* Store figures, from RAM. */
void rt_records_stats(const rt_records_t *store, rt_records_stats_t *stats);
/* Live records of one namespace and the flash bytes they occupy, from RAM. */
void rt_records_ns_usage(const rt_records_t *store, uint8_t ns, uint32_t *records,
			 uint32_t *bytes);

/* Flash bytes a record of len data bytes occupies (entry plus data padded to a word). */
uint32_t rt_records_footprint(size_t len);

const char *rt_records_strerror(rt_records_err_t err);

#endif /* RT_RECORDS_H */

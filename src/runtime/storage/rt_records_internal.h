/*
 * rt_records_internal.h: what the files of the record store share and nothing outside it uses.
 *
 *   rt_records.c        the RAM index and the operations (write, read, delete, clear, iterate)
 *   rt_records_flash.c  entries on flash (encoding, CRC) and every flash access
 *   rt_records_gc.c     sectors: opening the next one, garbage collection, markers
 *   rt_records_mount.c  mount: recovery after a cut, the scan that rebuilds the index
 *
 * docs/storage.md has the layout and the recovery rules.
 */
#ifndef RT_RECORDS_INTERNAL_H
#define RT_RECORDS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_records.h"

#define A RT_RECORDS_ATE_SIZE
#define FORMAT_VERSION 1u
#define CHUNK 64u /* bytes per flash read or program through the stack */

/* Entry types. */
enum ate_type {
	T_SECTOR = 0x53,  /* slot 0: sector header (id = sequence, aux = sector size) */
	T_RECORD = 0x52,  /* a record (aux = CRC-32 of its data) */
	T_DELETE = 0x44,  /* a record deleted */
	T_CLEAR = 0x43,   /* every record of ns (0xFF: all) written before this is deleted */
	T_GC_DONE = 0x47, /* the sector after this one has been collected (aux = its sequence) */
};

typedef struct ate {
	uint32_t id;
	uint16_t len;
	uint16_t off_words; /* data offset in the sector, in 4-byte words */
	uint32_t aux;
	uint8_t ns;
	uint8_t type;
	uint8_t seq8; /* low byte of the sector's sequence number */
} ate_t;

enum ate_state { ATE_OK, ATE_BLANK, ATE_BAD };

enum header_state { H_BLANK, H_VALID, H_BAD, H_FOREIGN };

/* ------------------------------------------------------------------------------ geometry */

static inline uint32_t pad4(size_t n)
{
	return (uint32_t)((n + 3u) & ~(size_t)3u);
}

static inline uint32_t sector_base(const rt_records_t *s, uint32_t sector)
{
	return sector * s->sector_size;
}

/* Offset of entry slot `slot` from the sector start: slot 0 is the last 20 bytes. */
static inline uint32_t slot_offset(const rt_records_t *s, uint32_t slot)
{
	return s->sector_size - (slot + 1u) * A;
}

static inline uint32_t slots_per_sector(const rt_records_t *s)
{
	return s->sector_size / A;
}

static inline uint32_t next_sector(const rt_records_t *s, uint32_t sector)
{
	return (sector + 1u) % s->sector_count;
}

/* Bytes records may occupy: every sector but the spare, less its header and two reserved entries. */
static inline uint32_t capacity(const rt_records_t *s)
{
	return (s->sector_count - 1u) * (s->sector_size - 3u * A);
}

/* Free bytes in the head sector, the next entry slot included. */
static inline uint32_t head_free(const rt_records_t *s)
{
	uint32_t top = s->sector_size - s->head_slot * A;
	return top > s->head_data ? top - s->head_data : 0;
}

/* The entry a sector that has not been collected into must keep for its GC_DONE. */
static inline uint32_t gc_reserve(const rt_records_t *s)
{
	return s->head_gc_done ? 0u : A;
}

static inline uint64_t key_of(uint8_t ns, uint32_t id)
{
	return (uint64_t)ns << 32 | id;
}

/* ------------------------------------------------------------------------------ entries and flash
 * (rt_records_flash.c) */

void rt_records_ate_encode(const ate_t *a, uint8_t out[A]);
enum ate_state rt_records_ate_decode(const uint8_t in[A], ate_t *a);
/* Flash access that keeps the driver's last error (s->flash_error). */
int rt_records_fl_read(rt_records_t *s, uint32_t offset, void *dst, size_t len);
int rt_records_fl_program(rt_records_t *s, uint32_t offset, const void *src, size_t len);
/* A flash error leaves RAM and flash out of step: nothing more until the next mount. */
rt_records_err_t rt_records_failed(rt_records_t *s);
rt_records_err_t rt_records_read_ate(rt_records_t *s, uint32_t sector, uint32_t slot, ate_t *a,
				     enum ate_state *state);
/* Program an entry and read it back. */
rt_records_err_t rt_records_write_ate(rt_records_t *s, uint32_t sector, uint32_t slot, const ate_t *a);
/* Offset just past the last word in [from, to) that is not erased; from when all are. */
rt_records_err_t rt_records_last_written(rt_records_t *s, uint32_t from, uint32_t to, uint32_t *end);
rt_records_err_t rt_records_sector_blank(rt_records_t *s, uint32_t sector, bool *blank);
/* Erase a sector's pages; only those not already erased when dirty_only. */
rt_records_err_t rt_records_erase_sector(rt_records_t *s, uint32_t sector, bool dirty_only);
/*
 * Program len bytes of data at offset `at` (word aligned) through a word-aligned stack buffer,
 * padding the last word with 0xFF, then read them back.
 */
rt_records_err_t rt_records_write_data(rt_records_t *s, uint32_t at, const uint8_t *data, size_t len);
/* CRC-32 of len bytes of flash at `at`. */
rt_records_err_t rt_records_flash_crc(rt_records_t *s, uint32_t at, size_t len, uint32_t *crc);

/* ------------------------------------------------------------------------------ the RAM index
 * (rt_records.c) */

rt_records_entry_t *rt_records_find(const rt_records_t *s, uint8_t ns, uint32_t id, uint32_t *pos);
/* Point (ns, id) at a location, adding it when new. */
rt_records_err_t rt_records_index_put(rt_records_t *s, uint8_t ns, uint32_t id, uint32_t sector,
				      uint32_t slot, uint16_t len);
void rt_records_index_remove_at(rt_records_t *s, uint32_t pos);
void rt_records_index_clear(rt_records_t *s, uint8_t ns);
void rt_records_recount_used(rt_records_t *s);

/* ------------------------------------------------------------------------------ sectors
 * (rt_records_gc.c) */

rt_records_err_t rt_records_read_header(rt_records_t *s, uint32_t sector, enum header_state *state,
					uint32_t *seq);
/* Open `sector` as the new head with sequence number seq. */
rt_records_err_t rt_records_open_sector(rt_records_t *s, uint32_t sector, uint32_t seq);
/*
 * Make the head able to take an entry plus `bytes` of data plus `after` bytes of entries that
 * must still fit behind it (plus the GC_DONE reserve), advancing at most once per sector.
 */
rt_records_err_t rt_records_make_room(rt_records_t *s, uint32_t bytes, uint32_t after);
/* Write a data-less entry (delete, clear) at the head. */
rt_records_err_t rt_records_write_marker(rt_records_t *s, uint8_t type, uint8_t ns, uint32_t id);

#endif /* RT_RECORDS_INTERNAL_H */

/*
 * The flash record store (rt_records.h; layout and recovery rules in docs/storage.md).
 *
 * Written in the spirit of Zephyr's NVS and ZMS, whose design fits NOR flash with page erase:
 * sectors used in ring order with one kept erased, data from the sector start and fixed-size
 * entries with CRCs from its end, garbage collection that copies the live records of the oldest
 * sector into the newest. What is ours: namespaces, records larger than a page (sectors of
 * several pages), a complete RAM index (so reads, iteration and statistics never scan flash),
 * atomic namespace clear, and recovery rules that a simulated power cut at every single flash
 * operation is tested against (tests/c/test_records.c).
 *
 * Every word is programmed at most once between erases, in increasing address order within a
 * request, and an entry (the commit of a record) is written only after its data has been read
 * back. The entry's CRC is its last word, so an entry cut anywhere fails its check.
 */
#include "rt_records.h"

#include <string.h>

#include "rt_crc32.h"

#define A RT_RECORDS_ATE_SIZE
#define FORMAT_VERSION 1u
#define CHUNK 64u /* bytes per flash read or program through the stack */

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

/* ------------------------------------------------------------------------------ encoding */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void ate_encode(const ate_t *a, uint8_t out[A])
{
	put32(out, a->id);
	put16(out + 4, a->len);
	put16(out + 6, a->off_words);
	put32(out + 8, a->aux);
	out[12] = a->ns;
	out[13] = a->type;
	out[14] = a->seq8;
	out[15] = 0;
	put32(out + 16, rt_crc32(0, out, 16));
}

static enum ate_state ate_decode(const uint8_t in[A], ate_t *a)
{
	bool blank = true;
	for (unsigned i = 0; i < A; i++) {
		blank = blank && in[i] == 0xFF;
	}
	if (blank) {
		return ATE_BLANK;
	}
	if (get32(in + 16) != rt_crc32(0, in, 16)) {
		return ATE_BAD;
	}
	a->id = get32(in);
	a->len = get16(in + 4);
	a->off_words = get16(in + 6);
	a->aux = get32(in + 8);
	a->ns = in[12];
	a->type = in[13];
	a->seq8 = in[14];
	return ATE_OK;
}

static uint32_t pad4(size_t n)
{
	return (uint32_t)((n + 3u) & ~(size_t)3u);
}

uint32_t rt_records_footprint(size_t len)
{
	return A + pad4(len);
}

/* ------------------------------------------------------------------------------ geometry */

static uint32_t sector_base(const rt_records_t *s, uint32_t sector)
{
	return sector * s->sector_size;
}

/* Offset of entry slot `slot` from the sector start: slot 0 is the last 20 bytes. */
static uint32_t slot_offset(const rt_records_t *s, uint32_t slot)
{
	return s->sector_size - (slot + 1u) * A;
}

static uint32_t slots_per_sector(const rt_records_t *s)
{
	return s->sector_size / A;
}

static uint32_t next_sector(const rt_records_t *s, uint32_t sector)
{
	return (sector + 1u) % s->sector_count;
}

uint32_t rt_records_max_record(const rt_records_t *s)
{
	uint32_t max = s->sector_size - 4u * A;
	return max > UINT16_MAX ? UINT16_MAX : max;
}

/* Bytes records may occupy: every sector but the spare, less its header and two reserved entries. */
static uint32_t capacity(const rt_records_t *s)
{
	return (s->sector_count - 1u) * (s->sector_size - 3u * A);
}

/* Free bytes in the head sector, the next entry slot included. */
static uint32_t head_free(const rt_records_t *s)
{
	uint32_t top = s->sector_size - s->head_slot * A;
	return top > s->head_data ? top - s->head_data : 0;
}

/* The entry a sector that has not been collected into must keep for its GC_DONE. */
static uint32_t gc_reserve(const rt_records_t *s)
{
	return s->head_gc_done ? 0u : A;
}

/* ------------------------------------------------------------------------------ flash access */

/* Every flash access goes through these, which keep the driver's last error: a timeout is told
 * apart from a failure (storage.save reports ESR0205 for it). */
static int fl_note(rt_records_t *s, int rc)
{
	if (rc != 0) {
		s->flash_error = rc;
	}
	return rc;
}

static int fl_read(rt_records_t *s, uint32_t offset, void *dst, size_t len)
{
	return fl_note(s, hal_flash_read(s->flash, offset, dst, len));
}

static int fl_program(rt_records_t *s, uint32_t offset, const void *src, size_t len)
{
	return fl_note(s, hal_flash_program(s->flash, offset, src, len));
}

static int fl_erase(rt_records_t *s, uint32_t page)
{
	return fl_note(s, hal_flash_erase(s->flash, page));
}

/* A flash error leaves RAM and flash out of step: nothing more until the next mount. */
static rt_records_err_t failed(rt_records_t *s)
{
	s->mounted = false;
	return s->flash_error == HAL_FLASH_ETIMEDOUT ? RT_RECORDS_ETIMEDOUT : RT_RECORDS_EFLASH;
}

static rt_records_err_t read_ate(rt_records_t *s, uint32_t sector, uint32_t slot, ate_t *a,
				 enum ate_state *state)
{
	uint8_t raw[A];
	if (fl_read(s, sector_base(s, sector) + slot_offset(s, slot), raw, A) != 0) {
		return failed(s);
	}
	*state = ate_decode(raw, a);
	return RT_RECORDS_OK;
}

/* Program an entry and read it back. */
static rt_records_err_t write_ate(rt_records_t *s, uint32_t sector, uint32_t slot, const ate_t *a)
{
	uint8_t raw[A], back[A];
	ate_encode(a, raw);
	uint32_t at = sector_base(s, sector) + slot_offset(s, slot);
	if (fl_program(s, at, raw, A) != 0 ||
	    fl_read(s, at, back, A) != 0 || memcmp(raw, back, A) != 0) {
		return failed(s);
	}
	return RT_RECORDS_OK;
}

/* Offset just past the last word in [from, to) that is not erased; from when all are. */
static rt_records_err_t last_written(rt_records_t *s, uint32_t from, uint32_t to, uint32_t *end)
{
	uint8_t buf[CHUNK];
	*end = from;
	for (uint32_t at = from; at < to; at += CHUNK) {
		uint32_t n = to - at < CHUNK ? to - at : CHUNK;
		if (fl_read(s, at, buf, n) != 0) {
			return failed(s);
		}
		for (uint32_t i = 0; i < n; i += 4) {
			if (get32(buf + i) != 0xFFFFFFFFu) {
				*end = at + i + 4u;
			}
		}
	}
	return RT_RECORDS_OK;
}

static rt_records_err_t sector_blank(rt_records_t *s, uint32_t sector, bool *blank)
{
	uint32_t base = sector_base(s, sector), end;
	rt_records_err_t err = last_written(s, base, base + s->sector_size, &end);
	*blank = end == base;
	return err;
}

/* Erase a sector's pages; only those not already erased when dirty_only. */
static rt_records_err_t erase_sector(rt_records_t *s, uint32_t sector, bool dirty_only)
{
	uint32_t page_size = s->flash->page_size;
	for (uint32_t p = 0; p < s->pages_per_sector; p++) {
		uint32_t page = sector * s->pages_per_sector + p;
		if (dirty_only) {
			uint32_t end;
			rt_records_err_t err =
				last_written(s, page * page_size, (page + 1u) * page_size, &end);
			if (err != RT_RECORDS_OK) {
				return err;
			}
			if (end == page * page_size) {
				continue;
			}
		}
		if (fl_erase(s, page) != 0) {
			return failed(s);
		}
	}
	return RT_RECORDS_OK;
}

/*
 * Program len bytes of data at offset `at` (word aligned) through a word-aligned stack buffer,
 * padding the last word with 0xFF, then read them back.
 */
static rt_records_err_t write_data(rt_records_t *s, uint32_t at, const uint8_t *data, size_t len)
{
	uint32_t buf[CHUNK / 4], back[CHUNK / 4];
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		size_t padded = pad4(n);
		memset(buf, 0xFF, padded);
		memcpy(buf, data + done, n);
		if (fl_program(s, at + (uint32_t)done, buf, padded) != 0) {
			return failed(s);
		}
	}
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (fl_read(s, at + (uint32_t)done, back, n) != 0 ||
		    memcmp(back, data + done, n) != 0) {
			return failed(s);
		}
	}
	return RT_RECORDS_OK;
}

/* CRC-32 of len bytes of flash at `at`. */
static rt_records_err_t flash_crc(rt_records_t *s, uint32_t at, size_t len, uint32_t *crc)
{
	uint8_t buf[CHUNK];
	*crc = 0;
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (fl_read(s, at + (uint32_t)done, buf, n) != 0) {
			return failed(s);
		}
		*crc = rt_crc32(*crc, buf, n);
	}
	return RT_RECORDS_OK;
}

/* ------------------------------------------------------------------------------ RAM index */

static uint64_t key_of(uint8_t ns, uint32_t id)
{
	return (uint64_t)ns << 32 | id;
}

/* First index position whose key is >= key. */
static uint32_t lower_bound(const rt_records_t *s, uint64_t key)
{
	uint32_t lo = 0, hi = s->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2u;
		if (key_of(s->index[mid].ns, s->index[mid].id) < key) {
			lo = mid + 1u;
		} else {
			hi = mid;
		}
	}
	return lo;
}

static rt_records_entry_t *find(const rt_records_t *s, uint8_t ns, uint32_t id, uint32_t *pos)
{
	uint32_t at = lower_bound(s, key_of(ns, id));
	if (pos != NULL) {
		*pos = at;
	}
	if (at < s->count && s->index[at].ns == ns && s->index[at].id == id) {
		return &s->index[at];
	}
	return NULL;
}

/* Point (ns, id) at a location, adding it when new. */
static rt_records_err_t index_put(rt_records_t *s, uint8_t ns, uint32_t id, uint32_t sector,
				  uint32_t slot, uint16_t len)
{
	uint32_t pos;
	rt_records_entry_t *e = find(s, ns, id, &pos);
	if (e == NULL) {
		if (s->count >= s->index_capacity) {
			return RT_RECORDS_EINDEX_FULL;
		}
		memmove(&s->index[pos + 1u], &s->index[pos], (s->count - pos) * sizeof(*e));
		s->count++;
		e = &s->index[pos];
		e->ns = ns;
		e->id = id;
	}
	e->sector = (uint8_t)sector;
	e->slot = (uint16_t)slot;
	e->len = len;
	e->flags = 0;
	e->reserved = 0;
	return RT_RECORDS_OK;
}

static void index_remove_at(rt_records_t *s, uint32_t pos)
{
	memmove(&s->index[pos], &s->index[pos + 1u], (s->count - pos - 1u) * sizeof(s->index[0]));
	s->count--;
}

static void index_clear(rt_records_t *s, uint8_t ns)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < s->count; i++) {
		if (ns != RT_RECORDS_NS_ALL && s->index[i].ns != ns) {
			s->index[kept++] = s->index[i];
		}
	}
	s->count = kept;
}

static void recount_used(rt_records_t *s)
{
	s->used = 0;
	for (uint32_t i = 0; i < s->count; i++) {
		s->used += rt_records_footprint(s->index[i].len);
	}
}

/* ------------------------------------------------------------------------------ sectors */

static rt_records_err_t read_header(rt_records_t *s, uint32_t sector, enum header_state *state,
				    uint32_t *seq)
{
	ate_t h;
	enum ate_state st;
	rt_records_err_t err = read_ate(s, sector, 0, &h, &st);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	if (st == ATE_BLANK) {
		*state = H_BLANK;
	} else if (st == ATE_BAD || h.type != T_SECTOR) {
		*state = H_BAD;
	} else if (h.len != FORMAT_VERSION || h.aux != s->sector_size) {
		*state = H_FOREIGN;
	} else {
		*state = H_VALID;
		*seq = h.id;
	}
	return RT_RECORDS_OK;
}

/* Open `sector` as the new head with sequence number seq. */
static rt_records_err_t open_sector(rt_records_t *s, uint32_t sector, uint32_t seq)
{
	rt_records_err_t err = erase_sector(s, sector, true);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	ate_t h = {.id = seq, .len = FORMAT_VERSION, .aux = s->sector_size, .ns = 0xFF,
		   .type = T_SECTOR, .seq8 = (uint8_t)seq};
	err = write_ate(s, sector, 0, &h);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head = sector;
	s->head_seq = seq;
	s->head_slot = 1;
	s->head_data = 0;
	s->head_gc_done = false;
	return RT_RECORDS_OK;
}

/* Copy one live record of the victim sector to the head. */
static rt_records_err_t copy_record(rt_records_t *s, uint32_t victim, const ate_t *a,
				   rt_records_entry_t *e)
{
	uint32_t padded = pad4(a->len);
	if (head_free(s) < padded + 2u * A) {
		/* Cannot happen while every sector keeps its reserve; refuse rather than overrun. */
		s->mounted = false;
		return RT_RECORDS_ENOSPC;
	}
	uint32_t src = sector_base(s, victim) + a->off_words * 4u;
	uint32_t dst = sector_base(s, s->head) + s->head_data;
	uint32_t buf[CHUNK / 4];
	uint32_t crc = 0;
	for (uint32_t done = 0; done < padded; done += CHUNK) {
		uint32_t n = padded - done < CHUNK ? padded - done : CHUNK;
		if (fl_read(s, src + done, buf, n) != 0) {
			return failed(s);
		}
		uint32_t data_bytes = a->len - done < n ? a->len - done : n;
		crc = rt_crc32(crc, (const uint8_t *)buf, data_bytes);
		if (fl_program(s, dst + done, buf, n) != 0) {
			return failed(s);
		}
	}
	s->head_data += padded;
	uint32_t back;
	rt_records_err_t err = flash_crc(s, dst, a->len, &back);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	if (crc != a->aux) {
		/* Rotted since mount: the copy is left uncommitted and the record is gone. */
		e->flags |= RT_RECORDS_ENTRY_CORRUPT;
		s->corrupt++;
		return RT_RECORDS_OK;
	}
	if (back != crc) {
		return failed(s);
	}
	ate_t copy = *a;
	copy.off_words = (uint16_t)((dst - sector_base(s, s->head)) / 4u);
	copy.seq8 = (uint8_t)s->head_seq;
	err = write_ate(s, s->head, s->head_slot, &copy);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	e->sector = (uint8_t)s->head;
	e->slot = (uint16_t)s->head_slot;
	s->head_slot++;
	return RT_RECORDS_OK;
}

/*
 * Garbage-collect `victim` (the oldest sector, just after the head) into the head: copy its live
 * records, write GC_DONE, erase it. Deletes and clears in it are dropped: whatever they deleted
 * was older, so it was in this sector too, and is not copied.
 */
static rt_records_err_t collect(rt_records_t *s, uint32_t victim)
{
	uint32_t victim_seq = 0;
	enum header_state hs;
	rt_records_err_t err = read_header(s, victim, &hs, &victim_seq);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
		ate_t a;
		enum ate_state st;
		err = read_ate(s, victim, slot, &a, &st);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (st == ATE_BLANK) {
			break;
		}
		if (st != ATE_OK || a.type != T_RECORD) {
			continue;
		}
		rt_records_entry_t *e = find(s, a.ns, a.id, NULL);
		if (e == NULL || e->sector != victim || e->slot != slot ||
		    (e->flags & RT_RECORDS_ENTRY_CORRUPT) != 0) {
			continue;
		}
		err = copy_record(s, victim, &a, e);
		if (err != RT_RECORDS_OK) {
			return err;
		}
	}
	/* Whatever still points into the victim (damaged since mount) is lost with it. */
	for (uint32_t i = 0; i < s->count;) {
		if (s->index[i].sector == victim) {
			if ((s->index[i].flags & RT_RECORDS_ENTRY_CORRUPT) == 0) {
				s->corrupt++;
			}
			index_remove_at(s, i);
		} else {
			i++;
		}
	}
	recount_used(s);
	ate_t done = {.id = victim_seq, .ns = 0xFF, .type = T_GC_DONE,
		      .seq8 = (uint8_t)s->head_seq};
	err = write_ate(s, s->head, s->head_slot, &done);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_slot++;
	s->head_gc_done = true;
	err = erase_sector(s, victim, false);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->gc_runs++;
	return RT_RECORDS_OK;
}

/* Move the head to the spare sector, collecting the oldest sector if the ring is full. */
static rt_records_err_t advance(rt_records_t *s)
{
	uint32_t next = next_sector(s, s->head);
	rt_records_err_t err = open_sector(s, next, s->head_seq + 1u);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t victim = next_sector(s, next);
	bool blank;
	err = sector_blank(s, victim, &blank);
	if (err != RT_RECORDS_OK || blank) {
		return err;
	}
	return collect(s, victim);
}

/*
 * Make the head able to take an entry plus `bytes` of data plus `after` bytes of entries that
 * must still fit behind it (plus the GC_DONE reserve), advancing at most once per sector.
 */
static rt_records_err_t make_room(rt_records_t *s, uint32_t bytes, uint32_t after)
{
	for (uint32_t tries = 0;; tries++) {
		if (head_free(s) >= A + bytes + after + gc_reserve(s)) {
			return RT_RECORDS_OK;
		}
		if (tries + 1u >= s->sector_count) {
			return RT_RECORDS_ENOSPC;
		}
		rt_records_err_t err = advance(s);
		if (err != RT_RECORDS_OK) {
			return err;
		}
	}
}

/* Write a data-less entry (delete, clear) at the head. */
static rt_records_err_t write_marker(rt_records_t *s, uint8_t type, uint8_t ns, uint32_t id)
{
	rt_records_err_t err = make_room(s, 0, 0);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	ate_t m = {.id = id, .ns = ns, .type = type, .seq8 = (uint8_t)s->head_seq};
	err = write_ate(s, s->head, s->head_slot, &m);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_slot++;
	return RT_RECORDS_OK;
}

/* ------------------------------------------------------------------------------ mount */

static rt_records_err_t has_gc_done(rt_records_t *s, uint32_t sector, bool *found)
{
	*found = false;
	for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
		ate_t a;
		enum ate_state st;
		rt_records_err_t err = read_ate(s, sector, slot, &a, &st);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (st == ATE_BLANK) {
			break;
		}
		if (st == ATE_OK && a.type == T_GC_DONE) {
			*found = true;
		}
	}
	return RT_RECORDS_OK;
}

/*
 * Find the head (highest sequence number) and bring the sector after it back to the spare it
 * must be, finishing or undoing what a power cut interrupted. *empty: no store here yet.
 */
static rt_records_err_t recover(rt_records_t *s, bool *empty)
{
	for (int round = 0; round < 4; round++) {
		bool any_valid = false;
		uint32_t head = 0, head_seq = 0;
		for (uint32_t sec = 0; sec < s->sector_count; sec++) {
			enum header_state hs;
			uint32_t seq = 0;
			rt_records_err_t err = read_header(s, sec, &hs, &seq);
			if (err != RT_RECORDS_OK) {
				return err;
			}
			if (hs == H_FOREIGN) {
				return RT_RECORDS_EFORMAT;
			}
			if (hs == H_VALID && (!any_valid || seq > head_seq)) {
				any_valid = true;
				head = sec;
				head_seq = seq;
			}
		}
		if (!any_valid) {
			/*
			 * Erased, or the very first sector header was cut: anything else means the
			 * area holds something that is not ours, and it is left alone.
			 */
			for (uint32_t sec = 0; sec < s->sector_count; sec++) {
				uint32_t base = sector_base(s, sec), end;
				rt_records_err_t err =
					last_written(s, base, base + slot_offset(s, 0), &end);
				if (err != RT_RECORDS_OK) {
					return err;
				}
				if (end != base) {
					return RT_RECORDS_EFORMAT;
				}
			}
			*empty = true;
			return RT_RECORDS_OK;
		}
		s->head = head;
		s->head_seq = head_seq;
		uint32_t next = next_sector(s, head);
		bool blank;
		rt_records_err_t err = sector_blank(s, next, &blank);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (blank) {
			*empty = false;
			return RT_RECORDS_OK;
		}
		bool done;
		err = has_gc_done(s, head, &done);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		enum header_state next_state;
		uint32_t next_seq = 0;
		err = read_header(s, next, &next_state, &next_seq);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (!done && next_state == H_VALID && next_seq == head_seq - (s->sector_count - 1u)) {
			/*
			 * Cut while collecting `next` into the head: the head holds nothing but
			 * copies, `next` is intact. Undo: erase the head; the next write that needs
			 * room collects again.
			 */
			err = erase_sector(s, head, false);
		} else {
			/*
			 * Collected but cut while erasing (GC_DONE is there), or a header cut while
			 * opening it: nothing in it is needed.
			 */
			err = erase_sector(s, next, false);
		}
		if (err != RT_RECORDS_OK) {
			return err;
		}
	}
	return RT_RECORDS_EFLASH;
}

/* Replay the entries of the sectors from the oldest to the head into the index. */
static rt_records_err_t scan(rt_records_t *s)
{
	uint32_t data_end = 0, last_slot = 0;
	for (uint32_t i = 1; i <= s->sector_count; i++) {
		uint32_t sec = (s->head + i) % s->sector_count;
		bool is_head = sec == s->head;
		enum header_state hs;
		uint32_t seq = 0;
		rt_records_err_t err = read_header(s, sec, &hs, &seq);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
			ate_t a;
			enum ate_state st;
			err = read_ate(s, sec, slot, &a, &st);
			if (err != RT_RECORDS_OK) {
				return err;
			}
			if (st == ATE_BLANK) {
				break;
			}
			if (is_head) {
				last_slot = slot;
			}
			if (st == ATE_BAD || (hs == H_VALID && a.seq8 != (uint8_t)seq)) {
				s->damaged++;
				continue;
			}
			switch (a.type) {
			case T_RECORD: {
				uint32_t off = a.off_words * 4u;
				if (off + pad4(a.len) > slot_offset(s, slot) || a.ns == RT_RECORDS_NS_ALL) {
					s->damaged++;
					break;
				}
				err = index_put(s, a.ns, a.id, sec, slot, a.len);
				if (err != RT_RECORDS_OK) {
					return err;
				}
				if (is_head && off + pad4(a.len) > data_end) {
					data_end = off + pad4(a.len);
				}
				break;
			}
			case T_DELETE: {
				uint32_t pos;
				if (find(s, a.ns, a.id, &pos) != NULL) {
					index_remove_at(s, pos);
				}
				break;
			}
			case T_CLEAR:
				index_clear(s, a.ns);
				break;
			case T_GC_DONE:
				if (is_head) {
					s->head_gc_done = true;
				}
				break;
			default:
				s->damaged++;
				break;
			}
		}
	}
	s->head_slot = last_slot + 1u;
	/* Data of a record cut before its entry was written lies beyond data_end: skip it. */
	uint32_t base = sector_base(s, s->head), end;
	uint32_t top = slot_offset(s, last_slot);
	rt_records_err_t err =
		last_written(s, base + data_end, base + (top > data_end ? top : data_end), &end);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_data = end - base;
	return RT_RECORDS_OK;
}

/* Check the data of every live record; a damaged one is kept out of reads and iteration. */
static rt_records_err_t verify_all(rt_records_t *s)
{
	for (uint32_t i = 0; i < s->count; i++) {
		rt_records_entry_t *e = &s->index[i];
		ate_t a;
		enum ate_state st;
		rt_records_err_t err = read_ate(s, e->sector, e->slot, &a, &st);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		uint32_t crc;
		err = flash_crc(s, sector_base(s, e->sector) + a.off_words * 4u, a.len, &crc);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (crc != a.aux) {
			e->flags |= RT_RECORDS_ENTRY_CORRUPT;
			s->corrupt++;
		}
	}
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_mount(rt_records_t *s, const rt_records_config_t *c)
{
	if (s == NULL) {
		return RT_RECORDS_EINVAL;
	}
	memset(s, 0, sizeof(*s));
	if (c == NULL || c->flash == NULL || c->index == NULL || c->pages_per_sector == 0) {
		return RT_RECORDS_EINVAL;
	}
	const hal_flash_t *f = c->flash;
	uint32_t sectors = f->page_count / c->pages_per_sector;
	/*
	 * Entries are 20 bytes, so the write block must divide 4; a sector needs room for a header
	 * and reserves; data offsets are 16-bit word counts and sector numbers 8-bit.
	 */
	if (f->write_block == 0 || 4u % f->write_block != 0 || f->page_size % 4u != 0 ||
	    sectors < 2 || sectors > 255 || f->page_size > UINT32_MAX / c->pages_per_sector) {
		return RT_RECORDS_EINVAL;
	}
	uint32_t sector_size = f->page_size * c->pages_per_sector;
	if (sector_size < 8u * A || sector_size > 65536u * 4u) {
		return RT_RECORDS_EINVAL;
	}
	s->flash = f;
	s->index = c->index;
	s->index_capacity = c->index_capacity;
	s->sector_size = sector_size;
	s->sector_count = sectors;
	s->pages_per_sector = c->pages_per_sector;

	bool empty = false;
	rt_records_err_t err = recover(s, &empty);
	if (err == RT_RECORDS_OK && empty) {
		err = open_sector(s, 0, 1);
	} else if (err == RT_RECORDS_OK) {
		err = scan(s);
		if (err == RT_RECORDS_OK) {
			err = verify_all(s);
		}
	}
	if (err != RT_RECORDS_OK) {
		s->mounted = false;
		return err;
	}
	recount_used(s);
	s->mounted = true;
	return RT_RECORDS_OK;
}

/* ------------------------------------------------------------------------------ operations */

/* True when the stored record e holds exactly data[0..len). */
static rt_records_err_t same_content(rt_records_t *s, const rt_records_entry_t *e,
				     const uint8_t *data, size_t len, uint32_t crc, bool *same)
{
	*same = false;
	ate_t a;
	enum ate_state st;
	rt_records_err_t err = read_ate(s, e->sector, e->slot, &a, &st);
	if (err != RT_RECORDS_OK || st != ATE_OK || a.aux != crc || a.len != len) {
		return err;
	}
	uint8_t buf[CHUNK];
	uint32_t at = sector_base(s, e->sector) + a.off_words * 4u;
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (fl_read(s, at + (uint32_t)done, buf, n) != 0) {
			return failed(s);
		}
		if (memcmp(buf, data + done, n) != 0) {
			return RT_RECORDS_OK;
		}
	}
	*same = true;
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_write(rt_records_t *s, uint8_t ns, uint32_t id, const void *data,
				  size_t len)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	if (ns == RT_RECORDS_NS_ALL || (data == NULL && len != 0)) {
		return RT_RECORDS_EINVAL;
	}
	if (len > rt_records_max_record(s)) {
		return RT_RECORDS_ETOOBIG;
	}
	const uint8_t *bytes = data;
	uint32_t crc = rt_crc32(0, bytes, len);
	rt_records_entry_t *e = find(s, ns, id, NULL);
	if (e != NULL && (e->flags & RT_RECORDS_ENTRY_CORRUPT) == 0 && e->len == len) {
		bool same;
		rt_records_err_t err = same_content(s, e, bytes, len, crc, &same);
		if (err != RT_RECORDS_OK || same) {
			return err;
		}
	}
	if (e == NULL && s->count >= s->index_capacity) {
		return RT_RECORDS_EINDEX_FULL;
	}
	/* The old value stays until the new one is committed: both must fit. */
	if (s->used + rt_records_footprint(len) > capacity(s)) {
		return RT_RECORDS_ENOSPC;
	}
	/* Room for the record, then for a delete entry after it (so deletes never fail). */
	rt_records_err_t err = make_room(s, pad4(len), A);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t data_at = s->head_data;
	err = write_data(s, sector_base(s, s->head) + data_at, bytes, len);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_data += pad4(len);
	ate_t a = {.id = id, .len = (uint16_t)len, .off_words = (uint16_t)(data_at / 4u),
		   .aux = crc, .ns = ns, .type = T_RECORD, .seq8 = (uint8_t)s->head_seq};
	err = write_ate(s, s->head, s->head_slot, &a);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	/* Committed: the previous value (if any) is dead from here on. */
	err = index_put(s, ns, id, s->head, s->head_slot, (uint16_t)len);
	s->head_slot++;
	if (err != RT_RECORDS_OK) {
		/* Collection dropped nothing that was counted, so this cannot happen. */
		s->mounted = false;
		return err;
	}
	recount_used(s);
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_size(const rt_records_t *s, uint8_t ns, uint32_t id, size_t *len)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	const rt_records_entry_t *e = find(s, ns, id, NULL);
	if (e == NULL) {
		return RT_RECORDS_ENOTFOUND;
	}
	if ((e->flags & RT_RECORDS_ENTRY_CORRUPT) != 0) {
		return RT_RECORDS_ECORRUPT;
	}
	*len = e->len;
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_read(rt_records_t *s, uint8_t ns, uint32_t id, void *buf,
				 size_t buf_size, size_t *len)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	rt_records_entry_t *e = find(s, ns, id, NULL);
	if (e == NULL) {
		return RT_RECORDS_ENOTFOUND;
	}
	if ((e->flags & RT_RECORDS_ENTRY_CORRUPT) != 0) {
		return RT_RECORDS_ECORRUPT;
	}
	*len = e->len;
	if (buf_size < e->len) {
		return RT_RECORDS_ETOOBIG;
	}
	ate_t a;
	enum ate_state st;
	rt_records_err_t err = read_ate(s, e->sector, e->slot, &a, &st);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	bool ok = st == ATE_OK && a.type == T_RECORD && a.id == id && a.ns == ns && a.len == e->len;
	if (ok) {
		uint32_t at = sector_base(s, e->sector) + a.off_words * 4u;
		if (fl_read(s, at, buf, a.len) != 0) {
			return failed(s);
		}
		ok = rt_crc32(0, buf, a.len) == a.aux;
	}
	if (!ok) {
		e->flags |= RT_RECORDS_ENTRY_CORRUPT;
		s->corrupt++;
		return RT_RECORDS_ECORRUPT;
	}
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_delete(rt_records_t *s, uint8_t ns, uint32_t id)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	if (find(s, ns, id, NULL) == NULL) {
		return RT_RECORDS_ENOTFOUND;
	}
	rt_records_err_t err = write_marker(s, T_DELETE, ns, id);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t pos;
	if (find(s, ns, id, &pos) != NULL) {
		index_remove_at(s, pos);
	}
	recount_used(s);
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_clear(rt_records_t *s, uint8_t ns)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	uint32_t records = s->count;
	if (ns != RT_RECORDS_NS_ALL) {
		rt_records_ns_usage(s, ns, &records, NULL);
	}
	if (records == 0) {
		return RT_RECORDS_OK;
	}
	rt_records_err_t err = write_marker(s, T_CLEAR, ns, 0);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	index_clear(s, ns);
	recount_used(s);
	return RT_RECORDS_OK;
}

void rt_records_iter_init(rt_records_iter_t *it, uint8_t ns)
{
	it->next_id = 0;
	it->ns = ns;
	it->done = false;
}

rt_records_err_t rt_records_iter_next(const rt_records_t *s, rt_records_iter_t *it, uint32_t *id,
				      size_t *len)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	for (uint32_t pos = lower_bound(s, key_of(it->ns, it->next_id));
	     !it->done && pos < s->count && s->index[pos].ns == it->ns; pos++) {
		const rt_records_entry_t *e = &s->index[pos];
		it->done = e->id == UINT32_MAX;
		it->next_id = e->id + 1u;
		if ((e->flags & RT_RECORDS_ENTRY_CORRUPT) == 0) {
			*id = e->id;
			*len = e->len;
			return RT_RECORDS_OK;
		}
	}
	it->done = true;
	return RT_RECORDS_ENOTFOUND;
}

void rt_records_stats(const rt_records_t *s, rt_records_stats_t *st)
{
	memset(st, 0, sizeof(*st));
	if (s == NULL || s->sector_count == 0) {
		return;
	}
	st->total = capacity(s);
	st->used = s->used;
	st->free = s->used < st->total ? st->total - s->used : 0;
	st->records = s->count;
	st->max_record = rt_records_max_record(s);
	st->corrupt = s->corrupt;
	st->damaged = s->damaged;
	st->gc_runs = s->gc_runs;
}

void rt_records_ns_usage(const rt_records_t *s, uint8_t ns, uint32_t *records, uint32_t *bytes)
{
	uint32_t n = 0, b = 0;
	for (uint32_t pos = lower_bound(s, key_of(ns, 0)); pos < s->count && s->index[pos].ns == ns;
	     pos++) {
		n++;
		b += rt_records_footprint(s->index[pos].len);
	}
	if (records != NULL) {
		*records = n;
	}
	if (bytes != NULL) {
		*bytes = b;
	}
}

const char *rt_records_strerror(rt_records_err_t err)
{
	switch (err) {
	case RT_RECORDS_OK:
		return "ok";
	case RT_RECORDS_ENOTFOUND:
		return "no such record";
	case RT_RECORDS_ENOSPC:
		return "no storage space";
	case RT_RECORDS_EINDEX_FULL:
		return "no storage space (record index full)";
	case RT_RECORDS_ETOOBIG:
		return "record too big";
	case RT_RECORDS_EFLASH:
		return "flash error";
	case RT_RECORDS_ETIMEDOUT:
		return "flash timed out";
	case RT_RECORDS_ECORRUPT:
		return "record damaged (CRC mismatch)";
	case RT_RECORDS_EFORMAT:
		return "flash area holds no record store of this geometry";
	case RT_RECORDS_EINVAL:
		return "invalid argument";
	case RT_RECORDS_ENOTMOUNTED:
		return "record store not mounted";
	}
	return "unknown error";
}

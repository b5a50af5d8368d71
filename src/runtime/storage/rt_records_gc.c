/*
 * The record store's sectors (rt_records_internal.h): sectors are used in ring order with one
 * kept erased; when the head is full the next one is opened, and before that the oldest is
 * collected: its live records are copied into the head and a GC_DONE entry says so, so a cut at
 * any write is recovered at mount (docs/storage.md).
 */
#include "rt_crc32.h"
#include "rt_records_internal.h"

rt_records_err_t rt_records_read_header(rt_records_t *s, uint32_t sector, enum header_state *state,
					uint32_t *seq)
{
	ate_t h;
	enum ate_state st;
	rt_records_err_t err = rt_records_read_ate(s, sector, 0, &h, &st);
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
rt_records_err_t rt_records_open_sector(rt_records_t *s, uint32_t sector, uint32_t seq)
{
	rt_records_err_t err = rt_records_erase_sector(s, sector, true);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	ate_t h = {.id = seq, .len = FORMAT_VERSION, .aux = s->sector_size, .ns = 0xFF,
		   .type = T_SECTOR, .seq8 = (uint8_t)seq};
	err = rt_records_write_ate(s, sector, 0, &h);
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
		if (rt_records_fl_read(s, src + done, buf, n) != 0) {
			return rt_records_failed(s);
		}
		uint32_t data_bytes = a->len - done < n ? a->len - done : n;
		crc = rt_crc32(crc, (const uint8_t *)buf, data_bytes);
		if (rt_records_fl_program(s, dst + done, buf, n) != 0) {
			return rt_records_failed(s);
		}
	}
	s->head_data += padded;
	uint32_t back;
	rt_records_err_t err = rt_records_flash_crc(s, dst, a->len, &back);
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
		return rt_records_failed(s);
	}
	ate_t copy = *a;
	copy.off_words = (uint16_t)((dst - sector_base(s, s->head)) / 4u);
	copy.seq8 = (uint8_t)s->head_seq;
	err = rt_records_write_ate(s, s->head, s->head_slot, &copy);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	e->sector = s->head & 0xFu;
	e->slot = s->head_slot & 0x7FFu;
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
	rt_records_err_t err = rt_records_read_header(s, victim, &hs, &victim_seq);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
		ate_t a;
		enum ate_state st;
		err = rt_records_read_ate(s, victim, slot, &a, &st);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (st == ATE_BLANK) {
			break;
		}
		if (st != ATE_OK || a.type != T_RECORD) {
			continue;
		}
		rt_records_entry_t *e = rt_records_find(s, a.ns, a.id, NULL);
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
			rt_records_index_remove_at(s, i);
		} else {
			i++;
		}
	}
	rt_records_recount_used(s);
	ate_t done = {.id = victim_seq, .ns = 0xFF, .type = T_GC_DONE,
		      .seq8 = (uint8_t)s->head_seq};
	err = rt_records_write_ate(s, s->head, s->head_slot, &done);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_slot++;
	s->head_gc_done = true;
	err = rt_records_erase_sector(s, victim, false);
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
	rt_records_err_t err = rt_records_open_sector(s, next, s->head_seq + 1u);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t victim = next_sector(s, next);
	bool blank;
	err = rt_records_sector_blank(s, victim, &blank);
	if (err != RT_RECORDS_OK || blank) {
		return err;
	}
	return collect(s, victim);
}

/*
 * Make the head able to take an entry plus `bytes` of data plus `after` bytes of entries that
 * must still fit behind it (plus the GC_DONE reserve), advancing at most once per sector.
 */
rt_records_err_t rt_records_make_room(rt_records_t *s, uint32_t bytes, uint32_t after)
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
rt_records_err_t rt_records_write_marker(rt_records_t *s, uint8_t type, uint8_t ns, uint32_t id)
{
	rt_records_err_t err = rt_records_make_room(s, 0, 0);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	ate_t m = {.id = id, .ns = ns, .type = type, .seq8 = (uint8_t)s->head_seq};
	err = rt_records_write_ate(s, s->head, s->head_slot, &m);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_slot++;
	return RT_RECORDS_OK;
}

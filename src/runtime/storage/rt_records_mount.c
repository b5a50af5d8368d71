/*
 * Mounting the record store (rt_records.h, rt_records_internal.h): rt_records_find the newest sector,
 * recover from whatever write a power cut interrupted, and rebuild the RAM index from the
 * entries, newest last (docs/storage.md has the recovery rules).
 */
#include <string.h>

#include "rt_records_internal.h"

static rt_records_err_t has_gc_done(rt_records_t *s, uint32_t sector, bool *found)
{
	*found = false;
	for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
		ate_t a;
		enum ate_state st;
		rt_records_err_t err = rt_records_read_ate(s, sector, slot, &a, &st);
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
			rt_records_err_t err = rt_records_read_header(s, sec, &hs, &seq);
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
					rt_records_last_written(s, base, base + slot_offset(s, 0), &end);
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
		rt_records_err_t err = rt_records_sector_blank(s, next, &blank);
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
		err = rt_records_read_header(s, next, &next_state, &next_seq);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (!done && next_state == H_VALID && next_seq == head_seq - (s->sector_count - 1u)) {
			/*
			 * Cut while collecting `next` into the head: the head holds nothing but
			 * copies, `next` is intact. Undo: erase the head; the next write that needs
			 * room collects again.
			 */
			err = rt_records_erase_sector(s, head, false);
		} else {
			/*
			 * Collected but cut while erasing (GC_DONE is there), or a header cut while
			 * opening it: nothing in it is needed.
			 */
			err = rt_records_erase_sector(s, next, false);
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
		rt_records_err_t err = rt_records_read_header(s, sec, &hs, &seq);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		for (uint32_t slot = 1; slot < slots_per_sector(s); slot++) {
			ate_t a;
			enum ate_state st;
			err = rt_records_read_ate(s, sec, slot, &a, &st);
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
				if (off + pad4(a.len) > slot_offset(s, slot) || a.ns > RT_RECORDS_NS_MAX ||
				    a.len > RT_RECORDS_LEN_MAX) {
					s->damaged++;
					break;
				}
				err = rt_records_index_put(s, a.ns, a.id, sec, slot, a.len);
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
				if (rt_records_find(s, a.ns, a.id, &pos) != NULL) {
					rt_records_index_remove_at(s, pos);
				}
				break;
			}
			case T_CLEAR:
				rt_records_index_clear(s, a.ns);
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
		rt_records_last_written(s, base + data_end, base + (top > data_end ? top : data_end), &end);
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
		rt_records_err_t err = rt_records_read_ate(s, e->sector, e->slot, &a, &st);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		uint32_t crc;
		err = rt_records_flash_crc(s, sector_base(s, e->sector) + a.off_words * 4u, a.len, &crc);
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
	/* The RAM index's narrow fields (rt_records.h) bound the sectors and their entry slots. */
	if (sector_size < 8u * A || sector_size / A > RT_RECORDS_SLOTS_MAX ||
	    sectors > RT_RECORDS_SECTORS_MAX) {
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
		err = rt_records_open_sector(s, 0, 1);
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
	rt_records_recount_used(s);
	s->mounted = true;
	return RT_RECORDS_OK;
}

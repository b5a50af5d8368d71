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
 *
 * This file: the RAM index and the operations; rt_records_internal.h lists the others.
 */
#include "rt_records.h"

#include <string.h>

#include "rt_crc32.h"
#include "rt_records_internal.h"

uint32_t rt_records_footprint(size_t len)
{
	return A + pad4(len);
}

uint32_t rt_records_max_record(const rt_records_t *s)
{
	uint32_t max = s->sector_size - 4u * A;
	return max > RT_RECORDS_LEN_MAX ? RT_RECORDS_LEN_MAX : max;
}

/* ------------------------------------------------------------------------------ RAM index */

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

rt_records_entry_t *rt_records_find(const rt_records_t *s, uint8_t ns, uint32_t id, uint32_t *pos)
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
rt_records_err_t rt_records_index_put(rt_records_t *s, uint8_t ns, uint32_t id, uint32_t sector,
				      uint32_t slot, uint16_t len)
{
	uint32_t pos;
	rt_records_entry_t *e = rt_records_find(s, ns, id, &pos);
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
	e->sector = sector & 0xFu;
	e->slot = slot & 0x7FFu;
	e->len = len & RT_RECORDS_LEN_MAX;
	e->flags = 0;
	return RT_RECORDS_OK;
}

void rt_records_index_remove_at(rt_records_t *s, uint32_t pos)
{
	memmove(&s->index[pos], &s->index[pos + 1u], (s->count - pos - 1u) * sizeof(s->index[0]));
	s->count--;
}

void rt_records_index_clear(rt_records_t *s, uint8_t ns)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < s->count; i++) {
		if (ns != RT_RECORDS_NS_ALL && s->index[i].ns != ns) {
			s->index[kept++] = s->index[i];
		}
	}
	s->count = kept;
}

void rt_records_recount_used(rt_records_t *s)
{
	s->used = 0;
	for (uint32_t i = 0; i < s->count; i++) {
		s->used += rt_records_footprint(s->index[i].len);
	}
}

/* ------------------------------------------------------------------------------ operations */

/* True when the stored record e holds exactly data[0..len). */
static rt_records_err_t same_content(rt_records_t *s, const rt_records_entry_t *e,
				     const uint8_t *data, size_t len, uint32_t crc, bool *same)
{
	*same = false;
	ate_t a;
	enum ate_state st;
	rt_records_err_t err = rt_records_read_ate(s, e->sector, e->slot, &a, &st);
	if (err != RT_RECORDS_OK || st != ATE_OK || a.aux != crc || a.len != len) {
		return err;
	}
	uint8_t buf[CHUNK];
	uint32_t at = sector_base(s, e->sector) + a.off_words * 4u;
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (rt_records_fl_read(s, at + (uint32_t)done, buf, n) != 0) {
			return rt_records_failed(s);
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
	if (ns > RT_RECORDS_NS_MAX || (data == NULL && len != 0)) {
		return RT_RECORDS_EINVAL;
	}
	if (len > rt_records_max_record(s)) {
		return RT_RECORDS_ETOOBIG;
	}
	const uint8_t *bytes = data;
	uint32_t crc = rt_crc32(0, bytes, len);
	rt_records_entry_t *e = rt_records_find(s, ns, id, NULL);
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
	rt_records_err_t err = rt_records_make_room(s, pad4(len), A);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t data_at = s->head_data;
	err = rt_records_write_data(s, sector_base(s, s->head) + data_at, bytes, len);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	s->head_data += pad4(len);
	ate_t a = {.id = id, .len = (uint16_t)len, .off_words = (uint16_t)(data_at / 4u),
		   .aux = crc, .ns = ns, .type = T_RECORD, .seq8 = (uint8_t)s->head_seq};
	err = rt_records_write_ate(s, s->head, s->head_slot, &a);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	/* Committed: the previous value (if any) is dead from here on. */
	err = rt_records_index_put(s, ns, id, s->head, s->head_slot, (uint16_t)len);
	s->head_slot++;
	if (err != RT_RECORDS_OK) {
		/* Collection dropped nothing that was counted, so this cannot happen. */
		s->mounted = false;
		return err;
	}
	rt_records_recount_used(s);
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_size(const rt_records_t *s, uint8_t ns, uint32_t id, size_t *len)
{
	if (s == NULL || !s->mounted) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	const rt_records_entry_t *e = rt_records_find(s, ns, id, NULL);
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
	rt_records_entry_t *e = rt_records_find(s, ns, id, NULL);
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
	rt_records_err_t err = rt_records_read_ate(s, e->sector, e->slot, &a, &st);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	bool ok = st == ATE_OK && a.type == T_RECORD && a.id == id && a.ns == ns && a.len == e->len;
	if (ok) {
		uint32_t at = sector_base(s, e->sector) + a.off_words * 4u;
		if (rt_records_fl_read(s, at, buf, a.len) != 0) {
			return rt_records_failed(s);
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
	if (rt_records_find(s, ns, id, NULL) == NULL) {
		return RT_RECORDS_ENOTFOUND;
	}
	rt_records_err_t err = rt_records_write_marker(s, T_DELETE, ns, id);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	uint32_t pos;
	if (rt_records_find(s, ns, id, &pos) != NULL) {
		rt_records_index_remove_at(s, pos);
	}
	rt_records_recount_used(s);
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
	rt_records_err_t err = rt_records_write_marker(s, T_CLEAR, ns, 0);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	rt_records_index_clear(s, ns);
	rt_records_recount_used(s);
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

/*
 * The record store's entries on flash and its flash access (rt_records_internal.h): an entry
 * (ATE) is 20 bytes whose last word is the CRC of the others, so an entry cut anywhere fails its
 * check; every access goes through here and keeps the driver's last error.
 */
#include <string.h>

#include "rt_crc32.h"
#include "rt_records_internal.h"
#include "rt_le.h"

/* ------------------------------------------------------------------------------ encoding */

void rt_records_ate_encode(const ate_t *a, uint8_t out[A])
{
	rt_le32_store(out, a->id);
	rt_le16_store(out + 4, a->len);
	rt_le16_store(out + 6, a->off_words);
	rt_le32_store(out + 8, a->aux);
	out[12] = a->ns;
	out[13] = a->type;
	out[14] = a->seq8;
	out[15] = 0;
	rt_le32_store(out + 16, rt_crc32(0, out, 16));
}

enum ate_state rt_records_ate_decode(const uint8_t in[A], ate_t *a)
{
	bool blank = true;
	for (unsigned i = 0; i < A; i++) {
		blank = blank && in[i] == 0xFF;
	}
	if (blank) {
		return ATE_BLANK;
	}
	if (rt_le32_load(in + 16) != rt_crc32(0, in, 16)) {
		return ATE_BAD;
	}
	a->id = rt_le32_load(in);
	a->len = rt_le16_load(in + 4);
	a->off_words = rt_le16_load(in + 6);
	a->aux = rt_le32_load(in + 8);
	a->ns = in[12];
	a->type = in[13];
	a->seq8 = in[14];
	return ATE_OK;
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

int rt_records_fl_read(rt_records_t *s, uint32_t offset, void *dst, size_t len)
{
	return fl_note(s, hal_flash_read(s->flash, offset, dst, len));
}

int rt_records_fl_program(rt_records_t *s, uint32_t offset, const void *src, size_t len)
{
	return fl_note(s, hal_flash_program(s->flash, offset, src, len));
}

static int fl_erase(rt_records_t *s, uint32_t page)
{
	return fl_note(s, hal_flash_erase(s->flash, page));
}

/* A flash error leaves RAM and flash out of step: nothing more until the next mount. */
rt_records_err_t rt_records_failed(rt_records_t *s)
{
	s->mounted = false;
	return s->flash_error == HAL_FLASH_ETIMEDOUT ? RT_RECORDS_ETIMEDOUT : RT_RECORDS_EFLASH;
}

rt_records_err_t rt_records_read_ate(rt_records_t *s, uint32_t sector, uint32_t slot, ate_t *a,
				     enum ate_state *state)
{
	uint8_t raw[A];
	if (rt_records_fl_read(s, sector_base(s, sector) + slot_offset(s, slot), raw, A) != 0) {
		return rt_records_failed(s);
	}
	*state = rt_records_ate_decode(raw, a);
	return RT_RECORDS_OK;
}

/* Program an entry and read it back. */
rt_records_err_t rt_records_write_ate(rt_records_t *s, uint32_t sector, uint32_t slot, const ate_t *a)
{
	uint8_t raw[A], back[A];
	rt_records_ate_encode(a, raw);
	uint32_t at = sector_base(s, sector) + slot_offset(s, slot);
	if (rt_records_fl_program(s, at, raw, A) != 0 ||
	    rt_records_fl_read(s, at, back, A) != 0 || memcmp(raw, back, A) != 0) {
		return rt_records_failed(s);
	}
	return RT_RECORDS_OK;
}

/* Offset just past the last word in [from, to) that is not erased; from when all are. */
rt_records_err_t rt_records_last_written(rt_records_t *s, uint32_t from, uint32_t to, uint32_t *end)
{
	uint8_t buf[CHUNK];
	*end = from;
	for (uint32_t at = from; at < to; at += CHUNK) {
		uint32_t n = to - at < CHUNK ? to - at : CHUNK;
		if (rt_records_fl_read(s, at, buf, n) != 0) {
			return rt_records_failed(s);
		}
		for (uint32_t i = 0; i < n; i += 4) {
			if (rt_le32_load(buf + i) != 0xFFFFFFFFu) {
				*end = at + i + 4u;
			}
		}
	}
	return RT_RECORDS_OK;
}

rt_records_err_t rt_records_sector_blank(rt_records_t *s, uint32_t sector, bool *blank)
{
	uint32_t base = sector_base(s, sector), end;
	rt_records_err_t err = rt_records_last_written(s, base, base + s->sector_size, &end);
	*blank = end == base;
	return err;
}

/* Erase a sector's pages; only those not already erased when dirty_only. */
rt_records_err_t rt_records_erase_sector(rt_records_t *s, uint32_t sector, bool dirty_only)
{
	uint32_t page_size = s->flash->page_size;
	for (uint32_t p = 0; p < s->pages_per_sector; p++) {
		uint32_t page = sector * s->pages_per_sector + p;
		if (dirty_only) {
			uint32_t end;
			rt_records_err_t err =
				rt_records_last_written(s, page * page_size, (page + 1u) * page_size, &end);
			if (err != RT_RECORDS_OK) {
				return err;
			}
			if (end == page * page_size) {
				continue;
			}
		}
		if (fl_erase(s, page) != 0) {
			return rt_records_failed(s);
		}
	}
	return RT_RECORDS_OK;
}

/*
 * Program len bytes of data at offset `at` (word aligned) through a word-aligned stack buffer,
 * padding the last word with 0xFF, then read them back.
 */
rt_records_err_t rt_records_write_data(rt_records_t *s, uint32_t at, const uint8_t *data, size_t len)
{
	uint32_t buf[CHUNK / 4], back[CHUNK / 4];
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		size_t padded = pad4(n);
		memset(buf, 0xFF, padded);
		memcpy(buf, data + done, n);
		if (rt_records_fl_program(s, at + (uint32_t)done, buf, padded) != 0) {
			return rt_records_failed(s);
		}
	}
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (rt_records_fl_read(s, at + (uint32_t)done, back, n) != 0 ||
		    memcmp(back, data + done, n) != 0) {
			return rt_records_failed(s);
		}
	}
	return RT_RECORDS_OK;
}

/* CRC-32 of len bytes of flash at `at`. */
rt_records_err_t rt_records_flash_crc(rt_records_t *s, uint32_t at, size_t len, uint32_t *crc)
{
	uint8_t buf[CHUNK];
	*crc = 0;
	for (size_t done = 0; done < len; done += CHUNK) {
		size_t n = len - done < CHUNK ? len - done : CHUNK;
		if (rt_records_fl_read(s, at + (uint32_t)done, buf, n) != 0) {
			return rt_records_failed(s);
		}
		*crc = rt_crc32(*crc, buf, n);
	}
	return RT_RECORDS_OK;
}

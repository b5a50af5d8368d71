/*
 * rt_app_store_report.c: the deployment report records after a slot's package (the layout is in
 * rt_app_store.h). Appended, never rewritten: a record is programmed whole in one write, and its
 * "SENT" word later; the latest intact record of the installed app's slot is the report.
 */
#include <string.h>

#include "rt_app_store.h"
#include "rt_app_store_internal.h"
#include "rt_crc32.h"
#include "rt_le.h"

#define BODY 152u  /* bytes 0..151, programmed in one write */
#define CRC_AT 144u

/* The records' room in a slot holding a package of len bytes: [*start, *end). */
static void room(const rt_app_store_t *s, int slot, uint32_t len, uint32_t *start, uint32_t *end)
{
	*start = (RT_APP_STORE_HEADER_SIZE + len + 7u) & ~7u;
	*end = rt_app_store_erased_end(s, slot, len);
	if (*end < *start) {
		*end = *start;
	}
}

static bool erased(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != 0xFFu) {
			return false;
		}
	}
	return true;
}

/* A record's bytes, checked whole: magic, outcome, reason length and text, CRC. */
static bool record_read(const uint8_t *b, rt_app_store_report_t *out)
{
	uint8_t n = b[5];
	if (memcmp(b, RT_APP_STORE_REPORT_MAGIC, 4) != 0 || b[4] < 1 || b[4] > 3 || n > RT_APP_STORE_REPORT_REASON ||
	    b[6] != 0 || b[7] != 0 || memchr(b + 40, 0, n) != NULL || rt_le32_load(b + 148) != 0 ||
	    rt_le32_load(b + CRC_AT) != rt_crc32(0, b, CRC_AT)) {
		return false;
	}
	memcpy(out->hash, b + 8, RT_APP_STORE_REPORT_HASH);
	out->outcome = b[4];
	memcpy(out->reason, b + 40, n);
	out->reason[n] = '\0';
	out->sent = !erased(b + RT_APP_STORE_REPORT_SENT_OFFSET, 4);
	return true;
}

/* The offset of the latest intact record in a slot (0: none) and of the first record place
 * after every used one (0: none left). */
static void scan(const rt_app_store_t *s, int slot, uint32_t len, uint32_t *latest, uint32_t *next,
		 rt_app_store_report_t *out)
{
	uint32_t start, end;
	room(s, slot, len, &start, &end);
	const uint8_t *m = s->slot[slot].mapped;
	*latest = 0;
	*next = start;
	for (uint32_t at = start; at + RT_APP_STORE_REPORT_SIZE <= end; at += RT_APP_STORE_REPORT_SIZE) {
		if (erased(m + at, RT_APP_STORE_REPORT_SIZE)) {
			continue;
		}
		*next = at + RT_APP_STORE_REPORT_SIZE;
		rt_app_store_report_t r;
		if (record_read(m + at, &r)) {
			*latest = at;
			if (out != NULL) {
				*out = r;
			}
		}
	}
	if (*next + RT_APP_STORE_REPORT_SIZE > end) {
		*next = 0;
	}
}

bool rt_app_store_report_get(const rt_app_store_t *s, rt_app_store_report_t *out)
{
	const uint8_t *pkg;
	size_t len;
	if (!rt_app_store_installed(s, &pkg, &len)) {
		return false;
	}
	uint32_t latest, next;
	scan(s, s->active, (uint32_t)len, &latest, &next, out);
	return latest != 0;
}

rt_app_store_err_t rt_app_store_report_put(rt_app_store_t *s, const rt_app_store_report_t *r, bool next)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	size_t n = strnlen(r->reason, RT_APP_STORE_REPORT_REASON + 1);
	if (r->outcome < 1 || r->outcome > 3 || n > RT_APP_STORE_REPORT_REASON) {
		return RT_APP_STORE_EINVAL;
	}
	int slot;
	uint32_t len;
	if (next) {
		slot = rt_app_store_staging_slot(s);
		len = rt_app_store_next_len(s);
	} else {
		slot = s->active;
		len = s->app_len;
	}
	if (slot < 0 || len == 0) {
		return RT_APP_STORE_EINVAL;
	}
	uint32_t latest, at;
	scan(s, slot, len, &latest, &at, NULL);
	if (at == 0) {
		return RT_APP_STORE_ENOSPACE;
	}
	uint8_t b[BODY];
	memset(b, 0, sizeof(b));
	memcpy(b, RT_APP_STORE_REPORT_MAGIC, 4);
	b[4] = r->outcome;
	b[5] = (uint8_t)n;
	memcpy(b + 8, r->hash, RT_APP_STORE_REPORT_HASH);
	memcpy(b + 40, r->reason, n);
	rt_le32_store(b + CRC_AT, rt_crc32(0, b, CRC_AT));
	return rt_app_store_program(s, slot, at, b, sizeof(b));
}

rt_app_store_err_t rt_app_store_report_sent(rt_app_store_t *s)
{
	if (!s->mounted || s->active < 0) {
		return RT_APP_STORE_EINVAL;
	}
	uint32_t latest, next;
	rt_app_store_report_t r;
	scan(s, s->active, s->app_len, &latest, &next, &r);
	if (latest == 0 || r.sent) {
		return RT_APP_STORE_OK;
	}
	uint8_t word[8];
	uint32_t wb = s->slot[s->active].flash->write_block;
	memset(word, 0xFF, sizeof(word));
	memcpy(word, "SENT", 4);
	return rt_app_store_program(s, s->active, latest + RT_APP_STORE_REPORT_SENT_OFFSET, word, wb > 4 ? wb : 4);
}

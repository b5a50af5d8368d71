/*
 * rt_app_store_report.c: the deployment records after a slot's package (the layout is in
 * rt_app_store.h): reports, and the download open in the staging slot. Appended, never
 * rewritten: a record is programmed whole in one write, and its mark word later; the latest intact
 * record of each kind in the installed app's slot counts.
 */
#include <string.h>

#include "rt_app_store.h"
#include "rt_app_store_internal.h"
#include "rt_crc32.h"
#include "rt_le.h"

#define BODY 152u  /* bytes 0..151, programmed in one write */
#define CRC_AT 144u
#define MARK RT_APP_STORE_REPORT_SENT_OFFSET

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

static bool intact(const uint8_t *b, const char *magic)
{
	return memcmp(b, magic, 4) == 0 && rt_le32_load(b + CRC_AT) == rt_crc32(0, b, CRC_AT) &&
	       rt_le32_load(b + 148) == 0;
}

/* A report record, checked whole: magic, outcome, reason length and text, CRC. */
static bool report_read(const uint8_t *b, rt_app_store_report_t *out)
{
	uint8_t n = b[5];
	if (!intact(b, RT_APP_STORE_REPORT_MAGIC) || b[4] < 1 || b[4] > 3 || n > RT_APP_STORE_REPORT_REASON ||
	    b[6] != 0 || b[7] != 0 || memchr(b + 40, 0, n) != NULL) {
		return false;
	}
	memcpy(out->hash, b + 8, RT_APP_STORE_REPORT_HASH);
	out->outcome = b[4];
	memcpy(out->reason, b + 40, n);
	out->reason[n] = '\0';
	out->sent = !erased(b + MARK, 4);
	return true;
}

static bool download_read(const uint8_t *b, rt_app_store_download_t *out)
{
	if (!intact(b, RT_APP_STORE_DOWNLOAD_MAGIC) || b[44] > 1) {
		return false;
	}
	out->size = rt_le32_load(b + 4);
	memcpy(out->hash, b + 8, RT_APP_STORE_REPORT_HASH);
	out->api = rt_le32_load(b + 40);
	out->signed_ = b[44] == 1;
	return true;
}

typedef struct {
	uint32_t report_at, download_at; /* latest intact of each kind (0: none) */
	uint32_t next;                   /* first place after every used one (0: none left) */
	rt_app_store_report_t report;
	rt_app_store_download_t download;
	bool download_ended;             /* its mark word is not erased */
} scan_t;

static void scan(const rt_app_store_t *s, int slot, uint32_t len, scan_t *out)
{
	uint32_t start, end;
	room(s, slot, len, &start, &end);
	const uint8_t *m = s->slot[slot].mapped;
	memset(out, 0, sizeof(*out));
	out->next = start;
	for (uint32_t at = start; at + RT_APP_STORE_REPORT_SIZE <= end; at += RT_APP_STORE_REPORT_SIZE) {
		if (erased(m + at, RT_APP_STORE_REPORT_SIZE)) {
			continue;
		}
		out->next = at + RT_APP_STORE_REPORT_SIZE;
		if (report_read(m + at, &out->report)) {
			out->report_at = at;
		} else if (download_read(m + at, &out->download)) {
			out->download_at = at;
			out->download_ended = !erased(m + at + MARK, 4);
		}
	}
	if (out->next + RT_APP_STORE_REPORT_SIZE > end) {
		out->next = 0;
	}
}

/* The installed app's records; false when there is no installed app. */
static bool scan_active(const rt_app_store_t *s, scan_t *out)
{
	if (!s->mounted || s->active < 0) {
		return false;
	}
	scan(s, s->active, s->app_len, out);
	return true;
}

bool rt_app_store_report_get(const rt_app_store_t *s, rt_app_store_report_t *out)
{
	scan_t sc;
	if (!scan_active(s, &sc) || sc.report_at == 0) {
		return false;
	}
	*out = sc.report;
	return true;
}

/* Program a record's body at the first free place of a slot. */
static rt_app_store_err_t append(rt_app_store_t *s, int slot, uint32_t len, uint8_t b[BODY])
{
	scan_t sc;
	scan(s, slot, len, &sc);
	if (sc.next == 0) {
		return RT_APP_STORE_ENOSPACE;
	}
	rt_le32_store(b + CRC_AT, rt_crc32(0, b, CRC_AT));
	return rt_app_store_program(s, slot, sc.next, b, BODY);
}

/* Program a record's mark word ("SENT", "DONE"). */
static rt_app_store_err_t mark(rt_app_store_t *s, uint32_t at, const char *word)
{
	uint8_t w[8];
	uint32_t wb = s->slot[s->active].flash->write_block;
	memset(w, 0xFF, sizeof(w));
	memcpy(w, word, 4);
	return rt_app_store_program(s, s->active, at + MARK, w, wb > 4 ? wb : 4);
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
	int slot = next ? rt_app_store_staging_slot(s) : s->active;
	uint32_t len = next ? rt_app_store_next_len(s) : s->app_len;
	if (slot < 0 || len == 0) {
		return RT_APP_STORE_EINVAL;
	}
	uint8_t b[BODY];
	memset(b, 0, sizeof(b));
	memcpy(b, RT_APP_STORE_REPORT_MAGIC, 4);
	b[4] = r->outcome;
	b[5] = (uint8_t)n;
	memcpy(b + 8, r->hash, RT_APP_STORE_REPORT_HASH);
	memcpy(b + 40, r->reason, n);
	return append(s, slot, len, b);
}

rt_app_store_err_t rt_app_store_report_sent(rt_app_store_t *s)
{
	scan_t sc;
	if (!scan_active(s, &sc)) {
		return RT_APP_STORE_EINVAL;
	}
	return sc.report_at == 0 || sc.report.sent ? RT_APP_STORE_OK : mark(s, sc.report_at, "SENT");
}

/* --- the download open in the staging slot --- */

rt_app_store_err_t rt_app_store_download_put(rt_app_store_t *s, const rt_app_store_download_t *dl)
{
	if (!s->mounted || s->active < 0 || !s->staging || s->stage_total != dl->size) {
		return RT_APP_STORE_EINVAL;
	}
	uint8_t b[BODY];
	memset(b, 0, sizeof(b));
	memcpy(b, RT_APP_STORE_DOWNLOAD_MAGIC, 4);
	rt_le32_store(b + 4, dl->size);
	memcpy(b + 8, dl->hash, RT_APP_STORE_REPORT_HASH);
	rt_le32_store(b + 40, dl->api);
	b[44] = dl->signed_ ? 1 : 0;
	return append(s, s->active, s->app_len, b);
}

void rt_app_store_download_end(rt_app_store_t *s)
{
	scan_t sc;
	if (scan_active(s, &sc) && sc.download_at != 0 && !sc.download_ended) {
		(void)mark(s, sc.download_at, "DONE");
	}
}

bool rt_app_store_download_resume(rt_app_store_t *s, rt_app_store_download_t *out)
{
	scan_t sc;
	/* Open: not ended, and no report after it (one is written when a download ends). */
	if (s->staging || !scan_active(s, &sc) || sc.download_at == 0 || sc.download_ended ||
	    sc.report_at > sc.download_at || sc.download.size == 0 || sc.download.size > s->capacity) {
		return false;
	}
	/* Staged: up to the start of the last write block that is not erased. That block may be one
	 * a cut left half-programmed: it is written again (and fails when it was torn, so the download
	 * begins again); blocks of the package that are erased by nature are programmed again. */
	int slot = rt_app_store_staging_slot(s);
	uint32_t wb = s->slot[slot].flash->write_block;
	const uint8_t *p = s->slot[slot].mapped + RT_APP_STORE_HEADER_SIZE;
	uint32_t blocks = (sc.download.size + wb - 1u) / wb, last = blocks;
	while (last > 0 && erased(p + (size_t)(last - 1u) * wb, wb)) {
		last--;
	}
	*out = sc.download;
	s->staging = true;
	s->stage_total = sc.download.size;
	s->stage_off = last > 0 ? (last - 1u) * wb : 0;
	s->tail_len = 0;
	return true;
}

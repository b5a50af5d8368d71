/*
 * rt_app_store.c: the installed app on flash, two slots whose roles swap. rt_app_store.h has
 * the slot layout and the switch protocol; docs/upload.md says why it is safe to cut anywhere.
 */
#include "rt_app_store.h"
#include "rt_app_store_internal.h"

#include <stdio.h>
#include <string.h>

#include "rt_signature.h"
#include "rt_le.h"

/* What a slot's header says. */
typedef struct {
	bool committed; /* header intact and the commit marker complete */
	bool rolled_back; /* its "BACK" marker is not erased (a torn one counts too) */
	uint32_t seq;
	uint32_t len;
	uint32_t package_crc;
} slot_head_t;

static bool all_erased(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != 0xFFu) {
			return false;
		}
	}
	return true;
}

rt_app_store_err_t rt_app_store_flash_failed(rt_app_store_t *s, int rc)
{
	s->flash_error = rc;
	return RT_APP_STORE_EFLASH;
}

#define flash_failed rt_app_store_flash_failed

static rt_app_store_err_t read_head(rt_app_store_t *s, int slot, slot_head_t *h)
{
	uint8_t b[RT_APP_STORE_HEADER_SIZE];
	int rc = hal_flash_read(s->slot[slot].flash, 0, b, sizeof(b));
	memset(h, 0, sizeof(*h));
	if (rc != HAL_FLASH_OK) {
		return flash_failed(s, rc);
	}
	uint32_t seq = rt_le32_load(b + 8), len = rt_le32_load(b + 12);
	h->committed = memcmp(b, RT_APP_STORE_MAGIC, 4) == 0 && rt_le16_load(b + 4) == RT_APP_STORE_FORMAT &&
		       rt_le16_load(b + 6) == RT_APP_STORE_HEADER_SIZE &&
		       rt_le32_load(b + 20) == rt_crc32(0, b, 20) &&
		       memcmp(b + RT_APP_STORE_COMMIT_OFFSET, RT_APP_STORE_COMMIT, 4) == 0 &&
		       seq != 0 && seq != 0xFFFFFFFFu && len != 0 && len <= s->capacity;
	h->rolled_back = !all_erased(b + RT_APP_STORE_BACK_OFFSET, 4);
	h->seq = seq;
	h->len = len;
	h->package_crc = rt_le32_load(b + 16);
	return RT_APP_STORE_OK;
}

/* The checks every package passes before it runs: the simulator's, in the same words. */
static bool package_ok(const uint8_t *package, size_t len, rt_package_t *pkg, char *msg, size_t cap)
{
	return rt_package_check(package, len, pkg, msg, cap) == RT_PACKAGE_OK &&
	       rt_signature_check(package, pkg, msg, cap) == RT_SIGNATURE_OK;
}

static const uint8_t *slot_package(const rt_app_store_t *s, int slot)
{
	return s->slot[slot].mapped + RT_APP_STORE_HEADER_SIZE;
}

/* The slot an upload goes to: never the installed app's. */
int rt_app_store_staging_slot(const rt_app_store_t *s)
{
	return s->active >= 0 ? 1 - s->active : 0;
}
#define staging_slot rt_app_store_staging_slot

uint32_t rt_app_store_erased_end(const rt_app_store_t *s, int slot, uint32_t len)
{
	const hal_flash_t *f = s->slot[slot].flash;
	uint32_t pages = (RT_APP_STORE_HEADER_SIZE + len + RT_APP_STORE_REPORT_ROOM + f->page_size - 1u) / f->page_size;
	return (pages < f->page_count ? pages : f->page_count) * f->page_size;
}

uint32_t rt_app_store_next_len(const rt_app_store_t *s)
{
	if (s->staging) {
		return s->stage_off == s->stage_total ? s->stage_total : 0;
	}
	slot_head_t h;
	if (s->active < 0 || read_head((rt_app_store_t *)s, 1 - s->active, &h) != RT_APP_STORE_OK || !h.committed ||
	    h.rolled_back) {
		return 0;
	}
	return h.len;
}

rt_app_store_err_t rt_app_store_mount(rt_app_store_t *s, const rt_app_store_config_t *config,
				      char *msg, size_t msg_cap)
{
	memset(s, 0, sizeof(*s));
	s->active = -1;
	s->refused = -1;
	if (msg_cap > 0) {
		msg[0] = '\0';
	}
	for (int i = 0; i < 2; i++) {
		const hal_flash_t *f = config->slot[i].flash;
		if (f == NULL || config->slot[i].mapped == NULL) {
			return RT_APP_STORE_EINVAL;
		}
		s->slot[i] = config->slot[i];
	}
	const hal_flash_t *a = s->slot[0].flash, *b = s->slot[1].flash;
	uint32_t wb = a->write_block;
	if (a->page_size != b->page_size || wb != b->write_block || (wb != 1 && wb != 2 && wb != 4 && wb != 8) ||
	    a->page_size % 8u != 0 || a->page_count == 0 || b->page_count == 0) {
		return RT_APP_STORE_EINVAL;
	}
	uint32_t size = hal_flash_size(a) < hal_flash_size(b) ? hal_flash_size(a) : hal_flash_size(b);
	if (size <= RT_APP_STORE_HEADER_SIZE + RT_PACKAGE_HEADER_SIZE) {
		return RT_APP_STORE_EINVAL; /* no room for a package */
	}
	s->capacity = size - RT_APP_STORE_HEADER_SIZE;

	slot_head_t h[2];
	for (int i = 0; i < 2; i++) {
		rt_app_store_err_t err = read_head(s, i, &h[i]);
		if (err != RT_APP_STORE_OK) {
			return err;
		}
		if (h[i].committed && h[i].seq > s->top_seq) {
			s->top_seq = h[i].seq;
		}
	}
	s->mounted = true;
	/* Newest first; the first whose package passes is the installed app. */
	int order[2] = {0, 1};
	if (h[1].committed && (!h[0].committed || h[1].seq > h[0].seq)) {
		order[0] = 1;
		order[1] = 0;
	}
	for (int k = 0; k < 2; k++) {
		int i = order[k];
		/* A rolled-back slot still counts for the sequence numbers, never as the app. */
		if (!h[i].committed || h[i].rolled_back) {
			continue;
		}
		rt_package_t pkg;
		char why[160];
		const uint8_t *p = slot_package(s, i);
		bool ok = package_ok(p, h[i].len, &pkg, why, sizeof(why));
		if (ok && pkg.crc != h[i].package_crc) {
			/* Cannot come from an install (page 0 is erased before a package is staged), but
			 * the header must name the bytes it commits. */
			snprintf(why, sizeof(why), "app slot %d: its header names package CRC %08lx, the slot holds %08lx",
				 i, (unsigned long)h[i].package_crc, (unsigned long)pkg.crc);
			ok = false;
		}
		if (ok) {
			s->active = (int8_t)i;
			s->active_seq = h[i].seq;
			s->app_len = h[i].len;
			break;
		}
		if (s->refused < 0) {
			s->refused = (int8_t)i;
			snprintf(msg, msg_cap, "%s", why);
		}
	}
	return s->active >= 0 ? RT_APP_STORE_OK : RT_APP_STORE_ENOAPP;
}

bool rt_app_store_installed(const rt_app_store_t *s, const uint8_t **package, size_t *len)
{
	if (!s->mounted || s->active < 0) {
		*package = NULL;
		*len = 0;
		return false;
	}
	*package = slot_package(s, s->active);
	*len = s->app_len;
	return true;
}

rt_app_store_err_t rt_app_store_read(rt_app_store_t *s, uint32_t off, void *dst, size_t len)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (s->active < 0 || off > s->app_len || len > s->app_len - off) {
		return RT_APP_STORE_EINVAL;
	}
	int rc = hal_flash_read(s->slot[s->active].flash, RT_APP_STORE_HEADER_SIZE + off, dst, len);
	return rc == HAL_FLASH_OK ? RT_APP_STORE_OK : flash_failed(s, rc);
}

uint32_t rt_app_store_sequence(const rt_app_store_t *s)
{
	return s->mounted && s->active >= 0 ? s->active_seq : 0;
}

uint32_t rt_app_store_capacity(const rt_app_store_t *s)
{
	return s->capacity;
}

rt_app_store_source_t rt_app_store_boot_package(const rt_app_store_t *s, const uint8_t *factory,
						size_t factory_len, const uint8_t **package, size_t *len)
{
	if (rt_app_store_installed(s, package, len)) {
		return RT_APP_STORE_FROM_STORE;
	}
	if (factory != NULL && factory_len > 0) {
		*package = factory;
		*len = factory_len;
		return RT_APP_STORE_FROM_FACTORY;
	}
	return RT_APP_STORE_FROM_NONE;
}

/*
 * Program n bytes (whole write blocks) at off of a slot. A block that already holds the bytes
 * is left alone, so a write that failed half-way may be given again; a block that holds other
 * bytes is not erased and fails (the flash's rule: one program per erase).
 */
rt_app_store_err_t rt_app_store_program(rt_app_store_t *s, int slot, uint32_t off, const uint8_t *src, size_t n)
{
	const hal_flash_t *f = s->slot[slot].flash;
	const uint8_t *now = s->slot[slot].mapped + off;
	uint32_t wb = f->write_block;
	if (all_erased(now, n)) {
		int rc = hal_flash_program(f, off, src, n);
		return rc == HAL_FLASH_OK ? RT_APP_STORE_OK : flash_failed(s, rc);
	}
	for (size_t i = 0; i < n; i += wb) {
		if (memcmp(now + i, src + i, wb) == 0) {
			continue;
		}
		if (!all_erased(now + i, wb)) {
			return flash_failed(s, HAL_FLASH_ENOTERASED);
		}
		int rc = hal_flash_program(f, off + (uint32_t)i, src + i, wb);
		if (rc != HAL_FLASH_OK) {
			return flash_failed(s, rc);
		}
	}
	return RT_APP_STORE_OK;
}

#define program rt_app_store_program

rt_app_store_err_t rt_app_store_stage_begin(rt_app_store_t *s, uint32_t total)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (total == 0) {
		return RT_APP_STORE_EINVAL;
	}
	if (total > s->capacity) {
		return RT_APP_STORE_ETOOBIG;
	}
	int slot = staging_slot(s);
	const hal_flash_t *f = s->slot[slot].flash;
	/* A download open there is over before its bytes go. */
	rt_app_store_download_end(s);
	/* The package's pages and the report records' after it (as many as the slot has). */
	uint32_t pages = rt_app_store_erased_end(s, slot, total) / f->page_size;
	s->staging = false;
	/* Page 0 first: an older header in this slot is gone before anything else changes, so a
	 * slot cut while being erased or written never claims a package. */
	for (uint32_t p = 0; p < pages; p++) {
		int rc = hal_flash_erase(f, p);
		if (rc != HAL_FLASH_OK) {
			return flash_failed(s, rc);
		}
		if (p == 0 && s->refused == slot) {
			s->refused = -1;
		}
	}
	s->staging = true;
	s->stage_total = total;
	s->stage_off = 0;
	s->tail_len = 0;
	return RT_APP_STORE_OK;
}

rt_app_store_err_t rt_app_store_stage_write(rt_app_store_t *s, uint32_t off, const void *data, size_t len)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (!s->staging || off != s->stage_off || len > s->stage_total - off) {
		return RT_APP_STORE_EINVAL;
	}
	int slot = staging_slot(s);
	uint32_t wb = s->slot[slot].flash->write_block;
	const uint8_t *d = data;
	size_t left = len;
	/* Worked on a copy: a failed write leaves the state as it was, for the chunk to come again. */
	uint8_t tail[8];
	uint32_t tl = s->tail_len;
	memcpy(tail, s->tail, sizeof(tail));
	uint32_t at = RT_APP_STORE_HEADER_SIZE + off - tl;
	rt_app_store_err_t err;

	if (tl > 0) {
		size_t take = wb - tl < left ? wb - tl : left;
		memcpy(tail + tl, d, take);
		tl += (uint32_t)take;
		d += take;
		left -= take;
		if (tl == wb) {
			if ((err = program(s, slot, at, tail, wb)) != RT_APP_STORE_OK) {
				return err;
			}
			at += wb;
			tl = 0;
		}
	}
	size_t whole = left - left % wb;
	if (whole > 0) {
		if ((err = program(s, slot, at, d, whole)) != RT_APP_STORE_OK) {
			return err;
		}
		at += (uint32_t)whole;
		d += whole;
		left -= whole;
	}
	memcpy(tail + tl, d, left);
	tl += (uint32_t)left;
	if (off + len == s->stage_total && tl > 0) {
		/* The package's last bytes: the block is padded with the erased value. */
		memset(tail + tl, 0xFF, wb - tl);
		if ((err = program(s, slot, at, tail, wb)) != RT_APP_STORE_OK) {
			return err;
		}
		tl = 0;
	}
	memcpy(s->tail, tail, sizeof(tail));
	s->tail_len = (uint8_t)tl;
	s->stage_off = off + (uint32_t)len;
	return RT_APP_STORE_OK;
}

rt_app_store_err_t rt_app_store_stage_read(const rt_app_store_t *s, uint32_t off, void *dst, size_t len)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (!s->staging || off > s->stage_off || len > s->stage_off - off) {
		return RT_APP_STORE_EINVAL;
	}
	/* Programmed bytes from flash; the held-back tail from RAM. */
	uint32_t programmed = s->stage_off - s->tail_len;
	uint8_t *out = dst;
	const uint8_t *p = slot_package(s, staging_slot(s));
	size_t from_flash = off < programmed ? (programmed - off < len ? programmed - off : len) : 0;
	memcpy(out, p + off, from_flash);
	for (size_t i = from_flash; i < len; i++) {
		out[i] = s->tail[off + i - programmed];
	}
	return RT_APP_STORE_OK;
}

bool rt_app_store_staged(const rt_app_store_t *s, const uint8_t **flash, size_t *flash_len,
			 const uint8_t **tail, size_t *tail_len)
{
	if (!s->mounted || !s->staging) {
		return false;
	}
	*flash = slot_package(s, staging_slot(s));
	*flash_len = s->stage_off - s->tail_len;
	*tail = s->tail;
	*tail_len = s->tail_len;
	return true;
}

rt_app_store_err_t rt_app_store_install(rt_app_store_t *s, uint32_t len, rt_package_t *pkg, char *msg,
					size_t msg_cap)
{
	if (msg_cap > 0) {
		msg[0] = '\0';
	}
	if (!s->mounted) {
		snprintf(msg, msg_cap, "the app store is not mounted");
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (!s->staging || s->stage_off != s->stage_total || len != s->stage_total) {
		snprintf(msg, msg_cap, "the upload is incomplete: %lu of %lu bytes",
			 (unsigned long)(s->staging ? s->stage_off : 0), (unsigned long)len);
		return RT_APP_STORE_EINCOMPLETE;
	}
	/* Whatever happens below, this staged copy has had its turn. */
	s->staging = false;
	rt_app_store_download_end(s);
	int slot = staging_slot(s);
	rt_package_t checked;
	if (!package_ok(slot_package(s, slot), len, &checked, msg, msg_cap)) {
		return RT_APP_STORE_EREFUSED;
	}
	if (s->top_seq >= 0xFFFFFFFEu) {
		/* Four thousand million installs: more than the flash's erase cycles allow. */
		snprintf(msg, msg_cap, "the app store's sequence numbers are used up");
		return RT_APP_STORE_EINVAL;
	}
	uint32_t seq = s->top_seq + 1u;
	uint8_t head[RT_APP_STORE_HEADER_BODY];
	memcpy(head, RT_APP_STORE_MAGIC, 4);
	rt_le16_store(head + 4, RT_APP_STORE_FORMAT);
	rt_le16_store(head + 6, RT_APP_STORE_HEADER_SIZE);
	rt_le32_store(head + 8, seq);
	rt_le32_store(head + 12, len);
	rt_le32_store(head + 16, checked.crc);
	rt_le32_store(head + 20, rt_crc32(0, head, 20));
	const uint8_t *mapped = s->slot[slot].mapped;
	if (program(s, slot, 0, head, sizeof(head)) != RT_APP_STORE_OK || memcmp(mapped, head, sizeof(head)) != 0) {
		snprintf(msg, msg_cap, "app store: writing the slot header failed (%d)", s->flash_error);
		return RT_APP_STORE_EFLASH;
	}
	/* The commit: until this block is complete, the old app is the installed one. */
	uint8_t commit[8];
	uint32_t wb = s->slot[slot].flash->write_block;
	size_t commit_len = wb > 4 ? wb : 4;
	memset(commit, 0xFF, sizeof(commit));
	memcpy(commit, RT_APP_STORE_COMMIT, 4);
	if (program(s, slot, RT_APP_STORE_COMMIT_OFFSET, commit, commit_len) != RT_APP_STORE_OK ||
	    memcmp(mapped + RT_APP_STORE_COMMIT_OFFSET, commit, commit_len) != 0) {
		snprintf(msg, msg_cap, "app store: writing the commit marker failed (%d)", s->flash_error);
		return RT_APP_STORE_EFLASH;
	}
	s->active = (int8_t)slot;
	s->active_seq = seq;
	s->top_seq = seq;
	s->app_len = len;
	if (s->refused == slot) {
		s->refused = -1;
	}
	if (pkg != NULL) {
		*pkg = checked;
	}
	return RT_APP_STORE_OK;
}

rt_app_store_err_t rt_app_store_roll_back(rt_app_store_t *s, char *msg, size_t msg_cap)
{
	if (!s->mounted) {
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (s->active < 0) {
		snprintf(msg, msg_cap, "no app is installed");
		return RT_APP_STORE_ENOAPP;
	}
	const hal_flash_t *f = s->slot[s->active].flash;
	if (f->write_block > 4u) {
		snprintf(msg, msg_cap, "this flash cannot mark an app rolled back (write block of %u bytes)",
			 (unsigned)f->write_block);
		return RT_APP_STORE_EINVAL;
	}
	int other = 1 - s->active;
	slot_head_t h;
	rt_app_store_err_t err = read_head(s, other, &h);
	if (err != RT_APP_STORE_OK) {
		return err;
	}
	rt_package_t pkg;
	char why[160];
	if (!h.committed || h.rolled_back || s->staging ||
	    !package_ok(slot_package(s, other), h.len, &pkg, why, sizeof(why))) {
		snprintf(msg, msg_cap, "no app before this one is kept in the store");
		return RT_APP_STORE_ENOAPP;
	}
	int rc = hal_flash_program(f, RT_APP_STORE_BACK_OFFSET, RT_APP_STORE_BACK, 4);
	if (rc != HAL_FLASH_OK) {
		return flash_failed(s, rc);
	}
	rt_app_store_config_t config = {{s->slot[0], s->slot[1]}};
	uint8_t claim = s->claim;
	uint32_t claim_ms = s->claim_ms, claim_idle_ms = s->claim_idle_ms;
	err = rt_app_store_mount(s, &config, msg, msg_cap);
	s->claim = claim;
	s->claim_ms = claim_ms;
	s->claim_idle_ms = claim_idle_ms;
	if (err == RT_APP_STORE_OK && s->active == other) {
		snprintf(msg, msg_cap, "rolled back to the app installed before (CRC %08lx)", (unsigned long)pkg.crc);
	}
	return err;
}

rt_app_store_err_t rt_app_store_install_buffer(rt_app_store_t *s, const uint8_t *package, size_t len,
					       rt_package_t *pkg, char *msg, size_t msg_cap)
{
	rt_package_t checked;
	if (!package_ok(package, len, &checked, msg, msg_cap)) {
		return RT_APP_STORE_EREFUSED;
	}
	if (!s->mounted) {
		snprintf(msg, msg_cap, "the app store is not mounted");
		return RT_APP_STORE_ENOTMOUNTED;
	}
	if (len > s->capacity) {
		snprintf(msg, msg_cap, "package of %zu bytes does not fit the app slot (%lu bytes)", len,
			 (unsigned long)s->capacity);
		return RT_APP_STORE_ETOOBIG;
	}
	rt_app_store_err_t err = rt_app_store_stage_begin(s, (uint32_t)len);
	if (err == RT_APP_STORE_OK) {
		err = rt_app_store_stage_write(s, 0, package, len);
	}
	if (err != RT_APP_STORE_OK) {
		snprintf(msg, msg_cap, "app store: staging the package failed: %s (%d)", rt_app_store_strerror(err),
			 s->flash_error);
		s->staging = false;
		return err;
	}
	return rt_app_store_install(s, (uint32_t)len, pkg, msg, msg_cap);
}

const char *rt_app_store_strerror(rt_app_store_err_t err)
{
	switch (err) {
	case RT_APP_STORE_OK:
		return "ok";
	case RT_APP_STORE_ENOAPP:
		return "no app installed";
	case RT_APP_STORE_EREFUSED:
		return "package refused";
	case RT_APP_STORE_ETOOBIG:
		return "package larger than a slot";
	case RT_APP_STORE_EINCOMPLETE:
		return "upload incomplete";
	case RT_APP_STORE_EFLASH:
		return "flash error";
	case RT_APP_STORE_EINVAL:
		return "invalid argument or geometry";
	case RT_APP_STORE_ENOTMOUNTED:
		return "not mounted";
	case RT_APP_STORE_EBUSY:
		return "staging slot claimed by another writer";
	case RT_APP_STORE_ENOSPACE:
		return "no room for a report record";
	}
	return "unknown error";
}

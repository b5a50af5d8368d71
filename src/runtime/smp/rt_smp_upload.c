/*
 * The SMP server's file-system group, through which a package is uploaded into the staging area
 * (resumable, one owner at a time, given up after idle_ms), and its beacon group: the installed
 * app's status, and the install of a complete upload. See rt_smp.h.
 */
#include <stdio.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_crc32.h"
#include "rt_smp_internal.h"

/* Room for the longest error answer (an install refusal with its message is cut to fit). */
#define MSG_CAP 120u

/* An error of a group: {"err": {"group", "rc"}} in SMP version 2, {"rc": legacy} in version 1;
 * with a message for people when msg is set. */
static void answer_group_err(rt_smp_ctx_t *c, uint16_t group, uint32_t group_rc, uint32_t legacy_rc,
			     const char *msg)
{
	rt_cbor_enc_t *e = &c->e;
	e->len = 0;
	e->overflow = false;
	rt_cbor_enc_map(e, msg ? 2 : 1);
	if (c->req.version == RT_SMP_VERSION_2) {
		rt_cbor_enc_str(e, "err");
		rt_cbor_enc_map(e, 2);
		rt_cbor_enc_str(e, "group");
		rt_cbor_enc_uint(e, group);
		rt_cbor_enc_str(e, "rc");
		rt_cbor_enc_uint(e, group_rc);
	} else {
		rt_cbor_enc_str(e, "rc");
		rt_cbor_enc_uint(e, legacy_rc);
	}
	if (msg) {
		rt_cbor_enc_str(e, "msg");
		rt_cbor_enc_str(e, msg);
	}
	c->s->errors++;
}

/* Version 1 has no file group codes; these are the nearest mcumgr_err_t, as Zephyr maps them. */
static uint32_t fs_legacy(rt_smp_fs_err_t err)
{
	switch (err) {
	case RT_SMP_FS_ERR_INVALID_NAME:
		return RT_SMP_ERR_ACCESSDENIED;
	case RT_SMP_FS_ERR_NOT_FOUND:
		return RT_SMP_ERR_NOENT;
	case RT_SMP_FS_ERR_OFFSET_NOT_VALID:
	case RT_SMP_FS_ERR_OFFSET_LARGER:
	case RT_SMP_FS_ERR_HASH_NOT_FOUND:
	case RT_SMP_FS_ERR_FILE_EMPTY:
		return RT_SMP_ERR_INVAL;
	default:
		return RT_SMP_ERR_UNKNOWN;
	}
}

static void answer_fs_err(rt_smp_ctx_t *c, rt_smp_fs_err_t err)
{
	answer_group_err(c, RT_SMP_GROUP_FS, err, fs_legacy(err), NULL);
}

static void answer_off(rt_smp_ctx_t *c, uint32_t off)
{
	rt_cbor_enc_map(&c->e, 1);
	rt_cbor_enc_str(&c->e, "off");
	rt_cbor_enc_uint(&c->e, off);
}

static bool text_eq(const char *t, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(t, s, n) == 0;
}

/* Whether the body is one well-formed CBOR map (no data at all counts as an empty map). */

/* An upload whose owner has been silent for idle_ms is given up. */
static void expire_upload(rt_smp_ctx_t *c)
{
	rt_smp_server_t *s = c->s;
	if (s->state != RT_SMP_UPLOAD_IDLE && (uint32_t)(c->now - s->last_ms) >= s->cfg.idle_ms) {
		rt_smp_reset_upload(s);
	}
}

/* The staging area is claimed for this upload (its claim kept fresh); false, with the answer rc
 * 10 and the area's message, while its other writer (a cloud download) holds it. */
static bool area_claimed(rt_smp_ctx_t *c)
{
	const rt_smp_staging_t *st = c->s->cfg.staging;
	if (st->claim == NULL || st->claim(st->ctx, c->now, c->s->cfg.idle_ms) == 0) {
		return true;
	}
	rt_smp_answer_rc_msg(c, RT_SMP_ERR_BUSY, st->busy_msg);
	return false;
}

static bool same_package(const rt_smp_server_t *s, const rt_smp_fields_t *f)
{
	return f->has_sha && f->sha_len > 0 && f->sha_len == s->sha_len && f->len == s->total &&
	       memcmp(f->sha, s->sha, f->sha_len) == 0;
}

static void fs_upload(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	rt_smp_server_t *s = c->s;
	const rt_smp_staging_t *st = s->cfg.staging;

	if (!f->has_off || !f->has_data || !f->has_name || (f->has_sha && f->sha_len > RT_SMP_SHA_MAX)) {
		rt_smp_answer_rc(c, RT_SMP_ERR_INVAL);
		return;
	}
	if (!text_eq(f->name, f->name_len, RT_SMP_STAGING_NAME)) {
		answer_fs_err(c, RT_SMP_FS_ERR_INVALID_NAME);
		return;
	}
	expire_upload(c);
	if (f->off == 0) {
		if (!f->has_len) {
			rt_smp_answer_rc(c, RT_SMP_ERR_INVAL);
			return;
		}
		if (f->len == 0) {
			answer_fs_err(c, RT_SMP_FS_ERR_FILE_EMPTY);
			return;
		}
		if (f->len > st->capacity) {
			rt_smp_answer_rc(c, RT_SMP_ERR_NOMEM);
			return;
		}
		if (s->state != RT_SMP_UPLOAD_IDLE && same_package(s, f)) {
			/* The same package again (a resumed link, or the same package from another
			 * client): keep what is staged; below, the answer says where to go on (or,
			 * when nothing was written yet, this chunk is written). */
			if (!area_claimed(c)) {
				rt_smp_reset_upload(s); /* taken by the other writer: gone */
				return;
			}
			s->owner = c->client;
		} else {
			if (s->state != RT_SMP_UPLOAD_IDLE && s->owner != c->client) {
				rt_smp_answer_rc(c, RT_SMP_ERR_BUSY);
				return;
			}
			rt_smp_reset_upload(s);
			if (!area_claimed(c)) {
				return;
			}
			if (st->begin(st->ctx, (uint32_t)f->len) != 0) {
				rt_smp_reset_upload(s);
				answer_fs_err(c, RT_SMP_FS_ERR_WRITE_FAILED);
				return;
			}
			s->state = RT_SMP_UPLOAD_ACTIVE;
			s->owner = c->client;
			s->total = (uint32_t)f->len;
			s->sha_len = (uint8_t)(f->has_sha ? f->sha_len : 0);
			if (s->sha_len > 0) {
				memcpy(s->sha, f->sha, s->sha_len);
			}
		}
	} else {
		if (s->state == RT_SMP_UPLOAD_IDLE) {
			answer_off(c, 0); /* nothing staged: start over at 0 */
			return;
		}
		if (s->owner != c->client) {
			rt_smp_answer_rc(c, RT_SMP_ERR_BUSY);
			return;
		}
		if (!area_claimed(c)) {
			rt_smp_reset_upload(s);
			return;
		}
	}
	s->last_ms = c->now;
	if (f->off != s->off || s->state == RT_SMP_UPLOAD_COMPLETE) {
		answer_off(c, s->off);
		return;
	}
	if (f->data_len > s->total - s->off) {
		rt_smp_answer_rc(c, RT_SMP_ERR_INVAL);
		return;
	}
	if (f->data_len > 0 && st->write(st->ctx, s->off, f->data, f->data_len) != 0) {
		answer_fs_err(c, RT_SMP_FS_ERR_WRITE_FAILED);
		return;
	}
	s->off += (uint32_t)f->data_len;
	if (s->off == s->total) {
		s->state = RT_SMP_UPLOAD_COMPLETE;
	}
	answer_off(c, s->off);
}

static void fs_status(rt_smp_ctx_t *c)
{
	expire_upload(c);
	if (c->s->state == RT_SMP_UPLOAD_IDLE) {
		answer_fs_err(c, RT_SMP_FS_ERR_NOT_FOUND);
		return;
	}
	rt_cbor_enc_map(&c->e, 1);
	rt_cbor_enc_str(&c->e, "len");
	rt_cbor_enc_uint(&c->e, c->s->off);
}

static void fs_hash(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	rt_smp_server_t *s = c->s;
	const rt_smp_staging_t *st = s->cfg.staging;

	if (f->has_type && !text_eq(f->type, f->type_len, "crc32")) {
		answer_fs_err(c, RT_SMP_FS_ERR_HASH_NOT_FOUND);
		return;
	}
	expire_upload(c);
	if (s->state == RT_SMP_UPLOAD_IDLE) {
		answer_fs_err(c, RT_SMP_FS_ERR_NOT_FOUND);
		return;
	}
	uint64_t off = f->has_off ? f->off : 0;
	if (off > s->off) {
		answer_fs_err(c, RT_SMP_FS_ERR_OFFSET_LARGER);
		return;
	}
	uint64_t len = s->off - off;
	if (f->has_len && f->len < len) {
		len = f->len;
	}
	uint8_t buf[64];
	uint32_t crc = 0;
	for (uint64_t done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
		if (st->read(st->ctx, (uint32_t)(off + done), buf, n) != 0) {
			answer_fs_err(c, RT_SMP_FS_ERR_READ_FAILED);
			return;
		}
		crc = rt_crc32(crc, buf, n);
		done += n;
	}
	rt_cbor_enc_t *e = &c->e;
	rt_cbor_enc_map(e, off ? 4 : 3);
	rt_cbor_enc_str(e, "type");
	rt_cbor_enc_str(e, "crc32");
	if (off) {
		rt_cbor_enc_str(e, "off");
		rt_cbor_enc_uint(e, off);
	}
	rt_cbor_enc_str(e, "len");
	rt_cbor_enc_uint(e, len);
	rt_cbor_enc_str(e, "output");
	rt_cbor_enc_uint(e, crc);
}

void rt_smp_fs_group(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	uint8_t cmd = c->req.cmd;
	uint8_t op = c->req.op;

	if (cmd == RT_SMP_FS_FILE && op == RT_SMP_OP_WRITE) {
		fs_upload(c, f);
		return;
	}
	if (op != RT_SMP_OP_READ || cmd > RT_SMP_FS_HASH_TYPES || cmd == RT_SMP_FS_FILE) {
		rt_smp_answer_rc(c, RT_SMP_ERR_NOTSUP); /* file download is not offered */
		return;
	}
	if (cmd == RT_SMP_FS_HASH_TYPES) {
		rt_cbor_enc_t *e = &c->e;
		rt_cbor_enc_map(e, 1);
		rt_cbor_enc_str(e, "types");
		rt_cbor_enc_map(e, 1);
		rt_cbor_enc_str(e, "crc32");
		rt_cbor_enc_map(e, 2);
		rt_cbor_enc_str(e, "format");
		rt_cbor_enc_uint(e, 0); /* a number, not a byte string */
		rt_cbor_enc_str(e, "size");
		rt_cbor_enc_uint(e, 4);
		return;
	}
	if (!f->has_name) {
		rt_smp_answer_rc(c, RT_SMP_ERR_INVAL);
		return;
	}
	if (!text_eq(f->name, f->name_len, RT_SMP_STAGING_NAME)) {
		answer_fs_err(c, RT_SMP_FS_ERR_INVALID_NAME);
		return;
	}
	if (cmd == RT_SMP_FS_STATUS) {
		fs_status(c);
	} else {
		fs_hash(c, f);
	}
}

static const char *upload_state_name(rt_smp_upload_state_t st)
{
	switch (st) {
	case RT_SMP_UPLOAD_ACTIVE:
		return "active";
	case RT_SMP_UPLOAD_COMPLETE:
		return "complete";
	default:
		return "idle";
	}
}

static void beacon_status(rt_smp_ctx_t *c)
{
	rt_smp_server_t *s = c->s;
	rt_smp_app_status_t st = {.installed = false, .state = "none"};
	if (s->cfg.status) {
		s->cfg.status(s->cfg.app_ctx, &st);
	}
	expire_upload(c);
	rt_cbor_enc_t *e = &c->e;
	rt_cbor_enc_map(e, 9);
	rt_cbor_enc_str(e, "installed");
	rt_cbor_enc_bool(e, st.installed);
	rt_cbor_enc_str(e, "crc");
	rt_cbor_enc_uint(e, st.crc);
	rt_cbor_enc_str(e, "api");
	rt_cbor_enc_uint(e, st.api_version);
	rt_cbor_enc_str(e, "engine");
	rt_cbor_enc_uint(e, st.engine_id);
	rt_cbor_enc_str(e, "engine_version");
	rt_cbor_enc_uint(e, st.engine_version);
	rt_cbor_enc_str(e, "state");
	rt_cbor_enc_str(e, st.state ? st.state : "none");
	rt_cbor_enc_str(e, "upload");
	rt_cbor_enc_str(e, upload_state_name(s->state));
	rt_cbor_enc_str(e, "staged");
	rt_cbor_enc_uint(e, s->off);
	rt_cbor_enc_str(e, "total");
	rt_cbor_enc_uint(e, s->total);
}

static void beacon_refuse(rt_smp_ctx_t *c, rt_smp_beacon_err_t err, const char *msg)
{
	answer_group_err(c, RT_SMP_GROUP_BEACON, err, RT_SMP_ERR_PERUSER + err, msg);
}

static void beacon_install(rt_smp_ctx_t *c)
{
	rt_smp_server_t *s = c->s;
	char msg[MSG_CAP];

	expire_upload(c);
	if (s->state == RT_SMP_UPLOAD_IDLE) {
		beacon_refuse(c, RT_SMP_BEACON_ERR_NOTHING_STAGED, "no package is staged: upload one first");
		return;
	}
	if (s->owner != c->client) {
		beacon_refuse(c, RT_SMP_BEACON_ERR_NOT_OWNER, "the staged package belongs to another upload");
		return;
	}
	if (s->state != RT_SMP_UPLOAD_COMPLETE) {
		snprintf(msg, sizeof(msg), "the upload is incomplete: %lu of %lu bytes",
			 (unsigned long)s->off, (unsigned long)s->total);
		beacon_refuse(c, RT_SMP_BEACON_ERR_INCOMPLETE, msg);
		return;
	}
	if (!area_claimed(c)) {
		rt_smp_reset_upload(s);
		return;
	}
	msg[0] = '\0';
	int rc = s->cfg.install ? s->cfg.install(s->cfg.app_ctx, s->cfg.staging, s->total, msg, sizeof(msg))
				: -1;
	msg[sizeof(msg) - 1] = '\0';
	/* Installed or refused, the staged copy has had its turn: the area is free again. */
	rt_smp_reset_upload(s);
	if (rc != 0) {
		beacon_refuse(c, RT_SMP_BEACON_ERR_REFUSED, msg[0] ? msg : "package refused");
		return;
	}
	rt_cbor_enc_t *e = &c->e;
	rt_cbor_enc_map(e, 2);
	rt_cbor_enc_str(e, "rc");
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_str(e, "msg");
	rt_cbor_enc_str(e, msg[0] ? msg : "installed");
}

void rt_smp_beacon_group(rt_smp_ctx_t *c)
{
	if (c->req.cmd == RT_SMP_BEACON_STATUS && c->req.op == RT_SMP_OP_READ) {
		beacon_status(c);
	} else if (c->req.cmd == RT_SMP_BEACON_INSTALL && c->req.op == RT_SMP_OP_WRITE) {
		beacon_install(c);
	} else {
		rt_smp_answer_rc(c, RT_SMP_ERR_NOTSUP);
	}
}

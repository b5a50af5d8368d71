/*
 * rt_smp.c: see rt_smp.h for the protocol and the upload rules.
 */
#include "rt_smp.h"

#include <stdio.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_package.h"

/* Room for the longest error answer (an install refusal with its message is cut to fit). */
#define MSG_CAP 120u

typedef struct {
	rt_smp_server_t *s;
	rt_smp_hdr_t req;
	uint32_t client;
	uint32_t now;
	rt_cbor_enc_t e;
} rt_smp_ctx_t;

/* The fields any request of the served commands may carry. */
typedef struct {
	bool has_off, has_len, has_data, has_name, has_sha, has_type, has_d;
	uint64_t off, len;
	const uint8_t *data, *sha;
	size_t data_len, sha_len;
	const char *name, *type, *d;
	size_t name_len, type_len, d_len;
} rt_smp_fields_t;

void rt_smp_hdr_encode(const rt_smp_hdr_t *h, uint8_t out[RT_SMP_HDR_SIZE])
{
	out[0] = (uint8_t)((h->version & 3u) << 3 | (h->op & 7u));
	out[1] = h->flags;
	out[2] = (uint8_t)(h->len >> 8);
	out[3] = (uint8_t)h->len;
	out[4] = (uint8_t)(h->group >> 8);
	out[5] = (uint8_t)h->group;
	out[6] = h->seq;
	out[7] = h->cmd;
}

bool rt_smp_hdr_decode(const uint8_t *buf, size_t len, rt_smp_hdr_t *out)
{
	if (len < RT_SMP_HDR_SIZE || (buf[0] & 0xe0u) != 0) {
		return false;
	}
	out->version = (buf[0] >> 3) & 3u;
	out->op = buf[0] & 7u;
	out->flags = buf[1];
	out->len = (uint16_t)(buf[2] << 8 | buf[3]);
	out->group = (uint16_t)(buf[4] << 8 | buf[5]);
	out->seq = buf[6];
	out->cmd = buf[7];
	return true;
}

void rt_smp_init(rt_smp_server_t *s, const rt_smp_config_t *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
}

void rt_smp_reset_upload(rt_smp_server_t *s)
{
	s->state = RT_SMP_UPLOAD_IDLE;
	s->owner = 0;
	s->total = 0;
	s->off = 0;
	s->sha_len = 0;
}

/* ----------------------------------------------------------------------------------------- */
/* Answers */

static void begin_answer(rt_smp_ctx_t *c, uint8_t *rsp, size_t rsp_cap)
{
	size_t cap = rsp_cap - RT_SMP_HDR_SIZE;
	/* The header's length field is 16 bits. */
	rt_cbor_enc_init(&c->e, rsp + RT_SMP_HDR_SIZE, cap > 0xffffu ? 0xffffu : cap);
}

static void answer_rc(rt_smp_ctx_t *c, uint32_t rc)
{
	c->e.len = 0;
	c->e.overflow = false;
	rt_cbor_enc_map(&c->e, 1);
	rt_cbor_enc_str(&c->e, "rc");
	rt_cbor_enc_uint(&c->e, rc);
	c->s->errors++;
}

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

/* ----------------------------------------------------------------------------------------- */
/* Requests */

static bool text_eq(const char *t, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(t, s, n) == 0;
}

/* Whether the body is one well-formed CBOR map (no data at all counts as an empty map). */
static bool is_map(const uint8_t *body, size_t len)
{
	rt_cbor_dec_t d;
	rt_cbor_item_t it;
	if (len == 0) {
		return true;
	}
	rt_cbor_dec_init(&d, body, len);
	return rt_cbor_check(body, len) == RT_CBOR_OK && rt_cbor_next(&d, &it) == RT_CBOR_OK &&
	       it.type == RT_CBOR_MAP;
}

/* The group, command and op combinations this server answers. */
static bool served(const rt_smp_hdr_t *h)
{
	bool read = h->op == RT_SMP_OP_READ;
	bool write = h->op == RT_SMP_OP_WRITE;
	switch (h->group) {
	case RT_SMP_GROUP_OS:
		return h->cmd == RT_SMP_OS_ECHO || (h->cmd == RT_SMP_OS_PARAMS && read);
	case RT_SMP_GROUP_FS:
		return (h->cmd == RT_SMP_FS_FILE && write) ||
		       (read && (h->cmd == RT_SMP_FS_STATUS || h->cmd == RT_SMP_FS_HASH ||
				 h->cmd == RT_SMP_FS_HASH_TYPES));
	case RT_SMP_GROUP_BEACON:
		return (h->cmd == RT_SMP_BEACON_STATUS && read) || (h->cmd == RT_SMP_BEACON_INSTALL && write);
	default:
		return false;
	}
}

/* Parse a body that is_map() accepted into the known fields; false (rc 3) when a known field
 * has the wrong type. Unknown keys are skipped, as MCUmgr does. */
static bool parse_fields(const uint8_t *body, size_t len, rt_smp_fields_t *f)
{
	rt_cbor_dec_t d;
	rt_cbor_item_t it;

	memset(f, 0, sizeof(*f));
	if (len == 0) {
		return true;
	}
	rt_cbor_dec_init(&d, body, len);
	if (rt_cbor_next(&d, &it) != RT_CBOR_OK) {
		return false;
	}
	for (uint64_t i = 0; i < it.u; i++) {
		rt_cbor_item_t key;
		rt_cbor_err_t err;
		if (rt_cbor_next(&d, &key) != RT_CBOR_OK) {
			return false;
		}
		if (key.type != RT_CBOR_TEXT) {
			if (rt_cbor_skip(&d) != RT_CBOR_OK) {
				return false;
			}
			continue;
		}
		if (rt_cbor_text_is(&key, "off")) {
			err = rt_cbor_read_uint(&d, &f->off);
			f->has_off = true;
		} else if (rt_cbor_text_is(&key, "len")) {
			err = rt_cbor_read_uint(&d, &f->len);
			f->has_len = true;
		} else if (rt_cbor_text_is(&key, "data")) {
			err = rt_cbor_read_bytes(&d, &f->data, &f->data_len);
			f->has_data = true;
		} else if (rt_cbor_text_is(&key, "sha")) {
			err = rt_cbor_read_bytes(&d, &f->sha, &f->sha_len);
			f->has_sha = true;
		} else if (rt_cbor_text_is(&key, "name")) {
			err = rt_cbor_read_text(&d, &f->name, &f->name_len);
			f->has_name = true;
		} else if (rt_cbor_text_is(&key, "type")) {
			err = rt_cbor_read_text(&d, &f->type, &f->type_len);
			f->has_type = true;
		} else if (rt_cbor_text_is(&key, "d")) {
			err = rt_cbor_read_text(&d, &f->d, &f->d_len);
			f->has_d = true;
		} else {
			err = rt_cbor_skip(&d);
		}
		if (err != RT_CBOR_OK) {
			return false;
		}
	}
	return true;
}

/* An upload whose owner has been silent for idle_ms is given up. */
static void expire_upload(rt_smp_ctx_t *c)
{
	rt_smp_server_t *s = c->s;
	if (s->state != RT_SMP_UPLOAD_IDLE && (uint32_t)(c->now - s->last_ms) >= s->cfg.idle_ms) {
		rt_smp_reset_upload(s);
	}
}

static bool same_package(const rt_smp_server_t *s, const rt_smp_fields_t *f)
{
	return f->has_sha && f->sha_len > 0 && f->sha_len == s->sha_len && f->len == s->total &&
	       memcmp(f->sha, s->sha, f->sha_len) == 0;
}

static void os_group(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	rt_cbor_enc_t *e = &c->e;
	if (c->req.cmd == RT_SMP_OS_ECHO) {
		if (!f->has_d) {
			answer_rc(c, RT_SMP_ERR_INVAL);
			return;
		}
		rt_cbor_enc_map(e, 1);
		rt_cbor_enc_str(e, "r");
		rt_cbor_enc_text(e, f->d, f->d_len);
	} else if (c->req.cmd == RT_SMP_OS_PARAMS && c->req.op == RT_SMP_OP_READ) {
		rt_cbor_enc_map(e, 2);
		rt_cbor_enc_str(e, "buf_size");
		rt_cbor_enc_uint(e, c->s->cfg.buf_size);
		rt_cbor_enc_str(e, "buf_count");
		rt_cbor_enc_uint(e, c->s->cfg.buf_count);
	} else {
		answer_rc(c, RT_SMP_ERR_NOTSUP);
	}
}

static void fs_upload(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	rt_smp_server_t *s = c->s;
	const rt_smp_staging_t *st = s->cfg.staging;

	if (!f->has_off || !f->has_data || !f->has_name || (f->has_sha && f->sha_len > RT_SMP_SHA_MAX)) {
		answer_rc(c, RT_SMP_ERR_INVAL);
		return;
	}
	if (!text_eq(f->name, f->name_len, RT_SMP_STAGING_NAME)) {
		answer_fs_err(c, RT_SMP_FS_ERR_INVALID_NAME);
		return;
	}
	expire_upload(c);
	if (f->off == 0) {
		if (!f->has_len) {
			answer_rc(c, RT_SMP_ERR_INVAL);
			return;
		}
		if (f->len == 0) {
			answer_fs_err(c, RT_SMP_FS_ERR_FILE_EMPTY);
			return;
		}
		if (f->len > st->capacity) {
			answer_rc(c, RT_SMP_ERR_NOMEM);
			return;
		}
		if (s->state != RT_SMP_UPLOAD_IDLE && same_package(s, f)) {
			/* The same package again (a resumed link, or the same package from another
			 * client): keep what is staged; below, the answer says where to go on (or,
			 * when nothing was written yet, this chunk is written). */
			s->owner = c->client;
		} else {
			if (s->state != RT_SMP_UPLOAD_IDLE && s->owner != c->client) {
				answer_rc(c, RT_SMP_ERR_BUSY);
				return;
			}
			rt_smp_reset_upload(s);
			if (st->begin(st->ctx, (uint32_t)f->len) != 0) {
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
			answer_rc(c, RT_SMP_ERR_BUSY);
			return;
		}
	}
	s->last_ms = c->now;
	if (f->off != s->off || s->state == RT_SMP_UPLOAD_COMPLETE) {
		answer_off(c, s->off);
		return;
	}
	if (f->data_len > s->total - s->off) {
		answer_rc(c, RT_SMP_ERR_INVAL);
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

static void fs_group(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	uint8_t cmd = c->req.cmd;
	uint8_t op = c->req.op;

	if (cmd == RT_SMP_FS_FILE && op == RT_SMP_OP_WRITE) {
		fs_upload(c, f);
		return;
	}
	if (op != RT_SMP_OP_READ || cmd > RT_SMP_FS_HASH_TYPES || cmd == RT_SMP_FS_FILE) {
		answer_rc(c, RT_SMP_ERR_NOTSUP); /* file download is not offered */
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
		answer_rc(c, RT_SMP_ERR_INVAL);
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

static void beacon_group(rt_smp_ctx_t *c)
{
	if (c->req.cmd == RT_SMP_BEACON_STATUS && c->req.op == RT_SMP_OP_READ) {
		beacon_status(c);
	} else if (c->req.cmd == RT_SMP_BEACON_INSTALL && c->req.op == RT_SMP_OP_WRITE) {
		beacon_install(c);
	} else {
		answer_rc(c, RT_SMP_ERR_NOTSUP);
	}
}

size_t rt_smp_handle(rt_smp_server_t *s, uint32_t client, uint32_t now_ms, const uint8_t *req,
		     size_t req_len, uint8_t *rsp, size_t rsp_cap)
{
	rt_smp_ctx_t c;
	rt_smp_fields_t f;

	if (!req || !rsp || rsp_cap < RT_SMP_HDR_SIZE + 16u || !rt_smp_hdr_decode(req, req_len, &c.req)) {
		return 0;
	}
	if (c.req.op == RT_SMP_OP_READ_RSP || c.req.op == RT_SMP_OP_WRITE_RSP || c.req.op > 3u) {
		return 0;
	}
	s->requests++;
	c.s = s;
	c.client = client;
	c.now = now_ms;
	begin_answer(&c, rsp, rsp_cap);

	size_t body_len = req_len - RT_SMP_HDR_SIZE;
	if (c.req.version > RT_SMP_VERSION_2) {
		c.req.version = RT_SMP_VERSION_2;
		answer_rc(&c, RT_SMP_ERR_TOO_NEW);
	} else if (body_len != c.req.len) {
		answer_rc(&c, RT_SMP_ERR_CORRUPT);
	} else if (!is_map(req + RT_SMP_HDR_SIZE, body_len)) {
		answer_rc(&c, RT_SMP_ERR_INVAL);
	} else if (!served(&c.req)) {
		answer_rc(&c, RT_SMP_ERR_NOTSUP);
	} else if (!parse_fields(req + RT_SMP_HDR_SIZE, body_len, &f)) {
		answer_rc(&c, RT_SMP_ERR_INVAL);
	} else if (c.req.group == RT_SMP_GROUP_OS) {
		os_group(&c, &f);
	} else if (c.req.group == RT_SMP_GROUP_FS) {
		fs_group(&c, &f);
	} else {
		beacon_group(&c);
	}
	if (!rt_cbor_enc_ok(&c.e)) {
		/* An echo longer than the response buffer, say. */
		answer_rc(&c, RT_SMP_ERR_MSGSIZE);
		if (!rt_cbor_enc_ok(&c.e)) {
			return 0;
		}
	}
	rt_smp_hdr_t h = c.req;
	h.op = (uint8_t)(c.req.op + 1u);
	h.flags = 0;
	h.len = (uint16_t)c.e.len;
	rt_smp_hdr_encode(&h, rsp);
	return RT_SMP_HDR_SIZE + c.e.len;
}

void rt_smp_status_of(rt_smp_app_status_t *out, const uint8_t *slot, size_t len, const char *state)
{
	rt_package_t pkg;
	char why[160];
	if (slot == NULL || len == 0 || rt_package_check(slot, len, &pkg, why, sizeof(why)) != RT_PACKAGE_OK) {
		out->installed = false;
		out->state = "none";
		return;
	}
	out->installed = true;
	out->crc = pkg.crc;
	out->api_version = pkg.api_version;
	out->engine_id = pkg.engine_id;
	out->engine_version = pkg.engine_version;
	out->state = state;
}

void rt_smp_installed_msg(const rt_package_t *pkg, char *msg, size_t cap)
{
	snprintf(msg, cap, "installed: API %u.%u.%u, %lu bytes of bytecode, CRC %08lx",
		 (unsigned)(pkg->api_version >> 16), (unsigned)((pkg->api_version >> 8) & 0xffu),
		 (unsigned)(pkg->api_version & 0xffu), (unsigned long)pkg->bytecode_size,
		 (unsigned long)pkg->crc);
}

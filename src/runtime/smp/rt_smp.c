/*
 * rt_smp.c: see rt_smp.h for the protocol and the upload rules. This file: the header, a
 * request's checks and fields, the dispatch and the OS group; the uploads and the beacon group
 * are in rt_smp_upload.c.
 */
#include "rt_smp.h"

#include <stdio.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_package.h"
#include "rt_smp_internal.h"

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
	const rt_smp_staging_t *st = s->cfg.staging;
	if (st != NULL && st->release != NULL) {
		st->release(st->ctx);
	}
}

/* ----------------------------------------------------------------------------------------- */
/* Answers */

static void begin_answer(rt_smp_ctx_t *c, uint8_t *rsp, size_t rsp_cap)
{
	size_t cap = rsp_cap - RT_SMP_HDR_SIZE;
	/* The header's length field is 16 bits. */
	rt_cbor_enc_init(&c->e, rsp + RT_SMP_HDR_SIZE, cap > 0xffffu ? 0xffffu : cap);
}

void rt_smp_answer_rc(rt_smp_ctx_t *c, uint32_t rc)
{
	rt_smp_answer_rc_msg(c, rc, NULL);
}

void rt_smp_answer_rc_msg(rt_smp_ctx_t *c, uint32_t rc, const char *msg)
{
	c->e.len = 0;
	c->e.overflow = false;
	rt_cbor_enc_map(&c->e, msg != NULL ? 2 : 1);
	rt_cbor_enc_str(&c->e, "rc");
	rt_cbor_enc_uint(&c->e, rc);
	if (msg != NULL) {
		rt_cbor_enc_str(&c->e, "msg");
		rt_cbor_enc_str(&c->e, msg);
	}
	c->s->errors++;
}

/* ----------------------------------------------------------------------------------------- */
/* Requests */

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

static void os_group(rt_smp_ctx_t *c, const rt_smp_fields_t *f)
{
	rt_cbor_enc_t *e = &c->e;
	if (c->req.cmd == RT_SMP_OS_ECHO) {
		if (!f->has_d) {
			rt_smp_answer_rc(c, RT_SMP_ERR_INVAL);
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
		rt_smp_answer_rc(c, RT_SMP_ERR_NOTSUP);
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
		rt_smp_answer_rc(&c, RT_SMP_ERR_TOO_NEW);
	} else if (body_len != c.req.len) {
		rt_smp_answer_rc(&c, RT_SMP_ERR_CORRUPT);
	} else if (!is_map(req + RT_SMP_HDR_SIZE, body_len)) {
		rt_smp_answer_rc(&c, RT_SMP_ERR_INVAL);
	} else if (!served(&c.req)) {
		rt_smp_answer_rc(&c, RT_SMP_ERR_NOTSUP);
	} else if (!parse_fields(req + RT_SMP_HDR_SIZE, body_len, &f)) {
		rt_smp_answer_rc(&c, RT_SMP_ERR_INVAL);
	} else if (c.req.group == RT_SMP_GROUP_OS) {
		os_group(&c, &f);
	} else if (c.req.group == RT_SMP_GROUP_FS) {
		rt_smp_fs_group(&c, &f);
	} else {
		rt_smp_beacon_group(&c);
	}
	if (!rt_cbor_enc_ok(&c.e)) {
		/* An echo longer than the response buffer, say. */
		rt_smp_answer_rc(&c, RT_SMP_ERR_MSGSIZE);
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

/*
 * The SMP server (rt_smp) and its serial framing (rt_smp_serial).
 *
 * Expected bytes are written out by hand from the MCUmgr documentation (smp_protocol.rst: the
 * header; smp_group_0/8.rst: the bodies; smp_transport.rst: the serial frames, CRC16 and base64)
 * rather than produced by the encoders under test. The upload tests drive the server as clients
 * would: in chunks, cut off and resumed, at wrong offsets, two at once, with real app packages
 * (rt_package_build) that the install step checks with rt_package_check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rt_cbor.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"

/* ------------------------------------------------------------------------------------------- */
/* A RAM staging area and an "installed" app, as the host test server has them */

typedef struct {
	uint8_t data[8192];
	uint32_t total;
	uint32_t begins;
	int fail_writes;
} ram_t;

typedef struct {
	uint8_t pkg[8192];
	uint32_t len;
	bool installed;
	uint32_t installs;
} app_t;

static int ram_begin(void *ctx, uint32_t total)
{
	ram_t *r = ctx;
	if (total > sizeof(r->data)) {
		return -1;
	}
	memset(r->data, 0xff, sizeof(r->data));
	r->total = total;
	r->begins++;
	return 0;
}

static int ram_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	ram_t *r = ctx;
	if (r->fail_writes > 0) {
		r->fail_writes--;
		return -1;
	}
	if (off > r->total || len > r->total - off) {
		return -1;
	}
	memcpy(r->data + off, data, len);
	return 0;
}

static int ram_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	ram_t *r = ctx;
	if (off > r->total || len > r->total - off) {
		return -1;
	}
	memcpy(data, r->data + off, len);
	return 0;
}

static int app_install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	app_t *a = ctx;
	static uint8_t buf[8192];
	rt_package_t pkg;
	if (len > sizeof(buf) || st->read(st->ctx, 0, buf, len) != 0) {
		snprintf(msg, cap, "cannot read the staged package");
		return -1;
	}
	if (rt_package_check(buf, len, &pkg, msg, cap) != RT_PACKAGE_OK ||
	    rt_signature_check(buf, &pkg, msg, cap) != RT_SIGNATURE_OK) {
		return -1;
	}
	memcpy(a->pkg, buf, len);
	a->len = len;
	a->installed = true;
	a->installs++;
	snprintf(msg, cap, "installed %lu bytes", (unsigned long)len);
	return 0;
}

static void app_status(void *ctx, rt_smp_app_status_t *out)
{
	app_t *a = ctx;
	rt_package_t pkg;
	char msg[128];
	out->installed = a->installed;
	out->state = a->installed ? "running" : "none";
	if (a->installed && rt_package_check(a->pkg, a->len, &pkg, msg, sizeof(msg)) == RT_PACKAGE_OK) {
		out->crc = pkg.crc;
		out->api_version = pkg.api_version;
		out->engine_id = pkg.engine_id;
		out->engine_version = pkg.engine_version;
	}
}

typedef struct {
	ram_t ram;
	app_t app;
	rt_smp_staging_t staging;
	rt_smp_server_t server;
	uint32_t now;
} fixture_t;

static int setup(void **state)
{
	fixture_t *f = calloc(1, sizeof(*f));
	f->staging = (rt_smp_staging_t){ram_begin, ram_write, ram_read, sizeof(f->ram.data), &f->ram, NULL, NULL, NULL};
	rt_smp_config_t cfg = {
		.staging = &f->staging,
		.install = app_install,
		.status = app_status,
		.app_ctx = &f->app,
		.buf_size = 1024,
		.buf_count = 4,
		.idle_ms = 30000,
	};
	rt_smp_init(&f->server, &cfg);
	f->now = 1000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Requests and responses */

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = hex; *p;) {
		if (*p == ' ') {
			p++;
			continue;
		}
		unsigned v;
		assert_int_equal(sscanf(p, "%2x", &v), 1);
		assert_true(n < cap);
		out[n++] = (uint8_t)v;
		p += 2;
	}
	return n;
}

static void assert_hex(const uint8_t *got, size_t len, const char *hex)
{
	uint8_t want[512];
	size_t n = unhex(hex, want, sizeof(want));
	if (len != n || memcmp(got, want, n) != 0) {
		char text[1100];
		size_t k = 0;
		for (size_t i = 0; i < len && k + 3 < sizeof(text); i++) {
			k += (size_t)snprintf(text + k, sizeof(text) - k, "%02x", got[i]);
		}
		fail_msg("got %s\nwant %s", text, hex);
	}
}

typedef struct {
	const uint8_t *name; /* NULL: no name field */
	const char *name_text;
	bool has_off;
	uint32_t off;
	const uint8_t *data;
	size_t data_len;
	bool has_len;
	uint32_t len;
	const uint8_t *sha;
	size_t sha_len;
} upload_t;

static size_t packet(uint8_t *out, uint8_t version, uint8_t op, uint16_t group, uint8_t seq, uint8_t cmd,
		     const uint8_t *body, size_t body_len)
{
	rt_smp_hdr_t h = {version, op, 0, (uint16_t)body_len, group, seq, cmd};
	rt_smp_hdr_encode(&h, out);
	memcpy(out + RT_SMP_HDR_SIZE, body, body_len);
	return RT_SMP_HDR_SIZE + body_len;
}

static size_t upload_req(uint8_t *out, uint8_t version, uint8_t seq, const char *name, uint32_t off,
			 const uint8_t *data, size_t n, int64_t len, const uint8_t *sha, size_t sha_len)
{
	uint8_t body[2048];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, 3 + (len >= 0) + (sha != NULL));
	rt_cbor_enc_str(&e, "off");
	rt_cbor_enc_uint(&e, off);
	rt_cbor_enc_str(&e, "data");
	rt_cbor_enc_bytes(&e, data, n);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, name);
	if (len >= 0) {
		rt_cbor_enc_str(&e, "len");
		rt_cbor_enc_uint(&e, (uint64_t)len);
	}
	if (sha) {
		rt_cbor_enc_str(&e, "sha");
		rt_cbor_enc_bytes(&e, sha, sha_len);
	}
	assert_true(rt_cbor_enc_ok(&e));
	return packet(out, version, RT_SMP_OP_WRITE, RT_SMP_GROUP_FS, seq, RT_SMP_FS_FILE, body, e.len);
}

typedef struct {
	rt_smp_hdr_t h;
	bool has_off, has_rc, has_err, has_msg, has_len, has_output;
	uint64_t off, rc, err_group, err_rc, len, output;
	char msg[160];
	bool installed;
	uint64_t crc;
	char upload[16];
	uint64_t staged;
} rsp_t;

/* Parse a response: a valid header for a request of (op, group, seq, cmd) and a CBOR map. */
static rsp_t parse_rsp(const uint8_t *rsp, size_t len)
{
	rsp_t r;
	memset(&r, 0, sizeof(r));
	assert_true(len >= RT_SMP_HDR_SIZE);
	assert_true(rt_smp_hdr_decode(rsp, len, &r.h));
	assert_int_equal(r.h.len, len - RT_SMP_HDR_SIZE);
	assert_int_equal(rt_cbor_check(rsp + RT_SMP_HDR_SIZE, r.h.len), RT_CBOR_OK);
	rt_cbor_dec_t d;
	rt_cbor_item_t it, key;
	rt_cbor_dec_init(&d, rsp + RT_SMP_HDR_SIZE, r.h.len);
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(it.type, RT_CBOR_MAP);
	for (uint64_t i = 0; i < it.u; i++) {
		assert_int_equal(rt_cbor_next(&d, &key), RT_CBOR_OK);
		const char *t;
		size_t n;
		if (rt_cbor_text_is(&key, "off")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.off), RT_CBOR_OK);
			r.has_off = true;
		} else if (rt_cbor_text_is(&key, "rc")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.rc), RT_CBOR_OK);
			r.has_rc = true;
		} else if (rt_cbor_text_is(&key, "len")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.len), RT_CBOR_OK);
			r.has_len = true;
		} else if (rt_cbor_text_is(&key, "output")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.output), RT_CBOR_OK);
			r.has_output = true;
		} else if (rt_cbor_text_is(&key, "crc")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.crc), RT_CBOR_OK);
		} else if (rt_cbor_text_is(&key, "staged")) {
			assert_int_equal(rt_cbor_read_uint(&d, &r.staged), RT_CBOR_OK);
		} else if (rt_cbor_text_is(&key, "installed")) {
			rt_cbor_item_t b;
			assert_int_equal(rt_cbor_next(&d, &b), RT_CBOR_OK);
			r.installed = b.type == RT_CBOR_TRUE;
		} else if (rt_cbor_text_is(&key, "upload")) {
			assert_int_equal(rt_cbor_read_text(&d, &t, &n), RT_CBOR_OK);
			snprintf(r.upload, sizeof(r.upload), "%.*s", (int)n, t);
		} else if (rt_cbor_text_is(&key, "msg")) {
			assert_int_equal(rt_cbor_read_text(&d, &t, &n), RT_CBOR_OK);
			snprintf(r.msg, sizeof(r.msg), "%.*s", (int)n, t);
			r.has_msg = true;
		} else if (rt_cbor_text_is(&key, "err")) {
			rt_cbor_item_t m, k2;
			assert_int_equal(rt_cbor_next(&d, &m), RT_CBOR_OK);
			assert_int_equal(m.type, RT_CBOR_MAP);
			assert_int_equal(m.u, 2);
			for (int j = 0; j < 2; j++) {
				assert_int_equal(rt_cbor_next(&d, &k2), RT_CBOR_OK);
				uint64_t *dst = rt_cbor_text_is(&k2, "group") ? &r.err_group : &r.err_rc;
				assert_int_equal(rt_cbor_read_uint(&d, dst), RT_CBOR_OK);
			}
			r.has_err = true;
		} else {
			assert_int_equal(rt_cbor_skip(&d), RT_CBOR_OK);
		}
	}
	assert_true(rt_cbor_at_end(&d));
	return r;
}

static rsp_t call(fixture_t *f, uint32_t client, const uint8_t *req, size_t len)
{
	uint8_t rsp[1024];
	size_t n = rt_smp_handle(&f->server, client, f->now, req, len, rsp, sizeof(rsp));
	assert_true(n > 0);
	rsp_t r = parse_rsp(rsp, n);
	rt_smp_hdr_t q;
	assert_true(rt_smp_hdr_decode(req, len, &q));
	assert_int_equal(r.h.op, q.op + 1);
	assert_int_equal(r.h.group, q.group);
	assert_int_equal(r.h.seq, q.seq);
	assert_int_equal(r.h.cmd, q.cmd);
	return r;
}

static rsp_t upload(fixture_t *f, uint32_t client, uint32_t off, const uint8_t *data, size_t n, int64_t len,
		    const uint8_t *sha, size_t sha_len)
{
	uint8_t req[2200];
	static uint8_t seq;
	size_t q = upload_req(req, RT_SMP_VERSION_2, seq++, RT_SMP_STAGING_NAME, off, data, n, len, sha, sha_len);
	return call(f, client, req, q);
}

static rsp_t simple_req(fixture_t *f, uint32_t client, uint8_t version, uint8_t op, uint16_t group, uint8_t cmd)
{
	uint8_t req[16];
	const uint8_t empty_map = 0xa0;
	size_t q = packet(req, version, op, group, 9, cmd, &empty_map, 1);
	return call(f, client, req, q);
}

static rsp_t install(fixture_t *f, uint32_t client, uint8_t version)
{
	return simple_req(f, client, version, RT_SMP_OP_WRITE, RT_SMP_GROUP_BEACON, RT_SMP_BEACON_INSTALL);
}

static rsp_t status(fixture_t *f)
{
	return simple_req(f, 99, RT_SMP_VERSION_2, RT_SMP_OP_READ, RT_SMP_GROUP_BEACON, RT_SMP_BEACON_STATUS);
}

/* A real package for this engine: n bytes of "bytecode" seeded by `seed`. */
static uint8_t *make_package(uint8_t seed, size_t n, size_t *len)
{
	uint8_t code[4096];
	assert_true(n <= sizeof(code));
	for (size_t i = 0; i < n; i++) {
		code[i] = (uint8_t)(seed + i * 7);
	}
	uint8_t *pkg = rt_package_build(0x000206, code, n, n, len);
	assert_non_null(pkg);
	return pkg;
}

static void refresh_crc(uint8_t *pkg, size_t len)
{
	uint32_t crc = rt_crc32(rt_crc32(0, pkg, 36), pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
	for (int i = 0; i < 4; i++) {
		pkg[36 + i] = (uint8_t)(crc >> (8 * i));
	}
}

static uint32_t package_crc(const uint8_t *pkg)
{
	return (uint32_t)pkg[36] | (uint32_t)pkg[37] << 8 | (uint32_t)pkg[38] << 16 | (uint32_t)pkg[39] << 24;
}

/* Upload a whole package in chunks as one client; returns the final response. */
static rsp_t upload_all(fixture_t *f, uint32_t client, const uint8_t *pkg, size_t len, size_t chunk,
			const uint8_t *sha, size_t sha_len)
{
	rsp_t r;
	uint32_t off = 0;
	do {
		size_t n = len - off < chunk ? len - off : chunk;
		r = upload(f, client, off, pkg + off, n, off == 0 ? (int64_t)len : -1, off == 0 ? sha : NULL, sha_len);
		if (r.has_rc || r.has_err) {
			fail_msg("chunk at %lu: rc %lu, err %lu/%lu", (unsigned long)off, (unsigned long)r.rc,
				 (unsigned long)r.err_group, (unsigned long)r.err_rc);
		}
		assert_true(r.has_off);
		assert_true(r.off > off);
		off = (uint32_t)r.off;
	} while (off < len);
	return r;
}

/* ------------------------------------------------------------------------------------------- */
/* Bytes from the documentation */

static void test_header_layout(void **state)
{
	(void)state;
	/* | Res:3 Ver:2 OP:3 | Flags | Data Length (BE) | Group ID (BE) | Seq | Command ID | */
	rt_smp_hdr_t h = {RT_SMP_VERSION_2, RT_SMP_OP_WRITE, 0, 0x1234, 0x0040, 0xab, 6};
	uint8_t b[8];
	rt_smp_hdr_encode(&h, b);
	assert_hex(b, 8, "0a 00 1234 0040 ab 06");
	rt_smp_hdr_t back;
	assert_true(rt_smp_hdr_decode(b, 8, &back));
	assert_int_equal(back.version, 1);
	assert_int_equal(back.op, 2);
	assert_int_equal(back.len, 0x1234);
	assert_int_equal(back.group, 0x40);
	assert_int_equal(back.seq, 0xab);
	assert_int_equal(back.cmd, 6);
	/* Reserved bits must be 0; fewer than 8 bytes is no header. */
	b[0] |= 0x20;
	assert_false(rt_smp_hdr_decode(b, 8, &back));
	assert_false(rt_smp_hdr_decode(b, 7, &back));
}

static void test_echo_bytes(void **state)
{
	fixture_t *f = *state;
	uint8_t req[64], rsp[128];
	/* Echo (group 0, command 0), op write, SMP version 1, sequence 0x42: {"d": "hello"}. */
	size_t n = unhex("02 00 0009 0000 42 00  a1 61 64 65 68656c6c6f", req, sizeof(req));
	size_t m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	/* Write response (op 3), same group, sequence and command: {"r": "hello"}. */
	assert_hex(rsp, m, "03 00 0009 0000 42 00  a1 61 72 65 68656c6c6f");
	/* The same as SMP version 2 and op read: version bits 01, op 1 in the answer. */
	n = unhex("08 00 0009 0000 43 00  a1 61 64 65 68656c6c6f", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "09 00 0009 0000 43 00  a1 61 72 65 68656c6c6f");
}

static void test_params_bytes(void **state)
{
	fixture_t *f = *state;
	uint8_t req[16], rsp[128];
	size_t n = unhex("00 00 0001 0000 07 06  a0", req, sizeof(req));
	size_t m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	/* {"buf_size": 1024, "buf_count": 4} */
	assert_hex(rsp, m,
		   "01 00 0018 0000 07 06  a2 68 6275665f73697a65 19 0400 69 6275665f636f756e74 04");
}

static void test_unknown_group_and_command(void **state)
{
	fixture_t *f = *state;
	uint8_t req[16], rsp[128];
	/* Group 99 does not exist: {"rc": 8} (MGMT_ERR_ENOTSUP), also in SMP version 2. */
	size_t n = unhex("0a 00 0001 0063 05 01  a0", req, sizeof(req));
	size_t m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "0b 00 0005 0063 05 01  a1 62 7263 08");
	/* OS reset (command 5) is not offered. */
	n = unhex("02 00 0001 0000 06 05  a0", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "03 00 0005 0000 06 05  a1 62 7263 08");
	/* File download (op read of command 0) is not offered either. */
	n = unhex("00 00 0001 0008 07 00  a0", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "01 00 0005 0008 07 00  a1 62 7263 08");
}

static void test_malformed_requests(void **state)
{
	fixture_t *f = *state;
	uint8_t req[64], rsp[128];
	size_t n, m;

	/* Shorter than a header: nothing to answer to. */
	n = unhex("02 00 0001 0000 01", req, sizeof(req));
	assert_int_equal(rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp)), 0);
	/* A response (op 1 or 3) is never answered; nor a header with reserved bits set. */
	n = unhex("03 00 0001 0000 01 00  a0", req, sizeof(req));
	assert_int_equal(rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp)), 0);
	n = unhex("82 00 0001 0000 01 00  a0", req, sizeof(req));
	assert_int_equal(rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp)), 0);
	/* The header says 5 bytes of data, 3 came: {"rc": 9} (MGMT_ERR_ECORRUPT). */
	n = unhex("02 00 0005 0000 02 00  a1 6164", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "03 00 0005 0000 02 00  a1 62 7263 09");
	/* More bytes than it says. */
	n = unhex("02 00 0001 0000 02 00  a0 a0", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "03 00 0005 0000 02 00  a1 62 7263 09");
	/* Not CBOR (a stray break), not a map, a map cut short: {"rc": 3} (MGMT_ERR_EINVAL). */
	const char *bad_bodies[] = {"02 00 0001 0000 03 00  ff", "02 00 0001 0000 03 00  01",
				    "02 00 0003 0000 03 00  a2 6164", "02 00 0002 0000 03 00  a1 1c",
				    /* indefinite map: refused, clearly */
				    "02 00 0002 0000 03 00  bf ff",
				    /* "d" is not text */
				    "02 00 0004 0000 03 00  a1 6164 05"};
	for (size_t i = 0; i < sizeof(bad_bodies) / sizeof(bad_bodies[0]); i++) {
		n = unhex(bad_bodies[i], req, sizeof(req));
		m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
		assert_hex(rsp, m, "03 00 0005 0000 03 00  a1 62 7263 03");
	}
	/* Header version 3 is reserved: {"rc": 13} (MGMT_ERR_UNSUPPORTED_TOO_NEW), as version 2. */
	n = unhex("1a 00 0001 0000 04 00  a0", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "0b 00 0005 0000 04 00  a1 62 7263 0d");
	/* An echo without "d": {"rc": 3}. */
	n = unhex("02 00 0001 0000 05 00  a0", req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "03 00 0005 0000 05 00  a1 62 7263 03");
	/* An echo longer than the response buffer: {"rc": 7} (MGMT_ERR_EMSGSIZE). */
	uint8_t big[300];
	uint8_t body[290];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, body, sizeof(body));
	char text[200];
	memset(text, 'x', sizeof(text));
	rt_cbor_enc_map(&e, 1);
	rt_cbor_enc_str(&e, "d");
	rt_cbor_enc_text(&e, text, sizeof(text));
	n = packet(big, RT_SMP_VERSION_1, RT_SMP_OP_WRITE, 0, 6, 0, body, e.len);
	m = rt_smp_handle(&f->server, 1, f->now, big, n, rsp, sizeof(rsp));
	assert_hex(rsp, m, "03 00 0005 0000 06 00  a1 62 7263 07");
	/* Upload fields of the wrong type or missing: {"rc": 3}. */
	rsp_t r;
	n = unhex("0a 00 000d 0008 01 00  a2 636f6666 6130 6464617461 40", req, sizeof(req)); /* off: "0" */
	r = call(f, 1, req, n);
	assert_true(r.has_rc);
	assert_int_equal(r.rc, RT_SMP_ERR_INVAL);
	r = upload(f, 1, 0, (const uint8_t *)"x", 1, -1, NULL, 0); /* first chunk without len */
	assert_int_equal(r.rc, RT_SMP_ERR_INVAL);
	assert_int_equal(f->server.state, RT_SMP_UPLOAD_IDLE);
}

static void test_error_forms_v1_v2(void **state)
{
	fixture_t *f = *state;
	uint8_t req[128], rsp[256];
	size_t n, m;
	/* {"off": 0, "data": h'00', "name": "/etc/passwd", "len": 1}: the name is refused. */
	const char *body = "a4 636f6666 00 6464617461 4100 646e616d65 6b2f6574632f706173737764 636c656e 01";
	char hex[256];
	snprintf(hex, sizeof(hex), "0a 00 0023 0008 11 00 %s", body);
	n = unhex(hex, req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	/* Version 2: {"err": {"group": 8, "rc": 2}} (FS_MGMT_ERR_FILE_INVALID_NAME). */
	assert_hex(rsp, m, "0b 00 0011 0008 11 00  a1 63 657272 a2 65 67726f7570 08 62 7263 02");
	snprintf(hex, sizeof(hex), "02 00 0023 0008 12 00 %s", body);
	n = unhex(hex, req, sizeof(req));
	m = rt_smp_handle(&f->server, 1, f->now, req, n, rsp, sizeof(rsp));
	/* Version 1: {"rc": 11} (MGMT_ERR_EACCESSDENIED). */
	assert_hex(rsp, m, "03 00 0005 0008 12 00  a1 62 7263 0b");
	assert_int_equal(f->ram.begins, 0);

	/* Install with nothing staged: the beacon group's error 2, with a message. */
	rsp_t r = install(f, 1, RT_SMP_VERSION_2);
	assert_true(r.has_err);
	assert_int_equal(r.err_group, RT_SMP_GROUP_BEACON);
	assert_int_equal(r.err_rc, RT_SMP_BEACON_ERR_NOTHING_STAGED);
	assert_string_equal(r.msg, "no package is staged: upload one first");
	r = install(f, 1, RT_SMP_VERSION_1);
	assert_false(r.has_err);
	assert_int_equal(r.rc, RT_SMP_ERR_PERUSER + RT_SMP_BEACON_ERR_NOTHING_STAGED);
}

/* ------------------------------------------------------------------------------------------- */
/* Uploads */

static void test_upload_install_status(void **state)
{
	fixture_t *f = *state;
	size_t len;
	uint8_t *pkg = make_package(1, 1500, &len);

	rsp_t r = status(f);
	assert_false(r.installed);
	assert_string_equal(r.upload, "idle");
	r = upload_all(f, 7, pkg, len, 200, NULL, 0);
	assert_int_equal(r.off, len);
	assert_memory_equal(f->ram.data, pkg, len);
	r = status(f);
	assert_string_equal(r.upload, "complete");
	assert_int_equal(r.staged, len);

	/* The file status and CRC-32 of what is staged, as a client checks before installing. */
	uint8_t req[128];
	uint8_t body[64];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, 2);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, RT_SMP_STAGING_NAME);
	rt_cbor_enc_str(&e, "type");
	rt_cbor_enc_str(&e, "crc32");
	size_t n = packet(req, RT_SMP_VERSION_2, RT_SMP_OP_READ, RT_SMP_GROUP_FS, 3, RT_SMP_FS_HASH, body, e.len);
	r = call(f, 7, req, n);
	assert_int_equal(r.len, len);
	assert_int_equal(r.output, rt_crc32(0, pkg, len));
	n = packet(req, RT_SMP_VERSION_2, RT_SMP_OP_READ, RT_SMP_GROUP_FS, 4, RT_SMP_FS_STATUS, body, e.len);
	r = call(f, 7, req, n);
	assert_int_equal(r.len, len);
	/* sha256 is not offered: {"err": {8, 13}}. */
	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, 2);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, RT_SMP_STAGING_NAME);
	rt_cbor_enc_str(&e, "type");
	rt_cbor_enc_str(&e, "sha256");
	n = packet(req, RT_SMP_VERSION_2, RT_SMP_OP_READ, RT_SMP_GROUP_FS, 5, RT_SMP_FS_HASH, body, e.len);
	r = call(f, 7, req, n);
	assert_int_equal(r.err_group, RT_SMP_GROUP_FS);
	assert_int_equal(r.err_rc, RT_SMP_FS_ERR_HASH_NOT_FOUND);

	r = install(f, 7, RT_SMP_VERSION_2);
	assert_false(r.has_err);
	assert_int_equal(r.rc, 0);
	char want[64];
	snprintf(want, sizeof(want), "installed %zu bytes", len);
	assert_string_equal(r.msg, want);
	assert_int_equal(f->app.len, len);
	assert_memory_equal(f->app.pkg, pkg, len);
	r = status(f);
	assert_true(r.installed);
	assert_int_equal(r.crc, package_crc(pkg));
	assert_string_equal(r.upload, "idle"); /* the staging area is free again */
	free(pkg);
}

static void test_upload_cut_and_resumed(void **state)
{
	fixture_t *f = *state;
	size_t len;
	uint8_t *pkg = make_package(2, 2000, &len);
	const uint8_t sha[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

	/* Client 1 gets 5 chunks through, then its link dies. */
	uint32_t off = 0;
	for (int i = 0; i < 5; i++) {
		rsp_t r = upload(f, 1, off, pkg + off, 128, off == 0 ? (int64_t)len : -1, off == 0 ? sha : NULL, 32);
		off = (uint32_t)r.off;
	}
	assert_int_equal(off, 640);
	/* The same chunk sent again (its answer was lost): not written twice, the offset says where
	 * to go on. */
	rsp_t r = upload(f, 1, 512, pkg + 512, 128, -1, NULL, 0);
	assert_int_equal(r.off, 640);

	/* The uploader comes back as a new client (new process, new port) with the same package:
	 * the first chunk with the same len and sha resumes at the acknowledged offset. */
	f->now += 5000;
	uint32_t begins = f->ram.begins;
	r = upload(f, 2, 0, pkg, 128, (int64_t)len, sha, 32);
	assert_false(r.has_rc);
	assert_int_equal(r.off, 640);
	assert_int_equal(f->ram.begins, begins); /* nothing erased */
	off = 640;
	while (off < len) {
		size_t n = len - off < 128 ? len - off : 128;
		r = upload(f, 2, off, pkg + off, n, -1, NULL, 0);
		assert_true(r.off > off);
		off = (uint32_t)r.off;
	}
	r = install(f, 2, RT_SMP_VERSION_2);
	assert_int_equal(r.rc, 0);
	assert_memory_equal(f->app.pkg, pkg, len);
	free(pkg);
}

static void test_wrong_offsets(void **state)
{
	fixture_t *f = *state;
	size_t len;
	uint8_t *pkg = make_package(3, 600, &len);
	uint8_t junk[64];
	memset(junk, 0xee, sizeof(junk));

	/* Nothing staged: a chunk past 0 is told to start at 0. */
	rsp_t r = upload(f, 1, 64, junk, 64, -1, NULL, 0);
	assert_false(r.has_rc);
	assert_int_equal(r.off, 0);

	r = upload(f, 1, 0, pkg, 64, (int64_t)len, NULL, 0);
	r = upload(f, 1, 64, pkg + 64, 64, -1, NULL, 0);
	assert_int_equal(r.off, 128);
	/* Ahead of the server: not written, answered with the offset it expects. */
	r = upload(f, 1, 192, junk, 64, -1, NULL, 0);
	assert_false(r.has_rc);
	assert_int_equal(r.off, 128);
	/* Behind it: other bytes at an acknowledged offset do not overwrite what is there. */
	r = upload(f, 1, 64, junk, 64, -1, NULL, 0);
	assert_int_equal(r.off, 128);
	assert_memory_equal(f->ram.data, pkg, 128);
	assert_int_equal(f->ram.data[128], 0xff);
	/* More data than the length announced: {"rc": 3}, nothing written. */
	uint8_t big[700];
	memset(big, 0x11, sizeof(big));
	r = upload(f, 1, 128, big, len - 128 + 1, -1, NULL, 0);
	assert_int_equal(r.rc, RT_SMP_ERR_INVAL);
	assert_int_equal(f->server.off, 128);
	/* A package larger than the staging area: {"rc": 2} (MGMT_ERR_ENOMEM). */
	r = upload(f, 1, 0, pkg, 64, 100000, NULL, 0);
	assert_int_equal(r.rc, RT_SMP_ERR_NOMEM);
	free(pkg);
}

static void test_write_failure_then_retry(void **state)
{
	fixture_t *f = *state;
	size_t len;
	uint8_t *pkg = make_package(4, 300, &len);
	rsp_t r = upload(f, 1, 0, pkg, 100, (int64_t)len, NULL, 0);
	f->ram.fail_writes = 1;
	r = upload(f, 1, 100, pkg + 100, 100, -1, NULL, 0);
	assert_int_equal(r.err_group, RT_SMP_GROUP_FS);
	assert_int_equal(r.err_rc, RT_SMP_FS_ERR_WRITE_FAILED);
	/* The offset did not move; the same chunk again goes through. */
	r = upload(f, 1, 100, pkg + 100, 100, -1, NULL, 0);
	assert_int_equal(r.off, 200);
	r = upload(f, 1, 200, pkg + 200, len - 200, -1, NULL, 0);
	assert_int_equal(r.off, len);
	assert_int_equal(install(f, 1, RT_SMP_VERSION_2).rc, 0);

	/* The first chunk of a named package fails: sent again (same len and sha), it is written,
	 * not taken for a resume of nothing. */
	const uint8_t sha[4] = {9, 9, 9, 9};
	f->ram.fail_writes = 1;
	r = upload(f, 1, 0, pkg, 100, (int64_t)len, sha, sizeof(sha));
	assert_int_equal(r.err_rc, RT_SMP_FS_ERR_WRITE_FAILED);
	r = upload(f, 1, 0, pkg, 100, (int64_t)len, sha, sizeof(sha));
	assert_false(r.has_err);
	assert_int_equal(r.off, 100);
	assert_memory_equal(f->ram.data, pkg, 100);
	free(pkg);
}

static void test_refused_packages_leave_installed(void **state)
{
	fixture_t *f = *state;
	size_t len_a, len_b;
	uint8_t *a = make_package(5, 800, &len_a);
	uint8_t *b = make_package(6, 900, &len_b);
	upload_all(f, 1, a, len_a, 256, NULL, 0);
	assert_int_equal(install(f, 1, RT_SMP_VERSION_2).rc, 0);
	uint32_t crc_a = package_crc(a);

	/* A flipped bit: refused with the package check's message. */
	b[500] ^= 0x10;
	upload_all(f, 1, b, len_b, 256, NULL, 0);
	rsp_t r = install(f, 1, RT_SMP_VERSION_2);
	assert_true(r.has_err);
	assert_int_equal(r.err_group, RT_SMP_GROUP_BEACON);
	assert_int_equal(r.err_rc, RT_SMP_BEACON_ERR_REFUSED);
	assert_non_null(strstr(r.msg, "package is damaged: CRC-32"));
	assert_int_equal(status(f).crc, crc_a);
	assert_memory_equal(f->app.pkg, a, len_a);

	/* Built for another engine (header and CRC consistent): refused, old app kept. In SMP
	 * version 1 the refusal is rc 257. */
	b[500] ^= 0x10;
	uint32_t other = eng_id() == ENG_ID_DUKTAPE ? ENG_ID_JERRYSCRIPT : ENG_ID_DUKTAPE;
	b[12] = (uint8_t)other;
	refresh_crc(b, len_b);
	upload_all(f, 1, b, len_b, 256, NULL, 0);
	r = install(f, 1, RT_SMP_VERSION_1);
	assert_int_equal(r.rc, RT_SMP_ERR_PERUSER + RT_SMP_BEACON_ERR_REFUSED);
	assert_non_null(strstr(r.msg, "package was built for"));
	assert_int_equal(status(f).crc, crc_a);
	assert_int_equal(f->app.installs, 1);

	/* Install twice: the second finds nothing staged. */
	r = install(f, 1, RT_SMP_VERSION_2);
	assert_int_equal(r.err_rc, RT_SMP_BEACON_ERR_NOTHING_STAGED);
	free(a);
	free(b);
}

static void test_two_uploaders(void **state)
{
	fixture_t *f = *state;
	size_t len_a, len_b;
	uint8_t *a = make_package(7, 1000, &len_a);
	uint8_t *b = make_package(8, 1000, &len_b);
	const uint8_t sha_a[4] = {0xaa, 0xaa, 0xaa, 0xaa};
	const uint8_t sha_b[4] = {0xbb, 0xbb, 0xbb, 0xbb};
	const uint32_t A = 0x0a, B = 0x0b;

	rsp_t r = upload(f, A, 0, a, 200, (int64_t)len_a, sha_a, 4);
	assert_int_equal(r.off, 200);
	/* B starts its own package: busy (rc 10) while A uploads. */
	r = upload(f, B, 0, b, 200, (int64_t)len_b, sha_b, 4);
	assert_int_equal(r.rc, RT_SMP_ERR_BUSY);
	/* B's chunks in the middle, interleaved with A's, are refused and write nothing. */
	r = upload(f, B, 200, b + 200, 200, -1, NULL, 0);
	assert_int_equal(r.rc, RT_SMP_ERR_BUSY);
	r = upload(f, A, 200, a + 200, 400, -1, NULL, 0);
	assert_int_equal(r.off, 600);
	r = upload(f, B, 600, b + 600, 200, -1, NULL, 0);
	assert_int_equal(r.rc, RT_SMP_ERR_BUSY);
	/* Nor may B install A's package. */
	r = install(f, B, RT_SMP_VERSION_2);
	assert_int_equal(r.err_rc, RT_SMP_BEACON_ERR_NOT_OWNER);
	r = upload(f, A, 600, a + 600, len_a - 600, -1, NULL, 0);
	assert_int_equal(r.off, len_a);
	/* Complete but not installed: still A's. */
	r = upload(f, B, 0, b, 200, (int64_t)len_b, sha_b, 4);
	assert_int_equal(r.rc, RT_SMP_ERR_BUSY);
	r = install(f, A, RT_SMP_VERSION_2);
	assert_int_equal(r.rc, 0);
	assert_memory_equal(f->app.pkg, a, len_a);
	/* Now B's turn. */
	upload_all(f, B, b, len_b, 300, sha_b, 4);
	assert_int_equal(install(f, B, RT_SMP_VERSION_2).rc, 0);
	assert_memory_equal(f->app.pkg, b, len_b);

	/* A silent owner loses the staging area after idle_ms. */
	upload(f, A, 0, a, 200, (int64_t)len_a, sha_a, 4);
	f->now += 29999;
	assert_int_equal(upload(f, B, 0, b, 200, (int64_t)len_b, sha_b, 4).rc, RT_SMP_ERR_BUSY);
	f->now += 30000;
	r = upload(f, B, 0, b, 200, (int64_t)len_b, sha_b, 4);
	assert_false(r.has_rc);
	assert_int_equal(r.off, 200);
	r = upload(f, A, 200, a + 200, 200, -1, NULL, 0);
	assert_int_equal(r.rc, RT_SMP_ERR_BUSY);

	/* Two clients with the same package: the second takes over where the first is; there is
	 * only one package to mix. */
	upload_all(f, B, b, len_b, 300, sha_b, 4);
	assert_int_equal(install(f, B, RT_SMP_VERSION_2).rc, 0);
	r = upload(f, A, 0, a, 300, (int64_t)len_a, sha_a, 4);
	assert_int_equal(r.off, 300);
	r = upload(f, B, 0, a, 300, (int64_t)len_a, sha_a, 4);
	assert_int_equal(r.off, 300);
	r = upload(f, B, 300, a + 300, len_a - 300, -1, NULL, 0);
	assert_int_equal(r.off, len_a);
	assert_int_equal(install(f, B, RT_SMP_VERSION_2).rc, 0);
	assert_memory_equal(f->app.pkg, a, len_a);
	free(a);
	free(b);
}

/* ------------------------------------------------------------------------------------------- */
/* Serial framing */

static void test_crc16_check_value(void **state)
{
	(void)state;
	/* CRC-16/XMODEM's check value (polynomial 0x1021, initial 0). */
	assert_int_equal(rt_smp_crc16(0, (const uint8_t *)"123456789", 9), 0x31c3);
}

/* The echo request of test_echo_bytes, framed by hand: 0x06 0x09, base64 of length 0x0013
 * (17 + 2), the packet and its CRC16 0xc109, then a newline. */
static const char ECHO_FRAME[] = "\x06\x09"
				 "ABMCAAAJAABCAKFhZGVoZWxsb8EJ\n";

static void collect_text(void *ctx, uint8_t byte)
{
	char *buf = ctx;
	size_t n = strlen(buf);
	buf[n] = (char)byte;
	buf[n + 1] = '\0';
}

static int feed_all(rt_smp_serial_dec_t *d, const char *bytes, size_t n, const uint8_t **pkt, size_t *pkt_len)
{
	int last = RT_SMP_SERIAL_NONE;
	for (size_t i = 0; i < n; i++) {
		int r = rt_smp_serial_feed(d, (uint8_t)bytes[i], pkt, pkt_len);
		if (r != RT_SMP_SERIAL_NONE) {
			last = r;
		}
	}
	return last;
}

static void test_serial_single_frame(void **state)
{
	(void)state;
	uint8_t pkt[17];
	size_t n = unhex("02 00 0009 0000 42 00  a1 61 64 65 68656c6c6f", pkt, sizeof(pkt));
	uint8_t out[64];
	size_t m = rt_smp_serial_encode(pkt, n, out, sizeof(out));
	assert_int_equal(m, sizeof(ECHO_FRAME) - 1);
	assert_memory_equal(out, ECHO_FRAME, m);
	assert_int_equal(rt_smp_serial_encode(pkt, n, NULL, 0), m);
	assert_int_equal(rt_smp_serial_encode(pkt, n, out, m - 1), 0); /* does not fit */

	uint8_t buf[256];
	rt_smp_serial_dec_t d;
	rt_smp_serial_dec_init(&d, buf, sizeof(buf), NULL, NULL);
	const uint8_t *got = NULL;
	size_t got_len = 0;
	assert_int_equal(feed_all(&d, ECHO_FRAME, sizeof(ECHO_FRAME) - 1, &got, &got_len), RT_SMP_SERIAL_PACKET);
	assert_int_equal(got_len, n);
	assert_memory_equal(got, pkt, n);
}

/* 184 bytes (i * 37 + 11 mod 256) framed as Zephyr's mcumgr_serial_tx_pkt frames them: 93 raw
 * bytes in the first line (the length and 91 packet bytes), 90 in the second, and the last two
 * packet bytes with the CRC (0xa193) in the third. */
static const char ZEPHYR_FRAMES_184[] =
	"\x06\x09"
	"ALoLMFV6n8TpDjNYfaLH7BE2W4Clyu8UOV6DqM3yFzxhhqvQ9Ro/ZImu0/gdQmeMsdb7IEVqj7TZ/iNIbZK33AEmS3CVut8EKU5zmL3iByxRdpvA5QovVHmew+gN\n"
	"\x04\x14"
	"Mld8ocbrEDVaf6TJ7hM4XYKnzPEWO2CFqs/0GT5jiK3S9xxBZouw1fofRGmOs9j9IkdskbbbACVKb5S53gMoTXKXvOEGK1B1mr/kCS5TeJ3C5wwxVnugxeoP\n"
	"\x04\x14"
	"NFl+oZM=\n";

static void test_serial_multi_frame(void **state)
{
	(void)state;
	uint8_t pkt[184];
	for (size_t i = 0; i < sizeof(pkt); i++) {
		pkt[i] = (uint8_t)(i * 37 + 11);
	}
	uint8_t out[512];
	size_t m = rt_smp_serial_encode(pkt, sizeof(pkt), out, sizeof(out));
	assert_int_equal(m, sizeof(ZEPHYR_FRAMES_184) - 1);
	assert_memory_equal(out, ZEPHYR_FRAMES_184, m);

	uint8_t buf[256];
	rt_smp_serial_dec_t d;
	rt_smp_serial_dec_init(&d, buf, sizeof(buf), NULL, NULL);
	const uint8_t *got = NULL;
	size_t got_len = 0;
	assert_int_equal(feed_all(&d, ZEPHYR_FRAMES_184, m, &got, &got_len), RT_SMP_SERIAL_PACKET);
	assert_int_equal(got_len, sizeof(pkt));
	assert_memory_equal(got, pkt, sizeof(pkt));

	/* Every length round-trips, and no line is longer than 127 bytes. */
	for (size_t n = 1; n <= 600; n++) {
		uint8_t frames[1024];
		size_t k = rt_smp_serial_encode(pkt, n < sizeof(pkt) ? n : sizeof(pkt), frames, sizeof(frames));
		size_t line = 0;
		for (size_t i = 0; i < k; i++) {
			line++;
			if (frames[i] == '\n') {
				assert_true(line <= RT_SMP_SERIAL_MAX_FRAME);
				line = 0;
			}
		}
		got = NULL;
		assert_int_equal(feed_all(&d, (const char *)frames, k, &got, &got_len), RT_SMP_SERIAL_PACKET);
		assert_memory_equal(got, pkt, got_len);
	}
}

static void test_serial_console_text(void **state)
{
	(void)state;
	char text[256] = "";
	uint8_t buf[256];
	rt_smp_serial_dec_t d;
	rt_smp_serial_dec_init(&d, buf, sizeof(buf), collect_text, text);
	const uint8_t *got = NULL;
	size_t got_len = 0;
	/* Shell and log lines around and between the frames of a packet pass through as text; a
	 * line starting with 0x06 but not 0x09 is text too. */
	char stream[600];
	size_t n = 0;
	const char *parts[] = {"uart:~$ \n", "\x06x not a frame\n", ZEPHYR_FRAMES_184, "[00:01] log\n"};
	for (size_t i = 0; i < 4; i++) {
		memcpy(stream + n, parts[i], strlen(parts[i]));
		n += strlen(parts[i]);
	}
	/* Put the log line between the first and second frame. */
	char mixed[600];
	const char *second = strstr(stream, "\x04\x14");
	size_t head = (size_t)(second - stream);
	memcpy(mixed, stream, head);
	memcpy(mixed + head, "[00:01] log\n", 12);
	memcpy(mixed + head + 12, second, n - head - 12);
	assert_int_equal(feed_all(&d, mixed, n, &got, &got_len), RT_SMP_SERIAL_PACKET);
	assert_int_equal(got_len, 184);
	assert_string_equal(text, "uart:~$ \n\x06x not a frame\n[00:01] log\n");
}

static void test_serial_bad_frames_dropped(void **state)
{
	(void)state;
	uint8_t buf[256];
	rt_smp_serial_dec_t d;
	rt_smp_serial_dec_init(&d, buf, sizeof(buf), NULL, NULL);
	const uint8_t *got = NULL;
	size_t got_len = 0;
	char f[sizeof(ECHO_FRAME)];

	/* One base64 character changed: the CRC does not match. */
	memcpy(f, ECHO_FRAME, sizeof(f));
	f[10] = f[10] == 'A' ? 'B' : 'A';
	assert_int_equal(feed_all(&d, f, sizeof(f) - 1, &got, &got_len), RT_SMP_SERIAL_BAD_CRC);
	/* Not base64. */
	memcpy(f, ECHO_FRAME, sizeof(f));
	f[5] = '*';
	assert_int_equal(feed_all(&d, f, sizeof(f) - 1, &got, &got_len), RT_SMP_SERIAL_BAD_BASE64);
	/* A continuation with no first frame. */
	const char *cont = strstr(ZEPHYR_FRAMES_184, "\x04\x14");
	assert_int_equal(feed_all(&d, cont, strlen(cont), &got, &got_len), RT_SMP_SERIAL_BAD_SEQUENCE);
	/* A line longer than 127 bytes. */
	char longline[200];
	longline[0] = 0x06;
	longline[1] = 0x09;
	memset(longline + 2, 'A', 140);
	longline[142] = '\n';
	assert_int_equal(feed_all(&d, longline, 143, &got, &got_len), RT_SMP_SERIAL_TOO_LONG);
	/* A packet larger than the buffer (length field 0x0200). */
	assert_int_equal(feed_all(&d, "\x06\x09" "AgAA\n", 7, &got, &got_len), RT_SMP_SERIAL_TOO_BIG);
	/* The decoder is not stuck: the next good frame, with a CR before its newline, arrives. */
	memcpy(f, ECHO_FRAME, sizeof(f));
	char crlf[64];
	size_t k = sizeof(ECHO_FRAME) - 2;
	memcpy(crlf, ECHO_FRAME, k);
	crlf[k] = '\r';
	crlf[k + 1] = '\n';
	got = NULL;
	assert_int_equal(feed_all(&d, crlf, k + 2, &got, &got_len), RT_SMP_SERIAL_PACKET);
	assert_int_equal(got_len, 17);
	/* A new first frame abandons a packet half received. */
	const char *first_end = strchr(ZEPHYR_FRAMES_184, '\n') + 1;
	assert_int_equal(feed_all(&d, ZEPHYR_FRAMES_184, (size_t)(first_end - ZEPHYR_FRAMES_184), &got, &got_len),
			 RT_SMP_SERIAL_NONE);
	assert_int_equal(feed_all(&d, ECHO_FRAME, sizeof(ECHO_FRAME) - 1, &got, &got_len), RT_SMP_SERIAL_PACKET);
	assert_int_equal(got_len, 17);
}

static void test_serial_server_round_trip(void **state)
{
	fixture_t *f = *state;
	uint8_t buf[1100], rsp[1100], framed[2000];
	rt_smp_serial_dec_t in, out;
	rt_smp_serial_dec_init(&in, buf, sizeof(buf), NULL, NULL);
	uint8_t back[1100];
	rt_smp_serial_dec_init(&out, back, sizeof(back), NULL, NULL);
	const uint8_t *pkt = NULL, *answer = NULL;
	size_t pkt_len = 0, answer_len = 0;
	assert_int_equal(feed_all(&in, ECHO_FRAME, sizeof(ECHO_FRAME) - 1, &pkt, &pkt_len), RT_SMP_SERIAL_PACKET);
	size_t m = rt_smp_handle(&f->server, 1, f->now, pkt, pkt_len, rsp, sizeof(rsp));
	size_t k = rt_smp_serial_encode(rsp, m, framed, sizeof(framed));
	assert_true(k > 0);
	assert_int_equal(feed_all(&out, (const char *)framed, k, &answer, &answer_len), RT_SMP_SERIAL_PACKET);
	assert_hex(answer, answer_len, "03 00 0009 0000 42 00  a1 61 72 65 68656c6c6f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_layout),
		cmocka_unit_test_setup_teardown(test_echo_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_group_and_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_forms_v1_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_install_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upload_cut_and_resumed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_offsets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_then_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_packages_leave_installed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_uploaders, setup, teardown),
		cmocka_unit_test(test_crc16_check_value),
		cmocka_unit_test(test_serial_single_frame),
		cmocka_unit_test(test_serial_multi_frame),
		cmocka_unit_test(test_serial_console_text),
		cmocka_unit_test(test_serial_bad_frames_dropped),
		cmocka_unit_test_setup_teardown(test_serial_server_round_trip, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

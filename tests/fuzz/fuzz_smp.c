/*
 * fuzz_smp: the SMP server (rt_smp) and its serial framing (rt_smp_serial) fed random, truncated
 * and mutated requests, raw and framed. Every answer must be a well-formed response to its
 * request (op + 1, same group, sequence and command, a length that matches, one CBOR map), and
 * every malformed request must get the answer rt_smp.h documents for it, or none where the
 * protocol drops it. The installed app changes only through an install of a package that
 * passes rt_package_check, and after any amount of garbage a clean upload still installs.
 *
 *   fuzz_smp [--seed N] [--rounds N]
 *
 * Exit status 0 when every check held; 1 with the failing round and its input otherwise. Run
 * under AddressSanitizer in CI (build/sanitize), where a read past a buffer is a failure too.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"

#define STAGING_CAP 4096u

static uint64_t rng;
static unsigned long round_no;
static const char *mode_name;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void dump(const char *what, const uint8_t *b, size_t n)
{
	fprintf(stderr, "%s (%zu bytes):", what, n);
	for (size_t i = 0; i < n && i < 256; i++) {
		fprintf(stderr, " %02x", b[i]);
	}
	fprintf(stderr, "%s\n", n > 256 ? " ..." : "");
}

static const uint8_t *cur_req;
static size_t cur_req_len;

#define CHECK(cond)                                                                                  \
	do {                                                                                         \
		if (!(cond)) {                                                                       \
			fprintf(stderr, "fuzz_smp: %s round %lu: check failed: %s (line %d)\n",      \
				mode_name, round_no, #cond, __LINE__);                               \
			dump("request", cur_req, cur_req_len);                                       \
			exit(1);                                                                     \
		}                                                                                    \
	} while (0)

/* ------------------------------------------------------------------------------------------- */
/* Device side: RAM staging and an installed app checked by rt_package_check */

static uint8_t staging_mem[STAGING_CAP];
static uint32_t staging_total;
static uint8_t installed[STAGING_CAP];
static uint32_t installed_len;
static unsigned long installs;

static int st_begin(void *ctx, uint32_t total)
{
	(void)ctx;
	if (total > STAGING_CAP) {
		return -1;
	}
	staging_total = total;
	return 0;
}

static int st_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	(void)ctx;
	CHECK(off <= staging_total && len <= staging_total - off);
	memcpy(staging_mem + off, data, len);
	return 0;
}

static int st_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	(void)ctx;
	CHECK(off <= staging_total && len <= staging_total - off);
	memcpy(data, staging_mem + off, len);
	return 0;
}

static int app_install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	(void)ctx;
	static uint8_t buf[STAGING_CAP];
	rt_package_t pkg;
	CHECK(len == staging_total);
	CHECK(st->read(st->ctx, 0, buf, len) == 0);
	if (rt_package_check(buf, len, &pkg, msg, cap) != RT_PACKAGE_OK ||
	    rt_signature_check(buf, &pkg, msg, cap) != RT_SIGNATURE_OK) {
		return -1;
	}
	memcpy(installed, buf, len);
	installed_len = len;
	installs++;
	snprintf(msg, cap, "installed");
	return 0;
}

static rt_smp_staging_t staging = {st_begin, st_write, st_read, STAGING_CAP, NULL, NULL, NULL, NULL};
static rt_smp_server_t server;

/* ------------------------------------------------------------------------------------------- */
/* Checking answers */

typedef struct {
	bool has_rc, has_err, has_off;
	uint64_t rc, off;
} answer_t;

static answer_t check_answer(const uint8_t *req, size_t req_len, const uint8_t *rsp, size_t rsp_len)
{
	answer_t a = {0};
	rt_smp_hdr_t q, h;
	bool header = rt_smp_hdr_decode(req, req_len, &q);

	/* Dropped exactly when there is nothing to answer to, or the packet is an answer itself. */
	bool drop = !header || q.op == RT_SMP_OP_READ_RSP || q.op == RT_SMP_OP_WRITE_RSP || q.op > 3;
	CHECK(drop == (rsp_len == 0));
	if (drop) {
		return a;
	}
	CHECK(rt_smp_hdr_decode(rsp, rsp_len, &h));
	CHECK(h.op == q.op + 1 && h.group == q.group && h.seq == q.seq && h.cmd == q.cmd);
	CHECK(h.flags == 0);
	CHECK(h.len == rsp_len - RT_SMP_HDR_SIZE);
	CHECK(h.version == (q.version > 1 ? 1 : q.version));
	CHECK(rt_cbor_check(rsp + RT_SMP_HDR_SIZE, h.len) == RT_CBOR_OK);

	rt_cbor_dec_t d;
	rt_cbor_item_t it, key;
	rt_cbor_dec_init(&d, rsp + RT_SMP_HDR_SIZE, h.len);
	CHECK(rt_cbor_next(&d, &it) == RT_CBOR_OK && it.type == RT_CBOR_MAP);
	for (uint64_t i = 0; i < it.u; i++) {
		CHECK(rt_cbor_next(&d, &key) == RT_CBOR_OK && key.type == RT_CBOR_TEXT);
		if (rt_cbor_text_is(&key, "rc")) {
			CHECK(rt_cbor_read_uint(&d, &a.rc) == RT_CBOR_OK);
			a.has_rc = true;
		} else if (rt_cbor_text_is(&key, "off")) {
			CHECK(rt_cbor_read_uint(&d, &a.off) == RT_CBOR_OK);
			a.has_off = true;
		} else if (rt_cbor_text_is(&key, "err")) {
			CHECK(q.version == RT_SMP_VERSION_2);
			a.has_err = true;
			CHECK(rt_cbor_skip(&d) == RT_CBOR_OK);
		} else {
			CHECK(rt_cbor_skip(&d) == RT_CBOR_OK);
		}
	}

	/* The documented answers to malformed requests. */
	size_t body_len = req_len - RT_SMP_HDR_SIZE;
	const uint8_t *body = req + RT_SMP_HDR_SIZE;
	rt_cbor_dec_t bd;
	rt_cbor_item_t first;
	rt_cbor_dec_init(&bd, body, body_len);
	bool map = body_len == 0 ||
		   (rt_cbor_check(body, body_len) == RT_CBOR_OK && rt_cbor_next(&bd, &first) == RT_CBOR_OK &&
		    first.type == RT_CBOR_MAP);
	if (q.version > 1) {
		CHECK(a.has_rc && a.rc == RT_SMP_ERR_TOO_NEW);
	} else if (body_len != q.len) {
		CHECK(a.has_rc && a.rc == RT_SMP_ERR_CORRUPT);
	} else if (!map) {
		CHECK(a.has_rc && a.rc == RT_SMP_ERR_INVAL);
	} else if (q.group != RT_SMP_GROUP_OS && q.group != RT_SMP_GROUP_FS && q.group != RT_SMP_GROUP_BEACON) {
		CHECK(a.has_rc && a.rc == RT_SMP_ERR_NOTSUP);
	}
	if (a.has_rc) {
		CHECK(a.rc <= RT_SMP_ERR_TOO_NEW || (a.rc > RT_SMP_ERR_PERUSER && a.rc <= RT_SMP_ERR_PERUSER + 4));
	}
	/* The server's own state stays consistent. */
	CHECK(server.off <= server.total && server.total <= STAGING_CAP);
	CHECK((server.state == RT_SMP_UPLOAD_COMPLETE) == (server.state != RT_SMP_UPLOAD_IDLE && server.off == server.total));
	return a;
}

static uint32_t now_ms;

static answer_t handle(uint32_t client, const uint8_t *req, size_t len)
{
	static uint8_t rsp[1200];
	cur_req = req;
	cur_req_len = len;
	unsigned long before = installs;
	uint8_t old[STAGING_CAP];
	uint32_t old_len = installed_len;
	memcpy(old, installed, installed_len);
	size_t n = rt_smp_handle(&server, client, now_ms, req, len, rsp, sizeof(rsp));
	answer_t a = check_answer(req, len, rsp, n);
	if (installs == before) {
		/* No install happened: the installed app is byte for byte what it was. */
		CHECK(installed_len == old_len && memcmp(old, installed, old_len) == 0);
	}
	now_ms += below(3000);
	return a;
}

/* ------------------------------------------------------------------------------------------- */
/* Requests */

static const char *const KEYS[] = {"off", "len", "data", "sha", "name", "type", "d", "rc", "x"};

static void random_value(rt_cbor_enc_t *e, int depth)
{
	switch (below(depth > 2 ? 6 : 8)) {
	case 0:
		rt_cbor_enc_uint(e, below(2) ? below(5000) : rnd());
		break;
	case 1:
		rt_cbor_enc_int(e, -(int64_t)below(100000));
		break;
	case 2: {
		uint8_t b[300];
		size_t n = below(below(2) ? 20 : sizeof(b));
		for (size_t i = 0; i < n; i++) {
			b[i] = (uint8_t)rnd();
		}
		rt_cbor_enc_bytes(e, b, n);
		break;
	}
	case 3:
		rt_cbor_enc_str(e, below(2) ? RT_SMP_STAGING_NAME : below(2) ? "crc32" : "/other");
		break;
	case 4:
		rt_cbor_enc_bool(e, below(2));
		break;
	case 5:
		rt_cbor_enc_double(e, (double)rnd() / 7.0);
		break;
	case 6: {
		uint32_t n = below(4);
		rt_cbor_enc_array(e, n);
		for (uint32_t i = 0; i < n; i++) {
			random_value(e, depth + 1);
		}
		break;
	}
	default: {
		uint32_t n = below(4);
		rt_cbor_enc_map(e, n);
		for (uint32_t i = 0; i < n; i++) {
			rt_cbor_enc_str(e, KEYS[below(sizeof(KEYS) / sizeof(KEYS[0]))]);
			random_value(e, depth + 1);
		}
		break;
	}
	}
}

/* A request with a plausible header and a random map of the known keys. */
static size_t structured_request(uint8_t *out, size_t cap)
{
	static const uint16_t GROUPS[] = {RT_SMP_GROUP_OS, RT_SMP_GROUP_FS, RT_SMP_GROUP_BEACON, 1, 63, 64, 0xffff};
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out + RT_SMP_HDR_SIZE, cap - RT_SMP_HDR_SIZE);
	uint32_t pairs = below(6);
	rt_cbor_enc_map(&e, pairs);
	for (uint32_t i = 0; i < pairs; i++) {
		rt_cbor_enc_str(&e, KEYS[below(sizeof(KEYS) / sizeof(KEYS[0]))]);
		random_value(&e, 1);
	}
	if (!rt_cbor_enc_ok(&e)) {
		e.len = 0;
	}
	rt_smp_hdr_t h = {
		.version = (uint8_t)(below(8) == 0 ? below(4) : below(2)),
		.op = (uint8_t)(below(8) == 0 ? below(8) : below(2) * 2),
		.flags = (uint8_t)(below(16) == 0 ? rnd() : 0),
		.len = (uint16_t)e.len,
		.group = GROUPS[below(sizeof(GROUPS) / sizeof(GROUPS[0]))],
		.seq = (uint8_t)rnd(),
		.cmd = (uint8_t)below(8),
	};
	rt_smp_hdr_encode(&h, out);
	return RT_SMP_HDR_SIZE + e.len;
}

static size_t upload_request(uint8_t *out, uint8_t seq, const uint8_t *pkg, size_t pkg_len, uint32_t off, size_t n)
{
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out + RT_SMP_HDR_SIZE, 1100);
	rt_cbor_enc_map(&e, off == 0 ? 5 : 3);
	rt_cbor_enc_str(&e, "off");
	rt_cbor_enc_uint(&e, off);
	rt_cbor_enc_str(&e, "data");
	rt_cbor_enc_bytes(&e, pkg + off, n);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, RT_SMP_STAGING_NAME);
	if (off == 0) {
		rt_cbor_enc_str(&e, "len");
		rt_cbor_enc_uint(&e, pkg_len);
		rt_cbor_enc_str(&e, "sha");
		rt_cbor_enc_bytes(&e, pkg + 40, 8);
	}
	rt_smp_hdr_t h = {RT_SMP_VERSION_2, RT_SMP_OP_WRITE, 0, (uint16_t)e.len, RT_SMP_GROUP_FS, seq, RT_SMP_FS_FILE};
	rt_smp_hdr_encode(&h, out);
	return RT_SMP_HDR_SIZE + e.len;
}

static size_t install_request(uint8_t *out, uint8_t seq)
{
	rt_smp_hdr_t h = {RT_SMP_VERSION_2, RT_SMP_OP_WRITE, 0, 1, RT_SMP_GROUP_BEACON, seq, RT_SMP_BEACON_INSTALL};
	rt_smp_hdr_encode(&h, out);
	out[RT_SMP_HDR_SIZE] = 0xa0;
	return RT_SMP_HDR_SIZE + 1;
}

static void mutate(uint8_t *b, size_t *n, size_t cap)
{
	switch (below(5)) {
	case 0: /* bit flips */
		for (uint32_t k = 1 + below(4); k > 0 && *n > 0; k--) {
			b[below((uint32_t)*n)] ^= (uint8_t)(1u << below(8));
		}
		break;
	case 1: /* truncation */
		*n = below((uint32_t)*n + 1);
		break;
	case 2: /* a byte replaced */
		if (*n > 0) {
			b[below((uint32_t)*n)] = (uint8_t)rnd();
		}
		break;
	case 3: /* extra bytes */
		for (uint32_t k = 1 + below(8); k > 0 && *n < cap; k--) {
			b[(*n)++] = (uint8_t)rnd();
		}
		break;
	default: /* the length field */
		if (*n >= 4) {
			b[2 + below(2)] = (uint8_t)rnd();
		}
		break;
	}
}

/* A clean upload and install by a fresh client must work whatever came before (once the
 * previous owner has idled out). */
static void clean_install(const uint8_t *pkg, size_t len)
{
	uint8_t req[1200];
	now_ms += server.cfg.idle_ms;
	uint32_t client = 0x7fff0000u + (uint32_t)below(1000);
	uint32_t off = 0;
	while (off < len) {
		size_t n = len - off < 700 ? len - off : 700;
		size_t q = upload_request(req, (uint8_t)off, pkg, len, off, n);
		answer_t a = handle(client, req, q);
		CHECK(a.has_off && !a.has_rc && !a.has_err && a.off > off);
		off = (uint32_t)a.off;
	}
	unsigned long before = installs;
	answer_t a = handle(client, req, install_request(req, 1));
	CHECK(!a.has_err && a.has_rc && a.rc == 0);
	CHECK(installs == before + 1 && installed_len == len && memcmp(installed, pkg, len) == 0);
}

/* ------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	unsigned long seed = 1, rounds = 100000;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = strtoul(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			rounds = strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: fuzz_smp [--seed N] [--rounds N]\n");
			return 2;
		}
	}
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	rt_smp_config_t cfg = {&staging, app_install, NULL, NULL, 1024, 2, 20000};
	rt_smp_init(&server, &cfg);

	/* Two real packages for this engine, and damaged copies of them. */
	uint8_t code[1500];
	for (size_t i = 0; i < sizeof(code); i++) {
		code[i] = (uint8_t)rnd();
	}
	size_t len_a, len_b;
	uint8_t *pkg_a = rt_package_build(0x000206, code, 900, 900, &len_a);
	uint8_t *pkg_b = rt_package_build(0x000206, code + 100, 1400, 1400, &len_b);
	if (!pkg_a || !pkg_b) {
		fprintf(stderr, "fuzz_smp: cannot build packages\n");
		return 1;
	}

	static uint8_t req[1400];
	unsigned long answered = 0, dropped = 0, errors = 0;

	mode_name = "raw";
	for (round_no = 0; round_no < rounds; round_no++) {
		size_t n = below(below(4) == 0 ? 200 : 24);
		for (size_t i = 0; i < n; i++) {
			req[i] = (uint8_t)rnd();
		}
		if (n > 0 && below(2)) {
			req[0] &= 0x1f; /* reserved bits clear: more headers get through */
		}
		answer_t a = handle((uint32_t)below(4), req, n);
		answered += a.has_rc || a.has_err || a.has_off;
	}

	mode_name = "structured";
	for (round_no = 0; round_no < rounds; round_no++) {
		size_t n = structured_request(req, sizeof(req));
		if (below(4) == 0) {
			mutate(req, &n, sizeof(req));
		}
		answer_t a = handle((uint32_t)below(4), req, n);
		errors += a.has_rc || a.has_err;
	}

	mode_name = "uploads";
	for (round_no = 0; round_no < rounds / 10; round_no++) {
		/* Clients uploading either package (sometimes damaged), with mutated chunks mixed in,
		 * and installing at random. */
		uint32_t client = (uint32_t)below(3);
		const uint8_t *pkg = client == 1 ? pkg_b : pkg_a;
		size_t len = client == 1 ? len_b : len_a;
		uint32_t off = below(2) ? 0 : (uint32_t)(below((uint32_t)len / 64 + 1) * 64);
		if (off >= len) {
			off = 0;
		}
		size_t chunk = 1 + below(700);
		size_t n = upload_request(req, (uint8_t)round_no, pkg, len, off, len - off < chunk ? len - off : chunk);
		if (below(3) == 0) {
			mutate(req, &n, sizeof(req));
		}
		handle(client, req, n);
		if (below(8) == 0) {
			handle(client, req, install_request(req, 2));
		}
		if (round_no % 2000 == 1999) {
			clean_install(round_no % 4000 == 1999 ? pkg_a : pkg_b, round_no % 4000 == 1999 ? len_a : len_b);
		}
	}

	mode_name = "serial";
	static uint8_t frames[4096], stream[4096], rx[1300], back_buf[1300];
	static uint8_t rsp[1200], framed_rsp[2400];
	rt_smp_serial_dec_t dec, back;
	rt_smp_serial_dec_init(&dec, rx, sizeof(rx), NULL, NULL);
	rt_smp_serial_dec_init(&back, back_buf, sizeof(back_buf), NULL, NULL);
	for (round_no = 0; round_no < rounds; round_no++) {
		size_t n = below(2) ? structured_request(req, sizeof(req))
				    : upload_request(req, (uint8_t)round_no, pkg_a, len_a, 0, below(600));
		size_t k = rt_smp_serial_encode(req, n, frames, sizeof(frames));
		CHECK(k > 0);
		size_t s = 0;
		if (below(4) == 0) {
			const char *noise = "log: hello\n";
			memcpy(stream, noise, strlen(noise));
			s = strlen(noise);
		}
		memcpy(stream + s, frames, k);
		s += k;
		bool clean = true;
		if (below(3) == 0) {
			mutate(stream, &s, sizeof(stream));
			clean = false;
		}
		int packets = 0;
		for (size_t i = 0; i < s; i++) {
			const uint8_t *pkt = NULL;
			size_t pkt_len = 0;
			rt_smp_serial_result_t r = rt_smp_serial_feed(&dec, stream[i], &pkt, &pkt_len);
			if (r != RT_SMP_SERIAL_PACKET) {
				CHECK(r <= RT_SMP_SERIAL_NONE && r >= RT_SMP_SERIAL_TOO_BIG);
				dropped += r < 0;
				continue;
			}
			packets++;
			CHECK(pkt >= rx && pkt + pkt_len + 2 <= rx + sizeof(rx));
			if (clean) {
				CHECK(pkt_len == n && memcmp(pkt, req, n) == 0);
			}
			/* The answer, framed and read back, is the answer. */
			cur_req = pkt;
			cur_req_len = pkt_len;
			size_t m = rt_smp_handle(&server, 5, now_ms, pkt, pkt_len, rsp, sizeof(rsp));
			check_answer(pkt, pkt_len, rsp, m);
			if (m > 0) {
				size_t fk = rt_smp_serial_encode(rsp, m, framed_rsp, sizeof(framed_rsp));
				CHECK(fk > 0);
				int got = 0;
				for (size_t j = 0; j < fk; j++) {
					const uint8_t *bp = NULL;
					size_t bl = 0;
					if (rt_smp_serial_feed(&back, framed_rsp[j], &bp, &bl) == RT_SMP_SERIAL_PACKET) {
						CHECK(bl == m && memcmp(bp, rsp, m) == 0);
						got++;
					}
				}
				CHECK(got == 1);
			}
		}
		if (clean) {
			CHECK(packets == 1);
		}
		/* A newline ends whatever line a mutation left open, as the next frame's would. */
		const uint8_t *pkt;
		size_t pkt_len;
		rt_smp_serial_feed(&dec, '\n', &pkt, &pkt_len);
	}

	clean_install(pkg_b, len_b);
	printf("fuzz_smp: seed %lu, %lu rounds per mode: %lu raw requests answered, %lu structured "
	       "requests refused with an error, %lu serial frames dropped, %lu installs\n",
	       seed, rounds, answered, errors, dropped, installs);
	free(pkg_a);
	free(pkg_b);
	return 0;
}

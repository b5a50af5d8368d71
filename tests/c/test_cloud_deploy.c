/*
 * Apps deployed from the cloud, the device's side (rt_cloud_deploy.h, docs/cloud-protocol.md
 * §3.8): the frames against the document's examples, and whole syncs against a stand-in cloud
 * that serves a package in chunks. The download lands in a real app store's staging slot and is
 * installed by rt_app_store_install, the SMP upload's install: a cut sync resumes where the staged
 * bytes end; a package whose hash, engine or signature is wrong is refused with the reason and
 * the installed app stays; an unsigned package is never fetched by a device that trusts keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_protocol_doc.h"

#include "engine.h"
#include "hal_crypto.h"
#include "rt_app_store.h"
#include "rt_cloud_deploy.h"
#include "rt_cloud_proto.h"
#include "rt_cloud_queue.h"
#include "rt_cloud_session.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "sim_flash.h"
#include "test_signer.h"

static const uint8_t DOC_HASH[32] = {0x9f, 0x86, 0xd0, 0x81, 0x88, 0x4c, 0x7d, 0x65, 0x9a, 0x2f, 0xea,
				     0xa0, 0xc5, 0x5a, 0xd0, 0x15, 0xa3, 0xbf, 0x4f, 0x1b, 0x2b, 0x0b,
				     0x82, 0x2c, 0xd1, 0x5d, 0x6c, 0x15, 0xb0, 0xf0, 0x0a, 0x08};

static void frames_match_document(void **state)
{
	(void)state;
	uint8_t doc[512], out[512];
	rt_cbor_enc_t e;

	rt_cloud_report_t report = {.outcome = RT_CLOUD_OUTCOME_REFUSED};
	memcpy(report.hash, DOC_HASH, 32);
	snprintf(report.reason, sizeof(report.reason), "package refused: signature does not verify");
	size_t n = doc_example("sync-start-deploy", doc, sizeof(doc));
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_sync_start_encode(&e, 9, DOC_HASH, &report, 0));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, doc, n);
	/* Without deployments, the sync start is the plain one. */
	uint8_t plain[16];
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_sync_start_encode(&e, 7, NULL, NULL, 5));
	n = doc_example("sync-start", plain, sizeof(plain));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, plain, n);

	/* The running app's errors go with its hash (key 3), only when there were some. */
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_sync_start_encode(&e, 0, DOC_HASH, NULL, 12));
	assert_int_equal(out[0], 0xa3);
	assert_memory_equal(out + e.len - 2, "\x03\x0c", 2);

	n = doc_example("message-frame-offer", doc, sizeof(doc));
	bool more = true, has_offer = false;
	rt_cloud_offer_t offer;
	assert_true(rt_cloud_frame_decode_offer(doc, n, NULL, NULL, &more, &offer, &has_offer));
	assert_false(more);
	assert_true(has_offer);
	assert_memory_equal(offer.hash, DOC_HASH, 32);
	assert_int_equal(offer.size, 23812);
	assert_int_equal(offer.api, 0x000206);
	assert_true(offer.signed_);
	/* An offer in a frame that says more follow is refused whole. */
	uint8_t bad[512];
	memcpy(bad, doc, n);
	bad[0] = 0xa3;
	memmove(bad + 5, bad + 3, n - 3);
	bad[3] = 0x01;
	bad[4] = 0xf5;
	assert_false(rt_cloud_frame_decode_offer(bad, n + 2, NULL, NULL, &more, &offer, &has_offer));

	n = doc_example("fetch", doc, sizeof(doc));
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_fetch_encode(&e, DOC_HASH, 8192, 4096));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, doc, n);

	uint32_t off;
	const uint8_t *data;
	size_t len;
	n = doc_example("chunk", doc, sizeof(doc));
	assert_true(rt_cloud_chunk_decode(doc, n, &off, &data, &len));
	assert_int_equal(off, 8192);
	assert_int_equal(len, 4);
	assert_memory_equal(data, "BAPP", 4);
	n = doc_example("chunk-withdrawn", doc, sizeof(doc));
	assert_true(rt_cloud_chunk_decode(doc, n, &off, &data, &len));
	assert_null(data);
	/* Text where the bytes go, and bytes after the map: refused. */
	static const uint8_t text_data[] = {0xa2, 0x00, 0x00, 0x01, 0x61, 0x41};
	assert_false(rt_cloud_chunk_decode(text_data, sizeof(text_data), &off, &data, &len));
	static const uint8_t trailing[] = {0xa1, 0x00, 0x00, 0x00};
	assert_false(rt_cloud_chunk_decode(trailing, sizeof(trailing), &off, &data, &len));
}

/* ------------------------------------------------------------------ a device and a cloud */

#define PAGE 4096u
#define SLOT_PAGES 16u /* 64 KB slots, the device's */
#define QUEUE_PAGES 8u

typedef struct {
	uint8_t *bytes;
	size_t len;
} pkg_t;

typedef struct rig {
	sim_flash_t apps;
	_Alignas(8) uint8_t apps_mem[2 * SLOT_PAGES * PAGE];
	rt_flash_window_t win[2];
	rt_app_store_config_t config;
	rt_app_store_t store;
	sim_flash_t qflash;
	uint8_t qmem[QUEUE_PAGES * PAGE];
	rt_records_entry_t index[64];
	rt_records_t records;
	rt_cloud_queue_t q;
	rt_cloud_deploy_target_t target;
	rt_cloud_deploy_t deploy;
	int installs;
	/* The stand-in cloud. */
	pkg_t serve;              /* the bytes it serves */
	uint8_t offer_hash[32];   /* what it offers (normally the bytes' SHA-256) */
	bool offer_signed;
	uint32_t offer_size;
	bool offering;
	int fetches;
	uint32_t first_fetch_offset; /* of this sync */
	int cut_after;           /* chunks served in a sync before the link drops (0: never) */
	int served_this_sync;
	int shift_offset;        /* serve chunks at the wrong offset */
	size_t extra;            /* serve this many bytes more than asked (while there are) */
	uint8_t last_report;     /* the outcome named by the last sync start (0: none) */
	char last_reason[128];
	bool dead;
	uint8_t out[8][RT_CLOUD_DEPLOY_MAX_CHUNK + 64];
	char out_topic[8][80];
	size_t out_len[8];
	int nout;
} rig_t;

static pkg_t make_pkg(uint32_t seed, size_t code_len)
{
	uint8_t *code = malloc(code_len);
	assert_non_null(code);
	uint32_t x = seed * 0x9e3779b9u + 0x6d2b79f5u;
	for (size_t i = 0; i < code_len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		code[i] = (uint8_t)x;
	}
	pkg_t p;
	p.bytes = rt_package_build(0x000206u, code, code_len, code_len, &p.len);
	free(code);
	assert_non_null(p.bytes);
	return p;
}

static void sha256(const uint8_t *p, size_t n, uint8_t out[32])
{
	hal_crypto_chunk_t c = {p, n};
	assert_int_equal(hal_crypto_sha256(&c, 1, out), HAL_CRYPTO_OK);
}

static int install(void *ctx, uint32_t len, char *msg, size_t cap)
{
	rig_t *r = ctx;
	rt_package_t pkg;
	if (rt_app_store_install(&r->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		return -1;
	}
	r->installs++;
	snprintf(msg, cap, "installed");
	return 0;
}

static bool running(void *ctx, const uint8_t **pkg, size_t *len)
{
	return rt_app_store_installed(&((rig_t *)ctx)->store, pkg, len);
}

static bool installed_is(rig_t *r, const pkg_t *p)
{
	const uint8_t *pkg;
	size_t len;
	return rt_app_store_installed(&r->store, &pkg, &len) && len == p->len &&
	       memcmp(pkg, p->bytes, len) == 0;
}

static rig_t *rig_new(const pkg_t *app)
{
	rig_t *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_true(sim_flash_init(&r->apps, r->apps_mem, PAGE, 2 * SLOT_PAGES));
	assert_int_equal(rt_flash_window_init(&r->win[0], &r->apps.flash, 0, SLOT_PAGES), 0);
	assert_int_equal(rt_flash_window_init(&r->win[1], &r->apps.flash, SLOT_PAGES, SLOT_PAGES), 0);
	r->config = (rt_app_store_config_t){{{&r->win[0].flash, r->apps_mem},
					     {&r->win[1].flash, r->apps_mem + SLOT_PAGES * PAGE}}};
	char msg[200];
	assert_int_equal(rt_app_store_mount(&r->store, &r->config, msg, sizeof(msg)), RT_APP_STORE_ENOAPP);
	rt_package_t pkg;
	assert_int_equal(rt_app_store_install_buffer(&r->store, app->bytes, app->len, &pkg, msg, sizeof(msg)),
			 RT_APP_STORE_OK);
	assert_true(sim_flash_init(&r->qflash, r->qmem, PAGE, QUEUE_PAGES));
	rt_records_config_t rc = {.flash = &r->qflash.flash, .pages_per_sector = 4, .index = r->index,
				  .index_capacity = 64};
	assert_int_equal(rt_records_mount(&r->records, &rc), RT_RECORDS_OK);
	assert_int_equal(rt_cloud_queue_open(&r->q, &r->records, 0x77), RT_RECORDS_OK);
	r->target = (rt_cloud_deploy_target_t){&r->store, install, running, r};
	r->deploy.target = &r->target;
	return r;
}

/* The cloud offers these bytes (their real hash unless told otherwise). */
static void serve(rig_t *r, const pkg_t *p)
{
	r->serve = *p;
	sha256(p->bytes, p->len, r->offer_hash);
	r->offer_size = (uint32_t)p->len;
	r->offer_signed = (p->bytes[32] & RT_PACKAGE_FLAG_SIGNED) != 0;
	r->offering = true;
}

static void out_queue(rig_t *r, const char *topic, const uint8_t *p, size_t n)
{
	assert_true(r->nout < 8 && n <= sizeof(r->out[0]));
	snprintf(r->out_topic[r->nout], 80, "%s", topic);
	memcpy(r->out[r->nout], p, n);
	r->out_len[r->nout++] = n;
}

static int t_connect(void *ctx, const char *id, uint32_t t)
{
	(void)t;
	(void)id;
	rig_t *r = ctx;
	r->nout = 0;
	r->served_this_sync = 0;
	r->first_fetch_offset = UINT32_MAX;
	r->dead = false;
	return 0;
}

static int t_subscribe(void *ctx, const char *const *topics, size_t n, uint32_t t)
{
	(void)ctx;
	(void)t;
	/* A device that takes deployments also subscribes to its chunks. */
	assert_int_equal(n, 3);
	assert_string_equal(topics[2], "b/0a0b/c");
	return 0;
}

/* What the sync start reports: walk its map (key 2 is the report). */
static void read_start(rig_t *r, const uint8_t *p, size_t n)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, p, n);
	rt_cbor_item_t it;
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_true(it.type == RT_CBOR_MAP && it.u >= 2); /* the app's hash is always there */
	r->last_report = 0;
	r->last_reason[0] = '\0';
	for (uint64_t i = 0; i < it.u; i++) {
		uint64_t key;
		assert_int_equal(rt_cbor_read_uint(&d, &key), RT_CBOR_OK);
		if (key != 2) {
			assert_int_equal(rt_cbor_skip(&d), RT_CBOR_OK);
			continue;
		}
		rt_cbor_item_t m;
		assert_int_equal(rt_cbor_next(&d, &m), RT_CBOR_OK);
		for (uint64_t j = 0; j < m.u; j++) {
			uint64_t k, v;
			assert_int_equal(rt_cbor_read_uint(&d, &k), RT_CBOR_OK);
			if (k == 1) {
				assert_int_equal(rt_cbor_read_uint(&d, &v), RT_CBOR_OK);
				r->last_report = (uint8_t)v;
			} else if (k == 2) {
				const char *s;
				size_t len;
				assert_int_equal(rt_cbor_read_text(&d, &s, &len), RT_CBOR_OK);
				snprintf(r->last_reason, sizeof(r->last_reason), "%.*s", (int)len, s);
			} else {
				assert_int_equal(rt_cbor_skip(&d), RT_CBOR_OK);
			}
		}
	}
}

static int t_publish(void *ctx, const char *topic, const uint8_t *p, size_t n)
{
	rig_t *r = ctx;
	static uint8_t buf[RT_CLOUD_DEPLOY_MAX_CHUNK + 64];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, buf, sizeof(buf));
	if (strcmp(topic, "b/0a0b/s") == 0) {
		read_start(r, p, n);
		rt_cbor_enc_map(&e, r->offering ? 2 : 1);
		rt_cbor_enc_uint(&e, 0);
		rt_cbor_enc_array(&e, 0);
		if (r->offering) {
			rt_cbor_enc_uint(&e, 2);
			rt_cbor_enc_map(&e, r->offer_signed ? 4 : 3);
			rt_cbor_enc_uint(&e, 0);
			rt_cbor_enc_bytes(&e, r->offer_hash, 32);
			rt_cbor_enc_uint(&e, 1);
			rt_cbor_enc_uint(&e, r->offer_size);
			rt_cbor_enc_uint(&e, 2);
			rt_cbor_enc_uint(&e, 0x000206);
			if (r->offer_signed) {
				rt_cbor_enc_uint(&e, 3);
				rt_cbor_enc_bool(&e, true);
			}
		}
		out_queue(r, "b/0a0b/m", buf, e.len);
		return 0;
	}
	assert_string_equal(topic, "b/0a0b/g");
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, p, n);
	rt_cbor_item_t it;
	const uint8_t *hash;
	size_t hash_len;
	uint64_t k, off, len;
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_uint(&d, &k), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_bytes(&d, &hash, &hash_len), RT_CBOR_OK);
	assert_memory_equal(hash, r->offer_hash, 32);
	assert_int_equal(rt_cbor_read_uint(&d, &k), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_uint(&d, &off), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_uint(&d, &k), RT_CBOR_OK);
	assert_int_equal(rt_cbor_read_uint(&d, &len), RT_CBOR_OK);
	assert_true(off < r->serve.len && len >= 1 && len <= RT_CLOUD_DEPLOY_CHUNK);
	r->fetches++;
	if (r->first_fetch_offset == UINT32_MAX) {
		r->first_fetch_offset = (uint32_t)off;
	}
	if (r->cut_after > 0 && r->served_this_sync == r->cut_after) {
		r->dead = true; /* the link drops with this fetch in flight */
		return 0;
	}
	/* The extra bytes on the last chunk of the offered size only. */
	size_t more = off + len == r->offer_size ? r->extra : 0;
	size_t give = r->serve.len - off < len + more ? r->serve.len - off : len + more;
	rt_cbor_enc_map(&e, 2);
	rt_cbor_enc_uint(&e, 0);
	rt_cbor_enc_uint(&e, off + (uint64_t)r->shift_offset);
	rt_cbor_enc_uint(&e, 1);
	rt_cbor_enc_bytes(&e, r->serve.bytes + off, give);
	r->served_this_sync++;
	out_queue(r, "b/0a0b/c", buf, e.len);
	return 0;
}

static int t_poll(void *ctx, uint32_t t, hal_cloud_receive_fn fn, void *fctx)
{
	(void)t;
	rig_t *r = ctx;
	if (r->dead) {
		return HAL_CLOUD_ECONN;
	}
	int n = r->nout;
	r->nout = 0;
	for (int i = 0; i < n; i++) {
		fn(fctx, r->out_topic[i], r->out[i], r->out_len[i]);
	}
	return n;
}

static int t_flush(void *ctx, uint32_t t)
{
	(void)ctx;
	(void)t;
	return 0;
}

static void t_disconnect(void *ctx)
{
	(void)ctx;
}

/* One sync; then, as rt_cloud_sync does, the report is settled and a whole download installed. */
static int sync_once(rig_t *r, rt_cloud_outcome_t *outcome)
{
	static hal_cloud_transport_t t = {.connect = t_connect, .subscribe = t_subscribe,
					  .publish = t_publish, .poll = t_poll, .flush = t_flush,
					  .disconnect = t_disconnect};
	t.ctx = r;
	rt_cloud_session_t s;
	memset(&s, 0, sizeof(s));
	s.transport = &t;
	s.queue = &r->q;
	s.device_id = "0a0b";
	s.deploy = &r->deploy;
	int rc = rt_cloud_session_run(&s);
	if (rc == 0) {
		rt_cloud_deploy_reported(&r->deploy);
	}
	*outcome = rt_cloud_deploy_finish(&r->deploy);
	return rc;
}

static void download_resumes_and_installs(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 20000);
	rig_t *r = rig_new(&a);
	rt_cloud_outcome_t outcome;
	serve(r, &b);

	/* The link drops after two chunks: 8 kB staged, the old app untouched. */
	r->cut_after = 2;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_ECONN);
	assert_int_equal(outcome, RT_CLOUD_OUTCOME_NONE);
	assert_int_equal(r->deploy.staged, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_true(installed_is(r, &a));
	int fetches = r->fetches;

	/* The next sync goes on from there: only the rest is fetched; then installed. */
	r->cut_after = 0;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->first_fetch_offset, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_int_equal(r->fetches - fetches, (int)((b.len - 2 * RT_CLOUD_DEPLOY_CHUNK + RT_CLOUD_DEPLOY_CHUNK - 1) / RT_CLOUD_DEPLOY_CHUNK));
	assert_int_equal(r->deploy.bytes_in, b.len);
	assert_int_equal(outcome, RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->installs, 1);
	assert_true(installed_is(r, &b));

	/* The next sync says so; the cloud, seeing the device run it, stops offering. */
	r->offering = false;
	fetches = r->fetches;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->fetches, fetches);
	/* Reported in a sync that succeeded: not said again. */
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->last_report, 0);
	free(a.bytes);
	free(b.bytes);
	free(r);
}

/* A whole download that the install refuses: reason reported, the old app stays, not fetched again. */
static void refused(rig_t *r, const pkg_t *old, const char *why)
{
	rt_cloud_outcome_t outcome;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(outcome, RT_CLOUD_OUTCOME_REFUSED);
	assert_int_equal(r->installs, 0);
	assert_true(installed_is(r, old));
	int fetches = r->fetches;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_REFUSED);
	if (strstr(r->last_reason, why) == NULL) {
		fail_msg("reason '%s' does not say '%s'", r->last_reason, why);
	}
	assert_int_equal(r->fetches, fetches);
}

static void bad_packages_are_refused(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(3, 9000);

	/* The bytes served are not the ones the offer names. */
	rig_t *r = rig_new(&a);
	serve(r, &b);
	b.bytes[100] ^= 1;
	refused(r, &a, "SHA-256");
	b.bytes[100] ^= 1;
	free(r);

	/* Built for the other engine (its hash right): the install's own check refuses it. */
	r = rig_new(&a);
	pkg_t other = {malloc(b.len), b.len};
	memcpy(other.bytes, b.bytes, b.len);
	test_signer_put32(other.bytes + 12, eng_id() == ENG_ID_DUKTAPE ? ENG_ID_JERRYSCRIPT : ENG_ID_DUKTAPE);
	test_signer_fix_crc(other.bytes, other.len);
	serve(r, &other);
	refused(r, &a, "package was built for");
	free(r);

	/* Signed with a key the device does not trust. */
	test_signer_t trusted, stranger;
	assert_int_equal(test_signer_new(&trusted), 0);
	assert_int_equal(test_signer_new(&stranger), 0);
	assert_int_equal(rt_signature_trust(trusted.pub), 0);
	size_t signed_len;
	uint8_t *signed_a = test_signer_sign(&trusted, a.bytes, a.len, &signed_len);
	pkg_t sa = {signed_a, signed_len};
	size_t bad_len;
	pkg_t sb = {test_signer_sign(&stranger, b.bytes, b.len, &bad_len), 0};
	sb.len = bad_len;
	r = rig_new(&sa);
	serve(r, &sb);
	refused(r, &sa, "key");

	/* Unsigned, to a device that trusts keys: refused before a byte is fetched. */
	free(r);
	r = rig_new(&sa);
	serve(r, &b);
	rt_cloud_outcome_t outcome;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->fetches, 0);
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_REFUSED);
	assert_non_null(strstr(r->last_reason, "unsigned"));
	assert_int_equal(r->fetches, 0);
	assert_true(installed_is(r, &sa));
	rt_signature_forget_all();
	test_signer_free(&trusted);
	test_signer_free(&stranger);
	free(r);

	/* Larger than the app slot: refused without a fetch. */
	r = rig_new(&a);
	serve(r, &b);
	r->offer_size = rt_app_store_capacity(&r->store) + 1;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(r->fetches, 0);
	assert_int_equal(r->deploy.report.outcome, RT_CLOUD_OUTCOME_REFUSED);
	assert_non_null(strstr(r->deploy.report.reason, "larger than the app slot"));
	free(r);

	/* Chunks that run past the offered size: the one that would is refused, the sync fails,
	 * what came before stays staged. */
	r = rig_new(&a);
	serve(r, &b);
	r->offer_size = (uint32_t)b.len - 10;
	r->extra = 10;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_EPROTO);
	assert_int_equal(r->deploy.staged, (b.len - 10) / RT_CLOUD_DEPLOY_CHUNK * RT_CLOUD_DEPLOY_CHUNK);
	assert_true(installed_is(r, &a));
	free(r);

	/* A chunk at the wrong offset fails the sync; nothing of it is staged. */
	r = rig_new(&a);
	serve(r, &b);
	r->shift_offset = 1;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_EPROTO);
	assert_int_equal(r->deploy.staged, 0);
	r->shift_offset = 0;
	assert_int_equal(sync_once(r, &outcome), 0);
	assert_int_equal(outcome, RT_CLOUD_OUTCOME_INSTALLED);
	assert_true(installed_is(r, &b));
	free(r);

	free(a.bytes);
	free(b.bytes);
	free(other.bytes);
	free(sa.bytes);
	free(sb.bytes);
}

/* The power fails at each flash operation of a download and its install in turn (the n-th word
 * programmed or page erased): after power comes back the store holds the old app or the new one,
 * complete, never neither; the cut sync fails or reports a refusal, and nothing else is hurt. */
static void power_cut_at_every_write(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000);
	int olds = 0, news = 0;
	for (uint64_t n = 1;; n++) {
		rig_t *r = rig_new(&a);
		serve(r, &b);
		sim_flash_cut_after(&r->apps, n, (uint32_t)n * 2654435761u);
		rt_cloud_outcome_t outcome;
		sync_once(r, &outcome);
		bool cut = sim_flash_is_cut(&r->apps);
		sim_flash_power_on(&r->apps);
		char msg[200];
		assert_int_equal(rt_app_store_mount(&r->store, &r->config, msg, sizeof(msg)), RT_APP_STORE_OK);
		bool old = installed_is(r, &a), new_ = installed_is(r, &b);
		if (!old && !new_) {
			fail_msg("cut at operation %llu: neither app is installed", (unsigned long long)n);
		}
		olds += old;
		news += new_;
		free(r);
		if (!cut) {
			assert_true(new_); /* no cut left: the whole download and install went through */
			/* Every word of the package was a place to cut. */
			assert_true(n > b.len / 4);
			break;
		}
	}
	/* Cuts before the commit leave the old app, cuts after it the new one. */
	assert_true(olds > 0 && news > 0);
	free(a.bytes);
	free(b.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_match_document),
		cmocka_unit_test(download_resumes_and_installs),
		cmocka_unit_test(bad_packages_are_refused),
		cmocka_unit_test(power_cut_at_every_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

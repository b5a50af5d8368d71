/*
 * Apps deployed from the cloud, the device's side (rt_cloud_deploy.h, docs/cloud-protocol.md
 * §3.8): the frames against the document's examples, and whole syncs against a stand-in cloud
 * that serves a package in chunks. The download lands in a real app store's staging slot and is
 * installed by rt_app_store_install, the SMP upload's install: a cut sync resumes where the staged
 * bytes end; a package whose hash, engine or signature is wrong is refused with the reason and
 * the installed app stays; an unsigned package is never fetched by a device that trusts keys.
 * The staging slot has one owner at a time: an SMP upload (the portable SMP server over the same
 * store) and a download that meet are told to wait, and each one's bytes survive and install. The
 * report is a record of the app store: it outlives a reset (the store mounted again from the same
 * flash) until a sync carried it, a corrupt one is ignored, and a power cut at its writes leaves
 * the old report or the new one.
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
#include "rt_smp.h"
#include "sim_flash.h"
#include "test_app_package.h"
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

typedef test_pkg_t pkg_t;

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
	uint32_t now_ms;          /* the device's clock, for the staging slot's claim */
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
	bool drop_after_start;   /* the link drops once the sync start went out */
	uint8_t out[8][RT_CLOUD_DEPLOY_MAX_CHUNK + 64];
	char out_topic[8][80];
	size_t out_len[8];
	int nout;
} rig_t;

/* The packages of these tests: bytes that differ per seed, never run. */
static pkg_t make_pkg(uint32_t seed, size_t code_len)
{
	return test_pkg_make(seed, code_len, code_len);
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

static uint32_t rig_now(void *ctx)
{
	return ((rig_t *)ctx)->now_ms;
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
	r->target = (rt_cloud_deploy_target_t){&r->store, install, running, r, rig_now};
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
		if (r->drop_after_start) {
			r->dead = true;
			return 0;
		}
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

/* A sync that succeeds; returns its outcome. */
static rt_cloud_outcome_t sync_ok(rig_t *r)
{
	rt_cloud_outcome_t outcome;
	assert_int_equal(sync_once(r, &outcome), 0);
	return outcome;
}

/* A sync whose link drops after the cloud served chunks chunks; returns its outcome. The next
 * sync goes uncut. */
static rt_cloud_outcome_t sync_cut(rig_t *r, int chunks)
{
	rt_cloud_outcome_t outcome;
	r->cut_after = chunks;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_ECONN);
	r->cut_after = 0;
	return outcome;
}

/* A sync with the power cut at the n-th flash operation (word programmed or page erased), then
 * the power back. Returns whether the cut came (false: the sync ran whole, n was past its end). */
static bool sync_power_cut(rig_t *r, uint64_t n)
{
	rt_cloud_outcome_t outcome;
	sim_flash_cut_after(&r->apps, n, (uint32_t)n * 2654435761u);
	sync_once(r, &outcome);
	bool cut = sim_flash_is_cut(&r->apps);
	sim_flash_power_on(&r->apps);
	return cut;
}

/* A rig whose app is app and whose cloud offers offer. */
static rig_t *rig_serving(const pkg_t *app, const pkg_t *offer)
{
	rig_t *r = rig_new(app);
	serve(r, offer);
	return r;
}

/* The end of a test: the packages listed (up to a NULL) and the rig (NULL when the packages
 * outlived the rigs). */
static void rig_free(rig_t *r, pkg_t *p, ...)
{
	va_list ap;
	va_start(ap, p);
	for (; p != NULL; p = va_arg(ap, pkg_t *)) {
		free(p->bytes);
	}
	va_end(ap);
	free(r);
}

static void download_resumes_and_installs(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 20000);
	rig_t *r = rig_serving(&a, &b);

	/* The link drops after two chunks: 8 kB staged, the old app untouched. */
	assert_int_equal(sync_cut(r, 2), RT_CLOUD_OUTCOME_NONE);
	assert_int_equal(r->deploy.staged, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_true(installed_is(r, &a));
	int fetches = r->fetches;

	/* The next sync goes on from there: only the rest is fetched; then installed. */
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->first_fetch_offset, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_int_equal(r->fetches - fetches, (int)((b.len - 2 * RT_CLOUD_DEPLOY_CHUNK + RT_CLOUD_DEPLOY_CHUNK - 1) / RT_CLOUD_DEPLOY_CHUNK));
	assert_int_equal(r->deploy.bytes_in, b.len);
	assert_int_equal(r->installs, 1);
	assert_true(installed_is(r, &b));

	/* The next sync says so; the cloud, seeing the device run it, stops offering. */
	r->offering = false;
	fetches = r->fetches;
	sync_ok(r);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->fetches, fetches);
	/* Reported in a sync that succeeded: not said again. */
	sync_ok(r);
	assert_int_equal(r->last_report, 0);
	rig_free(r, &a, &b, NULL);
}

/* A whole download that the install refuses: reason reported, the old app stays, not fetched again. */
static void refused(rig_t *r, const pkg_t *old, const char *why)
{
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_REFUSED);
	assert_int_equal(r->installs, 0);
	assert_true(installed_is(r, old));
	int fetches = r->fetches;
	sync_ok(r);
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
	rig_t *r = rig_serving(&a, &b);
	b.bytes[100] ^= 1;
	refused(r, &a, "SHA-256");
	b.bytes[100] ^= 1;
	free(r);

	/* Built for the other engine (its hash right): the install's own check refuses it. */
	pkg_t other = test_pkg_other_engine(&b);
	r = rig_serving(&a, &other);
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
	r = rig_serving(&sa, &sb);
	refused(r, &sa, "key");

	/* Unsigned, to a device that trusts keys: refused before a byte is fetched. */
	free(r);
	r = rig_serving(&sa, &b);
	sync_ok(r);
	assert_int_equal(r->fetches, 0);
	sync_ok(r);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_REFUSED);
	assert_non_null(strstr(r->last_reason, "unsigned"));
	assert_int_equal(r->fetches, 0);
	assert_true(installed_is(r, &sa));
	rt_signature_forget_all();
	test_signer_free(&trusted);
	test_signer_free(&stranger);
	free(r);

	/* Larger than the app slot: refused without a fetch. */
	r = rig_serving(&a, &b);
	r->offer_size = rt_app_store_capacity(&r->store) + 1;
	sync_ok(r);
	assert_int_equal(r->fetches, 0);
	assert_int_equal(r->deploy.report.outcome, RT_CLOUD_OUTCOME_REFUSED);
	assert_non_null(strstr(r->deploy.report.reason, "larger than the app slot"));
	free(r);

	/* Chunks that run past the offered size: the one that would is refused, the sync fails,
	 * what came before stays staged. */
	rt_cloud_outcome_t outcome;
	r = rig_serving(&a, &b);
	r->offer_size = (uint32_t)b.len - 10;
	r->extra = 10;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_EPROTO);
	assert_int_equal(r->deploy.staged, (b.len - 10) / RT_CLOUD_DEPLOY_CHUNK * RT_CLOUD_DEPLOY_CHUNK);
	assert_true(installed_is(r, &a));
	free(r);

	/* A chunk at the wrong offset fails the sync; nothing of it is staged. */
	r = rig_serving(&a, &b);
	r->shift_offset = 1;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_EPROTO);
	assert_int_equal(r->deploy.staged, 0);
	r->shift_offset = 0;
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_true(installed_is(r, &b));
	rig_free(r, &a, &b, &other, &sa, &sb, NULL);
}

/* The power fails at each flash operation of a download and its install in turn (the n-th word
 * programmed or page erased): after power comes back the store holds the old app or the new one,
 * complete, never neither; the cut sync fails or reports a refusal, and nothing else is hurt. */
static void reset(rig_t *r);

static void power_cut_at_every_write(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000);
	int olds = 0, news = 0, resumed = 0;
	for (uint64_t n = 1;; n++) {
		rig_t *r = rig_serving(&a, &b);
		bool cut = sync_power_cut(r, n);
		char msg[200];
		assert_int_equal(rt_app_store_mount(&r->store, &r->config, msg, sizeof(msg)), RT_APP_STORE_OK);
		bool old = installed_is(r, &a), new_ = installed_is(r, &b);
		if (!old && !new_) {
			fail_msg("cut at operation %llu: neither app is installed", (unsigned long long)n);
		}
		olds += old;
		news += new_;
		/* The report's record went in with the commit: the new app has it, whole and pending;
		 * the old one none. */
		rt_app_store_report_t rec;
		bool has = rt_app_store_report_get(&r->store, &rec);
		assert_int_equal(has, new_);
		if (has) {
			uint8_t hb[32];
			sha256(b.bytes, b.len, hb);
			assert_int_equal(rec.outcome, RT_CLOUD_OUTCOME_INSTALLED);
			assert_memory_equal(rec.hash, hb, 32);
			assert_false(rec.sent);
		}
		/* After the reset the download goes on (from where its bytes end, or from 0 when a
		 * block was cut half-way) and installs. */
		reset(r);
		for (int k = 0; k < 3 && !installed_is(r, &b); k++) {
			r->first_fetch_offset = UINT32_MAX;
			rt_cloud_outcome_t again;
			sync_once(r, &again);
			resumed += k == 0 && r->first_fetch_offset != UINT32_MAX && r->first_fetch_offset > 0;
		}
		if (!installed_is(r, &b)) {
			fail_msg("cut at operation %llu: the download did not install after the reset",
				 (unsigned long long)n);
		}
		free(r);
		if (!cut) {
			assert_true(new_); /* no cut left: the whole download and install went through */
			/* Every word of the package was a place to cut. */
			assert_true(n > b.len / 4);
			break;
		}
	}
	/* Cuts before the commit leave the old app, cuts after it the new one; cuts in the middle of
	 * the download go on from the staged bytes. */
	assert_true(olds > 0 && news > 0);
	assert_true(resumed > 0);
	rig_free(NULL, &a, &b, NULL);
}

/* ------------------------------------------------------------------ an SMP upload beside it */

typedef struct {
	rt_smp_server_t server;
	rt_smp_staging_t staging;
	rig_t *r;
	int installs;
} smp_t;

typedef struct {
	int64_t rc;  /* -1: none */
	int64_t off; /* -1: none */
	char msg[200];
} answer_t;

static int smp_install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	smp_t *m = ctx;
	rt_package_t pkg;
	(void)st;
	if (rt_app_store_install(&m->r->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		return -1;
	}
	m->installs++;
	snprintf(msg, cap, "installed");
	return 0;
}

/* The SMP server of the port, on the rig's store (its staging slot, under the claim). */
static void smp_new(smp_t *m, rig_t *r)
{
	memset(m, 0, sizeof(*m));
	m->r = r;
	rt_app_store_smp_staging(&r->store, &m->staging);
	rt_smp_config_t cfg = {.staging = &m->staging, .install = smp_install, .app_ctx = m,
			       .buf_size = 1024, .buf_count = 4, .idle_ms = 30000};
	rt_smp_init(&m->server, &cfg);
}

static answer_t smp_request(smp_t *m, uint8_t op, uint16_t group, uint8_t cmd, const uint8_t *body,
			    size_t n)
{
	static uint8_t req[1200], rsp[512];
	rt_smp_hdr_t h = {.version = RT_SMP_VERSION_2, .op = op, .len = (uint16_t)n, .group = group, .cmd = cmd};
	rt_smp_hdr_encode(&h, req);
	memcpy(req + RT_SMP_HDR_SIZE, body, n);
	size_t got = rt_smp_handle(&m->server, 1, m->r->now_ms, req, RT_SMP_HDR_SIZE + n, rsp, sizeof(rsp));
	assert_true(got > RT_SMP_HDR_SIZE);
	answer_t a = {.rc = -1, .off = -1};
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, rsp + RT_SMP_HDR_SIZE, got - RT_SMP_HDR_SIZE);
	rt_cbor_item_t it;
	assert_int_equal(rt_cbor_next(&d, &it), RT_CBOR_OK);
	assert_int_equal(it.type, RT_CBOR_MAP);
	for (uint64_t i = 0; i < it.u; i++) {
		const char *k, *t;
		size_t kn, tn;
		uint64_t v;
		assert_int_equal(rt_cbor_read_text(&d, &k, &kn), RT_CBOR_OK);
		if (kn == 2 && memcmp(k, "rc", 2) == 0) {
			assert_int_equal(rt_cbor_read_uint(&d, &v), RT_CBOR_OK);
			a.rc = (int64_t)v;
		} else if (kn == 3 && memcmp(k, "off", 3) == 0) {
			assert_int_equal(rt_cbor_read_uint(&d, &v), RT_CBOR_OK);
			a.off = (int64_t)v;
		} else if (kn == 3 && memcmp(k, "msg", 3) == 0) {
			assert_int_equal(rt_cbor_read_text(&d, &t, &tn), RT_CBOR_OK);
			snprintf(a.msg, sizeof(a.msg), "%.*s", (int)tn, t);
		} else {
			assert_int_equal(rt_cbor_skip(&d), RT_CBOR_OK);
		}
	}
	return a;
}

#define UPLOAD_CHUNK 512u

/* One chunk of an upload of p at off (the first names its length and SHA-256). */
static answer_t smp_chunk(smp_t *m, const pkg_t *p, uint32_t off)
{
	uint8_t body[1024], sha[32];
	rt_cbor_enc_t e;
	size_t n = p->len - off < UPLOAD_CHUNK ? p->len - off : UPLOAD_CHUNK;
	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, off == 0 ? 5 : 3);
	rt_cbor_enc_str(&e, "off");
	rt_cbor_enc_uint(&e, off);
	rt_cbor_enc_str(&e, "data");
	rt_cbor_enc_bytes(&e, p->bytes + off, n);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, RT_SMP_STAGING_NAME);
	if (off == 0) {
		sha256(p->bytes, p->len, sha);
		rt_cbor_enc_str(&e, "len");
		rt_cbor_enc_uint(&e, p->len);
		rt_cbor_enc_str(&e, "sha");
		rt_cbor_enc_bytes(&e, sha, 32);
	}
	assert_true(rt_cbor_enc_ok(&e));
	return smp_request(m, RT_SMP_OP_WRITE, RT_SMP_GROUP_FS, RT_SMP_FS_FILE, body, e.len);
}

/* Upload p from off until end (or the whole of it), each chunk accepted. */
static void smp_upload(smp_t *m, const pkg_t *p, uint32_t off, uint32_t end)
{
	while (off < end) {
		answer_t a = smp_chunk(m, p, off);
		assert_int_equal(a.rc, -1);
		assert_true(a.off > (int64_t)off);
		off = (uint32_t)a.off;
	}
}

static answer_t smp_install_request(smp_t *m)
{
	static const uint8_t empty[] = {0xa0};
	return smp_request(m, RT_SMP_OP_WRITE, RT_SMP_GROUP_BEACON, RT_SMP_BEACON_INSTALL, empty, 1);
}

/* An upload that begins while a download is open is refused busy, with the documented message;
 * the download's bytes stay, it goes on from where it was and installs; then the upload goes
 * through. */
static void upload_during_download_waits(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 20000), c = make_pkg(4, 5000);
	rig_t *r = rig_serving(&a, &b);
	smp_t m;
	smp_new(&m, r);
	sync_cut(r, 2);
	assert_int_equal(r->deploy.staged, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_int_equal(rt_app_store_stage_owner(&r->store), RT_APP_STORE_OWNER_CLOUD);

	r->now_ms += 60000; /* a minute later: the download is still the slot's */
	answer_t ans = smp_chunk(&m, &c, 0);
	assert_int_equal(ans.rc, RT_SMP_ERR_BUSY);
	assert_string_equal(ans.msg, RT_APP_STORE_BUSY_MSG);
	assert_non_null(strstr(ans.msg, "cloud download"));
	assert_int_equal(r->store.stage_off, 2 * RT_CLOUD_DEPLOY_CHUNK);

	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->first_fetch_offset, 2 * RT_CLOUD_DEPLOY_CHUNK);
	assert_true(installed_is(r, &b));
	assert_int_equal(rt_app_store_stage_owner(&r->store), RT_APP_STORE_OWNER_NONE);

	/* The download over, the upload goes through. */
	smp_upload(&m, &c, 0, (uint32_t)c.len);
	assert_int_equal(smp_install_request(&m).rc, 0);
	assert_int_equal(m.installs, 1);
	assert_true(installed_is(r, &c));
	assert_int_equal(rt_app_store_stage_owner(&r->store), RT_APP_STORE_OWNER_NONE);
	rig_free(r, &a, &b, &c, NULL);
}

/* A download offered while an upload is open is not fetched (why recorded, nothing reported);
 * the upload's bytes stay and it installs; the next offer is fetched and installs. */
static void download_during_upload_waits(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000), c = make_pkg(4, 5000);
	rig_t *r = rig_new(&a);
	smp_t m;
	smp_new(&m, r);
	smp_upload(&m, &c, 0, 4 * UPLOAD_CHUNK);
	assert_int_equal(rt_app_store_stage_owner(&r->store), RT_APP_STORE_OWNER_UPLOAD);

	r->now_ms += 10000;
	serve(r, &b);
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_NONE);
	assert_int_equal(r->fetches, 0);
	assert_non_null(r->deploy.deferred);
	assert_string_equal(r->deploy.deferred, "the staging slot is busy with an SMP upload");
	assert_int_equal(r->deploy.report.outcome, RT_CLOUD_OUTCOME_NONE);

	smp_upload(&m, &c, 4 * UPLOAD_CHUNK, (uint32_t)c.len);
	assert_int_equal(smp_install_request(&m).rc, 0);
	assert_true(installed_is(r, &c));

	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_null(r->deploy.deferred);
	assert_int_equal(r->first_fetch_offset, 0);
	assert_true(installed_is(r, &b));
	rig_free(r, &a, &b, &c, NULL);
}

/* A claim left unused past its holder's idle time passes to the other writer: an upload whose
 * client went silent for 30 s, a download the cloud left for 10 minutes. */
static void stale_claims_pass(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000), c = make_pkg(4, 5000);
	rig_t *r = rig_new(&a);
	smp_t m;
	smp_new(&m, r);
	r->now_ms = 1000;
	smp_upload(&m, &c, 0, 2 * UPLOAD_CHUNK);
	serve(r, &b);
	r->now_ms += 29999;
	sync_ok(r);
	assert_int_equal(r->fetches, 0);
	r->now_ms += 1;
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_true(installed_is(r, &b));
	/* The silent client comes back: its upload is gone, it starts over at 0. */
	answer_t ans = smp_chunk(&m, &c, 2 * UPLOAD_CHUNK);
	assert_int_equal(ans.off, 0);

	/* A download cut short, then left: an upload waits 10 minutes for it, then takes the slot;
	 * the download begins again at its next offer. */
	free(r);
	r = rig_serving(&a, &b);
	smp_new(&m, r);
	sync_cut(r, 1);
	r->now_ms += RT_CLOUD_DEPLOY_CLAIM_IDLE_MS - 1;
	assert_int_equal(smp_chunk(&m, &c, 0).rc, RT_SMP_ERR_BUSY);
	r->now_ms += 1;
	smp_upload(&m, &c, 0, (uint32_t)c.len);
	assert_int_equal(smp_install_request(&m).rc, 0);
	assert_true(installed_is(r, &c));
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->first_fetch_offset, 0);
	assert_true(installed_is(r, &b));
	rig_free(r, &a, &b, &c, NULL);
}

/* ------------------------------------------------------------------ the report over a reset */

/* A reset: the store mounted again from the same flash, the download's RAM state gone. */
static void reset(rig_t *r)
{
	char msg[200];
	assert_int_equal(rt_app_store_mount(&r->store, &r->config, msg, sizeof(msg)), RT_APP_STORE_OK);
	memset(&r->deploy, 0, sizeof(r->deploy));
	r->deploy.target = &r->target;
}

static void report_survives_reset(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000);
	rig_t *r = rig_serving(&a, &b);
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);

	/* Reset before the next sync: the report still goes out, once. */
	reset(r);
	assert_true(installed_is(r, &b));
	r->offering = false;
	sync_ok(r);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_INSTALLED);
	reset(r);
	sync_ok(r);
	assert_int_equal(r->last_report, 0);

	/* A sync that fails does not count: the report waits for one that succeeds, resets too. */
	pkg_t other = test_pkg_other_engine(&b);
	serve(r, &other);
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_REFUSED);
	int fetches = r->fetches;
	reset(r);
	assert_int_equal(r->deploy.report.outcome, RT_CLOUD_OUTCOME_NONE);
	/* The link drops once the start (with the report) went out: the sync failed. */
	rt_cloud_outcome_t outcome;
	r->drop_after_start = true;
	assert_int_equal(sync_once(r, &outcome), HAL_CLOUD_ECONN);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_REFUSED);
	reset(r);
	r->drop_after_start = false;
	sync_ok(r);
	assert_int_equal(r->last_report, RT_CLOUD_OUTCOME_REFUSED);
	assert_non_null(strstr(r->last_reason, "package was built for"));
	/* Refused before the reset: still not fetched again. */
	assert_int_equal(r->fetches, fetches);
	reset(r);
	sync_ok(r);
	assert_int_equal(r->last_report, 0);
	assert_int_equal(r->fetches, fetches);
	assert_true(installed_is(r, &b));
	rig_free(r, &a, &b, &other, NULL);
}

/* A download cut short, then a reset: the next sync goes on from where the staged bytes end (less
 * the write block that may have been cut), not from 0, and installs. */
static void download_resumes_after_reset(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 20000);
	rig_t *r = rig_serving(&a, &b);
	sync_cut(r, 2);
	reset(r);
	uint32_t in_before = r->deploy.bytes_in;
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_true(r->first_fetch_offset <= 2 * RT_CLOUD_DEPLOY_CHUNK &&
		    r->first_fetch_offset >= 2 * RT_CLOUD_DEPLOY_CHUNK - 8);
	assert_int_equal(r->deploy.bytes_in - in_before, b.len - r->first_fetch_offset);
	assert_true(installed_is(r, &b));

	/* An upload that begins the staging slot after the reset ends that download: after the next
	 * reset the sync fetches it again from 0 (never the upload's bytes as its own). */
	pkg_t c = make_pkg(4, 5000), d = make_pkg(5, 12000);
	smp_t m;
	serve(r, &d);
	sync_cut(r, 1);
	reset(r);
	smp_new(&m, r);
	smp_upload(&m, &c, 0, 3 * UPLOAD_CHUNK);
	reset(r); /* and another reset, the upload left half-way */
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	assert_int_equal(r->first_fetch_offset, 0);
	assert_true(installed_is(r, &d));
	rig_free(r, &a, &b, &c, &d, NULL);
}

/* A record whose bytes changed in flash is ignored: no report, the app runs, the next record is
 * written after it and read. */
static void corrupt_report_is_ignored(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000), c = make_pkg(3, 4000);
	rig_t *r = rig_serving(&a, &b);
	assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
	uint32_t at = (uint32_t)r->store.active * SLOT_PAGES * PAGE + ((RT_APP_STORE_HEADER_SIZE + (uint32_t)b.len + 7u) & ~7u);
	assert_memory_equal(r->apps_mem + at, RT_APP_STORE_REPORT_MAGIC, 4);
	sim_flash_flip_bit(&r->apps, at + 20, 5); /* inside the hash */
	reset(r);
	assert_true(installed_is(r, &b));
	rt_app_store_report_t rec;
	assert_false(rt_app_store_report_get(&r->store, &rec));
	r->offering = false;
	sync_ok(r);
	assert_int_equal(r->last_report, 0);

	/* Unsigned to a device that trusts keys... here simply too large: refused and recorded. */
	serve(r, &c);
	r->offer_size = rt_app_store_capacity(&r->store) + 1;
	sync_ok(r);
	reset(r);
	assert_true(rt_app_store_report_get(&r->store, &rec));
	assert_int_equal(rec.outcome, RT_CLOUD_OUTCOME_REFUSED);
	assert_false(rec.sent);
	assert_non_null(strstr(rec.reason, "larger than the app slot"));
	rig_free(r, &a, &b, &c, NULL);
}

/* The power fails at each flash operation of the sync that carries the report (its "SENT"
 * word): after power comes back the report is pending or sent, whole, never corrupt; pending, the
 * next sync sends it; either way it is not sent after that. */
static void power_cut_while_reporting(void **state)
{
	(void)state;
	pkg_t a = make_pkg(1, 3000), b = make_pkg(2, 9000);
	uint8_t hb[32];
	sha256(b.bytes, b.len, hb);
	int pending = 0, sent = 0;
	for (uint64_t n = 1;; n++) {
		rig_t *r = rig_serving(&a, &b);
		assert_int_equal(sync_ok(r), RT_CLOUD_OUTCOME_INSTALLED);
		r->offering = false;
		bool cut = sync_power_cut(r, n);
		reset(r);
		assert_true(installed_is(r, &b));
		rt_app_store_report_t rec;
		assert_true(rt_app_store_report_get(&r->store, &rec));
		assert_int_equal(rec.outcome, RT_CLOUD_OUTCOME_INSTALLED);
		assert_memory_equal(rec.hash, hb, 32);
		pending += !rec.sent;
		sent += rec.sent;
		sync_ok(r);
		assert_int_equal(r->last_report, rec.sent ? 0 : RT_CLOUD_OUTCOME_INSTALLED);
		reset(r);
		sync_ok(r);
		assert_int_equal(r->last_report, 0);
		free(r);
		if (!cut) {
			break;
		}
	}
	assert_true(sent > 0);

	/* And at each operation of a refusal's record, appended to the running app's slot: after
	 * power comes back the old report (none) or the new one, whole; a torn record is skipped and
	 * the next one written after it. */
	int olds = 0, news = 0;
	for (uint64_t n = 1;; n++) {
		rig_t *r = rig_serving(&a, &b);
		r->offer_size = rt_app_store_capacity(&r->store) + 1;
		bool cut = sync_power_cut(r, n);
		reset(r);
		assert_true(installed_is(r, &a));
		rt_app_store_report_t rec;
		bool has = rt_app_store_report_get(&r->store, &rec);
		if (has) {
			assert_int_equal(rec.outcome, RT_CLOUD_OUTCOME_REFUSED);
			assert_memory_equal(rec.hash, hb, 32);
			assert_non_null(strstr(rec.reason, "larger than the app slot"));
		}
		olds += !has;
		news += has;
		/* Offered again after the reset (the cut one was never refused for good): recorded. */
		r->offer_size = rt_app_store_capacity(&r->store) + 2;
		sync_ok(r);
		reset(r);
		assert_true(rt_app_store_report_get(&r->store, &rec));
		assert_int_equal(rec.outcome, RT_CLOUD_OUTCOME_REFUSED);
		free(r);
		if (!cut) {
			break;
		}
	}
	assert_true(olds > 0 && news > 0);
	rig_free(NULL, &a, &b, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_match_document),
		cmocka_unit_test(download_resumes_and_installs),
		cmocka_unit_test(bad_packages_are_refused),
		cmocka_unit_test(power_cut_at_every_write),
		cmocka_unit_test(upload_during_download_waits),
		cmocka_unit_test(download_during_upload_waits),
		cmocka_unit_test(stale_claims_pass),
		cmocka_unit_test(report_survives_reset),
		cmocka_unit_test(download_resumes_after_reset),
		cmocka_unit_test(corrupt_report_is_ignored),
		cmocka_unit_test(power_cut_while_reporting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

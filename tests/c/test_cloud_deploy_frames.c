/*
 * Apps deployed from the cloud, the cloud's side of the frames (rt_cloud_deploy.h: what the
 * world's loopback cloud decodes and writes, docs/cloud-protocol.md §3.8): the sync start with
 * its deployment keys decoded strictly, the offer in the last message frame, the fetch and the
 * chunk, each against the document's examples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_protocol_doc.h"

#include "rt_cloud_deploy.h"
#include "rt_cloud_proto.h"

static const uint8_t DOC_HASH[32] = {0x9f, 0x86, 0xd0, 0x81, 0x88, 0x4c, 0x7d, 0x65, 0x9a, 0x2f, 0xea,
				     0xa0, 0xc5, 0x5a, 0xd0, 0x15, 0xa3, 0xbf, 0x4f, 0x1b, 0x2b, 0x0b,
				     0x82, 0x2c, 0xd1, 0x5d, 0x6c, 0x15, 0xb0, 0xf0, 0x0a, 0x08};

static void sync_start_decodes(void **state)
{
	(void)state;
	uint8_t doc[512], out[512];
	rt_cloud_sync_start_t s;
	size_t n = doc_example("sync-start-deploy", doc, sizeof(doc));
	assert_true(rt_cloud_sync_start_decode(doc, n, &s));
	assert_int_equal(s.last_id, 9);
	assert_true(s.has_app);
	assert_memory_equal(s.app, DOC_HASH, 32);
	assert_int_equal(s.report.outcome, RT_CLOUD_OUTCOME_REFUSED);
	assert_memory_equal(s.report.hash, DOC_HASH, 32);
	assert_string_equal(s.report.reason, "package refused: signature does not verify");
	assert_int_equal(s.errors, 0);

	/* The plain sync start: no app, no report. */
	n = doc_example("sync-start", doc, sizeof(doc));
	assert_true(rt_cloud_sync_start_decode(doc, n, &s));
	assert_int_equal(s.last_id, 7);
	assert_false(s.has_app);
	assert_int_equal(s.report.outcome, RT_CLOUD_OUTCOME_NONE);

	/* What the device's encoder writes comes back: errors with the hash, an installed report
	 * without a reason. */
	rt_cloud_report_t installed = {.outcome = RT_CLOUD_OUTCOME_INSTALLED};
	memcpy(installed.hash, DOC_HASH, 32);
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_sync_start_encode(&e, 3, DOC_HASH, &installed, 12));
	assert_true(rt_cloud_sync_start_decode(out, e.len, &s));
	assert_int_equal(s.last_id, 3);
	assert_int_equal(s.errors, 12);
	assert_int_equal(s.report.outcome, RT_CLOUD_OUTCOME_INSTALLED);
	assert_string_equal(s.report.reason, "");
	/* A byte after the map, or one byte short: refused. */
	out[e.len] = 0x00;
	assert_false(rt_cloud_sync_start_decode(out, e.len + 1, &s));
	assert_false(rt_cloud_sync_start_decode(out, e.len - 1, &s));

	/* Errors without the app's hash, errors of 0, keys out of order, a refusal without its
	 * reason, an outcome of 4: refused. */
	static const uint8_t no_app[] = {0xa2, 0x00, 0x00, 0x03, 0x01};
	assert_false(rt_cloud_sync_start_decode(no_app, sizeof(no_app), &s));
	rt_cbor_enc_init(&e, out, sizeof(out));
	rt_cbor_enc_map(&e, 3);
	rt_cbor_enc_uint(&e, 0);
	rt_cbor_enc_uint(&e, 0);
	rt_cbor_enc_uint(&e, 1);
	rt_cbor_enc_bytes(&e, DOC_HASH, 32);
	rt_cbor_enc_uint(&e, 3);
	size_t at = e.len;
	rt_cbor_enc_uint(&e, 0);
	assert_false(rt_cloud_sync_start_decode(out, e.len, &s));
	out[at] = 0x05;
	assert_true(rt_cloud_sync_start_decode(out, e.len, &s));
	assert_int_equal(s.errors, 5);
	static const uint8_t order[] = {0xa2, 0x00, 0x00, 0x00, 0x01};
	assert_false(rt_cloud_sync_start_decode(order, sizeof(order), &s));
	for (uint8_t outcome = 2; outcome <= 4; outcome++) {
		rt_cbor_enc_init(&e, out, sizeof(out));
		rt_cbor_enc_map(&e, 2);
		rt_cbor_enc_uint(&e, 0);
		rt_cbor_enc_uint(&e, 0);
		rt_cbor_enc_uint(&e, 2);
		rt_cbor_enc_map(&e, 2);
		rt_cbor_enc_uint(&e, 0);
		rt_cbor_enc_bytes(&e, DOC_HASH, 32);
		rt_cbor_enc_uint(&e, 1);
		rt_cbor_enc_uint(&e, outcome);
		assert_false(rt_cloud_sync_start_decode(out, e.len, &s));
	}
}

static void offer_fetch_and_chunk_match_document(void **state)
{
	(void)state;
	uint8_t doc[512], out[512];
	rt_cbor_enc_t e;
	rt_cloud_offer_t offer = {.size = 23812, .api = 0x000206, .signed_ = true};
	memcpy(offer.hash, DOC_HASH, 32);
	size_t n = doc_example("message-frame-offer", doc, sizeof(doc));
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_frame_encode_offer(&e, NULL, 0, false, &offer));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, doc, n);
	/* Only the last frame carries an offer. */
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_false(rt_cloud_frame_encode_offer(&e, NULL, 0, true, &offer));
	/* Unsigned: key 3 is left out, and the device's decoder reads it back. */
	offer.signed_ = false;
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_frame_encode_offer(&e, NULL, 0, false, &offer));
	bool more = true, has = false;
	rt_cloud_offer_t back;
	assert_true(rt_cloud_frame_decode_offer(out, e.len, NULL, NULL, &more, &back, &has));
	assert_true(has);
	assert_false(back.signed_);
	assert_int_equal(back.size, 23812);

	uint8_t hash[32];
	uint32_t off, len;
	n = doc_example("fetch", doc, sizeof(doc));
	assert_true(rt_cloud_fetch_decode(doc, n, hash, &off, &len));
	assert_memory_equal(hash, DOC_HASH, 32);
	assert_int_equal(off, 8192);
	assert_int_equal(len, 4096);
	/* Lengths of 0 and past the protocol's chunk are refused. */
	for (uint32_t bad = 0; bad <= RT_CLOUD_DEPLOY_MAX_CHUNK + 1; bad += RT_CLOUD_DEPLOY_MAX_CHUNK + 1) {
		rt_cbor_enc_init(&e, out, sizeof(out));
		assert_true(rt_cloud_fetch_encode(&e, DOC_HASH, 0, bad));
		assert_false(rt_cloud_fetch_decode(out, e.len, hash, &off, &len));
	}

	n = doc_example("chunk", doc, sizeof(doc));
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_chunk_encode(&e, 8192, (const uint8_t *)"BAPP", 4));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, doc, n);
	n = doc_example("chunk-withdrawn", doc, sizeof(doc));
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_true(rt_cloud_chunk_encode(&e, 8192, NULL, 0));
	assert_int_equal(e.len, n);
	assert_memory_equal(out, doc, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sync_start_decodes),
		cmocka_unit_test(offer_fetch_and_chunk_match_document),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

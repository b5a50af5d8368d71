/*
 * The device side of the cloud, in portable C: the JSON <-> CBOR transcoding of payloads, the
 * protocol's frames checked byte for byte against the examples of docs/cloud-protocol.md (the
 * same examples cloudProtocol.test.ts checks the TypeScript side against), the flash event queue
 * (sequence numbers never reused, volatile events dropped oldest first, acknowledged events
 * deleted), a whole exchange against a stand-in cloud that loses acknowledgements (every event
 * stored exactly once, every message handed over once), and the sync schedule.
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

#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"
#include "rt_cloud_queue.h"
#include "rt_cloud_session.h"
#include "rt_scratch.h"
#include "rt_sync_cycle.h"
#include "sim_flash.h"

/* ------------------------------------------------------------------ the document's examples */

static size_t to_cbor(const char *json, uint8_t *out, size_t cap)
{
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out, cap);
	rt_cloud_json_err_t err = rt_cloud_json_to_cbor(json, strlen(json), &e, RT_CLOUD_PAYLOAD_DEPTH);
	if (err != RT_CLOUD_JSON_OK) {
		fail_msg("%s: error %d", json, err);
	}
	return e.len;
}

static void expect_cbor(const char *json, const char *hex)
{
	uint8_t got[256], want[256];
	size_t n = to_cbor(json, got, sizeof(got));
	size_t m = 0;
	for (const char *p = hex; p[0] && p[1]; p += 2) {
		unsigned v;
		sscanf(p, "%2x", &v);
		want[m++] = (uint8_t)v;
	}
	if (n != m || memcmp(got, want, n) != 0) {
		char text[600] = "";
		for (size_t i = 0; i < n && i < 250; i++) {
			snprintf(text + 2 * i, 3, "%02x", got[i]);
		}
		fail_msg("%s: got %s, want %s", json, text, hex);
	}
}

static void json_to_cbor_rules(void **state)
{
	(void)state;
	/* The payloads of the batch example. */
	expect_cbor("{\"c\":21.5}", "a16163fb4035800000000000");
	expect_cbor("{\"c\":21.75}", "a16163fb4035c00000000000");
	expect_cbor("{\"press\":1}", "a1657072657373" "01");
	expect_cbor("\"eco\"", "6365636f");
	/* Integers in the shortest form, -0 as 0, beyond 2^53 - 1 as float64. */
	expect_cbor("[0,23,24,255,256,65536,-1,-24,-25,-0]",
		    "8a" "00" "17" "1818" "18ff" "190100" "1a00010000" "20" "37" "3818" "00");
	expect_cbor("9007199254740991", "1b001fffffffffffff");
	expect_cbor("9007199254740992", "fb4340000000000000");
	expect_cbor("1e+21", "fb444b1ae4d6e2ef50");
	expect_cbor("0.5", "fb3fe0000000000000");
	/* Keys in the order given; escapes decoded to UTF-8. */
	expect_cbor("{\"b\":true,\"a\":null,\"\":false}", "a3" "6162f5" "6161f6" "60f4");
	expect_cbor("\"\\u00e9\\n\\\"\\ud83d\\ude00\"", "68" "c3a9" "0a" "22" "f09f9880");
	/* A container with 24 items takes a two-byte head. */
	expect_cbor("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",
		    "9818010101010101010101010101010101010101010101010101");
}

static void json_to_cbor_refusals(void **state)
{
	(void)state;
	uint8_t out[64];
	rt_cbor_enc_t e;
	const char *bad[] = {"", "{", "[1,]", "{\"a\"}", "01x", "NaN", "\"\\x\"", "tru", "1 2", "'a'"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rt_cbor_enc_init(&e, out, sizeof(out));
		assert_int_equal(rt_cloud_json_to_cbor(bad[i], strlen(bad[i]), &e, 29),
				 RT_CLOUD_JSON_ESYNTAX);
	}
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_int_equal(rt_cloud_json_to_cbor("[[[1]]]", 7, &e, 2), RT_CLOUD_JSON_EDEPTH);
	rt_cbor_enc_init(&e, out, sizeof(out));
	assert_int_equal(rt_cloud_json_to_cbor("[[[1]]]", 7, &e, 3), RT_CLOUD_JSON_OK);
	rt_cbor_enc_init(&e, out, 4);
	assert_int_equal(rt_cloud_json_to_cbor("\"abcdef\"", 8, &e, 3), RT_CLOUD_JSON_ESPACE);
}

static void cbor_to_json_round_trip(void **state)
{
	(void)state;
	const char *values[] = {"{\"c\":21.5}", "[1,0.5,0,-7,true,false,null]",
				"{\"on\":true,\"color\":[1,0.5,0]}", "\"a\\\"b\\\\c\\u0001\"",
				"0.10000000000000001", "{\"nested\":{\"deep\":[[{}]]}}"};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint8_t cbor[256];
		size_t n = to_cbor(values[i], cbor, sizeof(cbor));
		rt_cbor_dec_t d;
		rt_cbor_dec_init(&d, cbor, n);
		char json[256];
		size_t len = 0;
		assert_int_equal(rt_cloud_cbor_to_json(&d, json, sizeof(json), &len, 29), RT_CLOUD_JSON_OK);
		assert_string_equal(json, values[i]);
	}
	/* Outside the protocol's subset: a tag, a byte string, undefined, a number key. */
	const uint8_t refused[][4] = {{0xc1, 0x00}, {0x41, 0x00}, {0xf7}, {0xa1, 0x01, 0x02}};
	const size_t lens[] = {2, 2, 1, 3};
	for (size_t i = 0; i < 4; i++) {
		rt_cbor_dec_t d;
		rt_cbor_dec_init(&d, refused[i], lens[i]);
		char json[32];
		size_t len;
		assert_int_equal(rt_cloud_cbor_to_json(&d, json, sizeof(json), &len, 29),
				 RT_CLOUD_JSON_ESYNTAX);
	}
}

static rt_cloud_event_t event(uint32_t seq, const char *type, int64_t ts, const uint8_t *payload,
			      size_t len, uint8_t flags)
{
	rt_cloud_event_t ev = {.seq = seq, .flags = flags, .ts = ts, .payload = payload,
			       .payload_len = len, .type_len = (uint8_t)strlen(type)};
	strcpy(ev.type, type);
	return ev;
}

static void batch_matches_document(void **state)
{
	(void)state;
	uint8_t want[512];
	size_t want_len = doc_example("batch", want, sizeof(want));
	uint8_t p[4][32];
	size_t pl[4] = {to_cbor("{\"c\":21.5}", p[0], 32), to_cbor("{\"c\":21.75}", p[1], 32),
			to_cbor("{\"press\":1}", p[2], 32), to_cbor("\"eco\"", p[3], 32)};
	const int64_t t0 = 1767225600000;
	rt_cloud_event_t evs[4] = {
		event(41, "temp", t0, p[0], pl[0], 0),
		event(42, "temp", t0 + 30000, p[1], pl[1], RT_CLOUD_EVENT_VOLATILE),
		event(44, "button", t0 + 31500, p[2], pl[2], RT_CLOUD_EVENT_VOLATILE),
		event(45, "mode", t0 + 31500, p[3], pl[3],
		      RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE),
	};
	static rt_cloud_batch_t b;
	rt_cloud_batch_init(&b, 0x2a7f19c3);
	for (int i = 0; i < 4; i++) {
		assert_true(rt_cloud_batch_add(&b, &evs[i]));
	}
	uint8_t got[512];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, got, sizeof(got));
	assert_true(rt_cloud_batch_encode_head(&b, &e));
	for (uint32_t i = 0; i < 4; i++) {
		assert_true(rt_cloud_batch_encode_event(&b, i, evs[i].payload, evs[i].payload_len, &e));
	}
	assert_int_equal(e.len, want_len);
	assert_memory_equal(got, want, want_len);
	assert_int_equal(b.size, want_len);
	assert_int_equal(rt_cloud_batch_first(&b), 41);
	assert_int_equal(rt_cloud_batch_last(&b), 45);

	/* And read back as the cloud reads it. */
	uint32_t stream;
	uint64_t first, last;
	assert_true(rt_cloud_batch_decode(want, want_len, NULL, NULL, &stream, &first, &last));
	assert_int_equal(stream, 0x2a7f19c3);
	assert_int_equal(first, 41);
	assert_int_equal(last, 45);
}

static void batch_refusals(void **state)
{
	(void)state;
	uint8_t good[512];
	size_t n = doc_example("batch", good, sizeof(good));
	uint32_t stream;
	uint64_t first, last;
	uint8_t bad[520];
	/* Every truncation, and a byte after the item. */
	for (size_t cut = 0; cut < n; cut++) {
		assert_false(rt_cloud_batch_decode(good, cut, NULL, NULL, &stream, &first, &last));
	}
	memcpy(bad, good, n);
	bad[n] = 0x00;
	assert_false(rt_cloud_batch_decode(bad, n + 1, NULL, NULL, &stream, &first, &last));
	/* Stream 0 (the first key's value). */
	memcpy(bad, good, n);
	memset(bad + 3, 0, 4);
	assert_false(rt_cloud_batch_decode(bad, n, NULL, NULL, &stream, &first, &last));
	/* A map of 6 keys at the top. */
	memcpy(bad, good, n);
	bad[0] = 0xa6;
	assert_false(rt_cloud_batch_decode(bad, n, NULL, NULL, &stream, &first, &last));
}

static void small_frames_match_document(void **state)
{
	(void)state;
	uint8_t want[64], got[64];
	rt_cbor_enc_t e;
	size_t n = doc_example("ack", want, sizeof(want));
	rt_cbor_enc_init(&e, got, sizeof(got));
	assert_true(rt_cloud_ack_encode(&e, 0x2a7f19c3, 41, 45));
	assert_int_equal(e.len, n);
	assert_memory_equal(got, want, n);
	uint32_t stream;
	uint64_t first, last;
	assert_true(rt_cloud_ack_decode(want, n, &stream, &first, &last));
	assert_int_equal(stream, 0x2a7f19c3);
	assert_int_equal(first, 41);
	assert_int_equal(last, 45);
	/* first > last is refused. */
	uint8_t swapped[] = {0xa3, 0x00, 0x01, 0x01, 0x05, 0x02, 0x04};
	assert_false(rt_cloud_ack_decode(swapped, sizeof(swapped), &stream, &first, &last));

	n = doc_example("sync-start", want, sizeof(want));
	rt_cbor_enc_init(&e, got, sizeof(got));
	assert_true(rt_cloud_id_encode(&e, 7));
	assert_int_equal(e.len, n);
	assert_memory_equal(got, want, n);
	n = doc_example("message-ack", want, sizeof(want));
	rt_cbor_enc_init(&e, got, sizeof(got));
	assert_true(rt_cloud_id_encode(&e, 9));
	assert_int_equal(e.len, n);
	assert_memory_equal(got, want, n);

	/* The topic of the MQTT example. */
	char topic[RT_CLOUD_TOPIC_MAX];
	rt_cloud_topic(topic, "5eac0b1d00004d0cbeac051a00000001", 's');
	assert_string_equal(topic, "b/5eac0b1d00004d0cbeac051a00000001/s");
	uint8_t publish[128];
	n = doc_example("mqtt-publish-sync-start", publish, sizeof(publish));
	assert_memory_equal(publish + 4, topic, strlen(topic));
	static const uint8_t start[] = {0xa1, 0x00, 0x07};
	assert_memory_equal(publish + n - 3, start, 3);
}

typedef struct {
	int count;
	uint64_t ids[4];
	char types[4][32];
	uint64_t ts[4];
	char payloads[4][128];
} seen_t;

static void collect(void *ctx, const rt_cloud_message_t *m)
{
	seen_t *s = ctx;
	s->ids[s->count] = m->id;
	snprintf(s->types[s->count], 32, "%.*s", (int)m->type_len, m->type);
	s->ts[s->count] = m->ts;
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, m->payload, m->payload_len);
	size_t len;
	assert_int_equal(rt_cloud_cbor_to_json(&d, s->payloads[s->count], 128, &len, 29),
			 RT_CLOUD_JSON_OK);
	s->count++;
}

static void message_frames_match_document(void **state)
{
	(void)state;
	uint8_t buf[256];
	size_t n = doc_example("message-frame", buf, sizeof(buf));
	seen_t seen = {0};
	bool more = true;
	assert_true(rt_cloud_frame_decode(buf, n, collect, &seen, &more));
	assert_false(more);
	assert_int_equal(seen.count, 2);
	assert_int_equal(seen.ids[0], 8);
	assert_string_equal(seen.types[0], "config");
	assert_int_equal(seen.ts[0], 1767225000000ull);
	assert_string_equal(seen.payloads[0], "{\"period\":600}");
	assert_int_equal(seen.ids[1], 9);
	assert_string_equal(seen.types[1], "led");
	assert_int_equal(seen.ts[1], 1767225060000ull);
	assert_string_equal(seen.payloads[1], "{\"on\":true,\"color\":[1,0.5,0]}");

	/* Encoded again from what was read: the same bytes. */
	rt_cloud_message_t msgs[2];
	uint8_t p0[32], p1[64];
	size_t l0 = to_cbor(seen.payloads[0], p0, sizeof(p0));
	size_t l1 = to_cbor(seen.payloads[1], p1, sizeof(p1));
	msgs[0] = (rt_cloud_message_t){8, "config", 6, 1767225000000ull, p0, l0};
	msgs[1] = (rt_cloud_message_t){9, "led", 3, 1767225060000ull, p1, l1};
	uint8_t again[256];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, again, sizeof(again));
	assert_true(rt_cloud_frame_encode(&e, msgs, 2, false));
	assert_int_equal(e.len, n);
	assert_memory_equal(again, buf, n);

	n = doc_example("message-frame-empty", buf, sizeof(buf));
	memset(&seen, 0, sizeof(seen));
	assert_true(rt_cloud_frame_decode(buf, n, collect, &seen, &more));
	assert_int_equal(seen.count, 0);
	assert_false(more);

	/* Nothing of a frame is taken when any part is wrong: ids out of order. */
	msgs[1].id = 8;
	rt_cbor_enc_init(&e, again, sizeof(again));
	assert_true(rt_cloud_frame_encode(&e, msgs, 2, true));
	memset(&seen, 0, sizeof(seen));
	assert_false(rt_cloud_frame_decode(again, e.len, collect, &seen, &more));
	assert_int_equal(seen.count, 0);
}

/* ------------------------------------------------------------------ the queue on flash */

#define PAGE 4096u
#define PAGES 8u
#define INDEX_CAP 64u

typedef struct rig {
	sim_flash_t sim;
	uint8_t mem[PAGES * PAGE];
	rt_records_entry_t index[INDEX_CAP];
	rt_records_t store;
	rt_cloud_queue_t q;
	uint8_t scratch[2 * RT_CLOUD_RECORD_MAX];
} rig_t;

static void rig_mount(rig_t *r, uint32_t entropy)
{
	rt_records_config_t config = {.flash = &r->sim.flash, .pages_per_sector = 4,
				      .index = r->index, .index_capacity = INDEX_CAP};
	assert_int_equal(rt_records_mount(&r->store, &config), RT_RECORDS_OK);
	assert_int_equal(rt_cloud_queue_open(&r->q, &r->store, entropy), RT_RECORDS_OK);
}

static rig_t *rig_new(void)
{
	rig_t *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_true(sim_flash_init(&r->sim, r->mem, PAGE, PAGES));
	rig_mount(r, 0x1234);
	return r;
}

static uint32_t push(rig_t *r, const char *type, size_t payload_len, uint8_t flags,
		     rt_records_err_t want)
{
	static uint8_t payload[RT_CLOUD_RECORD_MAX];
	/* A text string of payload_len bytes in all: head and content. */
	size_t head = payload_len > 255 + 2 ? 3 : 2;
	payload[0] = head == 3 ? 0x79 : 0x78;
	size_t content = payload_len - head;
	if (head == 3) {
		payload[1] = (uint8_t)(content >> 8);
		payload[2] = (uint8_t)content;
	} else {
		payload[1] = (uint8_t)content;
	}
	memset(payload + head, 'x', content);
	uint32_t seq = 0;
	size_t bytes = 0;
	rt_records_err_t err = rt_cloud_queue_push(&r->q, type, strlen(type), payload, payload_len,
						   1000, flags, r->scratch, sizeof(r->scratch), &seq,
						   &bytes);
	assert_int_equal(err, want);
	if (err == RT_RECORDS_OK) {
		assert_int_equal(bytes, RT_CLOUD_EVENT_HEADER + strlen(type) + payload_len);
	}
	return seq;
}

/* The sequence numbers queued, in order. */
static size_t queued(rig_t *r, uint32_t *out, size_t cap)
{
	size_t n = 0;
	uint32_t from = 1;
	rt_cloud_event_t ev;
	while (rt_cloud_queue_next(&r->q, from, &ev, r->scratch, sizeof(r->scratch)) == RT_RECORDS_OK) {
		assert_true(n < cap);
		out[n++] = ev.seq;
		from = ev.seq + 1;
	}
	return n;
}

static void queue_numbers_never_repeat(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	uint32_t stream = r->q.stream;
	assert_int_equal(stream, 0x1234);
	assert_int_equal(push(r, "a", 40, 0, RT_RECORDS_OK), 1);
	assert_int_equal(push(r, "b", 40, 0, RT_RECORDS_OK), 2);
	assert_int_equal(push(r, "c", 40, RT_CLOUD_EVENT_VOLATILE, RT_RECORDS_OK), 3);

	/* Read back: type, flags, timestamp, payload. */
	rt_cloud_event_t ev;
	assert_int_equal(rt_cloud_queue_next(&r->q, 3, &ev, r->scratch, sizeof(r->scratch)),
			 RT_RECORDS_OK);
	assert_int_equal(ev.seq, 3);
	assert_string_equal(ev.type, "c");
	assert_int_equal(ev.flags, RT_CLOUD_EVENT_VOLATILE);
	assert_int_equal(ev.ts, 1000);
	assert_int_equal(ev.payload_len, 40);

	/* A reset: same stream, the numbers go on. */
	rig_mount(r, 0x9999);
	assert_int_equal(r->q.stream, stream);
	assert_int_equal(r->q.count, 3);
	assert_int_equal(push(r, "d", 40, 0, RT_RECORDS_OK), 4);

	/* Everything acknowledged (an ack of another stream first: nothing happens), then a
	 * reset: the queue is empty, and 5 is the next number, not 1. */
	assert_int_equal(rt_cloud_queue_ack(&r->q, stream + 1, 1, 4), RT_RECORDS_OK);
	assert_int_equal(r->q.count, 4);
	assert_int_equal(rt_cloud_queue_ack(&r->q, stream, 1, 4), RT_RECORDS_OK);
	assert_int_equal(r->q.count, 0);
	rig_mount(r, 0x9999);
	assert_int_equal(r->q.count, 0);
	assert_int_equal(push(r, "e", 40, 0, RT_RECORDS_OK), 5);

	/* The last message id survives a reset too. */
	assert_int_equal(rt_cloud_queue_set_last_message(&r->q, 17), RT_RECORDS_OK);
	rig_mount(r, 0x9999);
	assert_int_equal(r->q.last_msg_id, 17);
	assert_int_equal(push(r, "f", 40, 0, RT_RECORDS_OK), 6);

	/* An erased store: a new stream, numbers from 1. */
	assert_int_equal(rt_records_clear(&r->store, RT_RECORDS_NS_ALL), RT_RECORDS_OK);
	rig_mount(r, 0x5555);
	assert_int_equal(r->q.stream, 0x5555);
	assert_int_equal(push(r, "g", 40, 0, RT_RECORDS_OK), 1);
	free(r);
}

static void queue_makes_room_from_volatile_events(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	/* 8 pages of 4 KB in sectors of 4 pages: one sector for records, one spare. One
	 * non-volatile event of 5 kB and two volatile ones fill it. */
	push(r, "keep", 5000, 0, RT_RECORDS_OK);
	uint32_t v1 = push(r, "v", 5000, RT_CLOUD_EVENT_VOLATILE, RT_RECORDS_OK);
	uint32_t v2 = push(r, "v", 5000, RT_CLOUD_EVENT_VOLATILE, RT_RECORDS_OK);
	/* No room for a fourth 5 kB record: the oldest volatile event goes. */
	uint32_t k2 = push(r, "keep", 5000, 0, RT_RECORDS_OK);
	uint32_t seqs[16];
	size_t n = queued(r, seqs, 16);
	assert_int_equal(r->q.dropped, 1);
	assert_int_equal(n, 3);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[1], v2);
	assert_int_equal(seqs[2], k2);
	(void)v1;
	/* Again: v2 goes. */
	uint32_t k3 = push(r, "keep", 5000, 0, RT_RECORDS_OK);
	n = queued(r, seqs, 16);
	assert_int_equal(n, 3);
	assert_int_equal(seqs[1], k2);
	assert_int_equal(seqs[2], k3);
	/* Only non-volatile events left: no space, and nothing lost. */
	push(r, "keep", 5000, 0, RT_RECORDS_ENOSPC);
	assert_int_equal(queued(r, seqs, 16), 3);
	/* A record over the queue's limit. */
	push(r, "big", RT_CLOUD_PAYLOAD_MAX + RT_CLOUD_TYPE_MAX + 1, 0, RT_RECORDS_ETOOBIG);
	/* After a reset, numbers continue past the dropped ones. */
	rig_mount(r, 1);
	assert_int_equal(push(r, "v", 100, RT_CLOUD_EVENT_VOLATILE, RT_RECORDS_OK), k3 + 1);
	free(r);
}

static void queue_keeps_one_update_per_variable(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	push(r, "mode", 10, RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE, RT_RECORDS_OK);
	push(r, "mode", 10, RT_CLOUD_EVENT_VOLATILE, RT_RECORDS_OK); /* an event of that type */
	push(r, "level", 10, RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE, RT_RECORDS_OK);
	assert_int_equal(rt_cloud_queue_drop_variable(&r->q, "mode", 4, r->scratch, sizeof(r->scratch)),
			 RT_RECORDS_OK);
	uint32_t seqs[8];
	size_t n = queued(r, seqs, 8);
	assert_int_equal(n, 2);
	assert_int_equal(seqs[0], 2);
	assert_int_equal(seqs[1], 3);

	/* The variable table: 30 at most, change tracking by value. */
	static rt_cloud_vars_t v;
	memset(&v, 0, sizeof(v));
	bool created;
	char name[8];
	for (int i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "v%d", i);
		rt_cloud_var_t *var = rt_cloud_vars_get(&v, name, strlen(name), &created);
		assert_non_null(var);
		assert_true(created);
	}
	assert_null(rt_cloud_vars_get(&v, "v30", 3, &created));
	rt_cloud_var_t *var = rt_cloud_vars_get(&v, "v3", 2, &created);
	assert_false(created);
	var->value = 1;
	var->hash = rt_cloud_value_hash((const uint8_t *)"\x01", 1);
	assert_true(rt_cloud_var_dirty(var));
	var->sent = true;
	var->sent_hash = var->hash;
	assert_false(rt_cloud_var_dirty(var));
	var->hash = rt_cloud_value_hash((const uint8_t *)"\x02", 1);
	assert_true(rt_cloud_var_dirty(var));
	free(r);
}

/* ------------------------------------------------------------------ an exchange */

/* A stand-in cloud: stores each (stream, seq) once, can lose the acknowledgements of a sync. */
typedef struct fake {
	uint8_t stored[256]; /* times each seq was stored (stream checked) */
	uint32_t stream;
	int batches;
	bool lose_acks;
	bool connected;
	uint64_t delivered_up_to;
	int messages;        /* pending messages 1..messages */
	uint8_t pending[8][64];
	char pending_topic[8][80];
	size_t pending_len[8];
	int npending;
	int refuse_connect;
} fake_t;

static void fake_store(void *ctx, const rt_cloud_batch_event_t *ev)
{
	fake_t *f = ctx;
	f->stream = ev->stream;
	if (ev->seq < 256 && f->stored[ev->seq] == 0) {
		f->stored[ev->seq] = 1;
	}
}

static void fake_queue(fake_t *f, const char *topic, const uint8_t *p, size_t n)
{
	assert_true(f->npending < 8 && n <= 64);
	snprintf(f->pending_topic[f->npending], 80, "%s", topic);
	memcpy(f->pending[f->npending], p, n);
	f->pending_len[f->npending++] = n;
}

static int fake_connect(void *ctx, const char *id, uint32_t t)
{
	fake_t *f = ctx;
	(void)t;
	assert_string_equal(id, "0a0b");
	if (f->refuse_connect) {
		return f->refuse_connect;
	}
	f->connected = true;
	f->npending = 0;
	return 0;
}

static int fake_subscribe(void *ctx, const char *const *topics, size_t n, uint32_t t)
{
	(void)t;
	(void)ctx;
	assert_int_equal(n, 2);
	assert_string_equal(topics[0], "b/0a0b/a");
	assert_string_equal(topics[1], "b/0a0b/m");
	return 0;
}

static int fake_publish(void *ctx, const char *topic, const uint8_t *p, size_t n)
{
	fake_t *f = ctx;
	uint8_t out[64];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out, sizeof(out));
	if (strcmp(topic, "b/0a0b/s") == 0) {
		uint64_t id;
		assert_true(rt_cloud_id_decode(p, n, &id));
		f->delivered_up_to = id > f->delivered_up_to ? id : f->delivered_up_to;
		rt_cloud_message_t msgs[4];
		size_t count = 0;
		static const uint8_t payload[] = {0xa1, 0x61, 0x6b, 0x01}; /* {"k": 1} */
		for (int i = 1; i <= f->messages && count < 4; i++) {
			if ((uint64_t)i > id) {
				msgs[count++] = (rt_cloud_message_t){(uint64_t)i, "cmd", 3, 5000, payload,
								     sizeof(payload)};
			}
		}
		assert_true(rt_cloud_frame_encode(&e, msgs, count, false));
		fake_queue(f, "b/0a0b/m", out, e.len);
	} else if (strcmp(topic, "b/0a0b/u") == 0) {
		uint32_t stream;
		uint64_t first, last;
		assert_true(rt_cloud_batch_decode(p, n, fake_store, f, &stream, &first, &last));
		f->batches++;
		if (!f->lose_acks) {
			rt_cloud_ack_encode(&e, stream, first, last);
			fake_queue(f, "b/0a0b/a", out, e.len);
		}
	} else if (strcmp(topic, "b/0a0b/k") == 0) {
		uint64_t id;
		assert_true(rt_cloud_id_decode(p, n, &id));
		f->delivered_up_to = id;
	} else {
		fail_msg("publish to %s", topic);
	}
	return 0;
}

static int fake_poll(void *ctx, uint32_t t, hal_cloud_receive_fn fn, void *fctx)
{
	(void)t;
	fake_t *f = ctx;
	int n = f->npending;
	f->npending = 0;
	for (int i = 0; i < n; i++) {
		fn(fctx, f->pending_topic[i], f->pending[i], f->pending_len[i]);
	}
	return n; /* 0: the time ran out */
}

static int fake_flush(void *ctx, uint32_t t)
{
	(void)ctx;
	(void)t;
	return 0;
}

static void fake_disconnect(void *ctx)
{
	((fake_t *)ctx)->connected = false;
}

typedef struct {
	int handed;
	uint64_t ids[16];
	rig_t *r;
	bool enqueue_on_message;
} app_t;

static void app_deliver(void *ctx, const rt_cloud_message_t *m)
{
	app_t *a = ctx;
	/* Recorded in flash before the app sees it. */
	assert_int_equal(a->r->q.last_msg_id, m->id);
	/* The app's handler may call storage.save or cloud.enqueue, which take the runtime's
	 * scratch: the exchange must not hold it while a message is handed over. */
	assert_null(rt_scratch_holder());
	a->ids[a->handed++] = m->id;
	if (a->enqueue_on_message) {
		push(a->r, "reply", 20, 0, RT_RECORDS_OK);
	}
}

static int run_sync(rig_t *r, fake_t *f, app_t *a, rt_cloud_session_t *s)
{
	static hal_cloud_transport_t t = {.connect = fake_connect, .subscribe = fake_subscribe,
					  .publish = fake_publish, .poll = fake_poll,
					  .flush = fake_flush, .disconnect = fake_disconnect};
	t.ctx = f;
	memset(s, 0, sizeof(*s));
	s->transport = &t;
	s->queue = &r->q;
	s->device_id = "0a0b";
	s->deliver = app_deliver;
	s->ctx = a;
	return rt_cloud_session_run(s);
}

static void exchange_exactly_once(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	fake_t f = {0};
	app_t a = {.r = r};
	rt_cloud_session_t s;
	/* 40 events of 300 bytes: more than one batch of 12 kB. */
	for (int i = 0; i < 40; i++) {
		push(r, i % 2 ? "odd" : "even", 300, i % 3 ? RT_CLOUD_EVENT_VOLATILE : 0, RT_RECORDS_OK);
	}
	f.messages = 2;

	/* The cloud stores the batches but every acknowledgement is lost: the sync fails after
	 * the messages were handed over; nothing leaves the queue. */
	f.lose_acks = true;
	assert_int_equal(run_sync(r, &f, &a, &s), HAL_CLOUD_ETIMEDOUT);
	assert_int_equal(r->q.count, 40);
	assert_true(f.batches >= 2);
	assert_int_equal(a.handed, 2);

	/* A reset; the next sync sends everything again, the cloud keeps one of each, the
	 * messages are not handed over again (the device names message 2 in its sync start). */
	rig_mount(r, 7);
	f.lose_acks = false;
	a.enqueue_on_message = true;
	assert_int_equal(run_sync(r, &f, &a, &s), 0);
	assert_int_equal(r->q.count, 0);
	assert_int_equal(a.handed, 2);
	for (int seq = 1; seq <= 40; seq++) {
		assert_int_equal(f.stored[seq], 1);
	}
	assert_int_equal(f.stored[41], 0);
	assert_int_equal(f.delivered_up_to, 2);
	assert_int_equal(s.events_sent, 40);

	/* A new message: handed over once, the app's reply goes out in the same sync. */
	f.messages = 3;
	assert_int_equal(run_sync(r, &f, &a, &s), 0);
	assert_int_equal(a.handed, 3);
	assert_int_equal(a.ids[2], 3);
	assert_int_equal(f.stored[41], 1);
	assert_int_equal(r->q.count, 0);
	assert_int_equal(f.delivered_up_to, 3);

	/* A refused connection: the error, nothing changed. */
	push(r, "late", 20, 0, RT_RECORDS_OK);
	f.refuse_connect = HAL_CLOUD_EAUTH;
	assert_int_equal(run_sync(r, &f, &a, &s), HAL_CLOUD_EAUTH);
	assert_int_equal(r->q.count, 1);
	/* No transport at all. */
	s.transport = NULL;
	assert_int_equal(rt_cloud_session_run(&s), HAL_CLOUD_ENONET);
	free(r);
}

/* ------------------------------------------------------------------ the schedule */

static void sync_schedule(void **state)
{
	(void)state;
	rt_sync_cycle_t c;
	rt_sync_cycle_init(&c, 1000);
	assert_int_equal(rt_sync_cycle_due(&c), 1000 + (uint64_t)RT_SYNC_PERIOD_DEFAULT_S * 1000);
	/* The period counts from the last end (boot here); a new period moves the pending one. */
	rt_sync_cycle_set_period(&c, 3600);
	assert_int_equal(rt_sync_cycle_due(&c), 1000 + 3600000);
	rt_sync_cycle_set_period(&c, 10); /* the glue refuses this; clamped all the same */
	assert_int_equal(c.period_s, RT_SYNC_PERIOD_MIN_S);
	rt_sync_cycle_set_period(&c, 3600);
	/* sync.now(): due at once; while running, no effect. */
	assert_true(rt_sync_cycle_request(&c));
	assert_int_equal(rt_sync_cycle_due(&c), 0);
	assert_true(rt_sync_cycle_begin(&c));
	assert_false(rt_sync_cycle_request(&c));
	assert_false(rt_sync_cycle_begin(&c));
	assert_int_equal(rt_sync_cycle_due(&c), UINT64_MAX);
	rt_sync_cycle_end(&c, 50000, true);
	assert_int_equal(rt_sync_cycle_due(&c), 50000 + 3600000);
	/* Failures: retried after 1, 2, 4, 8, 16 minutes, then the period again. */
	uint64_t now = 100000;
	for (uint32_t i = 1; i <= RT_SYNC_RETRIES; i++) {
		assert_true(rt_sync_cycle_begin(&c));
		rt_sync_cycle_end(&c, now, false);
		assert_int_equal(rt_sync_cycle_due(&c), now + (60000ull << (i - 1)));
		now = rt_sync_cycle_due(&c);
	}
	assert_true(rt_sync_cycle_begin(&c));
	rt_sync_cycle_end(&c, now, false);
	assert_int_equal(rt_sync_cycle_due(&c), now + 3600000);
	assert_int_equal(rt_sync_cycle_backoff_ms(30), RT_SYNC_RETRY_MAX_MS);
	/* Retries keep their own delays, also with a short period. */
	rt_sync_cycle_set_period(&c, 120);
	assert_true(rt_sync_cycle_begin(&c));
	rt_sync_cycle_end(&c, now, false);
	assert_int_equal(rt_sync_cycle_due(&c), now + 60000);
	assert_true(rt_sync_cycle_begin(&c));
	rt_sync_cycle_end(&c, now, false);
	assert_int_equal(rt_sync_cycle_due(&c), now + 120000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_to_cbor_rules),
		cmocka_unit_test(json_to_cbor_refusals),
		cmocka_unit_test(cbor_to_json_round_trip),
		cmocka_unit_test(batch_matches_document),
		cmocka_unit_test(batch_refusals),
		cmocka_unit_test(small_frames_match_document),
		cmocka_unit_test(message_frames_match_document),
		cmocka_unit_test(queue_numbers_never_repeat),
		cmocka_unit_test(queue_makes_room_from_volatile_events),
		cmocka_unit_test(queue_keeps_one_update_per_variable),
		cmocka_unit_test(exchange_exactly_once),
		cmocka_unit_test(sync_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

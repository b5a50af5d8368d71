/*
 * rt_cloud_proto.c: see rt_cloud_proto.h and docs/cloud-protocol.md §3.
 */
#include "rt_cloud_proto.h"

#include <math.h>
#include <string.h>

#define MAX_SAFE_INT 9007199254740991ull

void rt_cloud_topic(char *buf, const char *id_hex, char suffix)
{
	size_t n = strlen(id_hex);
	if (n > 64) {
		n = 64;
	}
	buf[0] = 'b';
	buf[1] = '/';
	memcpy(buf + 2, id_hex, n);
	buf[2 + n] = '/';
	buf[3 + n] = suffix;
	buf[4 + n] = '\0';
}

/* ------------------------------------------------------------------ sizes */

static size_t head_size(uint64_t v)
{
	return v < 24 ? 1 : v <= 0xFF ? 2 : v <= 0xFFFF ? 3 : v <= 0xFFFFFFFFull ? 5 : 9;
}

static size_t int_size(int64_t v)
{
	return head_size(v >= 0 ? (uint64_t)v : (uint64_t)(-(v + 1)));
}

static size_t event_size(const rt_cloud_batch_t *b, uint32_t i)
{
	const rt_cloud_batch_entry_t *en = &b->entries[i];
	size_t n = 1; /* map head */
	if (i > 0) {
		uint32_t gap = en->seq - b->entries[i - 1].seq - 1;
		if (gap != 0) {
			n += 1 + head_size(gap);
		}
	}
	int64_t delta = i > 0 ? en->ts - b->entries[i - 1].ts : 0;
	n += 1 + head_size(en->type);
	n += 1 + int_size(delta);
	n += 1 + en->payload_len;
	if (!(en->flags & RT_CLOUD_EVENT_VOLATILE)) {
		n += 2;
	}
	if (en->flags & RT_CLOUD_EVENT_VARIABLE) {
		n += 2;
	}
	return n;
}

static size_t batch_size(const rt_cloud_batch_t *b)
{
	if (b->count == 0) {
		return 0;
	}
	size_t n = 1 + 1 + head_size(b->stream) + 1 + head_size(b->entries[0].seq) + 1 +
		   head_size((uint64_t)b->entries[0].ts) + 1 + head_size(b->type_count) + 1 +
		   head_size(b->count);
	for (uint32_t t = 0; t < b->type_count; t++) {
		n += head_size(b->type_len[t]) + b->type_len[t];
	}
	for (uint32_t i = 0; i < b->count; i++) {
		n += event_size(b, i);
	}
	return n;
}

/* ------------------------------------------------------------------ batches */

void rt_cloud_batch_init(rt_cloud_batch_t *b, uint32_t stream)
{
	memset(b, 0, sizeof(*b));
	b->stream = stream;
}

bool rt_cloud_batch_add(rt_cloud_batch_t *b, const rt_cloud_event_t *ev)
{
	if (b->count >= RT_CLOUD_BATCH_EVENTS) {
		return false;
	}
	uint32_t t = 0;
	while (t < b->type_count &&
	       !(b->type_len[t] == ev->type_len && memcmp(b->types[t], ev->type, ev->type_len) == 0)) {
		t++;
	}
	bool new_type = t == b->type_count;
	if (new_type) {
		memcpy(b->types[t], ev->type, ev->type_len);
		b->types[t][ev->type_len] = '\0';
		b->type_len[t] = ev->type_len;
		b->type_count++;
	}
	b->entries[b->count] = (rt_cloud_batch_entry_t){
		.seq = ev->seq,
		.ts = ev->ts < 0 ? 0 : ev->ts,
		.flags = ev->flags,
		.type = (uint8_t)t,
		.payload_len = (uint16_t)ev->payload_len,
	};
	b->count++;
	size_t size = batch_size(b);
	if (b->count > 1 && size > RT_CLOUD_BATCH_BYTES) {
		b->count--;
		if (new_type) {
			b->type_count--;
		}
		return false;
	}
	b->size = size;
	return true;
}

uint32_t rt_cloud_batch_first(const rt_cloud_batch_t *b)
{
	return b->count ? b->entries[0].seq : 0;
}

uint32_t rt_cloud_batch_last(const rt_cloud_batch_t *b)
{
	return b->count ? b->entries[b->count - 1].seq : 0;
}

bool rt_cloud_batch_encode_head(const rt_cloud_batch_t *b, rt_cbor_enc_t *e)
{
	rt_cbor_enc_map(e, 5);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_uint(e, b->stream);
	rt_cbor_enc_uint(e, 1);
	rt_cbor_enc_uint(e, rt_cloud_batch_first(b));
	rt_cbor_enc_uint(e, 2);
	rt_cbor_enc_uint(e, b->count ? (uint64_t)b->entries[0].ts : 0);
	rt_cbor_enc_uint(e, 3);
	rt_cbor_enc_array(e, b->type_count);
	for (uint32_t t = 0; t < b->type_count; t++) {
		rt_cbor_enc_text(e, b->types[t], b->type_len[t]);
	}
	rt_cbor_enc_uint(e, 4);
	rt_cbor_enc_array(e, b->count);
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_batch_encode_event(const rt_cloud_batch_t *b, uint32_t i, const uint8_t *payload,
				 size_t payload_len, rt_cbor_enc_t *e)
{
	const rt_cloud_batch_entry_t *en = &b->entries[i];
	uint32_t gap = i > 0 ? en->seq - b->entries[i - 1].seq - 1 : 0;
	int64_t delta = i > 0 ? en->ts - b->entries[i - 1].ts : 0;
	bool nonvolatile = !(en->flags & RT_CLOUD_EVENT_VOLATILE);
	bool variable = (en->flags & RT_CLOUD_EVENT_VARIABLE) != 0;
	rt_cbor_enc_map(e, 3u + (gap != 0) + nonvolatile + variable);
	if (gap != 0) {
		rt_cbor_enc_uint(e, 0);
		rt_cbor_enc_uint(e, gap);
	}
	rt_cbor_enc_uint(e, 1);
	rt_cbor_enc_uint(e, en->type);
	rt_cbor_enc_uint(e, 2);
	rt_cbor_enc_int(e, delta);
	rt_cbor_enc_uint(e, 3);
	if (payload_len > e->cap - e->len || e->overflow) {
		e->overflow = true;
		return false;
	}
	/* memmove: the session reads the event into the frame just past this point. */
	memmove(e->buf + e->len, payload, payload_len);
	e->len += payload_len;
	if (nonvolatile) {
		rt_cbor_enc_uint(e, 4);
		rt_cbor_enc_bool(e, false);
	}
	if (variable) {
		rt_cbor_enc_uint(e, 5);
		rt_cbor_enc_bool(e, true);
	}
	return rt_cbor_enc_ok(e);
}

/* ------------------------------------------------------------------ strict reading */

/* Check one payload item of the protocol's subset, at most depth containers deep. */
static bool payload_item(rt_cbor_dec_t *d, unsigned depth)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK) {
		return false;
	}
	switch (it.type) {
	case RT_CBOR_UINT:
		return it.u <= MAX_SAFE_INT;
	case RT_CBOR_NEGATIVE:
		return it.u < MAX_SAFE_INT;
	case RT_CBOR_FLOAT:
		return it.u == 8 && isfinite(it.f);
	case RT_CBOR_TEXT:
	case RT_CBOR_TRUE:
	case RT_CBOR_FALSE:
	case RT_CBOR_NULL:
		return true;
	case RT_CBOR_ARRAY:
	case RT_CBOR_MAP: {
		if (depth == 0) {
			return false;
		}
		bool map = it.type == RT_CBOR_MAP;
		for (uint64_t i = 0; i < it.u; i++) {
			if (map) {
				rt_cbor_item_t key;
				if (rt_cbor_next(d, &key) != RT_CBOR_OK || key.type != RT_CBOR_TEXT) {
					return false;
				}
			}
			if (!payload_item(d, depth - 1)) {
				return false;
			}
		}
		return true;
	}
	default:
		return false;
	}
}

bool rt_cloud_payload_check(const uint8_t *buf, size_t len, unsigned max_depth)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	return payload_item(&d, max_depth) && rt_cbor_at_end(&d);
}

/* A payload's span in the frame. */
static bool payload_span(rt_cbor_dec_t *d, const uint8_t **p, size_t *n)
{
	size_t start = d->pos;
	if (!payload_item(d, RT_CLOUD_PAYLOAD_DEPTH)) {
		return false;
	}
	*p = d->buf + start;
	*n = d->pos - start;
	return true;
}

static bool read_map(rt_cbor_dec_t *d, uint64_t *pairs)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP) {
		return false;
	}
	*pairs = it.u;
	return true;
}

static bool read_array(rt_cbor_dec_t *d, uint64_t *count)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK || it.type != RT_CBOR_ARRAY) {
		return false;
	}
	*count = it.u;
	return true;
}

/* The next key of a protocol map: a small uint above the previous one (ascending, each once). */
static bool read_key(rt_cbor_dec_t *d, int *prev, uint64_t max)
{
	uint64_t k;
	if (rt_cbor_read_uint(d, &k) != RT_CBOR_OK || k > max || (int)k <= *prev) {
		return false;
	}
	*prev = (int)k;
	return true;
}

static bool read_bool(rt_cbor_dec_t *d, bool *v)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK ||
	    (it.type != RT_CBOR_TRUE && it.type != RT_CBOR_FALSE)) {
		return false;
	}
	*v = it.type == RT_CBOR_TRUE;
	return true;
}

static bool read_safe_uint(rt_cbor_dec_t *d, uint64_t *v)
{
	return rt_cbor_read_uint(d, v) == RT_CBOR_OK && *v <= MAX_SAFE_INT;
}

/* A type or name: 1 to 30 characters, counted as JavaScript counts them (UTF-16 units). */
static bool read_type_text(rt_cbor_dec_t *d, const char **s, size_t *n)
{
	if (rt_cbor_read_text(d, s, n) != RT_CBOR_OK || *n < 1 || *n > RT_CLOUD_TYPE_MAX) {
		return false;
	}
	size_t units = 0;
	for (size_t i = 0; i < *n; i++) {
		uint8_t c = (uint8_t)(*s)[i];
		units += (c & 0xC0) != 0x80;
		units += c >= 0xF0; /* outside the BMP: a surrogate pair */
	}
	return units <= 30;
}

/* One pass over a batch: check it and, when fn is given, report its events. */
static bool batch_pass(const uint8_t *buf, size_t len, rt_cloud_batch_fn_t fn, void *ctx,
		       uint32_t *stream_out, uint64_t *first, uint64_t *last)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	uint64_t pairs;
	if (len > RT_CLOUD_FRAME_MAX || !read_map(&d, &pairs) || pairs != 5) {
		return false;
	}
	uint64_t stream, base_seq, base_ts, ntypes, nevents;
	int prev = -1;
	const char *types[256];
	size_t type_lens[256];
	if (!read_key(&d, &prev, 0) || rt_cbor_read_uint(&d, &stream) != RT_CBOR_OK || stream == 0 ||
	    stream > 0xFFFFFFFFull || !read_key(&d, &prev, 1) || !read_safe_uint(&d, &base_seq) ||
	    base_seq == 0 || !read_key(&d, &prev, 2) || !read_safe_uint(&d, &base_ts) ||
	    !read_key(&d, &prev, 3) || !read_array(&d, &ntypes) || ntypes == 0 || ntypes > 256) {
		return false;
	}
	bool used[256] = {false};
	for (uint64_t t = 0; t < ntypes; t++) {
		if (!read_type_text(&d, &types[t], &type_lens[t])) {
			return false;
		}
		for (uint64_t u = 0; u < t; u++) {
			if (type_lens[u] == type_lens[t] && memcmp(types[u], types[t], type_lens[t]) == 0) {
				return false; /* each type once */
			}
		}
	}
	if (!read_key(&d, &prev, 4) || !read_array(&d, &nevents) || nevents == 0 || nevents > 256) {
		return false;
	}
	uint64_t seq = base_seq - 1;
	int64_t ts = (int64_t)base_ts;
	for (uint64_t i = 0; i < nevents; i++) {
		uint64_t n;
		if (!read_map(&d, &n) || n < 3 || n > 6) {
			return false;
		}
		int kprev = -1;
		uint64_t gap = 0, type = 0;
		int64_t delta = 0;
		bool vol = true, var = false, have_type = false, have_delta = false, have_payload = false;
		rt_cloud_batch_event_t ev = {0};
		for (uint64_t k = 0; k < n; k++) {
			if (!read_key(&d, &kprev, 5)) {
				return false;
			}
			bool ok = true;
			switch (kprev) {
			case 0: ok = read_safe_uint(&d, &gap); break;
			case 1: ok = rt_cbor_read_uint(&d, &type) == RT_CBOR_OK && type < ntypes;
				have_type = true; break;
			case 2: ok = rt_cbor_read_int(&d, &delta) == RT_CBOR_OK; have_delta = true; break;
			case 3: ok = payload_span(&d, &ev.payload, &ev.payload_len); have_payload = true;
				break;
			case 4: ok = read_bool(&d, &vol); break;
			default: ok = read_bool(&d, &var); break;
			}
			if (!ok) {
				return false;
			}
		}
		if (!have_type || !have_delta || !have_payload) {
			return false;
		}
		seq = seq + 1 + gap;
		ts += delta;
		if (seq > 0xFFFFFFFFull || ts < 0 || (uint64_t)ts > MAX_SAFE_INT) {
			return false;
		}
		used[type] = true;
		if (i == 0) {
			*first = seq;
		}
		*last = seq;
		if (fn != NULL) {
			ev.stream = (uint32_t)stream;
			ev.seq = seq;
			ev.ts = ts;
			ev.type = types[type];
			ev.type_len = type_lens[type];
			ev.volatile_ = vol;
			ev.variable = var;
			fn(ctx, &ev);
		}
	}
	for (uint64_t t = 0; t < ntypes; t++) {
		if (!used[t]) {
			return false; /* each type used */
		}
	}
	*stream_out = (uint32_t)stream;
	return rt_cbor_at_end(&d);
}

bool rt_cloud_batch_decode(const uint8_t *buf, size_t len, rt_cloud_batch_fn_t fn, void *ctx,
			   uint32_t *stream, uint64_t *first, uint64_t *last)
{
	return batch_pass(buf, len, NULL, NULL, stream, first, last) &&
	       (fn == NULL || batch_pass(buf, len, fn, ctx, stream, first, last));
}

/* ------------------------------------------------------------------ small frames */

bool rt_cloud_ack_encode(rt_cbor_enc_t *e, uint32_t stream, uint64_t first, uint64_t last)
{
	rt_cbor_enc_map(e, 3);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_uint(e, stream);
	rt_cbor_enc_uint(e, 1);
	rt_cbor_enc_uint(e, first);
	rt_cbor_enc_uint(e, 2);
	rt_cbor_enc_uint(e, last);
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_ack_decode(const uint8_t *buf, size_t len, uint32_t *stream, uint64_t *first,
			 uint64_t *last)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	uint64_t pairs, s;
	int prev = -1;
	if (!read_map(&d, &pairs) || pairs != 3 || !read_key(&d, &prev, 0) ||
	    rt_cbor_read_uint(&d, &s) != RT_CBOR_OK || s == 0 || s > 0xFFFFFFFFull ||
	    !read_key(&d, &prev, 1) || !read_safe_uint(&d, first) || *first == 0 ||
	    !read_key(&d, &prev, 2) || !read_safe_uint(&d, last) || *last < *first ||
	    !rt_cbor_at_end(&d)) {
		return false;
	}
	*stream = (uint32_t)s;
	return true;
}

bool rt_cloud_id_encode(rt_cbor_enc_t *e, uint64_t id)
{
	rt_cbor_enc_map(e, 1);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_uint(e, id);
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_id_decode(const uint8_t *buf, size_t len, uint64_t *id)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	uint64_t pairs;
	int prev = -1;
	return read_map(&d, &pairs) && pairs == 1 && read_key(&d, &prev, 0) &&
	       read_safe_uint(&d, id) && rt_cbor_at_end(&d);
}

/* ------------------------------------------------------------------ message frames */

static bool frame_pass(const uint8_t *buf, size_t len, rt_cloud_message_fn_t fn, void *ctx,
		       bool *more, rt_cloud_offer_t *offer, bool *has_offer)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	uint64_t pairs, count;
	int prev = -1;
	if (len > RT_CLOUD_FRAME_MAX || !read_map(&d, &pairs) || pairs < 1 || pairs > 3 ||
	    !read_key(&d, &prev, 0) || !read_array(&d, &count)) {
		return false;
	}
	uint64_t last_id = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t n;
		int kprev = -1;
		rt_cloud_message_t msg;
		if (!read_map(&d, &n) || n != 4 || !read_key(&d, &kprev, 0) ||
		    !read_safe_uint(&d, &msg.id) || msg.id == 0 || msg.id <= last_id ||
		    !read_key(&d, &kprev, 1) || !read_type_text(&d, &msg.type, &msg.type_len) ||
		    !read_key(&d, &kprev, 2) || !read_safe_uint(&d, &msg.ts) ||
		    !read_key(&d, &kprev, 3) || !payload_span(&d, &msg.payload, &msg.payload_len)) {
			return false;
		}
		last_id = msg.id;
		if (fn != NULL) {
			fn(ctx, &msg);
		}
	}
	/* Key 1 (more) and key 2 (an offer, §3.8: only in the last frame), each optional. */
	*more = false;
	*has_offer = false;
	for (uint64_t k = 1; k < pairs; k++) {
		if (!read_key(&d, &prev, 2)) {
			return false;
		}
		if (prev == 1 ? !read_bool(&d, more) : (*more || !rt_cloud_offer_read(&d, offer))) {
			return false;
		}
		*has_offer = prev == 2;
	}
	return rt_cbor_at_end(&d);
}

bool rt_cloud_frame_decode_offer(const uint8_t *buf, size_t len, rt_cloud_message_fn_t fn,
				 void *ctx, bool *more, rt_cloud_offer_t *offer, bool *has_offer)
{
	return frame_pass(buf, len, NULL, NULL, more, offer, has_offer) &&
	       (fn == NULL || frame_pass(buf, len, fn, ctx, more, offer, has_offer));
}

bool rt_cloud_frame_decode(const uint8_t *buf, size_t len, rt_cloud_message_fn_t fn, void *ctx,
			   bool *more)
{
	rt_cloud_offer_t offer;
	bool has_offer;
	return rt_cloud_frame_decode_offer(buf, len, fn, ctx, more, &offer, &has_offer);
}

bool rt_cloud_frame_encode(rt_cbor_enc_t *e, const rt_cloud_message_t *msgs, size_t count,
			   bool more)
{
	return rt_cloud_frame_encode_offer(e, msgs, count, more, NULL);
}

bool rt_cloud_frame_encode_offer(rt_cbor_enc_t *e, const rt_cloud_message_t *msgs, size_t count,
				 bool more, const rt_cloud_offer_t *offer)
{
	if (more && offer != NULL) {
		e->overflow = true; /* an offer goes in the last frame only */
		return false;
	}
	rt_cbor_enc_map(e, 1u + more + (offer != NULL));
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_array(e, count);
	for (size_t i = 0; i < count; i++) {
		rt_cbor_enc_map(e, 4);
		rt_cbor_enc_uint(e, 0);
		rt_cbor_enc_uint(e, msgs[i].id);
		rt_cbor_enc_uint(e, 1);
		rt_cbor_enc_text(e, msgs[i].type, msgs[i].type_len);
		rt_cbor_enc_uint(e, 2);
		rt_cbor_enc_uint(e, msgs[i].ts);
		rt_cbor_enc_uint(e, 3);
		if (msgs[i].payload_len > e->cap - e->len || e->overflow) {
			e->overflow = true;
			return false;
		}
		memcpy(e->buf + e->len, msgs[i].payload, msgs[i].payload_len);
		e->len += msgs[i].payload_len;
	}
	if (more) {
		rt_cbor_enc_uint(e, 1);
		rt_cbor_enc_bool(e, true);
	}
	if (offer != NULL) {
		rt_cbor_enc_uint(e, 2);
		rt_cloud_offer_write(e, offer);
	}
	return rt_cbor_enc_ok(e);
}

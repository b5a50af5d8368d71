/*
 * world_cloud.c: see world_cloud.h. The loopback cloud is a hal_cloud transport whose far end is
 * in this file: what the device publishes is answered at once, into a list the next poll hands
 * back, as a broker and the cloud service would.
 */
#include "world_cloud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"
#include "world_cloud_deploy.h"
#include "world_trace.h"

typedef struct packet {
	struct packet *next;
	char topic[RT_CLOUD_TOPIC_MAX];
	size_t len;
	uint8_t payload[];
} packet_t;

typedef struct message {
	uint64_t at;
	uint64_t id;
	uint64_t ts;
	char type[RT_CLOUD_TYPE_MAX + 1];
	bool delivered;
	size_t len;
	uint8_t *cbor;
} message_t;

typedef struct world_cloud {
	bool connected;
	bool broken;        /* the far end closed the connection (a refused frame) */
	uint32_t stream;    /* the device's stream seen last, and the highest number stored in it */
	uint64_t max_seq;
	uint32_t stored, duplicates, delivered;
	packet_t *head, *tail;
	packet_t *inflight; /* the packet the device is handling (freed if a reset cuts it short) */
	message_t *messages;
	size_t message_count, message_cap;
	uint64_t next_message_id;
	uint32_t entropy_calls;
	/* The far end's work buffers: a message frame being built (pushed as a copy) and a scripted
	 * message's payload being converted. Per device, in the world's allocation rather than
	 * statics, so that they are the harness's memory, not the device's (docs/budget.md). */
	uint8_t frame[RT_CLOUD_FRAME_MAX];
	uint8_t payload[RT_CLOUD_PAYLOAD_MAX];
} world_cloud_t;

static world_cloud_t *cloud_of(world_device_t *d)
{
	if (d->cloud == NULL) {
		d->cloud = calloc(1, sizeof(world_cloud_t));
		if (d->cloud == NULL) {
			world_fault(RT_RESET_OUT_OF_MEMORY, "out of memory for the loopback cloud");
		}
		d->cloud->next_message_id = 1;
	}
	return d->cloud;
}

static void clear_packets(world_cloud_t *c)
{
	while (c->head != NULL) {
		packet_t *p = c->head;
		c->head = p->next;
		free(p);
	}
	c->tail = NULL;
	free(c->inflight);
	c->inflight = NULL;
}

void world_cloud_free(world_device_t *d)
{
	if (d->cloud == NULL) {
		return;
	}
	clear_packets(d->cloud);
	for (size_t i = 0; i < d->cloud->message_count; i++) {
		free(d->cloud->messages[i].cbor);
	}
	free(d->cloud->messages);
	free(d->cloud);
	d->cloud = NULL;
}

static bool push(world_cloud_t *c, const char *device_id, char suffix, const uint8_t *payload,
		 size_t len)
{
	packet_t *p = malloc(sizeof(*p) + len);
	if (p == NULL) {
		return false;
	}
	p->next = NULL;
	rt_cloud_topic(p->topic, device_id, suffix);
	p->len = len;
	memcpy(p->payload, payload, len);
	if (c->tail != NULL) {
		c->tail->next = p;
	} else {
		c->head = p;
	}
	c->tail = p;
	return true;
}

/* ------------------------------------------------------------------ the far end */

typedef struct {
	world_device_t *d;
	world_cloud_t *c;
	uint32_t stream;
	uint64_t base; /* the highest number stored before this batch */
} batch_ctx_t;

static void store_event(void *ctx, const rt_cloud_batch_event_t *ev)
{
	batch_ctx_t *b = ctx;
	if (ev->seq <= b->base) {
		return; /* stored before: a batch sent again */
	}
	b->c->stored++;
	world_t *w = b->d->world;
	if (!world_tracing(w)) {
		return;
	}
	char type[RT_CLOUD_TYPE_MAX + 1];
	size_t n = ev->type_len < RT_CLOUD_TYPE_MAX ? ev->type_len : RT_CLOUD_TYPE_MAX;
	memcpy(type, ev->type, n);
	type[n] = '\0';
	size_t cap = 3 * ev->payload_len + 64;
	char *json = malloc(cap + 16);
	if (json == NULL) {
		return;
	}
	rt_cbor_dec_t dec;
	rt_cbor_dec_init(&dec, ev->payload, ev->payload_len);
	size_t len = 0;
	memcpy(json, "\"payload\":", 10);
	if (rt_cloud_cbor_to_json(&dec, json + 10, cap, &len, RT_CLOUD_PAYLOAD_DEPTH) !=
	    RT_CLOUD_JSON_OK) {
		strcpy(json + 10, "null");
	}
	world_trace_begin(&w->json, w, b->d, "cloud-event");
	world_trace_num(&w->json, "stream", ev->stream);
	world_trace_num(&w->json, "seq", (double)ev->seq);
	world_trace_strz(&w->json, "type", type);
	world_trace_num(&w->json, "ts", (double)ev->ts);
	if (!ev->volatile_) {
		world_trace_bool(&w->json, "volatile", false);
	}
	if (ev->variable) {
		world_trace_bool(&w->json, "variable", true);
	}
	world_trace_fields(&w->json, json);
	world_trace_end(&w->json, w);
	free(json);
}

static void mark_delivered(world_cloud_t *c, uint64_t id)
{
	for (size_t i = 0; i < c->message_count; i++) {
		if (c->messages[i].id <= id && !c->messages[i].delivered) {
			c->messages[i].delivered = true;
			c->delivered++;
		}
	}
}

/* The answer to a sync start: every pending message above id, in frames of at most 32 kB, the
 * last with the offer of a deployment (NULL: none). */
static bool answer_sync_start(world_device_t *d, world_cloud_t *c, const char *device_id,
			      uint64_t id, const rt_cloud_offer_t *offer)
{
	uint8_t *buf = c->frame;
	rt_cloud_message_t batch[16];
	size_t n = 0;
	uint64_t now = d->world->now;
	size_t i = 0;
	for (;;) {
		bool last = true;
		n = 0;
		size_t size = 8;
		for (; i < c->message_count; i++) {
			message_t *m = &c->messages[i];
			if (m->delivered || m->id <= id || m->at > now) {
				continue;
			}
			size_t need = m->len + strlen(m->type) + 32;
			if (n == sizeof(batch) / sizeof(batch[0]) || (n > 0 && size + need > sizeof(c->frame))) {
				last = false;
				break;
			}
			batch[n++] = (rt_cloud_message_t){.id = m->id,
							  .type = m->type,
							  .type_len = strlen(m->type),
							  .ts = m->ts,
							  .payload = m->cbor,
							  .payload_len = m->len};
			size += need;
		}
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, buf, sizeof(c->frame));
		if (!rt_cloud_frame_encode_offer(&e, batch, n, !last, last ? offer : NULL) ||
		    !push(c, device_id, 'm', buf, e.len)) {
			return false;
		}
		if (last) {
			return true;
		}
	}
}

static int lb_connect(void *ctx, const char *device_id, uint32_t timeout_ms)
{
	(void)device_id;
	(void)timeout_ms;
	world_device_t *d = ctx;
	if (d->cloud_down) {
		return HAL_CLOUD_ECONN;
	}
	world_cloud_t *c = cloud_of(d);
	clear_packets(c);
	world_cloud_deploy_end(d); /* a connection a reset cut short */
	c->connected = true;
	c->broken = false;
	return HAL_CLOUD_OK;
}

static int lb_subscribe(void *ctx, const char *const *topics, size_t count, uint32_t timeout_ms)
{
	(void)topics;
	(void)count;
	(void)timeout_ms;
	world_device_t *d = ctx;
	return d->cloud != NULL && d->cloud->connected ? HAL_CLOUD_OK : HAL_CLOUD_ECONN;
}

static int lb_publish(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	world_device_t *d = ctx;
	world_cloud_t *c = d->cloud;
	if (c == NULL || !c->connected || c->broken) {
		return HAL_CLOUD_ECONN;
	}
	/* "b/<id>/<x>": the device id is what the device connected as. */
	size_t tl = strlen(topic);
	if (tl < 5 || strncmp(topic, "b/", 2) != 0 || topic[tl - 2] != '/') {
		c->broken = true;
		return HAL_CLOUD_OK;
	}
	char device_id[65];
	size_t idl = tl - 4 < 64 ? tl - 4 : 64;
	memcpy(device_id, topic + 2, idl);
	device_id[idl] = '\0';
	char suffix = topic[tl - 1];
	if (suffix == 's' || suffix == 'k') {
		/* A sync start may carry the app's hash and a deployment's report (§3.8). */
		rt_cloud_sync_start_t start;
		rt_cloud_offer_t offer;
		if (suffix == 's' ? !rt_cloud_sync_start_decode(payload, len, &start)
				  : !rt_cloud_id_decode(payload, len, &start.last_id)) {
			c->broken = true;
			return HAL_CLOUD_OK;
		}
		mark_delivered(c, start.last_id);
		bool offered = suffix == 's' && world_cloud_deploy_start(d, &start, &offer);
		if (suffix == 's' && !answer_sync_start(d, c, device_id, start.last_id, offered ? &offer : NULL)) {
			c->broken = true;
		}
		return HAL_CLOUD_OK;
	}
	if (suffix == 'g') {
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, c->frame, sizeof(c->frame));
		if (!world_cloud_deploy_fetch(d, payload, len, &e) || !push(c, device_id, 'c', c->frame, e.len)) {
			c->broken = true; /* refused: the connection closes */
		}
		return HAL_CLOUD_OK;
	}
	if (suffix == 'u') {
		uint32_t stream;
		uint64_t first, last;
		if (!rt_cloud_batch_decode(payload, len, NULL, NULL, &stream, &first, &last)) {
			c->broken = true; /* refused: the embedded broker closes the connection */
			return HAL_CLOUD_OK;
		}
		if (stream != c->stream) {
			c->stream = stream;
			c->max_seq = 0;
		}
		batch_ctx_t b = {.d = d, .c = c, .stream = stream, .base = c->max_seq};
		if (last <= c->max_seq) {
			c->duplicates++;
		}
		rt_cloud_batch_decode(payload, len, store_event, &b, &stream, &first, &last);
		if (last > c->max_seq) {
			c->max_seq = last;
		}
		uint8_t ack[32];
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, ack, sizeof(ack));
		rt_cloud_ack_encode(&e, stream, first, last);
		if (!push(c, device_id, 'a', ack, e.len)) {
			c->broken = true;
		}
		return HAL_CLOUD_OK;
	}
	c->broken = true; /* a topic the device may not publish to */
	return HAL_CLOUD_OK;
}

static int lb_poll(void *ctx, uint32_t timeout_ms, hal_cloud_receive_fn fn, void *fn_ctx)
{
	(void)timeout_ms;
	world_device_t *d = ctx;
	world_cloud_t *c = d->cloud;
	if (c == NULL || !c->connected || c->broken) {
		return HAL_CLOUD_ECONN;
	}
	/* What is queued now; answers to what the callbacks publish come at the next poll. One
	 * packet leaves the queue at a time and is held as in flight, so that a reset of the device
	 * in the middle of handling it (a power cut in a flash write) loses nothing to a leak. */
	packet_t *end = c->tail;
	int n = 0;
	while (c->head != NULL) {
		packet_t *p = c->head;
		c->head = p->next;
		if (c->head == NULL) {
			c->tail = NULL;
		}
		c->inflight = p;
		fn(fn_ctx, p->topic, p->payload, p->len);
		c->inflight = NULL;
		bool last = p == end;
		free(p);
		n++;
		if (last) {
			break;
		}
	}
	return n;
}

static int lb_flush(void *ctx, uint32_t timeout_ms)
{
	(void)timeout_ms;
	world_device_t *d = ctx;
	return d->cloud != NULL && d->cloud->connected && !d->cloud->broken ? HAL_CLOUD_OK
									  : HAL_CLOUD_ECONN;
}

static void lb_disconnect(void *ctx)
{
	world_device_t *d = ctx;
	if (d->cloud != NULL) {
		d->cloud->connected = false;
		clear_packets(d->cloud);
	}
	world_cloud_deploy_end(d);
}

/* ------------------------------------------------------------------ the modem's meter */

/*
 * Whichever cloud a device syncs with (the loopback model or the host's broker), its bytes cross
 * the LTE modem: the energy model charges them (world_energy_modem_data). On the wire each MQTT
 * packet also carries its TCP/IP headers (40 bytes) and a TLS record's (29 bytes, AES-128-GCM), and
 * each connection a TLS handshake: 520 bytes up and 1,490 down, as the firmware's measured
 * (bench/RESULTS.md, "The firmware's cloud client against a real cloud").
 */
#define PACKET_OVERHEAD 69u
#define HANDSHAKE_TX 520u
#define HANDSHAKE_RX 1490u

typedef struct {
	world_device_t *d;
	const hal_cloud_transport_t *inner;
	hal_cloud_receive_fn fn;
	void *fn_ctx;
} meter_t;

static meter_t meter;

static int meter_connect(void *ctx, const char *device_id, uint32_t timeout_ms)
{
	meter_t *m = ctx;
	int rc = m->inner->connect(m->inner->ctx, device_id, timeout_ms);
	if (rc == HAL_CLOUD_OK) {
		m->d->energy.syncs++;
		world_energy_modem_data(m->d->world, m->d, HANDSHAKE_TX + PACKET_OVERHEAD + strlen(device_id),
					HANDSHAKE_RX + PACKET_OVERHEAD);
	}
	return rc;
}

static int meter_subscribe(void *ctx, const char *const *topics, size_t count, uint32_t timeout_ms)
{
	meter_t *m = ctx;
	size_t bytes = PACKET_OVERHEAD;
	for (size_t i = 0; i < count; i++) {
		bytes += strlen(topics[i]) + 3;
	}
	world_energy_modem_data(m->d->world, m->d, bytes, PACKET_OVERHEAD);
	return m->inner->subscribe(m->inner->ctx, topics, count, timeout_ms);
}

static int meter_publish(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	meter_t *m = ctx;
	world_energy_modem_data(m->d->world, m->d, PACKET_OVERHEAD + 4 + strlen(topic) + len, 0);
	return m->inner->publish(m->inner->ctx, topic, payload, len);
}

static void meter_received(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	meter_t *m = ctx;
	world_energy_modem_data(m->d->world, m->d, 0, PACKET_OVERHEAD + 4 + strlen(topic) + len);
	m->fn(m->fn_ctx, topic, payload, len);
}

static int meter_poll(void *ctx, uint32_t timeout_ms, hal_cloud_receive_fn fn, void *fn_ctx)
{
	meter_t *m = ctx;
	m->fn = fn;
	m->fn_ctx = fn_ctx;
	return m->inner->poll(m->inner->ctx, timeout_ms, meter_received, m);
}

static int meter_flush(void *ctx, uint32_t timeout_ms)
{
	meter_t *m = ctx;
	return m->inner->flush(m->inner->ctx, timeout_ms);
}

static void meter_disconnect(void *ctx)
{
	meter_t *m = ctx;
	m->inner->disconnect(m->inner->ctx);
}

/* The device's transport through the meter (one device syncs at a time: the world is one thread). */
static const hal_cloud_transport_t *metered(world_device_t *d, const hal_cloud_transport_t *inner)
{
	static hal_cloud_transport_t t = {
		.connect = meter_connect,
		.subscribe = meter_subscribe,
		.publish = meter_publish,
		.poll = meter_poll,
		.flush = meter_flush,
		.disconnect = meter_disconnect,
		.ctx = &meter,
	};
	if (inner == NULL || d->energy.fig == NULL) {
		return inner;
	}
	meter.d = d;
	meter.inner = inner;
	return &t;
}

/* ------------------------------------------------------------------ HAL */

const hal_cloud_transport_t *hal_cloud_transport(void)
{
	static hal_cloud_transport_t loopback = {
		.connect = lb_connect,
		.subscribe = lb_subscribe,
		.publish = lb_publish,
		.poll = lb_poll,
		.flush = lb_flush,
		.disconnect = lb_disconnect,
	};
	world_device_t *d = world_current();
	if (d == NULL) {
		return NULL;
	}
	switch ((world_cloud_mode_t)d->world->cloud_mode) {
	case WORLD_CLOUD_NONE:
		return NULL;
	case WORLD_CLOUD_HOST:
		return metered(d, d->cloud_down ? NULL : d->world->cloud_transport);
	default:
		loopback.ctx = d;
		return metered(d, &loopback);
	}
}

uint32_t hal_cloud_entropy(void)
{
	/* Repeatable runs: mixed from the device, the time and a counter (splitmix64). */
	world_device_t *d = world_current();
	uint64_t x = 0x9e3779b97f4a7c15ull;
	if (d != NULL) {
		world_cloud_t *c = cloud_of(d);
		x ^= (uint64_t)d->identity << 32 ^ d->world->now ^ (uint64_t)c->entropy_calls++ << 48;
		x ^= d->world->cloud_seed;
		for (size_t i = 0; i < d->public_id_len; i++) {
			x = (x ^ (uint8_t)d->public_id[i]) * 0x100000001b3ull;
		}
	}
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x;
}

/* ------------------------------------------------------------------ the world's side */

void world_cloud_use(world_t *world, const hal_cloud_transport_t *transport, uint64_t seed)
{
	world->cloud_transport = transport;
	world->cloud_seed = seed;
	world->cloud_mode = transport != NULL ? WORLD_CLOUD_HOST : WORLD_CLOUD_NONE;
}

void world_cloud_set_mode(world_t *world, world_cloud_mode_t mode)
{
	world->cloud_mode = (uint8_t)mode;
}

int world_cloud_add_message(world_t *world, uint32_t index, uint64_t at, const char *type,
			    const char *payload_json, char *err, size_t err_cap)
{
	size_t tl = strlen(type);
	if (index >= world->device_count || tl == 0 || tl > 30) {
		snprintf(err, err_cap, "a cloud message needs a device and a type of 1 to 30 characters");
		return -1;
	}
	world_cloud_t *c = cloud_of(&world->devices[index]);
	uint8_t *buf = c->payload;
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, buf, sizeof(c->payload));
	if (rt_cloud_json_to_cbor(payload_json, strlen(payload_json), &e, RT_CLOUD_PAYLOAD_DEPTH) !=
	    RT_CLOUD_JSON_OK) {
		snprintf(err, err_cap, "a cloud message's payload must be JSON of at most 8 kB as CBOR");
		return -1;
	}
	if (c->message_count == c->message_cap) {
		size_t cap = c->message_cap ? 2 * c->message_cap : 8;
		message_t *m = realloc(c->messages, cap * sizeof(*m));
		if (m == NULL) {
			snprintf(err, err_cap, "out of memory");
			return -1;
		}
		c->messages = m;
		c->message_cap = cap;
	}
	message_t *m = &c->messages[c->message_count];
	memset(m, 0, sizeof(*m));
	m->cbor = malloc(e.len);
	if (m->cbor == NULL) {
		snprintf(err, err_cap, "out of memory");
		return -1;
	}
	memcpy(m->cbor, buf, e.len);
	m->len = e.len;
	m->at = at;
	m->id = c->next_message_id++;
	m->ts = (uint64_t)(world->utc_at_start + (int64_t)at);
	memcpy(m->type, type, tl + 1);
	c->message_count++;
	return 0;
}

uint32_t world_cloud_stored(const world_t *world, uint32_t index)
{
	return world->devices[index].cloud ? world->devices[index].cloud->stored : 0;
}

uint32_t world_cloud_duplicates(const world_t *world, uint32_t index)
{
	return world->devices[index].cloud ? world->devices[index].cloud->duplicates : 0;
}

uint32_t world_cloud_delivered(const world_t *world, uint32_t index)
{
	return world->devices[index].cloud ? world->devices[index].cloud->delivered : 0;
}

void world_cloud_network(world_device_t *device, bool up)
{
	device->cloud_down = !up;
}

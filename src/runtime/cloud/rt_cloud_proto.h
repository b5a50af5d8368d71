/*
 * rt_cloud_proto.h: the frames of the device <-> cloud protocol (docs/cloud-protocol.md §3), in
 * portable C: topics, upload batches, batch acknowledgements, sync start, message frames and
 * message acknowledgements. Encoders write into a caller's buffer; decoders check a whole frame
 * against the protocol's rules before they report anything from it, so a frame is taken whole or
 * refused whole.
 *
 * CBOR through rt_cbor.h, the project's own codec (zcbor is Zephyr-only and not available to the
 * host build; see rt_cbor.h for why not libcbor). Pure: no state beyond the caller's structs.
 */
#ifndef RT_CLOUD_PROTO_H
#define RT_CLOUD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_cbor.h"
#include "rt_cloud_deploy.h"
#include "rt_cloud_limits.h"
#include "rt_cloud_queue.h"

/* Nesting of a payload: 32 levels in a frame, less the protocol's own three. From the limit
 * table the cloud checks too (rt_cloud_limits.h, generated), so the cloud refuses at its API a
 * message this device could not take. */
#define RT_CLOUD_PAYLOAD_DEPTH RT_CLOUD_LIMIT_PAYLOAD_DEPTH
#define RT_CLOUD_FRAME_MAX RT_CLOUD_LIMIT_FRAME_BYTES
/* Events in one batch and the CBOR a batch may take on this device (the protocol allows 256 and
 * 32 kB; smaller batches keep the RAM for one at 12 kB, and an 8 kB event always fits). */
#define RT_CLOUD_BATCH_EVENTS 32u
#define RT_CLOUD_BATCH_BYTES 12288u
/* Topic "b/<id>/x": the id is at most 64 hex digits. */
#define RT_CLOUD_TOPIC_MAX (2u + 64u + 2u + 1u)

/* "b/<id>/<suffix>" into buf (at least RT_CLOUD_TOPIC_MAX bytes). */
void rt_cloud_topic(char *buf, const char *id_hex, char suffix);

/* ------------------------------------------------------------------ upload batch */

typedef struct {
	uint32_t seq;
	int64_t ts;
	uint8_t flags;     /* RT_CLOUD_EVENT_* */
	uint8_t type;      /* index into the batch's types */
	uint16_t payload_len;
} rt_cloud_batch_entry_t;

typedef struct rt_cloud_batch {
	uint32_t stream;
	uint32_t count;
	rt_cloud_batch_entry_t entries[RT_CLOUD_BATCH_EVENTS];
	char types[RT_CLOUD_BATCH_EVENTS][RT_CLOUD_TYPE_MAX + 1];
	uint8_t type_len[RT_CLOUD_BATCH_EVENTS];
	uint32_t type_count;
	size_t size;       /* the encoded size, bytes (exact once every event is added) */
} rt_cloud_batch_t;

void rt_cloud_batch_init(rt_cloud_batch_t *b, uint32_t stream);
/* Add an event (in increasing sequence order). False when the batch is full: the event goes in
 * the next one. The first event always fits. */
bool rt_cloud_batch_add(rt_cloud_batch_t *b, const rt_cloud_event_t *ev);
/* Write the batch's head (stream, bases, types, the events array's head), then each event with
 * its payload, in the order added. */
bool rt_cloud_batch_encode_head(const rt_cloud_batch_t *b, rt_cbor_enc_t *e);
bool rt_cloud_batch_encode_event(const rt_cloud_batch_t *b, uint32_t i, const uint8_t *payload,
				 size_t payload_len, rt_cbor_enc_t *e);
uint32_t rt_cloud_batch_first(const rt_cloud_batch_t *b);
uint32_t rt_cloud_batch_last(const rt_cloud_batch_t *b);

/* One event of a decoded batch. */
typedef struct {
	uint32_t stream;
	uint64_t seq;
	int64_t ts;
	const char *type;
	size_t type_len;
	const uint8_t *payload; /* the payload's CBOR, inside the frame */
	size_t payload_len;
	bool volatile_;
	bool variable;
} rt_cloud_batch_event_t;

typedef void (*rt_cloud_batch_fn_t)(void *ctx, const rt_cloud_batch_event_t *ev);

/* Check a whole upload batch; when it is valid, call fn for each event and give the stream and
 * the first and last sequence numbers (what its acknowledgement names). */
bool rt_cloud_batch_decode(const uint8_t *buf, size_t len, rt_cloud_batch_fn_t fn, void *ctx,
			   uint32_t *stream, uint64_t *first, uint64_t *last);

/* ------------------------------------------------------------------ small frames */

/* {0: stream, 1: first, 2: last} */
bool rt_cloud_ack_encode(rt_cbor_enc_t *e, uint32_t stream, uint64_t first, uint64_t last);
bool rt_cloud_ack_decode(const uint8_t *buf, size_t len, uint32_t *stream, uint64_t *first,
			 uint64_t *last);
/* Sync start and message acknowledgement: {0: id}. */
bool rt_cloud_id_encode(rt_cbor_enc_t *e, uint64_t id);
bool rt_cloud_id_decode(const uint8_t *buf, size_t len, uint64_t *id);

/* ------------------------------------------------------------------ message frames */

typedef struct {
	uint64_t id;
	const char *type;
	size_t type_len;
	uint64_t ts;
	const uint8_t *payload; /* CBOR inside the frame */
	size_t payload_len;
} rt_cloud_message_t;

typedef void (*rt_cloud_message_fn_t)(void *ctx, const rt_cloud_message_t *msg);

/* Check a whole message frame; when it is valid, call fn for each message in order and say
 * whether more frames follow. */
bool rt_cloud_frame_decode(const uint8_t *buf, size_t len, rt_cloud_message_fn_t fn, void *ctx,
			   bool *more);
/* The same, and the package offered in the frame (§3.8), when *has_offer. */
bool rt_cloud_frame_decode_offer(const uint8_t *buf, size_t len, rt_cloud_message_fn_t fn,
				 void *ctx, bool *more, rt_cloud_offer_t *offer, bool *has_offer);
/* Encode a frame of count messages (the loopback cloud and tests). */
bool rt_cloud_frame_encode(rt_cbor_enc_t *e, const rt_cloud_message_t *msgs, size_t count,
			   bool more);
/* The same with an offer (§3.8; offer NULL: none), which only the last frame (more false) has. */
bool rt_cloud_frame_encode_offer(rt_cbor_enc_t *e, const rt_cloud_message_t *msgs, size_t count,
				 bool more, const rt_cloud_offer_t *offer);

/* Whether buf holds exactly one payload of the protocol's subset, at most max_depth deep. */
bool rt_cloud_payload_check(const uint8_t *buf, size_t len, unsigned max_depth);

#endif /* RT_CLOUD_PROTO_H */

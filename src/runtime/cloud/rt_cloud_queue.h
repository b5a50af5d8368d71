/*
 * rt_cloud_queue.h: the device's cloud event queue and cloud variables (docs/cloud.md, "The
 * device side"; docs/cloud-protocol.md §4).
 *
 * Events: every event, volatile or not, is one record of namespace RT_RECORDS_NS_EVENTS of the
 * device's record store, keyed by its sequence number, so the queue is in flash before
 * cloud.enqueue returns and the store's iteration order (increasing id) is the queue's order.
 * Volatile events are kept in flash too (not in RAM): the same code path, no RAM pool to size,
 * and they also survive a reset; they differ only in that they are deleted, oldest first, when a
 * new event does not fit. Record id 0 holds the queue's state: the stream id, a floor for the
 * next sequence number and the id of the last message the app was given.
 *
 * Sequence numbers never repeat within a stream, also not across resets: the next one is the
 * larger of the persisted floor and the largest queued id plus one, and the floor is written
 * before any event is deleted (an acknowledgement, or a volatile event dropped for room), so an
 * event number the cloud may have seen is never taken again.
 *
 * Record layout (little endian): format (1), flags (1: bit 0 volatile, bit 1 variable), type
 * length (1), reserved (1), timestamp UTC ms (8, signed), type (UTF-8), payload (protocol CBOR).
 *
 * Variables (cloud.setVar) live in RAM only, as the spec says: the table holds each name, a
 * handle of the value that the caller keeps (on the VM heap), and hashes of the current value and
 * of the value last queued; a variable is sent when they differ.
 *
 * Pure: all state is in the caller's structs; no allocation.
 */
#ifndef RT_CLOUD_QUEUE_H
#define RT_CLOUD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_cloud_limits.h"
#include "rt_records.h"

#define RT_CLOUD_TYPE_MAX 120u /* event type, variable name: 30 characters, in UTF-8 bytes */
/* The protocol's limits come from the table the cloud checks too (rt_cloud_limits.h). */
#define RT_CLOUD_PAYLOAD_MAX RT_CLOUD_LIMIT_PAYLOAD_BYTES /* serialized message: about 8 kB (0.1.5, 0.2.6) */
#define RT_CLOUD_PAYLOAD_MAX_0_0_9 4096u /* about 4 kB in 0.0.9 */
#define RT_CLOUD_VARS_MAX RT_CLOUD_LIMIT_VARIABLES
#define RT_CLOUD_VAR_VALUE_MAX RT_CLOUD_LIMIT_VARIABLE_BYTES
#define RT_CLOUD_EVENT_HEADER 12u
/* Largest event record: header, type and payload. */
#define RT_CLOUD_RECORD_MAX (RT_CLOUD_EVENT_HEADER + RT_CLOUD_TYPE_MAX + RT_CLOUD_PAYLOAD_MAX)

#define RT_CLOUD_EVENT_VOLATILE 0x01u
#define RT_CLOUD_EVENT_VARIABLE 0x02u

typedef struct rt_cloud_queue {
	rt_records_t *store;   /* the record store the queue lives in (the caller's) */
	bool open;
	uint32_t stream;       /* 1..2^32-1 */
	uint32_t next_seq;     /* the next event's sequence number */
	uint32_t floor_seq;    /* next_seq as last written to flash */
	uint32_t last_msg_id;  /* last message handed to the app */
	uint32_t count;        /* events queued */
	uint32_t dropped;      /* volatile events deleted for room since open */
} rt_cloud_queue_t;

/* One queued event as read back. */
typedef struct rt_cloud_event {
	uint32_t seq;
	uint8_t flags;
	int64_t ts;
	char type[RT_CLOUD_TYPE_MAX + 1];
	uint8_t type_len;
	const uint8_t *payload; /* into the caller's buffer */
	size_t payload_len;
} rt_cloud_event_t;

/*
 * Open the queue over a mounted store: read its state record (making one, with stream =
 * entropy or 1 when that is 0, on first use or after the store was erased) and count the queued
 * events.
 */
rt_records_err_t rt_cloud_queue_open(rt_cloud_queue_t *q, rt_records_t *store, uint32_t entropy);

/*
 * Queue an event: record = header, type, payload, built in scratch (at least
 * RT_CLOUD_RECORD_MAX bytes). When it does not fit, queued volatile events are deleted oldest
 * first until it does; RT_RECORDS_ENOSPC (or EINDEX_FULL) when none is left to delete. *seq gets
 * its sequence number and *bytes the record's size. Errors leave the queue as it was, except
 * for volatile events deleted on the way.
 */
rt_records_err_t rt_cloud_queue_push(rt_cloud_queue_t *q, const char *type, size_t type_len,
				     const uint8_t *payload, size_t payload_len, int64_t ts,
				     uint8_t flags, uint8_t *scratch, size_t scratch_cap,
				     uint32_t *seq, size_t *bytes);

/*
 * The oldest queued event with a sequence number >= from, read into buf (its payload points into
 * buf). RT_RECORDS_ENOTFOUND at the end. Damaged records are skipped (and deleted: they can never
 * be sent).
 */
rt_records_err_t rt_cloud_queue_next(rt_cloud_queue_t *q, uint32_t from, rt_cloud_event_t *ev,
				     uint8_t *buf, size_t cap);

/* The cloud stored the events of stream with first <= seq <= last: delete them. Another stream,
 * or events no longer queued, change nothing. */
rt_records_err_t rt_cloud_queue_ack(rt_cloud_queue_t *q, uint32_t stream, uint32_t first,
				    uint32_t last);

/* Delete queued updates of variable name (an older value, superseded). */
rt_records_err_t rt_cloud_queue_drop_variable(rt_cloud_queue_t *q, const char *name, size_t len,
					      uint8_t *scratch, size_t scratch_cap);

/* Record the last message id handed to the app (in flash before the handler runs). */
rt_records_err_t rt_cloud_queue_set_last_message(rt_cloud_queue_t *q, uint32_t id);

/* Flash bytes the queue's records take, and whether the store is nearly full (less than an
 * eighth of its flash bytes free, or the last sixteenth of its index reached): a reason to sync
 * early. */
uint32_t rt_cloud_queue_bytes(const rt_cloud_queue_t *q);
bool rt_cloud_queue_nearly_full(const rt_cloud_queue_t *q);

/* ------------------------------------------------------------------ variables */

typedef struct rt_cloud_var {
	char name[RT_CLOUD_TYPE_MAX + 1];
	uint32_t value;       /* the caller's handle of the current value (an engine reference) */
	uint64_t hash;        /* of the current value's CBOR */
	uint64_t sent_hash;   /* of the value last queued */
	bool sent;            /* a value was queued */
} rt_cloud_var_t;

typedef struct rt_cloud_vars {
	rt_cloud_var_t vars[RT_CLOUD_VARS_MAX];
	uint32_t count;
} rt_cloud_vars_t;

/* 64-bit FNV-1a of the value's CBOR: "changed since the last sync" without keeping the bytes. */
uint64_t rt_cloud_value_hash(const uint8_t *cbor, size_t len);

/*
 * The variable of this name, created when absent (NULL: RT_CLOUD_VARS_MAX variables exist
 * already). *created tells which; a new variable has value 0.
 */
rt_cloud_var_t *rt_cloud_vars_get(rt_cloud_vars_t *v, const char *name, size_t len, bool *created);

/* Whether the variable's value must go out at the next sync. */
bool rt_cloud_var_dirty(const rt_cloud_var_t *var);

#endif /* RT_CLOUD_QUEUE_H */

/*
 * rt_cloud_queue.c: see rt_cloud_queue.h.
 */
#include "rt_cloud_queue.h"
#include "rt_le.h"

#include <string.h>

/* Record 0 of the events namespace: the queue's state. */
#define STATE_ID 0u
#define STATE_LEN 16u
#define STATE_MAGIC0 'B'
#define STATE_MAGIC1 'Q'
#define STATE_FORMAT 1u
#define EVENT_FORMAT 1u

static rt_records_err_t write_state(rt_cloud_queue_t *q, uint32_t floor_seq)
{
	uint8_t rec[STATE_LEN] = {STATE_MAGIC0, STATE_MAGIC1, STATE_FORMAT, 0};
	rt_le32_store(rec + 4, q->stream);
	rt_le32_store(rec + 8, floor_seq);
	rt_le32_store(rec + 12, q->last_msg_id);
	rt_records_err_t err = rt_records_write(q->store, RT_RECORDS_NS_EVENTS, STATE_ID, rec,
						sizeof(rec));
	if (err == RT_RECORDS_OK) {
		q->floor_seq = floor_seq;
	}
	return err;
}

/* Before an event is deleted: the flash must know that its number is taken. */
static rt_records_err_t keep_floor(rt_cloud_queue_t *q)
{
	return q->floor_seq >= q->next_seq ? RT_RECORDS_OK : write_state(q, q->next_seq);
}

rt_records_err_t rt_cloud_queue_open(rt_cloud_queue_t *q, rt_records_t *store, uint32_t entropy)
{
	memset(q, 0, sizeof(*q));
	q->store = store;
	uint8_t rec[STATE_LEN];
	size_t len = 0;
	rt_records_err_t err = rt_records_read(store, RT_RECORDS_NS_EVENTS, STATE_ID, rec,
					       sizeof(rec), &len);
	bool valid = err == RT_RECORDS_OK && len == STATE_LEN && rec[0] == STATE_MAGIC0 &&
		     rec[1] == STATE_MAGIC1 && rec[2] == STATE_FORMAT && rt_le32_load(rec + 4) != 0;
	if (err != RT_RECORDS_OK && err != RT_RECORDS_ENOTFOUND && err != RT_RECORDS_ECORRUPT &&
	    err != RT_RECORDS_ETOOBIG) {
		return err;
	}
	uint32_t floor_seq = 1;
	if (valid) {
		q->stream = rt_le32_load(rec + 4);
		floor_seq = rt_le32_load(rec + 8);
		q->last_msg_id = rt_le32_load(rec + 12);
	} else {
		/* A new stream: numbers start at 1 again without being taken for old ones. */
		q->stream = entropy != 0 ? entropy : 1u;
	}
	uint32_t max_id = 0;
	rt_records_iter_t iter;
	rt_records_iter_init(&iter, RT_RECORDS_NS_EVENTS);
	for (;;) {
		uint32_t id = 0;
		size_t size = 0;
		err = rt_records_iter_next(store, &iter, &id, &size);
		if (err == RT_RECORDS_ENOTFOUND) {
			break;
		}
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (id == STATE_ID) {
			continue;
		}
		q->count++;
		max_id = id;
	}
	q->next_seq = max_id >= floor_seq ? max_id + 1 : floor_seq;
	q->floor_seq = floor_seq;
	if (!valid) {
		err = write_state(q, q->next_seq);
		if (err != RT_RECORDS_OK) {
			return err;
		}
	}
	q->open = true;
	return RT_RECORDS_OK;
}

static bool parse_event(uint32_t seq, const uint8_t *rec, size_t len, rt_cloud_event_t *ev)
{
	if (len < RT_CLOUD_EVENT_HEADER || rec[0] != EVENT_FORMAT || rec[2] > RT_CLOUD_TYPE_MAX ||
	    RT_CLOUD_EVENT_HEADER + (size_t)rec[2] > len) {
		return false;
	}
	ev->seq = seq;
	ev->flags = rec[1];
	uint64_t ts = (uint64_t)rt_le32_load(rec + 4) | (uint64_t)rt_le32_load(rec + 8) << 32;
	ev->ts = (int64_t)ts;
	ev->type_len = rec[2];
	memcpy(ev->type, rec + RT_CLOUD_EVENT_HEADER, rec[2]);
	ev->type[rec[2]] = '\0';
	ev->payload = rec + RT_CLOUD_EVENT_HEADER + rec[2];
	ev->payload_len = len - RT_CLOUD_EVENT_HEADER - rec[2];
	return true;
}

static rt_records_err_t delete_event(rt_cloud_queue_t *q, uint32_t seq)
{
	rt_records_err_t err = keep_floor(q);
	if (err != RT_RECORDS_OK) {
		return err;
	}
	err = rt_records_delete(q->store, RT_RECORDS_NS_EVENTS, seq);
	if (err == RT_RECORDS_OK) {
		q->count--;
	}
	return err == RT_RECORDS_ENOTFOUND ? RT_RECORDS_OK : err;
}

rt_records_err_t rt_cloud_queue_next(rt_cloud_queue_t *q, uint32_t from, rt_cloud_event_t *ev,
				     uint8_t *buf, size_t cap)
{
	rt_records_iter_t iter;
	rt_records_iter_init(&iter, RT_RECORDS_NS_EVENTS);
	iter.next_id = from > STATE_ID ? from : STATE_ID + 1;
	for (;;) {
		uint32_t id = 0;
		size_t len = 0;
		rt_records_err_t err = rt_records_iter_next(q->store, &iter, &id, &len);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		err = rt_records_read(q->store, RT_RECORDS_NS_EVENTS, id, buf, cap, &len);
		if (err == RT_RECORDS_OK && parse_event(id, buf, len, ev)) {
			return RT_RECORDS_OK;
		}
		if (err != RT_RECORDS_OK && err != RT_RECORDS_ECORRUPT) {
			return err;
		}
		/* Damaged: it can never be sent; deleting it keeps it from blocking the queue. */
		err = delete_event(q, id);
		if (err != RT_RECORDS_OK) {
			return err;
		}
	}
}

/* Delete the oldest volatile event. ENOSPC when there is none. */
static rt_records_err_t drop_oldest_volatile(rt_cloud_queue_t *q, uint8_t *buf, size_t cap)
{
	uint32_t from = STATE_ID + 1;
	rt_cloud_event_t ev;
	for (;;) {
		rt_records_err_t err = rt_cloud_queue_next(q, from, &ev, buf, cap);
		if (err == RT_RECORDS_ENOTFOUND) {
			return RT_RECORDS_ENOSPC;
		}
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (ev.flags & RT_CLOUD_EVENT_VOLATILE) {
			err = delete_event(q, ev.seq);
			if (err == RT_RECORDS_OK) {
				q->dropped++;
			}
			return err;
		}
		from = ev.seq + 1;
	}
}

rt_records_err_t rt_cloud_queue_push(rt_cloud_queue_t *q, const char *type, size_t type_len,
				     const uint8_t *payload, size_t payload_len, int64_t ts,
				     uint8_t flags, uint8_t *scratch, size_t scratch_cap,
				     uint32_t *seq, size_t *bytes)
{
	if (!q->open) {
		return RT_RECORDS_ENOTMOUNTED;
	}
	if (type_len == 0 || type_len > RT_CLOUD_TYPE_MAX) {
		return RT_RECORDS_EINVAL;
	}
	size_t len = RT_CLOUD_EVENT_HEADER + type_len + payload_len;
	if (len > RT_CLOUD_RECORD_MAX || len > scratch_cap) {
		return RT_RECORDS_ETOOBIG;
	}
	if (q->next_seq == 0) {
		return RT_RECORDS_ENOSPC; /* 2^32 - 1 events in one stream: the numbers ran out */
	}
	uint8_t *rec = scratch;
	rec[0] = EVENT_FORMAT;
	rec[1] = flags & (RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE);
	rec[2] = (uint8_t)type_len;
	rec[3] = 0;
	rt_le32_store(rec + 4, (uint32_t)(uint64_t)ts);
	rt_le32_store(rec + 8, (uint32_t)((uint64_t)ts >> 32));
	/* memmove: the caller may have built the payload in place, in the scratch buffer. */
	memmove(rec + RT_CLOUD_EVENT_HEADER + type_len, payload, payload_len);
	memcpy(rec + RT_CLOUD_EVENT_HEADER, type, type_len);
	for (;;) {
		rt_records_err_t err = rt_records_write(q->store, RT_RECORDS_NS_EVENTS, q->next_seq,
							rec, len);
		if (err == RT_RECORDS_OK) {
			break;
		}
		if (err != RT_RECORDS_ENOSPC && err != RT_RECORDS_EINDEX_FULL) {
			return err;
		}
		/* Make room: the oldest volatile event goes (its record is read into the rest of
		 * the scratch buffer, after the new record). */
		rt_records_err_t drop = drop_oldest_volatile(q, scratch + len, scratch_cap - len);
		if (drop == RT_RECORDS_ENOSPC) {
			return err;
		}
		if (drop != RT_RECORDS_OK) {
			return drop;
		}
	}
	*seq = q->next_seq++;
	*bytes = len;
	q->count++;
	return RT_RECORDS_OK;
}

rt_records_err_t rt_cloud_queue_ack(rt_cloud_queue_t *q, uint32_t stream, uint32_t first,
				    uint32_t last)
{
	if (!q->open || stream != q->stream || first > last) {
		return RT_RECORDS_OK;
	}
	rt_records_iter_t iter;
	rt_records_iter_init(&iter, RT_RECORDS_NS_EVENTS);
	iter.next_id = first > STATE_ID ? first : STATE_ID + 1;
	for (;;) {
		uint32_t id = 0;
		size_t len = 0;
		rt_records_err_t err = rt_records_iter_next(q->store, &iter, &id, &len);
		if (err == RT_RECORDS_ENOTFOUND || (err == RT_RECORDS_OK && id > last)) {
			return RT_RECORDS_OK;
		}
		if (err != RT_RECORDS_OK) {
			return err;
		}
		err = delete_event(q, id);
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if (id == last) {
			return RT_RECORDS_OK;
		}
	}
}

rt_records_err_t rt_cloud_queue_drop_variable(rt_cloud_queue_t *q, const char *name, size_t len,
					      uint8_t *scratch, size_t scratch_cap)
{
	uint32_t from = STATE_ID + 1;
	rt_cloud_event_t ev;
	for (;;) {
		rt_records_err_t err = rt_cloud_queue_next(q, from, &ev, scratch, scratch_cap);
		if (err == RT_RECORDS_ENOTFOUND) {
			return RT_RECORDS_OK;
		}
		if (err != RT_RECORDS_OK) {
			return err;
		}
		if ((ev.flags & RT_CLOUD_EVENT_VARIABLE) && ev.type_len == len &&
		    memcmp(ev.type, name, len) == 0) {
			err = delete_event(q, ev.seq);
			if (err != RT_RECORDS_OK) {
				return err;
			}
		}
		if (ev.seq == UINT32_MAX) {
			return RT_RECORDS_OK;
		}
		from = ev.seq + 1;
	}
}

rt_records_err_t rt_cloud_queue_set_last_message(rt_cloud_queue_t *q, uint32_t id)
{
	uint32_t before = q->last_msg_id;
	q->last_msg_id = id;
	rt_records_err_t err = write_state(q, q->floor_seq > q->next_seq ? q->floor_seq : q->next_seq);
	if (err != RT_RECORDS_OK) {
		q->last_msg_id = before;
	}
	return err;
}

uint32_t rt_cloud_queue_bytes(const rt_cloud_queue_t *q)
{
	uint32_t records = 0, bytes = 0;
	if (q->store != NULL) {
		rt_records_ns_usage(q->store, RT_RECORDS_NS_EVENTS, &records, &bytes);
	}
	return bytes;
}

bool rt_cloud_queue_nearly_full(const rt_cloud_queue_t *q)
{
	if (q->store == NULL || !q->open) {
		return false;
	}
	/* Counted in flash bytes: an eighth of the store left is a sector or two of 16 KB, enough
	 * for the events queued while the sync runs. The index is sized so that flash fills first
	 * (rt_store.h); its last sixteenth is only a guard for apps of many tiny records. */
	rt_records_stats_t stats;
	rt_records_stats(q->store, &stats);
	uint32_t cap = q->store->index_capacity;
	return stats.free < stats.total / 8 || q->store->count > cap - cap / 16;
}

/* ------------------------------------------------------------------ variables */

uint64_t rt_cloud_value_hash(const uint8_t *cbor, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= cbor[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

rt_cloud_var_t *rt_cloud_vars_get(rt_cloud_vars_t *v, const char *name, size_t len, bool *created)
{
	*created = false;
	if (len == 0 || len > RT_CLOUD_TYPE_MAX) {
		return NULL;
	}
	for (uint32_t i = 0; i < v->count; i++) {
		if (strlen(v->vars[i].name) == len && memcmp(v->vars[i].name, name, len) == 0) {
			return &v->vars[i];
		}
	}
	if (v->count >= RT_CLOUD_VARS_MAX) {
		return NULL;
	}
	rt_cloud_var_t *var = &v->vars[v->count++];
	memset(var, 0, sizeof(*var));
	memcpy(var->name, name, len);
	*created = true;
	return var;
}

bool rt_cloud_var_dirty(const rt_cloud_var_t *var)
{
	return var->value != 0 && (!var->sent || var->hash != var->sent_hash);
}

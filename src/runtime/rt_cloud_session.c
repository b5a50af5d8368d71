/*
 * rt_cloud_session.c: see rt_cloud_session.h.
 */
#include "rt_cloud_session.h"

#include <stdio.h>
#include <string.h>

const char *rt_cloud_strerror(int err)
{
	switch (err) {
	case HAL_CLOUD_OK: return "ok";
	case HAL_CLOUD_ENONET: return "no network";
	case HAL_CLOUD_EAUTH: return "the cloud refused the device's credentials";
	case HAL_CLOUD_ECONN: return "connection lost";
	case HAL_CLOUD_ETIMEDOUT: return "no answer from the cloud";
	case HAL_CLOUD_EPROTO: return "the cloud sent a frame the device cannot decode";
	default: return "sync failed";
	}
}

static int fail(rt_cloud_session_t *s, int err, const char *what)
{
	if (s->error == 0) {
		s->error = err;
		snprintf(s->detail, sizeof(s->detail), "%s", what);
	}
	return err;
}

static bool topic_is(const char *topic, const char *id, char suffix)
{
	size_t n = strlen(id);
	return strncmp(topic, "b/", 2) == 0 && strncmp(topic + 2, id, n) == 0 && topic[2 + n] == '/' &&
	       topic[3 + n] == suffix && topic[4 + n] == '\0';
}

static void on_message(void *ctx, const rt_cloud_message_t *msg)
{
	rt_cloud_session_t *s = ctx;
	if (s->error != 0 || msg->id <= s->queue->last_msg_id || msg->id > UINT32_MAX) {
		return; /* processed before (a redelivery after a lost acknowledgement) */
	}
	/* In flash before the app sees it: a reset after this never hands it over twice. */
	if (rt_cloud_queue_set_last_message(s->queue, (uint32_t)msg->id) != RT_RECORDS_OK) {
		s->storage_failed = true;
		fail(s, HAL_CLOUD_ECONN, "storage error while recording a message");
		return;
	}
	s->got_messages = true;
	s->messages++;
	if (s->deliver != NULL) {
		s->deliver(s->ctx, msg);
	}
}

static void on_publish(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	rt_cloud_session_t *s = ctx;
	if (s->error != 0) {
		return;
	}
	if (topic_is(topic, s->device_id, 'a')) {
		uint32_t stream;
		uint64_t first, last;
		if (!rt_cloud_ack_decode(payload, len, &stream, &first, &last)) {
			fail(s, HAL_CLOUD_EPROTO, "a batch acknowledgement the device cannot decode");
			return;
		}
		if (rt_cloud_queue_ack(s->queue, stream, (uint32_t)first,
				       last > UINT32_MAX ? UINT32_MAX : (uint32_t)last) != RT_RECORDS_OK) {
			s->storage_failed = true;
			fail(s, HAL_CLOUD_ECONN, "storage error while deleting sent events");
			return;
		}
		for (uint32_t i = 0; i < s->in_flight; i++) {
			if (stream == s->queue->stream && first == s->acked_first[i] &&
			    last == s->acked_last[i]) {
				s->events_sent += (uint32_t)(last - first + 1);
				s->in_flight--;
				s->acked_first[i] = s->acked_first[s->in_flight];
				s->acked_last[i] = s->acked_last[s->in_flight];
				break;
			}
		}
		return;
	}
	if (topic_is(topic, s->device_id, 'm')) {
		bool more = false;
		if (!rt_cloud_frame_decode(payload, len, NULL, NULL, &more)) {
			fail(s, HAL_CLOUD_EPROTO, "a message frame the device cannot decode");
			return;
		}
		rt_cloud_frame_decode(payload, len, on_message, s, &more);
		if (!more) {
			s->frames_done = true;
		}
		return;
	}
	/* Anything else is not for this device: ignored. */
}

/* Build and publish the next batch, from s->next_from. False when nothing is left to send. */
static int send_batch(rt_cloud_session_t *s, bool *sent)
{
	*sent = false;
	rt_cloud_batch_init(s->batch, s->queue->stream);
	rt_cloud_event_t ev;
	uint32_t from = s->next_from;
	for (;;) {
		rt_records_err_t err = rt_cloud_queue_next(s->queue, from, &ev, s->record, s->record_cap);
		if (err == RT_RECORDS_ENOTFOUND) {
			break;
		}
		if (err != RT_RECORDS_OK) {
			s->storage_failed = true;
			return fail(s, HAL_CLOUD_ECONN, "storage error while reading the queue");
		}
		if (!rt_cloud_batch_add(s->batch, &ev)) {
			break;
		}
		if (ev.seq == UINT32_MAX) {
			break;
		}
		from = ev.seq + 1;
	}
	if (s->batch->count == 0) {
		return 0;
	}
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, s->frame, s->frame_cap);
	rt_cloud_batch_encode_head(s->batch, &e);
	for (uint32_t i = 0; i < s->batch->count; i++) {
		rt_records_err_t err = rt_cloud_queue_next(s->queue, s->batch->entries[i].seq, &ev,
							   s->record, s->record_cap);
		if (err != RT_RECORDS_OK || ev.seq != s->batch->entries[i].seq) {
			s->storage_failed = true;
			return fail(s, HAL_CLOUD_ECONN, "storage error while reading the queue");
		}
		rt_cloud_batch_encode_event(s->batch, i, ev.payload, ev.payload_len, &e);
	}
	if (!rt_cbor_enc_ok(&e)) {
		return fail(s, HAL_CLOUD_EPROTO, "a batch larger than the frame buffer");
	}
	char topic[RT_CLOUD_TOPIC_MAX];
	rt_cloud_topic(topic, s->device_id, 'u');
	int rc = s->transport->publish(s->transport->ctx, topic, s->frame, e.len);
	if (rc != 0) {
		return fail(s, rc, "the upload failed");
	}
	s->acked_first[s->in_flight] = rt_cloud_batch_first(s->batch);
	s->acked_last[s->in_flight] = rt_cloud_batch_last(s->batch);
	s->in_flight++;
	s->batches_sent++;
	s->bytes_up += (uint32_t)e.len;
	s->next_from = rt_cloud_batch_last(s->batch) + 1;
	*sent = true;
	return 0;
}

int rt_cloud_session_run(rt_cloud_session_t *s)
{
	const hal_cloud_transport_t *t = s->transport;
	s->error = 0;
	s->detail[0] = '\0';
	s->next_from = 1;
	s->in_flight = 0;
	s->frames_done = false;
	s->got_messages = false;
	s->storage_failed = false;
	uint32_t timeout = s->timeout_ms ? s->timeout_ms : RT_CLOUD_TIMEOUT_MS;
	if (t == NULL) {
		return fail(s, HAL_CLOUD_ENONET, "no network: no cloud is configured for this device");
	}
	int rc = t->connect(t->ctx, s->device_id, timeout);
	if (rc != 0) {
		return fail(s, rc, rc == HAL_CLOUD_EAUTH ? "the cloud refused the device's credentials"
							 : "could not connect to the cloud");
	}
	char topic_a[RT_CLOUD_TOPIC_MAX], topic_m[RT_CLOUD_TOPIC_MAX], topic[RT_CLOUD_TOPIC_MAX];
	rt_cloud_topic(topic_a, s->device_id, 'a');
	rt_cloud_topic(topic_m, s->device_id, 'm');
	const char *topics[2] = {topic_a, topic_m};
	rc = t->subscribe(t->ctx, topics, 2, timeout);
	if (rc != 0) {
		fail(s, rc, "the cloud refused the subscription");
		t->disconnect(t->ctx);
		return rc;
	}
	uint8_t small[16];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, small, sizeof(small));
	rt_cloud_id_encode(&e, s->queue->last_msg_id);
	rt_cloud_topic(topic, s->device_id, 's');
	rc = t->publish(t->ctx, topic, small, e.len);
	if (rc != 0) {
		fail(s, rc, "the sync start failed");
		t->disconnect(t->ctx);
		return rc;
	}
	bool queue_done = false;
	while (s->error == 0) {
		/* Fill the window. */
		while (!queue_done && s->in_flight < RT_CLOUD_WINDOW && s->error == 0) {
			bool sent = false;
			send_batch(s, &sent);
			queue_done = !sent;
		}
		if (s->error != 0) {
			break;
		}
		if (s->frames_done && s->in_flight == 0) {
			/* A message handler may have queued more: send it in this sync too. */
			bool sent = false;
			send_batch(s, &sent);
			if (!sent) {
				break;
			}
			queue_done = false;
		}
		rc = t->poll(t->ctx, timeout, on_publish, s);
		if (rc < 0) {
			fail(s, rc, rc == HAL_CLOUD_ETIMEDOUT ? "no answer from the cloud" : "connection lost");
		} else if (rc == 0) {
			fail(s, HAL_CLOUD_ETIMEDOUT, "no answer from the cloud");
		}
		if (queue_done && s->error == 0) {
			/* Events queued by a handler during the exchange. */
			queue_done = false;
		}
	}
	if (s->error == 0 && s->got_messages) {
		rt_cbor_enc_init(&e, small, sizeof(small));
		rt_cloud_id_encode(&e, s->queue->last_msg_id);
		rt_cloud_topic(topic, s->device_id, 'k');
		rc = t->publish(t->ctx, topic, small, e.len);
		if (rc != 0) {
			fail(s, rc, "the message acknowledgement failed");
		}
	}
	if (s->error == 0) {
		rc = t->flush(t->ctx, timeout);
		if (rc != 0) {
			fail(s, rc, "the cloud did not acknowledge every packet");
		}
	}
	t->disconnect(t->ctx);
	return s->error;
}

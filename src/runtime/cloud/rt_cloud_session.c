/*
 * rt_cloud_session.c: see rt_cloud_session.h.
 */
#include "rt_cloud_session.h"

#include <stdio.h>
#include <string.h>

#include "rt_scratch.h"

const char *rt_cloud_strerror(int err)
{
	switch (err) {
	case HAL_CLOUD_OK: return "ok";
	case HAL_CLOUD_ENONET: return "no network";
	case HAL_CLOUD_EAUTH: return "the cloud refused the device's credentials";
	case HAL_CLOUD_ECONN: return "connection lost";
	case HAL_CLOUD_ETIMEDOUT: return "no answer from the cloud";
	case HAL_CLOUD_EPROTO: return "the cloud sent a frame the device cannot decode";
	case HAL_CLOUD_ETLS: return "the cloud's certificate is not one the device trusts";
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

static bool takes_deployments(const rt_cloud_session_t *s)
{
	return s->deploy != NULL && s->deploy->target != NULL;
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
		bool more = false, has_offer = false;
		rt_cloud_offer_t offer;
		if (!rt_cloud_frame_decode_offer(payload, len, NULL, NULL, &more, &offer, &has_offer)) {
			fail(s, HAL_CLOUD_EPROTO, "a message frame the device cannot decode");
			return;
		}
		rt_cloud_frame_decode(payload, len, on_message, s, &more);
		if (has_offer && takes_deployments(s)) {
			/* Fetched below once the frames are in, one chunk at a time. */
			rt_cloud_deploy_offer(s->deploy, &offer);
		}
		if (!more) {
			s->frames_done = true;
		}
		return;
	}
	if (topic_is(topic, s->device_id, 'c') && takes_deployments(s)) {
		const char *why = NULL;
		if (!s->fetch_in_flight) {
			fail(s, HAL_CLOUD_EPROTO, "a package chunk the device did not ask for");
			return;
		}
		s->fetch_in_flight = false;
		if (!rt_cloud_deploy_chunk(s->deploy, payload, len, &why)) {
			fail(s, HAL_CLOUD_EPROTO, why);
		}
		return;
	}
	/* Anything else is not for this device: ignored. */
}

/*
 * A batch in the runtime's scratch (rt_scratch.h), only while send_batch runs: the event table,
 * then the frame. Nothing of it is kept between turns: a published frame is the transport's copy
 * (hal_cloud.h), and its events stay in flash until the cloud acknowledges them, so a batch sent
 * again after a lost connection is encoded again from flash. Each event is read from flash into
 * the frame's free tail, just past where its encoding goes, and its payload moved down into
 * place: no record buffer of its own. FRAME_ROOM covers what the record holds beyond its encoded
 * form (its 12-byte header and the type, which the frame lists once) and the event's map head.
 */
#define FRAME_ROOM 256u
#define BATCH_TABLE ((sizeof(rt_cloud_batch_t) + 7u) & ~(size_t)7u)
_Static_assert(BATCH_TABLE + RT_CLOUD_BATCH_BYTES + FRAME_ROOM <= RT_SCRATCH_BYTES,
	       "a batch's table and frame fit the scratch");
_Static_assert(RT_CLOUD_RECORD_MAX <= RT_CLOUD_BATCH_BYTES + FRAME_ROOM,
	       "the largest event can be read into the frame");

/* Build and publish the next batch, from s->next_from. *sent false when nothing is left. */
static int build_and_send(rt_cloud_session_t *s, rt_cloud_batch_t *batch, uint8_t *frame,
			  bool *sent)
{
	const size_t room = RT_CLOUD_BATCH_BYTES + FRAME_ROOM;
	rt_cloud_batch_init(batch, s->queue->stream);
	rt_cloud_event_t ev;
	uint32_t from = s->next_from;
	for (;;) {
		rt_records_err_t err = rt_cloud_queue_next(s->queue, from, &ev, frame, room);
		if (err == RT_RECORDS_ENOTFOUND) {
			break;
		}
		if (err != RT_RECORDS_OK) {
			s->storage_failed = true;
			return fail(s, HAL_CLOUD_ECONN, "storage error while reading the queue");
		}
		if (!rt_cloud_batch_add(batch, &ev)) {
			break;
		}
		if (ev.seq == UINT32_MAX) {
			break;
		}
		from = ev.seq + 1;
	}
	if (batch->count == 0) {
		return 0;
	}
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, frame, RT_CLOUD_BATCH_BYTES);
	rt_cloud_batch_encode_head(batch, &e);
	for (uint32_t i = 0; i < batch->count && rt_cbor_enc_ok(&e); i++) {
		/* Past the event's map head (at most 30 bytes), so that writing it leaves the payload
		 * whole; the batch's size check keeps the record within the room. */
		size_t at = e.len + 32u;
		rt_records_err_t err = rt_cloud_queue_next(s->queue, batch->entries[i].seq, &ev,
							   frame + at, room - at);
		if (err != RT_RECORDS_OK || ev.seq != batch->entries[i].seq) {
			s->storage_failed = true;
			return fail(s, HAL_CLOUD_ECONN, "storage error while reading the queue");
		}
		rt_cloud_batch_encode_event(batch, i, ev.payload, ev.payload_len, &e);
	}
	if (!rt_cbor_enc_ok(&e)) {
		return fail(s, HAL_CLOUD_EPROTO, "a batch larger than the frame buffer");
	}
	char topic[RT_CLOUD_TOPIC_MAX];
	rt_cloud_topic(topic, s->device_id, 'u');
	int rc = s->transport->publish(s->transport->ctx, topic, frame, e.len);
	if (rc != 0) {
		return fail(s, rc, "the upload failed");
	}
	s->acked_first[s->in_flight] = rt_cloud_batch_first(batch);
	s->acked_last[s->in_flight] = rt_cloud_batch_last(batch);
	s->in_flight++;
	s->batches_sent++;
	s->bytes_up += (uint32_t)e.len;
	s->next_from = rt_cloud_batch_last(batch) + 1;
	*sent = true;
	return 0;
}

static int send_batch(rt_cloud_session_t *s, bool *sent)
{
	*sent = false;
	uint8_t *scratch = rt_scratch_take("cloud batch");
	int rc = build_and_send(s, (rt_cloud_batch_t *)(void *)scratch, scratch + BATCH_TABLE, sent);
	rt_scratch_give(scratch);
	return rc;
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
	s->fetch_in_flight = false;
	uint32_t timeout = s->timeout_ms ? s->timeout_ms : RT_CLOUD_TIMEOUT_MS;
	if (t == NULL) {
		return fail(s, HAL_CLOUD_ENONET, "no network: no cloud is configured for this device");
	}
	int rc = t->connect(t->ctx, s->device_id, timeout);
	if (rc != 0) {
		return fail(s, rc, rc == HAL_CLOUD_EAUTH ? "the cloud refused the device's credentials"
				   : rc == HAL_CLOUD_ETLS ? "the cloud's certificate is not one the device trusts"
							  : "could not connect to the cloud");
	}
	char topic_a[RT_CLOUD_TOPIC_MAX], topic_m[RT_CLOUD_TOPIC_MAX], topic_c[RT_CLOUD_TOPIC_MAX];
	char topic[RT_CLOUD_TOPIC_MAX];
	rt_cloud_topic(topic_a, s->device_id, 'a');
	rt_cloud_topic(topic_m, s->device_id, 'm');
	rt_cloud_topic(topic_c, s->device_id, 'c');
	/* A device that takes deployments names the package it runs (none without SHA-256). */
	uint8_t app[RT_CLOUD_DEPLOY_HASH];
	bool deploys = takes_deployments(s) && rt_cloud_deploy_app_hash(s->deploy, app);
	const char *topics[3] = {topic_a, topic_m, topic_c};
	rc = t->subscribe(t->ctx, topics, deploys ? 3 : 2, timeout);
	if (rc != 0) {
		fail(s, rc, "the cloud refused the subscription");
		t->disconnect(t->ctx);
		return rc;
	}
	uint8_t small[RT_CLOUD_DEPLOY_START_MAX];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, small, sizeof(small));
	if (deploys) {
		rt_cloud_deploy_load(s->deploy); /* a report kept over a reset */
		rt_cloud_sync_start_encode(&e, s->queue->last_msg_id, app, &s->deploy->report,
					   s->app_errors);
		s->deploy->report_sent = s->deploy->report.outcome != RT_CLOUD_OUTCOME_NONE;
	} else {
		rt_cloud_id_encode(&e, s->queue->last_msg_id);
	}
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
		if (s->frames_done && deploys && !s->fetch_in_flight &&
		    rt_cloud_deploy_wants(s->deploy)) {
			/* The next chunk of an offered package: one in flight, so that a cut costs
			 * only that one (what arrived is staged). */
			rt_cbor_enc_init(&e, small, sizeof(small));
			rt_cloud_deploy_fetch(s->deploy, &e);
			rt_cloud_topic(topic, s->device_id, 'g');
			rc = t->publish(t->ctx, topic, small, e.len);
			if (rc != 0) {
				fail(s, rc, "the package fetch failed");
				break;
			}
			s->fetch_in_flight = true;
		}
		if (s->frames_done && s->in_flight == 0 && !s->fetch_in_flight) {
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

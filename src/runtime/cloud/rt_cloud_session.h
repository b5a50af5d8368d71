/*
 * rt_cloud_session.h: one synchronisation exchange with the cloud (docs/cloud-protocol.md §2),
 * portable C over a hal_cloud transport: connect, subscribe, sync start, the message frames
 * (each new message recorded in flash, then handed to the caller), the queued events in batches
 * (deleted only when the cloud acknowledges the batch that holds them), the message
 * acknowledgement, disconnect. Events queued while it runs (by a message handler) go out in the
 * same exchange.
 *
 * No allocation and no globals but the runtime's scratch (rt_scratch.h), which a batch takes only
 * while it is built and published: a message handler run from the poll may take it again.
 */
#ifndef RT_CLOUD_SESSION_H
#define RT_CLOUD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_cloud.h"
#include "rt_cloud_proto.h"
#include "rt_cloud_queue.h"

/* Batches sent and not yet acknowledged, at most (the reference client's window). */
#define RT_CLOUD_WINDOW 4u
/* How long the device waits for any answer before the sync fails. */
#define RT_CLOUD_TIMEOUT_MS 20000u

typedef struct rt_cloud_session {
	const hal_cloud_transport_t *transport;
	rt_cloud_queue_t *queue;
	const char *device_id;      /* public id, lowercase hex */
	/* A new message, already recorded as processed: hand it to the app. */
	void (*deliver)(void *ctx, const rt_cloud_message_t *msg);
	void *ctx;
	uint32_t timeout_ms;        /* 0: RT_CLOUD_TIMEOUT_MS */
	/* Deployments (§3.8): NULL, or one whose target is NULL, for a device that takes none. */
	rt_cloud_deploy_t *deploy;
	uint32_t app_errors;        /* errors the running app reported since it started */

	/* Results. */
	uint32_t events_sent;       /* events acknowledged */
	uint32_t batches_sent;
	uint32_t messages;          /* messages handed over */
	uint32_t bytes_up;          /* payload bytes published */
	int error;                  /* HAL_CLOUD_* of a failed exchange */
	char detail[96];            /* what failed, for the app's end handler */

	/* Progress (internal). */
	uint32_t next_from;
	uint32_t acked_first[RT_CLOUD_WINDOW], acked_last[RT_CLOUD_WINDOW];
	uint32_t in_flight;
	bool frames_done;
	bool got_messages;
	bool storage_failed;
	bool fetch_in_flight;       /* a package fetch waits for its chunk */
} rt_cloud_session_t;

/* Run one exchange; 0 when it finished, else the HAL_CLOUD_* error (also in s->error). */
int rt_cloud_session_run(rt_cloud_session_t *s);

const char *rt_cloud_strerror(int err);

#endif /* RT_CLOUD_SESSION_H */

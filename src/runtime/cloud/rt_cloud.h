/*
 * rt_cloud.h: the cloud API's device side (cloud.* and sync.*): the event queue in flash and the
 * variables (rt_cloud_queue.h), the sync cycle (rt_sync_cycle.h) and its exchange
 * (rt_cloud_session.h over hal_cloud.h). docs/cloud.md, "The device side", has the model.
 *
 * The state lives in rt_device_t. Callbacks, variable values and the awaited start-handler
 * promise belong to the running app's engine instance: when another instance runs (a new app, a
 * restart, a reset) they are dropped, the sync cycle starts again from that moment, and the
 * queue is opened again from flash.
 */
#ifndef RT_CLOUD_H
#define RT_CLOUD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rt_alarm.h"
#include "rt_cloud_deploy.h"
#include "rt_cloud_queue.h"
#include "rt_sync_cycle.h"

/* Below this charge (percent, on battery) the device syncs once, to send its queue while it
 * still can. */
#define RT_CLOUD_LOW_BATTERY_PERCENT 10.0f
/* How often the battery is looked at while events wait in the queue. */
#define RT_CLOUD_BATTERY_CHECK_MS 600000u

typedef struct rt_cloud_state {
	eng_context_t *engine;   /* the instance the references below belong to (NULL: none yet) */
	uint32_t generation;     /* its mark (an internal property of its global object) */
	rt_cloud_queue_t queue;
	rt_cloud_vars_t vars;
	rt_sync_cycle_t cycle;
	eng_ref_t on_receive;
	eng_ref_t start_handler;
	eng_ref_t end_handler;
	rt_alarm_id_t alarm;         /* the next sync, or the exchange after the start handler */
	rt_alarm_id_t start_timeout; /* the start handler's promise waits until then */
	rt_alarm_id_t battery_alarm;
	uint32_t start_token;        /* which awaited promise is current (older ones are ignored) */
	bool awaiting_start;
	bool battery_low;
} rt_cloud_state_t;

/* For sync.*: the state of the running app (set up on first use). */
rt_cloud_state_t *rt_cloud_state(void);
/* Ask for a sync now: false (no effect) while one runs. */
bool rt_cloud_request_sync(void);
/* Schedule the next sync after a change (period, handlers, queue). */
void rt_cloud_reschedule(void);

/*
 * A message's CBOR payload as the app's value, built straight from the CBOR with the engine's
 * constructors (what JSON.parse of its JSON text would give, without the text). undefined, with
 * *why saying what, when the payload has something JSON has not (byte strings, tags, integers
 * beyond 2^53, NaN), is malformed or nests deeper than RT_CLOUD_PAYLOAD_DEPTH; *why is NULL
 * otherwise. Runs no app code (properties are defined, not set) and needs no buffer.
 */
eng_value_t rt_cloud_payload_value(const uint8_t *cbor, size_t len, const char **why);

#endif /* RT_CLOUD_H */

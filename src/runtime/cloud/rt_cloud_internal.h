/*
 * rt_cloud_internal.h: what the files of the cloud service share and nothing outside it uses.
 *
 *   rt_cloud.c          the service's state (rt_cloud_state) and cloud.* (enqueue, setVar,
 *                       onReceive)
 *   rt_cloud_sync.c     the sync cycle: scheduling, the start handler, the exchange, delivery of
 *                       messages, the end handler
 *   rt_cloud_payload.c  a message's CBOR payload to the app's values
 *   rt_sync.c           sync.*
 */
#ifndef RT_CLOUD_INTERNAL_H
#define RT_CLOUD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rt_cloud.h"
#include "rt_cloud_json.h"
#include "rt_records.h"

/* Schedule the next sync, or nothing when there is nothing to sync (rt_cloud_sync.c). */
void rt_cloud_arm(rt_cloud_state_t *s);

/* Open the event queue on the device's store, once per mount. */
rt_records_err_t rt_cloud_open_queue(rt_cloud_state_t *s);
/* After a store error the store is mounted again on next use: so is the queue. Returns err. */
rt_records_err_t rt_cloud_checked(rt_cloud_state_t *s, rt_records_err_t err);
/* An event's time: UTC ms, or ms since boot while the clock is not set. */
int64_t rt_cloud_timestamp(void);
/* The JSON's CBOR into out, through the text at scratch + RT_CLOUD_RECORD_MAX: RT_CLOUD_JSON_*
 * (ESPACE: the text or the CBOR does not fit; *len is SIZE_MAX when the text is too long). */
rt_cloud_json_err_t rt_cloud_cbor_from_json(eng_value_t json, uint8_t *scratch, uint8_t *out,
					    size_t cap, size_t *len);

#endif /* RT_CLOUD_INTERNAL_H */

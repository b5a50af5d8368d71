/*
 * cloud: the event queue, cloud variables and messages from the cloud, and the sync cycle that
 * delivers them (sync.* is in rt_sync.c). See rt_cloud.h; docs/cloud.md has the model. This file:
 * the service's state and cloud.*; the cycle is in rt_cloud_sync.c, a message's payload to the
 * app's values in rt_cloud_payload.c.
 *
 * The generated glue has rt_cloud_checked and converted every argument before these run.
 */
#include "rt_cloud.h"

#include <stdio.h>
#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_cloud.h"
#include "hal_console.h"
#include "rt_api_version.h"
#include "rt_cloud_internal.h"
#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_pure.h"
#include "rt_scratch.h"
#include "rt_store.h"
#include "rt_callback.h"

/*
 * The large buffers of cloud.enqueue, cloud.setVar and a variable's update are views of the
 * runtime's shared scratch (rt_scratch.h), taken after the value's JSON is made (JSON.stringify
 * runs the app's toJSON and getters) and given back before anything calls into JavaScript:
 *
 *   [0, RT_CLOUD_RECORD_MAX)            the event record; its CBOR payload is written in place
 *   [RT_CLOUD_RECORD_MAX, end)          the JSON text, dead once converted; then room for
 *                                       rt_cloud_queue_push to read another record
 *
 * The JSON text is bounded by what is left (TEXT_MAX, 9 kB): the limits of the spec are on the
 * CBOR that goes to the cloud (8 kB, 1 kB for a variable), and a value whose JSON is longer than
 * TEXT_MAX is refused as too big too (ESR0204), though its CBOR could be a little shorter: only
 * values made mostly of nulls, booleans and small numbers come close to that (docs/cloud.md).
 */
#define TEXT_MAX (RT_SCRATCH_BYTES - RT_CLOUD_RECORD_MAX - 1u)
_Static_assert(2u * RT_CLOUD_RECORD_MAX <= RT_SCRATCH_BYTES,
	       "a record and room to read another fit the scratch");
_Static_assert(TEXT_MAX >= RT_CLOUD_PAYLOAD_MAX, "an 8 kB payload's JSON fits the scratch");

/* ------------------------------------------------------------------ state */

rt_cloud_state_t *rt_cloud_state(void)
{
	rt_device_t *dev = rt_device();
	rt_cloud_state_t *s = &dev->cloud;
	/* The instance is recognised by a mark in its global object: a new instance may well get
	 * the old one's address. */
	bool same = s->engine == dev->engine && s->engine != NULL;
	if (same) {
		eng_value_t global = eng_global();
		eng_value_t mark = eng_get_internal(global, "cloud");
		same = eng_get_number(mark) == (double)s->generation;
		eng_release(mark);
		eng_release(global);
	}
	if (!same) {
		/* Another app instance: what belonged to the old one went with its engine (references)
		 * and its alarms (rt_alarm_reset). The queue is read again from flash. */
		uint32_t generation = s->generation + 1;
		memset(s, 0, sizeof(*s));
		s->engine = dev->engine;
		s->generation = generation;
		rt_sync_cycle_init(&s->cycle, hal_clock_ms());
		eng_value_t global = eng_global();
		eng_value_t mark = eng_number((double)generation);
		eng_set_internal(global, "cloud", mark);
		eng_release(mark);
		eng_release(global);
	}
	return s;
}

rt_records_err_t rt_cloud_open_queue(rt_cloud_state_t *s)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store == NULL) {
		s->queue.open = false;
		return err;
	}
	if (s->queue.open && s->queue.store == store && store->mounted) {
		return RT_RECORDS_OK;
	}
	return rt_cloud_queue_open(&s->queue, store, hal_cloud_entropy());
}

/* After a store error the store is mounted again on next use: so is the queue. */
rt_records_err_t rt_cloud_checked(rt_cloud_state_t *s, rt_records_err_t err)
{
	if (err != RT_RECORDS_OK && err != RT_RECORDS_ENOSPC && err != RT_RECORDS_EINDEX_FULL &&
	    err != RT_RECORDS_ETOOBIG) {
		s->queue.open = false;
	}
	return err;
}

int64_t rt_cloud_timestamp(void)
{
	int64_t utc = 0;
	if (hal_clock_utc_ms(&utc)) {
		return utc;
	}
	/* The clock is not set yet: ms since boot (the cloud shows it near 1970). */
	return (int64_t)hal_clock_ms();
}

/* ------------------------------------------------------------------ values */

/* The value's JSON (JSON.stringify: the app's toJSON and getters run), before the scratch is
 * taken. RT_CLOUD_JSON_ESYNTAX when it has none; *json is then nothing to release. */
static rt_cloud_json_err_t value_json(eng_value_t value, eng_value_t *json)
{
	*json = eng_json_stringify(value);
	if (eng_is_exception(*json) || eng_typeof(*json) != ENG_TYPE_STRING) {
		eng_release(*json);
		*json = eng_undefined();
		return RT_CLOUD_JSON_ESYNTAX;
	}
	return RT_CLOUD_JSON_OK;
}

/* The JSON's CBOR into out, through the text at scratch + RT_CLOUD_RECORD_MAX: RT_CLOUD_JSON_*
 * (ESPACE: the text or the CBOR does not fit). */
rt_cloud_json_err_t rt_cloud_cbor_from_json(eng_value_t json, uint8_t *scratch, uint8_t *out,
					    size_t cap, size_t *len)
{
	*len = 0;
	char *text = (char *)scratch + RT_CLOUD_RECORD_MAX;
	size_t size = eng_string_copy(json, text, TEXT_MAX + 1u);
	if (size > TEXT_MAX) {
		*len = SIZE_MAX; /* the text, not the CBOR, is too long */
		return RT_CLOUD_JSON_ESPACE;
	}
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out, cap);
	rt_cloud_json_err_t err = rt_cloud_json_to_cbor(text, size, &e, RT_CLOUD_PAYLOAD_DEPTH);
	*len = e.len;
	return err;
}

static eng_value_t store_error(const char *fn, rt_records_err_t err)
{
	switch (err) {
	case RT_RECORDS_ENOSPC:
	case RT_RECORDS_EINDEX_FULL:
		return rt_throw_esr(RT_ESR0202_NO_STORAGE_SPACE, "%s: %s", fn, rt_records_strerror(err));
	case RT_RECORDS_ETOOBIG:
		return rt_throw_esr(RT_ESR0204_TOO_BIG, "%s: %s", fn, rt_records_strerror(err));
	case RT_RECORDS_ETIMEDOUT:
		/* The store did not answer: the call was cut short, nothing was queued. */
		return rt_throw_esr(RT_ESR0104_INTERRUPTED, "%s: %s", fn, rt_records_strerror(err));
	default:
		return rt_throw_esr(RT_ESR0201_STORAGE_ERROR, "%s: %s", fn, rt_records_strerror(err));
	}
}

/* ------------------------------------------------------------------ cloud.* */

eng_value_t rt_cloud_enqueue(const rt_cloud_enqueue_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	bool old = rt_api_version() < RT_API_VERSION(0, 1, 0);
	uint32_t limit = old ? RT_CLOUD_PAYLOAD_MAX_0_0_9 : RT_CLOUD_PAYLOAD_MAX;
	char type[RT_CLOUD_TYPE_MAX + 1];
	size_t type_len = eng_string_copy(args->type, type, sizeof(type));
	if (type_len == 0) {
		/* The cloud refuses an event without a type: it would stay in the queue forever. */
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "cloud.enqueue: type must be 1 to 30 characters long (got '')");
	}
	if (!rt_pure_check(args->message)) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
				    "cloud.enqueue: message holds a function, promise, handle or cycle");
	}
	bool volatile_ = true;
	if (!old && args->has_options && args->options.has_volatile) {
		volatile_ = args->options.volatile_;
	}
	eng_value_t json;
	rt_cloud_json_err_t jerr = value_json(args->message, &json);
	size_t len = 0;
	rt_records_err_t err = RT_RECORDS_OK;
	uint32_t seq = 0;
	size_t bytes = 0;
	if (jerr == RT_CLOUD_JSON_OK) {
		uint8_t *record = rt_scratch_take("cloud.enqueue");
		/* The payload is written in place, where the record will hold it. */
		uint8_t *payload = record + RT_CLOUD_EVENT_HEADER + type_len;
		jerr = rt_cloud_cbor_from_json(json, record, payload,
				 RT_CLOUD_RECORD_MAX - RT_CLOUD_EVENT_HEADER - type_len, &len);
		if (jerr == RT_CLOUD_JSON_OK && len <= limit) {
			err = rt_cloud_open_queue(s);
			if (err == RT_RECORDS_OK) {
				uint32_t dropped = s->queue.dropped;
				err = rt_cloud_checked(s, rt_cloud_queue_push(&s->queue, type, type_len, payload,
								     len, rt_cloud_timestamp(),
								     volatile_ ? RT_CLOUD_EVENT_VOLATILE : 0,
								     record, 2u * RT_CLOUD_RECORD_MAX,
								     &seq, &bytes));
				if (s->queue.dropped != dropped) {
					hal_log(HAL_LOG_WARN,
						"cloud.enqueue: %u volatile event(s) deleted to make room",
						(unsigned)(s->queue.dropped - dropped));
				}
			}
		}
		rt_scratch_give(record);
	}
	eng_release(json);
	if (jerr == RT_CLOUD_JSON_EDEPTH) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
				    "cloud.enqueue: message is nested deeper than %u levels",
				    (unsigned)RT_CLOUD_PAYLOAD_DEPTH);
	}
	if (jerr == RT_CLOUD_JSON_ESYNTAX) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE, "cloud.enqueue: message has no JSON form");
	}
	if (jerr == RT_CLOUD_JSON_ESPACE && len == SIZE_MAX) {
		return rt_throw_esr(RT_ESR0204_TOO_BIG,
				    "cloud.enqueue: JSON text longer than %u bytes (at most %u bytes serialized)",
				    (unsigned)TEXT_MAX, (unsigned)limit);
	}
	if (jerr == RT_CLOUD_JSON_ESPACE) {
		return rt_throw_esr(RT_ESR0204_TOO_BIG,
				    "cloud.enqueue: more than %u bytes serialized (at most %u)",
				    (unsigned)limit, (unsigned)limit);
	}
	if (len > limit) {
		return rt_throw_esr(RT_ESR0204_TOO_BIG,
				    "cloud.enqueue: %zu bytes serialized (at most %u)", len,
				    (unsigned)limit);
	}
	if (err != RT_RECORDS_OK) {
		return store_error("cloud.enqueue", err);
	}
	char fields[200];
	snprintf(fields, sizeof(fields), "\"op\":\"enqueue\",\"seq\":%u,\"bytes\":%u,\"volatile\":%s",
		 (unsigned)seq, (unsigned)bytes, volatile_ ? "true" : "false");
	hal_console_record("cloud", fields);
	if (rt_cloud_queue_nearly_full(&s->queue)) {
		rt_sync_cycle_request(&s->cycle);
	}
	rt_cloud_arm(s);
	if (old) {
		return eng_undefined();
	}
	return eng_number((double)bytes);
}

eng_value_t rt_cloud_setVar(const rt_cloud_setVar_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	char name[RT_CLOUD_TYPE_MAX + 1];
	size_t name_len = eng_string_copy(args->name, name, sizeof(name));
	if (name_len == 0) {
		return rt_throw_arg(ENG_ERROR_RANGE,
				 "cloud.setVar: name must be 1 to 30 characters long (got '')");
	}
	if (!rt_pure_check(args->message)) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
				    "cloud.setVar: message holds a function, promise, handle or cycle");
	}
	eng_value_t json;
	rt_cloud_json_err_t jerr = value_json(args->message, &json);
	size_t len = 0;
	uint64_t hash = 0;
	if (jerr == RT_CLOUD_JSON_OK) {
		uint8_t *scratch = rt_scratch_take("cloud.setVar");
		jerr = rt_cloud_cbor_from_json(json, scratch, scratch, RT_CLOUD_RECORD_MAX, &len);
		if (jerr == RT_CLOUD_JSON_OK) {
			hash = rt_cloud_value_hash(scratch, len);
		}
		rt_scratch_give(scratch);
	}
	if (jerr == RT_CLOUD_JSON_EDEPTH || jerr == RT_CLOUD_JSON_ESYNTAX) {
		eng_release(json);
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE, "cloud.setVar: message has no JSON form");
	}
	if (jerr == RT_CLOUD_JSON_ESPACE || len > RT_CLOUD_VAR_VALUE_MAX) {
		eng_release(json);
		if (jerr == RT_CLOUD_JSON_ESPACE && len == SIZE_MAX) {
			return rt_throw_esr(RT_ESR0204_TOO_BIG,
					    "cloud.setVar: JSON text longer than %u bytes (at most %u bytes serialized)",
					    (unsigned)TEXT_MAX, (unsigned)RT_CLOUD_VAR_VALUE_MAX);
		}
		if (jerr == RT_CLOUD_JSON_ESPACE) {
			return rt_throw_esr(RT_ESR0204_TOO_BIG, "cloud.setVar: more than %u bytes serialized (at most %u)",
					    (unsigned)RT_CLOUD_VAR_VALUE_MAX, (unsigned)RT_CLOUD_VAR_VALUE_MAX);
		}
		return rt_throw_esr(RT_ESR0204_TOO_BIG, "cloud.setVar: %zu bytes serialized (at most %u)",
				    len, (unsigned)RT_CLOUD_VAR_VALUE_MAX);
	}
	bool created = false;
	rt_cloud_var_t *var = rt_cloud_vars_get(&s->vars, name, name_len, &created);
	if (var == NULL) {
		eng_release(json);
		return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "cloud.setVar: at most %u variables",
				    (unsigned)RT_CLOUD_VARS_MAX);
	}
	/* The value stays on the VM heap, as its JSON text: the C side keeps only its hash. */
	rt_callback_drop(&var->value);
	var->value = eng_ref_new(json);
	eng_release(json);
	var->hash = hash;
	rt_cloud_arm(s);
	return eng_number((double)len);
}

eng_value_t rt_cloud_onReceive(const rt_cloud_onReceive_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	rt_callback_keep(&s->on_receive, args->msgHandler);
	rt_cloud_arm(s);
	return eng_undefined();
}

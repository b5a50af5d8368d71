/*
 * cloud: the event queue, cloud variables and messages from the cloud, and the sync cycle that
 * delivers them (sync.* is in rt_sync.c). See rt_cloud.h; docs/cloud.md has the model.
 *
 * The generated glue has checked and converted every argument before these run.
 */
#include "rt_cloud.h"

#include <stdio.h>
#include <string.h>

#include "api_types.h"
#include "hal_clock.h"
#include "hal_cloud.h"
#include "hal_console.h"
#include "hal_device.h"
#include "hal_sensors.h"
#include "rt_api_version.h"
#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"
#include "rt_cloud_session.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_hex.h"
#include "rt_loop.h"
#include "rt_pure.h"
#include "rt_scratch.h"
#include "rt_store.h"

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

static void arm(rt_cloud_state_t *s);

/* ------------------------------------------------------------------ state */

static void drop_ref(eng_ref_t *ref)
{
	if (*ref) {
		eng_ref_free(*ref);
		*ref = 0;
	}
}

static void keep_ref(eng_ref_t *slot, eng_value_t callback)
{
	drop_ref(slot);
	if (eng_typeof(callback) == ENG_TYPE_FUNCTION) {
		*slot = eng_ref_new(callback);
	}
}

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

static rt_records_err_t open_queue(rt_cloud_state_t *s)
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
static rt_records_err_t checked(rt_cloud_state_t *s, rt_records_err_t err)
{
	if (err != RT_RECORDS_OK && err != RT_RECORDS_ENOSPC && err != RT_RECORDS_EINDEX_FULL &&
	    err != RT_RECORDS_ETOOBIG) {
		s->queue.open = false;
	}
	return err;
}

static int64_t timestamp(void)
{
	int64_t utc = 0;
	if (hal_clock_utc_ms(&utc)) {
		return utc;
	}
	/* The clock is not set yet: ms since boot (the cloud shows it near 1970). */
	return (int64_t)hal_clock_ms();
}

static void device_id(char *out, size_t cap)
{
	uint8_t id[32];
	size_t n = hal_device_public_id(id, sizeof(id));
	if (n > sizeof(id)) {
		n = sizeof(id);
	}
	if (2 * n + 1 > cap) {
		n = (cap - 1) / 2;
	}
	rt_hex_encode(id, n, out);
}

static void trace_sync(const char *phase, const rt_cloud_session_t *ss, const char *error)
{
	char fields[256];
	if (ss == NULL) {
		snprintf(fields, sizeof(fields), "\"phase\":\"%s\"", phase);
	} else if (error == NULL) {
		snprintf(fields, sizeof(fields),
			 "\"phase\":\"%s\",\"events\":%u,\"batches\":%u,\"messages\":%u,\"bytes\":%u", phase,
			 (unsigned)ss->events_sent, (unsigned)ss->batches_sent, (unsigned)ss->messages,
			 (unsigned)ss->bytes_up);
	} else {
		snprintf(fields, sizeof(fields),
			 "\"phase\":\"%s\",\"events\":%u,\"messages\":%u,\"error\":\"%s\"", phase,
			 (unsigned)ss->events_sent, (unsigned)ss->messages, error);
	}
	hal_console_record("cloud-sync", fields);
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
static rt_cloud_json_err_t json_cbor(eng_value_t json, uint8_t *scratch, uint8_t *out, size_t cap,
				     size_t *len)
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
		return eng_throw(ENG_ERROR_RANGE, NULL,
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
		jerr = json_cbor(json, record, payload,
				 RT_CLOUD_RECORD_MAX - RT_CLOUD_EVENT_HEADER - type_len, &len);
		if (jerr == RT_CLOUD_JSON_OK && len <= limit) {
			err = open_queue(s);
			if (err == RT_RECORDS_OK) {
				uint32_t dropped = s->queue.dropped;
				err = checked(s, rt_cloud_queue_push(&s->queue, type, type_len, payload,
								     len, timestamp(),
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
	arm(s);
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
		return eng_throw(ENG_ERROR_RANGE, NULL,
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
		jerr = json_cbor(json, scratch, scratch, RT_CLOUD_RECORD_MAX, &len);
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
	drop_ref(&var->value);
	var->value = eng_ref_new(json);
	eng_release(json);
	var->hash = hash;
	arm(s);
	return eng_number((double)len);
}

eng_value_t rt_cloud_onReceive(const rt_cloud_onReceive_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	keep_ref(&s->on_receive, args->msgHandler);
	arm(s);
	return eng_undefined();
}

/* ------------------------------------------------------------------ the sync cycle */

static bool has_work(rt_cloud_state_t *s)
{
	if (s->on_receive || s->start_handler || s->end_handler || s->cycle.requested) {
		return true;
	}
	for (uint32_t i = 0; i < s->vars.count; i++) {
		if (rt_cloud_var_dirty(&s->vars.vars[i])) {
			return true;
		}
	}
	return s->queue.open && s->queue.count > 0;
}

static void on_alarm(void *context);
static void on_battery(void *context);

static void check_battery(rt_cloud_state_t *s)
{
	hal_power_t p;
	memset(&p, 0, sizeof(p));
	hal_power_read(&p);
	bool low = !p.external && p.percent < RT_CLOUD_LOW_BATTERY_PERCENT;
	if (low && !s->battery_low && s->queue.open && s->queue.count > 0) {
		hal_log(HAL_LOG_INFO, "battery low (%.0f %%): syncing the cloud queue", (double)p.percent);
		rt_sync_cycle_request(&s->cycle);
	}
	s->battery_low = low;
}

static void arm(rt_cloud_state_t *s)
{
	if (s->cycle.running) {
		return;
	}
	rt_alarm_cancel(&s->alarm);
	if (!has_work(s)) {
		return;
	}
	uint64_t due = rt_sync_cycle_due(&s->cycle);
	uint64_t now = hal_clock_ms();
	s->alarm = rt_alarm_at(due < now ? now : due, on_alarm, NULL);
	if (s->queue.open && s->queue.count > 0 && !rt_alarm_pending(s->battery_alarm)) {
		s->battery_alarm = rt_alarm_at(now + RT_CLOUD_BATTERY_CHECK_MS, on_battery, NULL);
	}
}

void rt_cloud_reschedule(void)
{
	arm(rt_cloud_state());
}

bool rt_cloud_request_sync(void)
{
	rt_cloud_state_t *s = rt_cloud_state();
	if (!rt_sync_cycle_request(&s->cycle)) {
		return false;
	}
	arm(s);
	return true;
}

static void on_battery(void *context)
{
	(void)context;
	rt_cloud_state_t *s = rt_cloud_state();
	s->battery_alarm = 0;
	check_battery(s);
	arm(s);
}

/* Each changed variable becomes an event of this sync (an older queued update goes first). */
static void queue_variables(rt_cloud_state_t *s)
{
	for (uint32_t i = 0; i < s->vars.count; i++) {
		rt_cloud_var_t *var = &s->vars.vars[i];
		if (!rt_cloud_var_dirty(var)) {
			continue;
		}
		size_t name_len = strlen(var->name);
		uint8_t *record = rt_scratch_take("cloud variables");
		uint8_t *payload = record + RT_CLOUD_EVENT_HEADER + name_len;
		eng_value_t json = eng_ref_get(var->value);
		size_t len = 0;
		rt_cloud_json_err_t jerr = json_cbor(json, record, payload, RT_CLOUD_VAR_VALUE_MAX, &len);
		eng_release(json);
		if (jerr != RT_CLOUD_JSON_OK) {
			rt_scratch_give(record);
			continue; /* checked by setVar: cannot happen */
		}
		/* The text is dead: the second half holds an older update being looked for. */
		rt_records_err_t err = checked(s, rt_cloud_queue_drop_variable(
							  &s->queue, var->name, name_len,
							  record + RT_CLOUD_RECORD_MAX, RT_CLOUD_RECORD_MAX));
		uint32_t seq = 0;
		size_t bytes = 0;
		if (err == RT_RECORDS_OK) {
			err = checked(s, rt_cloud_queue_push(&s->queue, var->name, name_len, payload, len,
							     timestamp(),
							     RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE,
							     record, 2u * RT_CLOUD_RECORD_MAX, &seq, &bytes));
		}
		rt_scratch_give(record);
		if (err != RT_RECORDS_OK) {
			hal_log(HAL_LOG_WARN, "cloud variable '%s' not sent: %s", var->name,
				rt_records_strerror(err));
			continue;
		}
		var->sent = true;
		var->sent_hash = var->hash;
	}
}

/* Text as the inside of a JSON string (for trace records). */
static void json_escape(char *out, size_t cap, const char *in, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 7 < cap; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

/* ------------------------------------------------------------------ CBOR -> values */

/* 2^53 - 1: larger integers have no exact number (the cloud sends none: docs/cloud-protocol.md). */
#define MAX_SAFE_INT 9007199254740991ull

typedef struct {
	rt_cbor_dec_t d;
	const char *why; /* why the payload was refused */
} payload_reader_t;

/*
 * Properties are defined as JSON.parse defines them (eng_define_data): no setter of the app's
 * runs, not even one on Object.prototype or Array.prototype, and a "__proto__" key is an own
 * property, not the object's prototype. So no app code runs while a payload is decoded.
 */
static eng_value_t payload_item(payload_reader_t *r, unsigned depth)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(&r->d, &it) != RT_CBOR_OK) {
		r->why = "payload is not well-formed CBOR";
		return eng_undefined();
	}
	switch (it.type) {
	case RT_CBOR_UINT:
		if (it.u > MAX_SAFE_INT) {
			break;
		}
		return eng_number((double)it.u);
	case RT_CBOR_NEGATIVE:
		if (it.u >= MAX_SAFE_INT) {
			break;
		}
		return eng_number(-1.0 - (double)it.u);
	case RT_CBOR_FLOAT:
		if (it.f != it.f || it.f - it.f != 0.0) {
			break; /* NaN or an infinity: JSON has neither */
		}
		return eng_number(it.f);
	case RT_CBOR_TEXT:
		return eng_string((const char *)it.data, it.len);
	case RT_CBOR_TRUE:
		return eng_boolean(true);
	case RT_CBOR_FALSE:
		return eng_boolean(false);
	case RT_CBOR_NULL:
		return eng_null();
	case RT_CBOR_ARRAY:
	case RT_CBOR_MAP: {
		if (depth == 0) {
			r->why = "payload nested too deep for this device";
			return eng_undefined();
		}
		/* Every item takes a byte at least: a count beyond the bytes left is a lie, refused
		 * before the engine is asked for an array that long. */
		if (it.u > r->d.len - r->d.pos) {
			r->why = "payload is not well-formed CBOR";
			return eng_undefined();
		}
		bool map = it.type == RT_CBOR_MAP;
		eng_value_t out = map ? eng_object() : eng_array(0);
		for (uint64_t i = 0; i < it.u && r->why == NULL; i++) {
			const char *key;
			size_t key_len;
			char index[12];
			if (map) {
				rt_cbor_item_t k;
				if (rt_cbor_next(&r->d, &k) != RT_CBOR_OK || k.type != RT_CBOR_TEXT) {
					r->why = "payload has a map key that is not text";
					break;
				}
				key = (const char *)k.data;
				key_len = k.len;
			} else {
				key_len = (size_t)snprintf(index, sizeof(index), "%u", (unsigned)i);
				key = index;
			}
			eng_value_t v = payload_item(r, depth - 1);
			if (r->why == NULL && !eng_define_data(out, key, key_len, v)) {
				r->why = "payload too large for this device";
			}
			eng_release(v);
		}
		if (r->why != NULL) {
			eng_release(out);
			return eng_undefined();
		}
		return out;
	}
	default:
		r->why = "payload has a byte string, tag or other value JSON has not";
		return eng_undefined();
	}
	r->why = "payload has a number JSON cannot hold exactly";
	return eng_undefined();
}

eng_value_t rt_cloud_payload_value(const uint8_t *cbor, size_t len, const char **why)
{
	payload_reader_t r;
	memset(&r, 0, sizeof(r));
	rt_cbor_dec_init(&r.d, cbor, len);
	eng_value_t v = payload_item(&r, RT_CLOUD_PAYLOAD_DEPTH);
	if (r.why == NULL && !rt_cbor_at_end(&r.d)) {
		r.why = "payload has bytes after its value";
	}
	if (r.why != NULL) {
		eng_release(v);
		v = eng_undefined();
	}
	*why = r.why;
	return v;
}

static void deliver(void *ctx, const rt_cloud_message_t *msg)
{
	rt_cloud_state_t *s = ctx;
	char type_json[2 * 6 * 30 + 1];
	json_escape(type_json, sizeof(type_json), msg->type, msg->type_len);
	char fields[sizeof(type_json) + 80];
	snprintf(fields, sizeof(fields), "\"id\":%llu,\"type\":\"%s\",\"handler\":%s",
		 (unsigned long long)msg->id, type_json, s->on_receive ? "true" : "false");
	hal_console_record("cloud-message", fields);
	if (!s->on_receive) {
		return;
	}
	/* Straight from the CBOR into the app's values: no text of it is ever made. */
	const char *why = NULL;
	eng_value_t payload = rt_cloud_payload_value(msg->payload, msg->payload_len, &why);
	if (why != NULL) {
		hal_log(HAL_LOG_WARN, "cloud message %llu: %s", (unsigned long long)msg->id, why);
		return;
	}
	eng_value_t env = eng_object();
	eng_value_t type = eng_string(msg->type, msg->type_len);
	eng_value_t ts = eng_number((double)msg->ts);
	eng_set(env, "type", type);
	eng_set(env, "ts", ts);
	eng_set(env, "payload", payload);
	eng_release(type);
	eng_release(ts);
	eng_release(payload);
	eng_value_t fn = eng_ref_get(s->on_receive);
	rt_loop_invoke(fn, &env, 1);
	eng_release(fn);
	eng_release(env);
}

/* The exchange itself, then the end handler. */
static void exchange(rt_cloud_state_t *s)
{
	uint32_t generation = s->generation;
	char id[65];
	device_id(id, sizeof(id));
	rt_cloud_session_t ss;
	memset(&ss, 0, sizeof(ss));
	rt_records_err_t err = open_queue(s);
	int rc;
	if (err != RT_RECORDS_OK) {
		snprintf(ss.detail, sizeof(ss.detail), "storage error: %s", rt_records_strerror(err));
		rc = ss.error = HAL_CLOUD_ECONN;
	} else {
		queue_variables(s);
		ss.transport = hal_cloud_transport();
		ss.queue = &s->queue;
		ss.device_id = id;
		ss.deliver = deliver;
		ss.ctx = s;
		rc = rt_cloud_session_run(&ss);
		if (ss.storage_failed) {
			s->queue.open = false;
		}
	}
	/* The handlers above may have replaced the app (app.restart()): nothing more to do then. */
	if (rt_cloud_state()->generation != generation) {
		return;
	}
	rt_sync_cycle_end(&s->cycle, hal_clock_ms(), rc == 0);
	trace_sync("end", &ss, rc == 0 ? NULL : ss.detail);
	if (rc != 0) {
		hal_log(HAL_LOG_INFO, "sync failed: %s", ss.detail);
	}
	if (s->end_handler && rt_api_version() >= RT_API_VERSION(0, 2, 6)) {
		eng_value_t arg = rc == 0 ? eng_undefined()
					  : eng_error(ENG_ERROR_COMMON, NULL, "sync failed: %s", ss.detail);
		eng_value_t fn = eng_ref_get(s->end_handler);
		rt_loop_invoke(fn, &arg, 1);
		eng_release(fn);
		eng_release(arg);
	}
	arm(s);
}

static void on_exchange(void *context)
{
	(void)context;
	rt_cloud_state_t *s = rt_cloud_state();
	s->alarm = 0;
	exchange(s);
}

static void start_settled(rt_cloud_state_t *s, uint32_t token, const char *how)
{
	if (!s->awaiting_start || token != s->start_token) {
		return; /* an older sync's promise, or already timed out */
	}
	s->awaiting_start = false;
	rt_alarm_cancel(&s->start_timeout);
	if (how != NULL) {
		hal_log(HAL_LOG_INFO, "sync start handler: %s", how);
	}
	/* From the loop, not from inside the promise job. */
	s->alarm = rt_alarm_at(hal_clock_ms(), on_exchange, NULL);
}

static eng_value_t start_fulfilled(const eng_call_t *call)
{
	start_settled(rt_cloud_state(), (uint32_t)(uintptr_t)call->data, NULL);
	return eng_undefined();
}

static eng_value_t start_rejected(const eng_call_t *call)
{
	rt_cloud_state_t *s = rt_cloud_state();
	if (s->awaiting_start && (uint32_t)(uintptr_t)call->data == s->start_token &&
	    call->argc > 0) {
		/* The app's error handler sees the rejection; the sync goes on. */
		rt_loop_report(RT_ERROR_CALLBACK, call->argv[0]);
	}
	start_settled(s, (uint32_t)(uintptr_t)call->data, NULL);
	return eng_undefined();
}

static void on_start_timeout(void *context)
{
	(void)context;
	rt_cloud_state_t *s = rt_cloud_state();
	s->start_timeout = 0;
	start_settled(s, s->start_token, "its promise did not settle in 5 minutes; syncing anyway");
}

/* Call the start handler; true when the exchange must wait for its promise. */
static bool call_start_handler(rt_cloud_state_t *s)
{
	eng_value_t fn = eng_ref_get(s->start_handler);
	eng_watchdog_arm();
	eng_value_t result = eng_call(fn, eng_undefined(), NULL, 0);
	eng_watchdog_disarm();
	eng_release(fn);
	if (eng_is_exception(result)) {
		eng_value_t error = eng_exception_value(result);
		rt_loop_report(RT_ERROR_CALLBACK, error);
		eng_release(error);
		rt_loop_run_jobs();
		return false;
	}
	bool wait = false;
	if (rt_api_version() >= RT_API_VERSION(0, 2, 4) && eng_is_object(result)) {
		eng_value_t then = eng_get(result, "then");
		if (!eng_is_exception(then) && eng_is_callable(then)) {
			s->start_token++;
			void *token = (void *)(uintptr_t)s->start_token;
			eng_value_t argv[2] = {eng_function(start_fulfilled, token, "fulfilled"),
					       eng_function(start_rejected, token, "rejected")};
			eng_value_t r = eng_call(then, result, argv, 2);
			if (!eng_is_exception(r)) {
				wait = true;
				s->awaiting_start = true;
				s->start_timeout = rt_alarm_at(hal_clock_ms() + RT_SYNC_START_WAIT_MS,
							       on_start_timeout, NULL);
			}
			eng_release(r);
			eng_release(argv[0]);
			eng_release(argv[1]);
		}
		eng_release(then);
	}
	eng_release(result);
	rt_loop_run_jobs();
	/* Even when it settled already (in the jobs just run): the exchange was scheduled then. */
	return wait;
}

static void on_alarm(void *context)
{
	(void)context;
	rt_cloud_state_t *s = rt_cloud_state();
	s->alarm = 0;
	if (!rt_sync_cycle_begin(&s->cycle)) {
		return;
	}
	uint32_t generation = s->generation;
	trace_sync("start", NULL, NULL);
	if (s->start_handler && call_start_handler(s)) {
		return; /* the exchange follows when the promise settles (or in 5 minutes) */
	}
	if (rt_cloud_state()->generation != generation || s->awaiting_start) {
		return;
	}
	exchange(s);
}

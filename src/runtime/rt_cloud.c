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
#include "rt_store.h"

/* JSON text of a value on its way in or out (a message's CBOR payload of 8 kB can be up to about
 * three times as long as JSON: floats and escaped control characters grow). */
#define TEXT_MAX 24576u

/*
 * Buffers of one call or one exchange. Static rather than per device: they hold nothing between
 * calls (the runtime runs one API call or one sync step at a time; a message handler that
 * enqueues during an exchange uses `record` and `text` only after the exchange has parsed the
 * message out of them), and they are far more than an app thread's stack.
 */
static char text[TEXT_MAX + 1];
static uint8_t record[2 * RT_CLOUD_RECORD_MAX]; /* one record, and room to read another */
static uint8_t frame[RT_CLOUD_BATCH_BYTES];
static rt_cloud_batch_t batch;

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

/* The value's CBOR into out: RT_CLOUD_JSON_* (ESYNTAX: it has no JSON form). */
static rt_cloud_json_err_t value_cbor(eng_value_t value, uint8_t *out, size_t cap, size_t *len,
				      size_t *json_size)
{
	*len = 0;
	eng_value_t json = eng_json_stringify(value);
	if (eng_is_exception(json)) {
		eng_release(json);
		return RT_CLOUD_JSON_ESYNTAX;
	}
	if (eng_typeof(json) != ENG_TYPE_STRING) {
		eng_release(json);
		return RT_CLOUD_JSON_ESYNTAX;
	}
	size_t size = eng_string_copy(json, text, sizeof(text));
	eng_release(json);
	*json_size = size;
	if (size >= sizeof(text)) {
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
	/* The payload is written in place, where the record will hold it. */
	uint8_t *payload = record + RT_CLOUD_EVENT_HEADER + type_len;
	size_t room = sizeof(record) - RT_CLOUD_EVENT_HEADER - type_len;
	size_t len = 0, json_size = 0;
	rt_cloud_json_err_t jerr = value_cbor(args->message, payload, room, &len, &json_size);
	if (jerr == RT_CLOUD_JSON_EDEPTH) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
				    "cloud.enqueue: message is nested deeper than %u levels",
				    (unsigned)RT_CLOUD_PAYLOAD_DEPTH);
	}
	if (jerr == RT_CLOUD_JSON_ESYNTAX) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE, "cloud.enqueue: message has no JSON form");
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
	rt_records_err_t err = open_queue(s);
	uint32_t seq = 0;
	size_t bytes = 0;
	if (err == RT_RECORDS_OK) {
		uint32_t dropped = s->queue.dropped;
		err = checked(s, rt_cloud_queue_push(&s->queue, type, type_len, payload, len, timestamp(),
						     volatile_ ? RT_CLOUD_EVENT_VOLATILE : 0, record,
						     sizeof(record), &seq, &bytes));
		if (s->queue.dropped != dropped) {
			hal_log(HAL_LOG_WARN, "cloud.enqueue: %u volatile event(s) deleted to make room",
				(unsigned)(s->queue.dropped - dropped));
		}
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
	size_t len = 0, json_size = 0;
	rt_cloud_json_err_t jerr = value_cbor(args->message, frame, sizeof(frame), &len, &json_size);
	if (jerr == RT_CLOUD_JSON_EDEPTH || jerr == RT_CLOUD_JSON_ESYNTAX) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE, "cloud.setVar: message has no JSON form");
	}
	if (jerr == RT_CLOUD_JSON_ESPACE || len > RT_CLOUD_VAR_VALUE_MAX) {
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
		return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "cloud.setVar: at most %u variables",
				    (unsigned)RT_CLOUD_VARS_MAX);
	}
	/* The value stays on the VM heap, as its JSON text: the C side keeps only its hash. */
	eng_value_t json = eng_string(text, json_size);
	drop_ref(&var->value);
	var->value = eng_ref_new(json);
	eng_release(json);
	var->hash = rt_cloud_value_hash(frame, len);
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
		eng_value_t json = eng_ref_get(var->value);
		size_t size = eng_string_copy(json, text, sizeof(text));
		eng_release(json);
		size_t name_len = strlen(var->name);
		uint8_t *payload = record + RT_CLOUD_EVENT_HEADER + name_len;
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, payload, RT_CLOUD_VAR_VALUE_MAX);
		if (rt_cloud_json_to_cbor(text, size, &e, RT_CLOUD_PAYLOAD_DEPTH) != RT_CLOUD_JSON_OK) {
			continue; /* checked by setVar: cannot happen */
		}
		rt_records_err_t err = checked(s, rt_cloud_queue_drop_variable(
							  &s->queue, var->name, name_len,
							  record + RT_CLOUD_RECORD_MAX, RT_CLOUD_RECORD_MAX));
		uint32_t seq = 0;
		size_t bytes = 0;
		if (err == RT_RECORDS_OK) {
			err = checked(s, rt_cloud_queue_push(&s->queue, var->name, name_len, payload, e.len,
							     timestamp(),
							     RT_CLOUD_EVENT_VOLATILE | RT_CLOUD_EVENT_VARIABLE,
							     record, sizeof(record), &seq, &bytes));
		}
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
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, msg->payload, msg->payload_len);
	size_t len = 0;
	if (rt_cloud_cbor_to_json(&d, text, sizeof(text), &len, RT_CLOUD_PAYLOAD_DEPTH) !=
	    RT_CLOUD_JSON_OK) {
		hal_log(HAL_LOG_WARN, "cloud message %llu: payload too large for this device",
			(unsigned long long)msg->id);
		return;
	}
	eng_value_t payload = eng_json_parse(text, len);
	if (eng_is_exception(payload)) {
		eng_release(payload);
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
		ss.frame = frame;
		ss.frame_cap = sizeof(frame);
		ss.record = record;
		ss.record_cap = sizeof(record);
		ss.batch = &batch;
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

/*
 * The sync cycle (rt_cloud.h, docs/cloud.md "The device side"): when to sync (rt_sync_cycle), the
 * app's start handler and its promise, the exchange with the cloud (rt_cloud_session over
 * hal_cloud), messages delivered to the app, the end handler, and the cloud-sync trace records.
 */
#include <stdio.h>
#include <string.h>

#include "hal_clock.h"
#include "hal_cloud.h"
#include "hal_console.h"
#include "hal_device.h"
#include "hal_sensors.h"
#include "rt_api_version.h"
#include "rt_cloud.h"
#include "rt_cloud_internal.h"
#include "rt_cloud_session.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_hex.h"
#include "rt_loop.h"
#include "rt_scratch.h"

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

/* The code the end handler's error carries: the synchronisation family, or the storage
 * family when the queue could not be read. */
static rt_esr_t sync_esr(const rt_cloud_session_t *ss)
{
	if (ss->storage_failed) {
		return RT_ESR0201_STORAGE_ERROR;
	}
	switch (ss->error) {
	case HAL_CLOUD_ENONET: return RT_ESR0601_SYNC_NO_NETWORK;
	case HAL_CLOUD_EAUTH: return RT_ESR0602_SYNC_REFUSED;
	case HAL_CLOUD_ETIMEDOUT: return RT_ESR0604_SYNC_TIMEOUT;
	case HAL_CLOUD_EPROTO: return RT_ESR0605_SYNC_PROTOCOL;
	case HAL_CLOUD_ETLS: return RT_ESR0606_SYNC_UNTRUSTED;
	default: return RT_ESR0603_SYNC_CONNECTION;
	}
}

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

void rt_cloud_arm(rt_cloud_state_t *s)
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
	rt_cloud_arm(rt_cloud_state());
}

bool rt_cloud_request_sync(void)
{
	rt_cloud_state_t *s = rt_cloud_state();
	if (!rt_sync_cycle_request(&s->cycle)) {
		return false;
	}
	rt_cloud_arm(s);
	return true;
}

static void on_battery(void *context)
{
	(void)context;
	rt_cloud_state_t *s = rt_cloud_state();
	s->battery_alarm = 0;
	check_battery(s);
	rt_cloud_arm(s);
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
		rt_cloud_json_err_t jerr = rt_cloud_cbor_from_json(json, record, payload, RT_CLOUD_VAR_VALUE_MAX, &len);
		eng_release(json);
		if (jerr != RT_CLOUD_JSON_OK) {
			rt_scratch_give(record);
			continue; /* rt_cloud_checked by setVar: cannot happen */
		}
		/* The text is dead: the second half holds an older update being looked for. */
		rt_records_err_t err = rt_cloud_checked(s, rt_cloud_queue_drop_variable(
							  &s->queue, var->name, name_len,
							  record + RT_CLOUD_RECORD_MAX, RT_CLOUD_RECORD_MAX));
		uint32_t seq = 0;
		size_t bytes = 0;
		if (err == RT_RECORDS_OK) {
			err = rt_cloud_checked(s, rt_cloud_queue_push(&s->queue, var->name, name_len, payload, len,
							     rt_cloud_timestamp(),
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
	rt_records_err_t err = rt_cloud_open_queue(s);
	int rc;
	if (err != RT_RECORDS_OK) {
		snprintf(ss.detail, sizeof(ss.detail), "storage error: %s", rt_records_strerror(err));
		rc = ss.error = HAL_CLOUD_ECONN;
		ss.storage_failed = true;
	} else {
		queue_variables(s);
		ss.transport = hal_cloud_transport();
		ss.queue = &s->queue;
		ss.device_id = id;
		ss.deliver = deliver;
		ss.ctx = s;
		ss.deploy = &rt_device()->cloud_deploy;
		ss.app_errors = rt_device()->loop.errors;
		rc = rt_cloud_session_run(&ss);
		if (rc == 0) {
			rt_cloud_deploy_reported(ss.deploy);
		}
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
	/* A package staged whole (in this sync or before) is installed now, the connection
	 * closed: the port switches to it and the new app starts when this turn of the loop
	 * ends. Refused, it is reported at the next sync and this app runs on. */
	rt_cloud_deploy_finish(&rt_device()->cloud_deploy);
	if (rc != 0) {
		hal_log(HAL_LOG_INFO, "sync failed: %s", ss.detail);
	}
	if (s->end_handler && rt_api_version() >= RT_API_VERSION(0, 2, 6)) {
		eng_value_t arg = rc == 0 ? eng_undefined()
					  : rt_error_esr(sync_esr(&ss), "sync failed: %s", ss.detail);
		eng_value_t fn = eng_ref_get(s->end_handler);
		rt_loop_invoke(fn, &arg, 1);
		eng_release(fn);
		eng_release(arg);
	}
	rt_cloud_arm(s);
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

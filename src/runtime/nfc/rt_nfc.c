/*
 * nfc: the NFC tag of 0.0.9. See rt_nfc.h; the NDEF encoding is rt_ndef's (docs/nfc.md).
 */
#include "rt_nfc.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_device.h"
#include "hal_nfc.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"
#include "rt_ndef.h"
#include "rt_scratch.h"
#include "rt_callback.h"

static rt_nfc_state_t *state(void)
{
	return &rt_device()->nfc;
}

size_t rt_nfc_initial_message(uint8_t *out, size_t cap)
{
	uint8_t id[16];
	size_t n = hal_device_public_id(id, sizeof(id));
	char text[8 + 2 * sizeof(id) + 1] = "beacon ";
	size_t len = strlen(text);
	for (size_t i = 0; i < n; i++) {
		static const char digits[] = "0123456789abcdef";
		text[len++] = digits[id[i] >> 4];
		text[len++] = digits[id[i] & 0x0f];
	}
	rt_ndef_record_in_t record = {.record_type = RT_NDEF_RECORD_TEXT, .text = {text, len}};
	size_t out_len = 0;
	if (rt_ndef_encode(&record, 1, out, cap, &out_len, NULL) != RT_NDEF_OK) {
		return 0;
	}
	return out_len;
}

static void show_initial(void)
{
	uint8_t msg[64];
	size_t len = rt_nfc_initial_message(msg, sizeof(msg));
	hal_nfc_set_message(msg, len);
}

void rt_nfc_reset(void)
{
	rt_nfc_state_t *st = state();
	rt_callback_drop(&st->on_field);
	if (st->on_write) {
		hal_nfc_writable(false);
	}
	rt_callback_drop(&st->on_write);
	show_initial();
}

/* ------------------------------------------------------------------ events */

static void call(eng_ref_t ref, eng_value_t arg)
{
	eng_value_t fn = eng_ref_get(ref);
	rt_loop_invoke(fn, &arg, 1);
	eng_release(fn);
}

static void on_field(const rt_event_t *event)
{
	eng_ref_t ref = state()->on_field;
	if (ref) {
		eng_value_t field = eng_boolean(event->payload[0] != 0);
		call(ref, field);
		eng_release(field);
	}
}

void rt_nfc_post_field(struct rt_device *device, bool field)
{
	uint8_t payload = field;
	rt_loop_post_to(device, on_field, &payload, 1);
}

static void on_write(const rt_event_t *event)
{
	(void)event;
	eng_ref_t ref = state()->on_write;
	if (!ref) {
		return; /* read-only again before the write was handed over */
	}
	uint8_t msg[RT_NDEF_TAG_DATA_AREA];
	size_t len = hal_nfc_written(msg, sizeof(msg));
	eng_value_t data = eng_arraybuffer(msg, len);
	call(ref, data);
	eng_release(data);
}

void rt_nfc_post_write(struct rt_device *device)
{
	rt_loop_post_to(device, on_write, NULL, 0);
}

/* ------------------------------------------------------------------ API */

eng_value_t rt_nfc_onFieldChanged(const rt_nfc_onFieldChanged_args_t *args)
{
	rt_callback_keep(&state()->on_field, args->callback);
	return eng_undefined();
}

eng_value_t rt_nfc_onWrite(const rt_nfc_onWrite_args_t *args)
{
	rt_nfc_state_t *st = state();
	rt_callback_keep(&st->on_write, args->callback);
	/* The spec: writable only while a callback is registered. */
	hal_nfc_writable(st->on_write != 0);
	return eng_undefined();
}

/* The scratch of one setMsg: the records and their strings as C text. A view of the runtime's
 * shared scratch (rt_scratch.h), taken only once every field has been read from the app's
 * objects: reading them may run the app's getters, which may call storage.save. */
typedef struct {
	rt_ndef_record_in_t records[RT_NFC_MAX_RECORDS];
	char pool[RT_NFC_TEXT_POOL];
	size_t used;
	uint8_t message[RT_NDEF_MAX_MESSAGE];
} scratch_t;
_Static_assert(sizeof(scratch_t) <= RT_SCRATCH_BYTES, "setMsg's records fit the scratch");

#define FIELDS 4

/* The fields of every record as the app's values, read before any text is copied. */
typedef struct {
	double record_type[RT_NFC_MAX_RECORDS];
	eng_value_t fields[RT_NFC_MAX_RECORDS][FIELDS]; /* text, uri, type, data; undefined: absent */
	uint32_t read;                                  /* records whose fields are held */
} fields_t;

/* 0.0.9's uncoded errors, with where and why after the spec's words. */
static eng_value_t fail(rt_ndef_error_t error, size_t record, const char *detail)
{
	return eng_throw(ENG_ERROR_COMMON, NULL, "%s: nfc.setMsg: message[%u]: %s",
			 rt_ndef_error_message(error), (unsigned)record, detail);
}

/*
 * One field of a record: absent (undefined) stays undefined for rt_ndef's "Missing field"; a
 * value that is not a string is "Invalid format"; text beyond the pool can only make a message
 * beyond the tag, so it is "Too big" (counted here as the copy will take it). Returns RT_NDEF_OK
 * or the error.
 */
static rt_ndef_error_t field(eng_value_t record, const char *key, eng_value_t *out, size_t *used,
			     const char **detail)
{
	*out = eng_undefined();
	eng_value_t v = eng_get(record, key);
	if (eng_is_exception(v)) {
		eng_release(v);
		*detail = "a field could not be read";
		return RT_NDEF_ERR_INVALID_FORMAT;
	}
	eng_type_t t = eng_typeof(v);
	if (t == ENG_TYPE_UNDEFINED) {
		eng_release(v);
		return RT_NDEF_OK;
	}
	if (t != ENG_TYPE_STRING) {
		eng_release(v);
		*detail = "text, uri, type and data must be strings";
		return RT_NDEF_ERR_INVALID_FORMAT;
	}
	size_t n = eng_string_size(v);
	if (n >= RT_NFC_TEXT_POOL - *used) {
		eng_release(v);
		*detail = "the record's text does not fit the tag";
		return RT_NDEF_ERR_TOO_BIG;
	}
	*used += n + 1;
	*out = v;
	return RT_NDEF_OK;
}

static void release_fields(fields_t *f)
{
	for (uint32_t i = 0; i < f->read; i++) {
		for (int k = 0; k < FIELDS; k++) {
			eng_release(f->fields[i][k]);
		}
	}
	f->read = 0;
}

/* Every record's fields, checked; an exception (the spec's error) or undefined. */
static eng_value_t read_fields(eng_value_t list, uint32_t count, fields_t *f)
{
	size_t used = 0;
	for (uint32_t i = 0; i < count; i++) {
		eng_value_t record = eng_get_index(list, i);
		if (eng_typeof(record) != ENG_TYPE_OBJECT) {
			eng_release(record);
			return fail(RT_NDEF_ERR_INVALID_FORMAT, i, "a record must be an object");
		}
		eng_value_t type = eng_get(record, "recordType");
		eng_type_t tt = eng_typeof(type);
		f->record_type[i] = tt == ENG_TYPE_NUMBER ? eng_get_number(type) : (double)NAN;
		eng_release(type);
		if (tt == ENG_TYPE_UNDEFINED) {
			eng_release(record);
			return fail(RT_NDEF_ERR_MISSING_FIELD, i, "recordType is missing");
		}
		const char *detail = "";
		rt_ndef_error_t e = RT_NDEF_OK;
		static const char *const keys[FIELDS] = {"text", "uri", "type", "data"};
		for (int k = 0; k < FIELDS; k++) {
			f->fields[i][k] = eng_undefined();
		}
		f->read = i + 1;
		for (int k = 0; k < FIELDS && e == RT_NDEF_OK; k++) {
			e = field(record, keys[k], &f->fields[i][k], &used, &detail);
		}
		eng_release(record);
		if (e != RT_NDEF_OK) {
			return fail(e, i, detail);
		}
	}
	return eng_undefined();
}

/* The records' text into the scratch's pool, encoded, shown. No app code runs here. */
static eng_value_t encode(scratch_t *s, const fields_t *f, uint32_t count)
{
	s->used = 0;
	for (uint32_t i = 0; i < count; i++) {
		rt_ndef_record_in_t *r = &s->records[i];
		memset(r, 0, sizeof(*r));
		r->record_type = f->record_type[i];
		rt_ndef_str_t *slots[FIELDS] = {&r->text, &r->uri, &r->type, &r->data};
		for (int k = 0; k < FIELDS; k++) {
			if (eng_typeof(f->fields[i][k]) != ENG_TYPE_STRING) {
				continue; /* absent: NULL, rt_ndef's "Missing field" where it is needed */
			}
			/* read_fields counted the pool: this fits. */
			size_t n = eng_string_copy(f->fields[i][k], s->pool + s->used,
						   sizeof(s->pool) - s->used);
			slots[k]->ptr = s->pool + s->used;
			slots[k]->len = n;
			s->used += n + 1;
		}
	}
	size_t len = 0;
	rt_ndef_fault_t fault = {0, ""};
	rt_ndef_error_t e = rt_ndef_encode(s->records, count, s->message, sizeof(s->message), &len, &fault);
	if (e == RT_NDEF_ERR_TOO_BIG) {
		/* The whole message is too big, not one record. */
		return eng_throw(ENG_ERROR_COMMON, NULL, "%s: nfc.setMsg: message needs more than the tag's %d bytes",
				 rt_ndef_error_message(e), RT_NDEF_MAX_MESSAGE);
	}
	if (e != RT_NDEF_OK) {
		return fail(e, fault.record, fault.detail ? fault.detail : "");
	}
	hal_nfc_set_message(s->message, len);
	return eng_undefined();
}

static eng_value_t set_message(eng_value_t list)
{
	uint32_t count = eng_array_length(list);
	if (count > RT_NFC_MAX_RECORDS) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "%s: nfc.setMsg: %u records (at most %d)",
				 rt_ndef_error_message(RT_NDEF_ERR_TOO_BIG), (unsigned)count,
				 RT_NFC_MAX_RECORDS);
	}
	fields_t f;
	f.read = 0;
	eng_value_t result = read_fields(list, count, &f);
	if (!eng_is_exception(result)) {
		scratch_t *s = rt_scratch_take("nfc.setMsg");
		result = encode(s, &f, count);
		rt_scratch_give(s);
	}
	release_fields(&f);
	return result;
}

eng_value_t rt_nfc_setMsg(const rt_nfc_setMsg_args_t *args)
{
	if (eng_typeof(args->message) != ENG_TYPE_ARRAY) {
		show_initial(); /* null: the initial message again */
		return eng_undefined();
	}
	return set_message(args->message);
}

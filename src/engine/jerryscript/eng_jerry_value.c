/*
 * eng_jerry_value.c: JerryScript backend: values and strings (UTF-8 at the boundary, CESU-8
 * inside the engine). Objects and JSON are in eng_jerry_object.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eng_jerry_internal.h"

/* Up to this many bytes of converted text live on the C stack instead of the JS heap. */
#define ENG_JERRY_STACK_TEXT 128u

/* ------------------------------------------------------------------ UTF-8 */

/* Length of the well-formed UTF-8 sequence at s (1..4), 0 when it is ill-formed. Surrogates
 * and overlong forms are ill-formed (RFC 3629). */
static size_t utf8_sequence(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];

	if (c < 0x80) {
		return 1;
	}
	if (c < 0xC2) {
		return 0;
	}
	if (c < 0xE0) {
		return (n >= 2 && (s[1] & 0xC0) == 0x80) ? 2 : 0;
	}
	if (c < 0xF0) {
		if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) {
			return 0;
		}
		if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)) {
			return 0;
		}
		return 3;
	}
	if (c < 0xF5) {
		if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
		    (s[3] & 0xC0) != 0x80) {
			return 0;
		}
		if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)) {
			return 0;
		}
		return 4;
	}
	return 0;
}

bool eng_jerry_utf8_valid(const char *utf8, size_t len)
{
	const uint8_t *s = (const uint8_t *)utf8;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_sequence(s + i, len - i);

		if (n == 0) {
			return false;
		}
		i += n;
	}
	return true;
}

jerry_value_t eng_jerry_string_from_utf8(const char *utf8, size_t len)
{
	if (len == 0) {
		return jerry_string((const jerry_char_t *)"", 0, JERRY_ENCODING_UTF8);
	}
	if (eng_jerry_utf8_valid(utf8, len)) {
		return jerry_string((const jerry_char_t *)utf8, (jerry_size_t)len,
				    JERRY_ENCODING_UTF8);
	}

	/* Each ill-formed byte becomes U+FFFD (3 bytes). */
	static const uint8_t replacement[3] = {0xEF, 0xBF, 0xBD};
	uint8_t local[ENG_JERRY_STACK_TEXT * 3] = {0};
	size_t cap = len * 3;
	uint8_t *out = cap <= sizeof(local) ? local : eng_jerry_alloc(cap);

	if (out == NULL) {
		return jerry_string((const jerry_char_t *)"", 0, JERRY_ENCODING_UTF8);
	}
	const uint8_t *s = (const uint8_t *)utf8;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence(s + i, len - i);

		if (n == 0) {
			memcpy(out + o, replacement, sizeof(replacement));
			o += sizeof(replacement);
			i++;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
	}
	jerry_value_t result = jerry_string(out, (jerry_size_t)o, JERRY_ENCODING_UTF8);

	if (out != local) {
		eng_jerry_free(out, cap);
	}
	return result;
}

/* Receives the UTF-8 bytes of a string one at a time and writes whole characters while they
 * fit. JavaScript strings may hold lone surrogates, which have no UTF-8 form: they become
 * U+FFFD (same size, three bytes). */
typedef struct {
	char *buf;
	size_t cap;       /* bytes that may be written, NUL excluded */
	size_t total;     /* bytes of the whole text */
	size_t written;   /* bytes in buf */
	bool full;        /* a character did not fit: write nothing more */
	uint8_t seq[4];
	uint8_t have;
	uint8_t need;
} utf8_sink_t;

static void utf8_sink_char(utf8_sink_t *sink, const uint8_t *bytes, size_t n)
{
	sink->total += n;
	if (sink->full || sink->written + n > sink->cap) {
		sink->full = true;
		return;
	}
	memcpy(sink->buf + sink->written, bytes, n);
	sink->written += n;
}

static void utf8_sink_byte(uint32_t value, void *user)
{
	static const uint8_t replacement[3] = {0xEF, 0xBF, 0xBD};
	utf8_sink_t *sink = user;
	uint8_t byte = (uint8_t)value;

	if (sink->have == 0) {
		sink->need = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
	}
	sink->seq[sink->have++] = byte;
	if (sink->have < sink->need) {
		return;
	}
	if (sink->need == 3 && sink->seq[0] == 0xED && sink->seq[1] >= 0xA0) {
		utf8_sink_char(sink, replacement, sizeof(replacement));
	} else {
		utf8_sink_char(sink, sink->seq, sink->need);
	}
	sink->have = 0;
}

size_t eng_jerry_string_to_utf8(jerry_value_t string, char *buf, size_t cap)
{
	/* jerry_string_iterate converts CESU-8 to UTF-8 on the fly. (jerry_string_to_buffer's
	 * UTF-8 path returns its size truncated to 8 bits in 3.0, so it is not used.) */
	utf8_sink_t sink = {.buf = buf, .cap = cap ? cap - 1 : 0};

	if (jerry_value_is_string(string)) {
		jerry_string_iterate(string, JERRY_ENCODING_UTF8, utf8_sink_byte, &sink);
	}
	if (cap > 0) {
		buf[sink.written] = '\0';
	}
	return sink.total;
}

/* ------------------------------------------------------------------ values */

eng_value_t eng_undefined(void)
{
	return jerry_undefined();
}

eng_value_t eng_null(void)
{
	return jerry_null();
}

eng_value_t eng_boolean(bool value)
{
	return jerry_boolean(value);
}

eng_value_t eng_number(double value)
{
	return eng_jerry_track(jerry_number(value));
}

eng_value_t eng_string(const char *utf8, size_t len)
{
	return eng_jerry_track(eng_jerry_string_from_utf8(utf8, len));
}

eng_value_t eng_string_z(const char *utf8)
{
	return eng_string(utf8, strlen(utf8));
}

eng_value_t eng_object(void)
{
	return eng_jerry_track(jerry_object());
}

eng_value_t eng_array(uint32_t length)
{
	return eng_jerry_track(jerry_array(length));
}

eng_value_t eng_arraybuffer(const uint8_t *data, size_t len)
{
	jerry_value_t buffer = jerry_arraybuffer((jerry_length_t)len);

	if (data != NULL && len > 0 && !jerry_value_is_exception(buffer)) {
		jerry_arraybuffer_write(buffer, 0, data, (jerry_size_t)len);
	}
	return eng_jerry_track(buffer);
}

eng_value_t eng_global(void)
{
	return eng_jerry_track(jerry_current_realm());
}

eng_type_t eng_typeof(eng_value_t value)
{
	switch (jerry_value_type(value)) {
	case JERRY_TYPE_EXCEPTION:
		return ENG_TYPE_EXCEPTION;
	case JERRY_TYPE_UNDEFINED:
		return ENG_TYPE_UNDEFINED;
	case JERRY_TYPE_NULL:
		return ENG_TYPE_NULL;
	case JERRY_TYPE_BOOLEAN:
		return ENG_TYPE_BOOLEAN;
	case JERRY_TYPE_NUMBER:
		return ENG_TYPE_NUMBER;
	case JERRY_TYPE_STRING:
		return ENG_TYPE_STRING;
	case JERRY_TYPE_SYMBOL:
		return ENG_TYPE_SYMBOL;
	case JERRY_TYPE_BIGINT:
		return ENG_TYPE_BIGINT;
	case JERRY_TYPE_FUNCTION:
		return ENG_TYPE_FUNCTION;
	default:
		break;
	}
	switch (jerry_object_type(value)) {
	case JERRY_OBJECT_TYPE_ARRAY:
		return ENG_TYPE_ARRAY;
	case JERRY_OBJECT_TYPE_ARRAYBUFFER:
	case JERRY_OBJECT_TYPE_SHARED_ARRAY_BUFFER:
		return ENG_TYPE_ARRAYBUFFER;
	case JERRY_OBJECT_TYPE_TYPEDARRAY:
	case JERRY_OBJECT_TYPE_DATAVIEW:
		return ENG_TYPE_TYPEDARRAY;
	case JERRY_OBJECT_TYPE_PROMISE:
		return ENG_TYPE_PROMISE;
	case JERRY_OBJECT_TYPE_DATE:
		return ENG_TYPE_DATE;
	case JERRY_OBJECT_TYPE_ERROR:
		return ENG_TYPE_ERROR;
	default:
		return ENG_TYPE_OBJECT;
	}
}

bool eng_is_exception(eng_value_t value)
{
	return jerry_value_is_exception(value);
}

bool eng_is_callable(eng_value_t value)
{
	return jerry_value_is_function(value);
}

bool eng_is_object(eng_value_t value)
{
	return jerry_value_is_object(value);
}

bool eng_get_boolean(eng_value_t value)
{
	return jerry_value_is_true(value);
}

double eng_get_number(eng_value_t value)
{
	return jerry_value_is_number(value) ? jerry_value_as_number(value) : (double)NAN;
}

bool eng_to_boolean(eng_value_t value)
{
	return !jerry_value_is_exception(value) && jerry_value_to_boolean(value);
}

double eng_date_value(eng_value_t date)
{
	ENG_JERRY_STACK_MARK();
	if (jerry_object_type(date) != JERRY_OBJECT_TYPE_DATE) {
		return NAN;
	}
	jerry_value_t time = jerry_call(eng_jerry->intrinsics.date_get_time, date, NULL, 0);
	double result = jerry_value_is_number(time) ? jerry_value_as_number(time) : (double)NAN;

	jerry_value_free(time);
	return result;
}

eng_value_t eng_to_string(eng_value_t value)
{
	ENG_JERRY_STACK_MARK();
	if (jerry_value_is_exception(value)) {
		return eng_jerry_track(jerry_throw_sz(JERRY_ERROR_TYPE, "not a value"));
	}
	return eng_jerry_track(jerry_value_to_string(value));
}

size_t eng_string_size(eng_value_t string)
{
	return jerry_string_size(string, JERRY_ENCODING_UTF8);
}

size_t eng_string_length(eng_value_t string)
{
	return jerry_string_length(string);
}

size_t eng_string_copy(eng_value_t string, char *buf, size_t cap)
{
	return eng_jerry_string_to_utf8(string, buf, cap);
}

uint8_t *eng_buffer_data(eng_value_t value, size_t *len)
{
	jerry_value_t buffer;
	jerry_size_t offset = 0;
	jerry_size_t length = 0;
	uint8_t *data = NULL;

	switch (jerry_object_type(value)) {
	case JERRY_OBJECT_TYPE_ARRAYBUFFER:
	case JERRY_OBJECT_TYPE_SHARED_ARRAY_BUFFER:
		buffer = jerry_value_copy(value);
		length = jerry_arraybuffer_size(value);
		break;
	case JERRY_OBJECT_TYPE_TYPEDARRAY:
		buffer = jerry_typedarray_buffer(value, &offset, &length);
		break;
	case JERRY_OBJECT_TYPE_DATAVIEW:
		buffer = jerry_dataview_buffer(value, &offset, &length);
		break;
	default:
		buffer = jerry_undefined();
		break;
	}
	if (jerry_value_is_arraybuffer(buffer)) {
		data = jerry_arraybuffer_data(buffer);
	}
	/* The view keeps its buffer alive, so the pointer outlives this handle. */
	jerry_value_free(buffer);
	if (data == NULL) {
		length = 0;
	} else {
		data += offset;
	}
	if (len != NULL) {
		*len = length;
	}
	return data;
}

bool eng_strict_equals(eng_value_t a, eng_value_t b)
{
	jerry_value_t result = jerry_binary_op(JERRY_BIN_OP_STRICT_EQUAL, a, b);
	bool equal = jerry_value_is_true(result);

	jerry_value_free(result);
	return equal;
}

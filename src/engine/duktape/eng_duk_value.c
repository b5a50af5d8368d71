/*
 * eng_duk_value.c: primitive values, type tests, strings (UTF-8 <-> Duktape's CESU-8) and buffers.
 */
#include <math.h>
#include <string.h>

#include "eng_duk.h"

/* ------------------------------------------------------------------ creation */

eng_value_t eng_undefined(void)
{
	return eng_duk_handle(ENG_DUK_SLOT_UNDEFINED, false);
}

eng_value_t eng_null(void)
{
	return eng_duk_handle(ENG_DUK_SLOT_NULL, false);
}

eng_value_t eng_boolean(bool value)
{
	return eng_duk_handle(value ? ENG_DUK_SLOT_TRUE : ENG_DUK_SLOT_FALSE, false);
}

eng_value_t eng_global(void)
{
	return eng_duk_handle(ENG_DUK_SLOT_GLOBAL, false);
}

eng_value_t eng_number(double value)
{
	/* Numbers live in the value slot itself: no allocation, so no protected call. */
	if (!eng_duk_ready()) {
		return 0;
	}
	if (!eng_duk_store_reserve(1)) {
		return eng_duk_nomem();
	}
	duk_push_number(eng_duk->store, value);
	return eng_duk_handle(duk_get_top(eng_duk->store) - 1, false);
}

typedef struct {
	const void *data;
	size_t len;
} eng_duk_bytes_t;

static duk_ret_t eng_duk_string_safe(duk_context *ctx, void *udata)
{
	const eng_duk_bytes_t *in = udata;

	eng_duk_push_utf8(ctx, in->data, in->len);
	return 1;
}

eng_value_t eng_string(const char *utf8, size_t len)
{
	eng_duk_bytes_t in = { utf8 != NULL ? utf8 : "", utf8 != NULL ? len : 0 };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_string_safe, &in, NULL, 0, &out);
	return out;
}

eng_value_t eng_string_z(const char *utf8)
{
	return eng_string(utf8, utf8 != NULL ? strlen(utf8) : 0);
}

static duk_ret_t eng_duk_object_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	duk_push_object(ctx);
	return 1;
}

eng_value_t eng_object(void)
{
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_object_safe, NULL, NULL, 0, &out);
	return out;
}

static duk_ret_t eng_duk_array_safe(duk_context *ctx, void *udata)
{
	uint32_t length = *(const uint32_t *) udata;

	duk_push_array(ctx);
	if (length != 0) {
		duk_push_uint(ctx, length);
		duk_put_prop_string(ctx, -2, "length");
	}
	return 1;
}

eng_value_t eng_array(uint32_t length)
{
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_array_safe, &length, NULL, 0, &out);
	return out;
}

void eng_duk_push_arraybuffer(duk_context *ctx, const uint8_t *bytes, size_t len)
{
	void *data = duk_push_fixed_buffer(ctx, len);

	if (len != 0 && bytes != NULL) {
		memcpy(data, bytes, len);
	}
	duk_push_buffer_object(ctx, -1, 0, len, DUK_BUFOBJ_ARRAYBUFFER);
	duk_remove(ctx, -2);
}

static duk_ret_t eng_duk_arraybuffer_safe(duk_context *ctx, void *udata)
{
	const eng_duk_bytes_t *in = udata;

	eng_duk_push_arraybuffer(ctx, in->data, in->len);
	return 1;
}

eng_value_t eng_arraybuffer(const uint8_t *data, size_t len)
{
	eng_duk_bytes_t in = { data, len };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_arraybuffer_safe, &in, NULL, 0, &out);
	return out;
}

/* ------------------------------------------------------------------ types */

bool eng_is_exception(eng_value_t value)
{
	return (value & ENG_DUK_EXCEPTION) != 0;
}

eng_type_t eng_typeof(eng_value_t value)
{
	duk_context *store = eng_duk->store;
	duk_idx_t index;

	if (eng_is_exception(value)) {
		return ENG_TYPE_EXCEPTION;
	}
	if (!eng_duk_ready()) {
		return ENG_TYPE_UNDEFINED;
	}
	index = eng_duk_index(value);
	switch (duk_get_type(store, index)) {
	case DUK_TYPE_NULL:
		return ENG_TYPE_NULL;
	case DUK_TYPE_BOOLEAN:
		return ENG_TYPE_BOOLEAN;
	case DUK_TYPE_NUMBER:
		return ENG_TYPE_NUMBER;
	case DUK_TYPE_STRING:
		return duk_is_symbol(store, index) ? ENG_TYPE_SYMBOL : ENG_TYPE_STRING;
	case DUK_TYPE_BUFFER:
		/* A plain buffer behaves as a Uint8Array in JavaScript. */
		return ENG_TYPE_TYPEDARRAY;
	case DUK_TYPE_LIGHTFUNC:
		return ENG_TYPE_FUNCTION;
	case DUK_TYPE_POINTER:
		return ENG_TYPE_OBJECT;
	case DUK_TYPE_OBJECT:
		break;
	default:
		return ENG_TYPE_UNDEFINED;
	}
	if (duk_is_function(store, index)) {
		return ENG_TYPE_FUNCTION;
	}
	switch (eng_duk_class(store, index)) {
	case ENG_DUK_CLASS_ARRAY:
		return ENG_TYPE_ARRAY;
	case ENG_DUK_CLASS_ARRAYBUFFER:
		return ENG_TYPE_ARRAYBUFFER;
	case ENG_DUK_CLASS_VIEW:
		return ENG_TYPE_TYPEDARRAY;
	case ENG_DUK_CLASS_DATE:
		return ENG_TYPE_DATE;
	default:
		break;
	}
	if (eng_duk_has_own(store, index, eng_duk->key_promise)) {
		return ENG_TYPE_PROMISE;
	}
	if (duk_is_error(store, index)) {
		return ENG_TYPE_ERROR;
	}
	return ENG_TYPE_OBJECT;
}

bool eng_is_callable(eng_value_t value)
{
	return eng_duk_ready() && !eng_is_exception(value) &&
	       duk_is_callable(eng_duk->store, eng_duk_index(value));
}

bool eng_is_object(eng_value_t value)
{
	return eng_duk_ready() && !eng_is_exception(value) &&
	       duk_check_type_mask(eng_duk->store, eng_duk_index(value),
				   DUK_TYPE_MASK_OBJECT | DUK_TYPE_MASK_BUFFER |
					   DUK_TYPE_MASK_LIGHTFUNC);
}

bool eng_get_boolean(eng_value_t value)
{
	duk_idx_t index;

	if (!eng_duk_ready() || eng_is_exception(value)) {
		return false;
	}
	index = eng_duk_index(value);
	return duk_is_boolean(eng_duk->store, index) && duk_get_boolean(eng_duk->store, index);
}

double eng_get_number(eng_value_t value)
{
	duk_idx_t index;

	if (!eng_duk_ready() || eng_is_exception(value)) {
		return NAN;
	}
	index = eng_duk_index(value);
	return duk_is_number(eng_duk->store, index) ? duk_get_number(eng_duk->store, index) : (double)NAN;
}

bool eng_to_boolean(eng_value_t value)
{
	duk_context *store = eng_duk->store;
	duk_idx_t index;
	duk_size_t len = 0;
	double number;

	if (!eng_duk_ready()) {
		return false;
	}
	index = eng_duk_index(value);
	/* ToBoolean by hand: duk_to_boolean() would coerce the store slot in place. */
	switch (duk_get_type(store, index)) {
	case DUK_TYPE_BOOLEAN:
		return duk_get_boolean(store, index);
	case DUK_TYPE_NUMBER:
		number = duk_get_number(store, index);
		return number != 0 && !isnan(number);
	case DUK_TYPE_STRING:
		(void) duk_get_lstring(store, index, &len);
		return len != 0 || duk_is_symbol(store, index);
	case DUK_TYPE_OBJECT:
	case DUK_TYPE_BUFFER:
	case DUK_TYPE_LIGHTFUNC:
		return true;
	case DUK_TYPE_POINTER:
		return duk_get_pointer(store, index) != NULL;
	default:
		return false;
	}
}

double eng_date_value(eng_value_t date)
{
	double time;

	if (!eng_duk_ready() || eng_is_exception(date) ||
	    !eng_duk_date_value(eng_duk->store, eng_duk_index(date), &time)) {
		return NAN;
	}
	return time;
}

bool eng_strict_equals(eng_value_t a, eng_value_t b)
{
	if (!eng_duk_ready()) {
		return false;
	}
	return duk_strict_equals(eng_duk->store, eng_duk_index(a), eng_duk_index(b));
}

/* ------------------------------------------------------------------ strings */

static bool is_cont(uint8_t byte)
{
	return (byte & 0xC0) == 0x80;
}

static size_t encode3(uint8_t *out, uint32_t cp)
{
	out[0] = (uint8_t) (0xE0 | (cp >> 12));
	out[1] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
	out[2] = (uint8_t) (0x80 | (cp & 0x3F));
	return 3;
}

/* Length of the valid UTF-8 sequence at in[0..avail), or 0. Surrogates encoded on their own
 * (CESU-8) are accepted: that is Duktape's own form of them. */
static size_t utf8_sequence(const uint8_t *in, size_t avail)
{
	uint8_t c = in[0];

	if (c < 0x80) {
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		return avail >= 2 && is_cont(in[1]) ? 2 : 0;
	}
	if (c >= 0xE0 && c <= 0xEF) {
		if (avail < 3 || !is_cont(in[1]) || !is_cont(in[2])) {
			return 0;
		}
		return c == 0xE0 && in[1] < 0xA0 ? 0 : 3; /* overlong */
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (avail < 4 || !is_cont(in[1]) || !is_cont(in[2]) || !is_cont(in[3])) {
			return 0;
		}
		if ((c == 0xF0 && in[1] < 0x90) || (c == 0xF4 && in[1] > 0x8F)) {
			return 0; /* overlong, or beyond U+10FFFF */
		}
		return 4;
	}
	return 0;
}

void eng_duk_push_utf8(duk_context *ctx, const char *utf8, size_t len)
{
	const uint8_t *in = (const uint8_t *) utf8;
	uint8_t *out;
	size_t i = 0, o = 0;

	while (i < len && in[i] < 0x80) {
		i++;
	}
	if (i == len) {
		duk_push_lstring(ctx, utf8, len);
		return;
	}
	/* Worst case: every byte invalid, each becoming a 3-byte U+FFFD. A scratch buffer on the
	 * Duktape stack is freed with it, even when an allocation below throws. */
	if (len > (SIZE_MAX - 8) / 3) {
		(void) duk_range_error(ctx, "string too long");
	}
	out = duk_push_fixed_buffer(ctx, len * 3);
	memcpy(out, in, i);
	o = i;
	while (i < len) {
		size_t n = utf8_sequence(in + i, len - i);

		if (n == 4) {
			uint32_t cp = ((uint32_t) (in[i] & 0x07) << 18) | ((uint32_t) (in[i + 1] & 0x3F) << 12) |
				      ((uint32_t) (in[i + 2] & 0x3F) << 6) | (uint32_t) (in[i + 3] & 0x3F);

			cp -= 0x10000;
			o += encode3(out + o, 0xD800 | (cp >> 10));
			o += encode3(out + o, 0xDC00 | (cp & 0x3FF));
		} else if (n != 0) {
			memcpy(out + o, in + i, n);
			o += n;
		} else {
			o += encode3(out + o, 0xFFFD);
			n = 1;
		}
		i += n;
	}
	duk_push_lstring(ctx, (const char *) out, o);
	duk_remove(ctx, -2);
}

size_t eng_duk_to_utf8(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *written)
{
	size_t i = 0, total = 0, put = 0;
	bool full = false;

	while (i < len) {
		uint8_t tmp[4];
		const uint8_t *src = in + i;
		size_t n_in = utf8_sequence(in + i, len - i), n_out = n_in;

		if (n_in == 3 && in[i] == 0xED && in[i + 1] >= 0xA0) {
			/* A surrogate: a high one followed by a low one is one character; a lone one
			 * has no UTF-8 form and becomes U+FFFD (same size, so sizes stay exact). */
			uint32_t hi = ((uint32_t) (in[i + 1] & 0x3F) << 6) | (in[i + 2] & 0x3F);

			if (in[i + 1] < 0xB0 && len - i >= 6 && in[i + 3] == 0xED && in[i + 4] >= 0xB0 &&
			    in[i + 4] <= 0xBF && is_cont(in[i + 5])) {
				uint32_t lo = ((uint32_t) (in[i + 4] & 0x3F) << 6) | (in[i + 5] & 0x3F);
				uint32_t cp = 0x10000 + ((hi & 0x3FF) << 10) + (lo & 0x3FF);

				tmp[0] = (uint8_t) (0xF0 | (cp >> 18));
				tmp[1] = (uint8_t) (0x80 | ((cp >> 12) & 0x3F));
				tmp[2] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
				tmp[3] = (uint8_t) (0x80 | (cp & 0x3F));
				n_in = 6;
				n_out = 4;
			} else {
				n_out = encode3(tmp, 0xFFFD);
			}
			src = tmp;
		} else if (n_in == 0) {
			n_in = 1;
			n_out = encode3(tmp, 0xFFFD);
			src = tmp;
		}
		if (!full && out != NULL && put + n_out <= cap) {
			memcpy(out + put, src, n_out);
			put += n_out;
		} else {
			full = true;
		}
		total += n_out;
		i += n_in;
	}
	if (written != NULL) {
		*written = put;
	}
	return total;
}

/* The bytes of a string value (not a symbol), or NULL. */
static const uint8_t *eng_duk_string_bytes(eng_value_t value, size_t *len)
{
	duk_idx_t index;
	duk_size_t size = 0;
	const char *data;

	if (!eng_duk_ready() || eng_is_exception(value)) {
		return NULL;
	}
	index = eng_duk_index(value);
	if (!duk_is_string(eng_duk->store, index) || duk_is_symbol(eng_duk->store, index)) {
		return NULL;
	}
	data = duk_get_lstring(eng_duk->store, index, &size);
	*len = size;
	return (const uint8_t *) data;
}

static duk_ret_t eng_duk_to_string_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	(void) duk_to_string(ctx, -1);
	return 1;
}

eng_value_t eng_to_string(eng_value_t value)
{
	eng_value_t out;

	if (eng_is_exception(value)) {
		return value;
	}
	/* Always a new handle, so releasing the result never pops the argument's slot. */
	(void) eng_duk_safe(eng_duk_to_string_safe, NULL, &value, 1, &out);
	return out;
}

size_t eng_string_size(eng_value_t string)
{
	size_t len = 0;
	const uint8_t *data = eng_duk_string_bytes(string, &len);

	return data != NULL ? eng_duk_to_utf8(data, len, NULL, 0, NULL) : 0;
}

size_t eng_string_length(eng_value_t string)
{
	size_t len = 0;

	/* Duktape counts each CESU-8 surrogate as a character, which is JavaScript's count, and
	 * eng_string() never stores 4-byte sequences. */
	if (eng_duk_string_bytes(string, &len) == NULL) {
		return 0;
	}
	return duk_get_length(eng_duk->store, eng_duk_index(string));
}

size_t eng_string_copy(eng_value_t string, char *buf, size_t cap)
{
	size_t len = 0, written = 0, total;
	const uint8_t *data = eng_duk_string_bytes(string, &len);

	if (data == NULL) {
		if (buf != NULL && cap != 0) {
			buf[0] = '\0';
		}
		return 0;
	}
	if (buf == NULL || cap == 0) {
		return eng_duk_to_utf8(data, len, NULL, 0, NULL);
	}
	total = eng_duk_to_utf8(data, len, (uint8_t *) buf, cap - 1, &written);
	buf[written] = '\0';
	return total;
}

/* ------------------------------------------------------------------ buffers */

uint8_t *eng_buffer_data(eng_value_t value, size_t *len)
{
	duk_size_t size = 0;
	void *data = NULL;
	duk_idx_t index;

	if (eng_duk_ready() && !eng_is_exception(value)) {
		index = eng_duk_index(value);
		if (duk_is_buffer_data(eng_duk->store, index)) {
			data = duk_get_buffer_data(eng_duk->store, index, &size);
		}
	}
	if (len != NULL) {
		*len = data != NULL ? size : 0;
	}
	return data;
}

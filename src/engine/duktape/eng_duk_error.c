/*
 * eng_duk_error.c: errors made from C, exceptions and their descriptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eng_duk.h"

static duk_errcode_t eng_duk_errcode(eng_error_kind_t kind)
{
	switch (kind) {
	case ENG_ERROR_TYPE:
		return DUK_ERR_TYPE_ERROR;
	case ENG_ERROR_RANGE:
		return DUK_ERR_RANGE_ERROR;
	default:
		return DUK_ERR_ERROR;
	}
}

void eng_duk_push_error(duk_context *ctx, eng_error_kind_t kind, const char *code, const char *text)
{
	if (text == NULL) {
		text = "";
	}
	if (code != NULL) {
		eng_duk_push_utf8(ctx, code, strlen(code));
		duk_push_string(ctx, " ");
		eng_duk_push_utf8(ctx, text, strlen(text));
		duk_concat(ctx, 3);
	} else {
		eng_duk_push_utf8(ctx, text, strlen(text));
	}
	/* No C file and line: Duktape then blames the JavaScript caller, which is what a
	 * micro-app author needs to see. */
	duk_push_error_object_raw(ctx, eng_duk_errcode(kind), NULL, 0, "%s", duk_get_string(ctx, -1));
	duk_remove(ctx, -2);
	if (code != NULL) {
		eng_duk_push_utf8(ctx, code, strlen(code));
		duk_put_prop_string(ctx, -2, "code");
	}
}

typedef struct {
	eng_error_kind_t kind;
	const char *code;
	const char *text;
} eng_duk_error_args_t;

static duk_ret_t eng_duk_error_safe(duk_context *ctx, void *udata)
{
	const eng_duk_error_args_t *args = udata;

	eng_duk_push_error(ctx, args->kind, args->code, args->text);
	return 1;
}

static eng_value_t eng_duk_make_error(eng_error_kind_t kind, const char *code, const char *fmt,
				      va_list ap)
{
	char small[256];
	char *text = small;
	eng_duk_error_args_t args;
	eng_value_t out;
	va_list copy;
	int len;

	va_copy(copy, ap);
	len = vsnprintf(small, sizeof(small), fmt != NULL ? fmt : "", copy);
	va_end(copy);
	if (len < 0) {
		small[0] = '\0';
	} else if ((size_t) len >= sizeof(small)) {
		char *big = malloc((size_t) len + 1);

		/* Out of C memory the message is cut rather than lost. */
		if (big != NULL) {
			vsnprintf(big, (size_t) len + 1, fmt, ap);
			text = big;
		}
	}
	args.kind = kind;
	args.code = code;
	args.text = text;
	(void) eng_duk_safe(eng_duk_error_safe, &args, NULL, 0, &out);
	if (text != small) {
		free(text);
	}
	/* An error object, whether made or the allocation failure that replaced it. */
	return out & ~ENG_DUK_EXCEPTION;
}

eng_value_t eng_vthrow(eng_error_kind_t kind, const char *code, const char *fmt, va_list ap)
{
	return eng_duk_make_error(kind, code, fmt, ap) | ENG_DUK_EXCEPTION;
}

eng_value_t eng_throw(eng_error_kind_t kind, const char *code, const char *fmt, ...)
{
	va_list ap;
	eng_value_t out;

	va_start(ap, fmt);
	out = eng_vthrow(kind, code, fmt, ap);
	va_end(ap);
	return out;
}

eng_value_t eng_error(eng_error_kind_t kind, const char *code, const char *fmt, ...)
{
	va_list ap;
	eng_value_t out;

	va_start(ap, fmt);
	out = eng_duk_make_error(kind, code, fmt, ap);
	va_end(ap);
	return out;
}

eng_value_t eng_exception_value(eng_value_t exception)
{
	return exception & ~ENG_DUK_EXCEPTION;
}

eng_value_t eng_throw_value(eng_value_t value)
{
	if ((value & ENG_DUK_INDEX_MASK) == 0) {
		value = eng_undefined();
	}
	return value | ENG_DUK_EXCEPTION;
}

/* ------------------------------------------------------------------ descriptions */

/* The description is composed in C from parts read in a protected call, rather than by
 * concatenating strings in the heap: describing an out-of-memory error has to work when the
 * heap is full. */

/* [ value ] -> [ name message ] for errors, [ string undefined ] otherwise. Error names and
 * messages are data properties: reading them calls nothing and, when they are strings,
 * allocates nothing. */
static duk_ret_t eng_duk_describe_safe(duk_context *ctx, void *udata)
{
	duk_idx_t value = duk_get_top_index(ctx);
	bool *is_error = udata;

	if (!duk_is_object(ctx, value) || !duk_is_error(ctx, value)) {
		if (duk_is_symbol(ctx, value)) {
			duk_push_string(ctx, "Symbol");
		} else {
			duk_dup(ctx, value);
			(void) duk_to_string(ctx, -1);
		}
		duk_push_undefined(ctx);
		return 2;
	}
	*is_error = true;
	duk_get_prop_string(ctx, value, "name");
	duk_get_prop_string(ctx, value, "message");
	for (duk_idx_t i = -2; i <= -1; i++) {
		if (!duk_is_undefined(ctx, i) && !duk_is_string(ctx, i)) {
			(void) duk_to_string(ctx, i);
		}
	}
	return 2;
}

/* [ error ] -> [ fileName lineNumber ]: accessors, which need memory to call. */
static duk_ret_t eng_duk_location_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	duk_get_prop_string(ctx, -1, "fileName");
	duk_get_prop_string(ctx, -2, "lineNumber");
	return 2;
}

typedef struct {
	char *buf;
	size_t cap;
	size_t len;
} eng_duk_text_t;

static void eng_duk_text_put(eng_duk_text_t *text, const char *bytes, size_t len, bool internal)
{
	size_t room = text->cap - 1 - text->len, written = 0;

	if (internal) {
		(void) eng_duk_to_utf8((const uint8_t *) bytes, len, (uint8_t *) text->buf + text->len,
				       room, &written);
	} else {
		written = len < room ? len : room;
		memcpy(text->buf + text->len, bytes, written);
	}
	text->len += written;
	text->buf[text->len] = '\0';
}

/* Appends the string at idx; returns false when it is not a non-empty string. */
static bool eng_duk_text_put_value(eng_duk_text_t *text, duk_context *ctx, duk_idx_t idx)
{
	duk_size_t len = 0;
	const char *bytes;

	if (!duk_is_string(ctx, idx) || duk_is_symbol(ctx, idx)) {
		return false;
	}
	bytes = duk_get_lstring(ctx, idx, &len);
	if (len == 0) {
		return false;
	}
	eng_duk_text_put(text, bytes, len, true);
	return true;
}

void eng_duk_describe_top(duk_context *ctx, char *buf, size_t cap)
{
	eng_duk_text_t text = { buf, cap, 0 };
	bool is_error = false;

	if (buf == NULL || cap == 0) {
		return;
	}
	buf[0] = '\0';
	if (!duk_check_stack(ctx, 8)) {
		eng_duk_text_put(&text, "(no memory to describe the error)", 33, false);
		return;
	}
	duk_dup_top(ctx);
	if (duk_safe_call(ctx, eng_duk_describe_safe, &is_error, 1, 2) != DUK_EXEC_SUCCESS) {
		/* A toString() that throws, or no memory: say what kind of value it was. */
		const char *what = duk_is_object(ctx, -3) ? "(unprintable object)" : "(unprintable value)";

		eng_duk_text_put(&text, what, strlen(what), false);
		duk_pop_2(ctx);
		return;
	}
	if (!is_error) {
		(void) eng_duk_text_put_value(&text, ctx, -2);
		duk_pop_2(ctx);
		return;
	}
	if (!eng_duk_text_put_value(&text, ctx, -2)) {
		eng_duk_text_put(&text, "Error", 5, false);
	}
	if (duk_is_string(ctx, -1) && duk_get_length(ctx, -1) != 0) {
		eng_duk_text_put(&text, ": ", 2, false);
		(void) eng_duk_text_put_value(&text, ctx, -1);
	}
	duk_pop_2(ctx);

	duk_dup_top(ctx);
	if (duk_safe_call(ctx, eng_duk_location_safe, NULL, 1, 2) == DUK_EXEC_SUCCESS &&
	    duk_is_string(ctx, -2) && duk_get_length(ctx, -2) != 0 && duk_is_number(ctx, -1) &&
	    duk_get_number(ctx, -1) > 0) {
		char line[24];

		eng_duk_text_put(&text, " (", 2, false);
		(void) eng_duk_text_put_value(&text, ctx, -2);
		snprintf(line, sizeof(line), ":%ld)", (long) duk_get_number(ctx, -1));
		eng_duk_text_put(&text, line, strlen(line), false);
	}
	duk_pop_2(ctx);
}

void eng_describe(eng_value_t value, char *buf, size_t cap)
{
	duk_context *ctx = eng_duk->exec;

	if (buf == NULL || cap == 0) {
		return;
	}
	buf[0] = '\0';
	if (!eng_duk_ready() || !duk_check_stack(ctx, 1)) {
		return;
	}
	eng_duk_push_value(ctx, value);
	eng_duk_describe_top(ctx, buf, cap);
	duk_pop(ctx);
}

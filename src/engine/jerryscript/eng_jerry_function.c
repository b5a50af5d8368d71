/*
 * eng_jerry_function.c: JerryScript backend: native functions, calls, native handles, errors,
 * promises and error descriptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eng_jerry_internal.h"

/* Distinct handle types the runtime may use; each needs a stable jerry_object_native_info_t. */
#define ENG_JERRY_NATIVE_TYPES 32u
#define ENG_JERRY_MESSAGE_LOCAL 160u

/* ------------------------------------------------------------------ native functions */

/* Every native function is the same external handler; what it calls hangs off the function
 * object as a native pointer, freed with it. */
typedef struct {
	eng_native_fn_t fn;
	void *data;
} eng_jerry_fn_t;

static void fn_free(void *ptr, jerry_object_native_info_t *info)
{
	(void)info;
	eng_jerry_free(ptr, sizeof(eng_jerry_fn_t));
}

static jerry_object_native_info_t fn_info = {.free_cb = fn_free};

static jerry_value_t fn_trampoline(const jerry_call_info_t *info, const jerry_value_t args[],
				   const jerry_length_t argc)
{
	eng_jerry_fn_t *native = jerry_object_get_native_ptr(info->function, &fn_info);

	if (native == NULL) {
		return jerry_throw_sz(JERRY_ERROR_TYPE, "not a native function");
	}
	uint32_t saved = eng_jerry_scope_open();
	eng_call_t call = {
		.this_value = info->this_value,
		.argv = args,
		.argc = argc,
		.data = native->data,
	};
	jerry_value_t result = native->fn(&call);

	/* The engine takes ownership of the result: hand over the handle if the call made it,
	 * otherwise (an argument, a constant) give the engine its own copy. */
	if (!eng_jerry_untrack(result)) {
		result = jerry_value_copy(result);
	}
	eng_jerry_scope_close(saved);
	return result;
}

eng_value_t eng_function(eng_native_fn_t fn, void *data, const char *name)
{
	jerry_value_t function = jerry_function_external(fn_trampoline);
	eng_jerry_fn_t *native = eng_jerry_alloc(sizeof(*native));

	if (native == NULL) {
		eng_port_fatal("out of memory (JavaScript heap)");
		abort();
	}
	native->fn = fn;
	native->data = data;
	jerry_object_set_native_ptr(function, &fn_info, native);
	if (name != NULL) {
		/* As for built-in functions: read-only, not enumerable, configurable. */
		jerry_property_descriptor_t desc = {
			.flags = JERRY_PROP_IS_VALUE_DEFINED | JERRY_PROP_IS_WRITABLE_DEFINED |
				 JERRY_PROP_IS_ENUMERABLE_DEFINED |
				 JERRY_PROP_IS_CONFIGURABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE,
			.value = eng_jerry_string_from_utf8(name, strlen(name)),
			.getter = jerry_undefined(),
			.setter = jerry_undefined(),
		};
		jerry_value_t key = jerry_string_sz("name");

		jerry_value_free(jerry_object_define_own_prop(function, key, &desc));
		jerry_value_free(key);
		jerry_value_free(desc.value);
	}
	return eng_jerry_track(function);
}

eng_value_t eng_call(eng_value_t fn, eng_value_t this_value, const eng_value_t *argv,
		     uint32_t argc)
{
	ENG_JERRY_STACK_MARK();
	return eng_jerry_track(jerry_call(fn, this_value, argv, argc));
}

/* ------------------------------------------------------------------ native handles */

typedef struct {
	jerry_object_native_info_t info; /* first: the free callback gets back to the entry */
	const eng_native_type_t *type;
} eng_jerry_native_type_t;

static eng_jerry_native_type_t native_types[ENG_JERRY_NATIVE_TYPES];
static uint32_t native_type_count;

static void native_free(void *ptr, jerry_object_native_info_t *info)
{
	const eng_jerry_native_type_t *entry = (const eng_jerry_native_type_t *)info;

	if (ptr != NULL && entry->type->finalize != NULL) {
		entry->type->finalize(ptr);
	}
}

static jerry_object_native_info_t *native_info(const eng_native_type_t *type, bool add)
{
	for (uint32_t i = 0; i < native_type_count; i++) {
		if (native_types[i].type == type) {
			return &native_types[i].info;
		}
	}
	if (!add) {
		return NULL;
	}
	if (native_type_count == ENG_JERRY_NATIVE_TYPES) {
		eng_port_fatal("too many native handle types");
		abort();
	}
	eng_jerry_native_type_t *entry = &native_types[native_type_count++];

	entry->info.free_cb = native_free;
	entry->type = type;
	return &entry->info;
}

void eng_set_native(eng_value_t object, const eng_native_type_t *type, void *ptr)
{
	if (jerry_value_is_object(object)) {
		jerry_object_set_native_ptr(object, native_info(type, true), ptr);
	}
}

void *eng_get_native(eng_value_t object, const eng_native_type_t *type)
{
	jerry_object_native_info_t *info = native_info(type, false);

	if (info == NULL || !jerry_value_is_object(object)) {
		return NULL;
	}
	return jerry_object_get_native_ptr(object, info);
}

void eng_clear_native(eng_value_t object, const eng_native_type_t *type)
{
	jerry_object_native_info_t *info = native_info(type, false);

	if (info != NULL && jerry_value_is_object(object)) {
		jerry_object_delete_native_ptr(object, info);
	}
}

/* ------------------------------------------------------------------ errors */

static jerry_error_t error_type(eng_error_kind_t kind)
{
	switch (kind) {
	case ENG_ERROR_TYPE:
		return JERRY_ERROR_TYPE;
	case ENG_ERROR_RANGE:
		return JERRY_ERROR_RANGE;
	default:
		return JERRY_ERROR_COMMON;
	}
}

static jerry_value_t make_error(eng_error_kind_t kind, const char *code, const char *message,
				size_t len)
{
	jerry_value_t text = eng_jerry_string_from_utf8(message, len);
	jerry_value_t error = jerry_error(error_type(kind), text);

	jerry_value_free(text);
	if (code != NULL) {
		jerry_value_t value = eng_jerry_string_from_utf8(code, strlen(code));

		jerry_value_free(jerry_object_set_sz(error, "code", value));
		jerry_value_free(value);
	}
	return error;
}

jerry_value_t eng_jerry_make_error(eng_error_kind_t kind, const char *code, const char *fmt,
				   va_list ap)
{
	char local[ENG_JERRY_MESSAGE_LOCAL];
	size_t prefix = code != NULL ? strlen(code) + 1 : 0;
	va_list again;

	va_copy(again, ap);
	int text = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (text < 0) {
		text = 0;
	}
	size_t size = prefix + (size_t)text + 1;
	char *buf = size <= sizeof(local) ? local : eng_jerry_alloc(size);

	if (buf == NULL) {
		return make_error(kind, code, code != NULL ? code : "", code != NULL ? prefix - 1 : 0);
	}
	if (code != NULL) {
		memcpy(buf, code, prefix - 1);
		buf[prefix - 1] = ' ';
	}
	vsnprintf(buf + prefix, size - prefix, fmt, ap);
	jerry_value_t error = make_error(kind, code, buf, size - 1);

	if (buf != local) {
		eng_jerry_free(buf, size);
	}
	return error;
}

jerry_value_t eng_jerry_make_errorf(eng_error_kind_t kind, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jerry_value_t error = eng_jerry_make_error(kind, code, fmt, ap);
	va_end(ap);
	return error;
}

jerry_value_t eng_jerry_make_error_text(eng_error_kind_t kind, const char *code, const char *text)
{
	return eng_jerry_make_errorf(kind, code, "%s", text);
}

eng_value_t eng_vthrow(eng_error_kind_t kind, const char *code, const char *fmt, va_list ap)
{
	return eng_jerry_track(jerry_throw_value(eng_jerry_make_error(kind, code, fmt, ap), true));
}

eng_value_t eng_throw(eng_error_kind_t kind, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_value_t exception = eng_vthrow(kind, code, fmt, ap);
	va_end(ap);
	return exception;
}

eng_value_t eng_error(eng_error_kind_t kind, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jerry_value_t error = eng_jerry_make_error(kind, code, fmt, ap);
	va_end(ap);
	return eng_jerry_track(error);
}

eng_value_t eng_exception_value(eng_value_t exception)
{
	if (!jerry_value_is_exception(exception)) {
		return exception;
	}
	/* The exception handle itself stays valid until its scope ends (it costs a few bytes), so
	 * asking twice is harmless, as on Duktape. */
	return eng_jerry_track(jerry_exception_value(exception, false));
}

eng_value_t eng_throw_value(eng_value_t value)
{
	return eng_jerry_track(jerry_throw_value(value, false));
}

/* ------------------------------------------------------------------ promises */

eng_value_t eng_promise_new(void)
{
	return eng_jerry_track(jerry_promise());
}

void eng_promise_resolve(eng_value_t promise, eng_value_t value)
{
	ENG_JERRY_STACK_MARK();
	/* Settling twice is ignored, as for the functions a Promise executor receives. */
	jerry_value_t argument = jerry_exception_value(value, false);

	jerry_value_free(jerry_promise_resolve(promise, argument));
	jerry_value_free(argument);
}

void eng_promise_reject(eng_value_t promise, eng_value_t reason)
{
	ENG_JERRY_STACK_MARK();
	jerry_value_t argument = jerry_exception_value(reason, false);

	jerry_value_free(jerry_promise_reject(promise, argument));
	jerry_value_free(argument);
}

/* Promises rejected while nobody handles them, oldest first. One that gets a handler later
 * leaves the list; what is still here once the job queue is drained is reported by
 * eng_run_jobs(), once, like an uncaught exception. */

static void rejected_add(jerry_value_t promise)
{
	if (eng_jerry->rejected_count == eng_jerry->rejected_cap) {
		uint32_t cap = eng_jerry->rejected_cap ? eng_jerry->rejected_cap * 2u : 8u;
		jerry_value_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

		if (grown == NULL) {
			return; /* the heap is exhausted; the rejection goes unreported */
		}
		if (eng_jerry->rejected != NULL) {
			memcpy(grown, eng_jerry->rejected, eng_jerry->rejected_count * sizeof(*grown));
			eng_jerry_free(eng_jerry->rejected, eng_jerry->rejected_cap * sizeof(*eng_jerry->rejected));
		}
		eng_jerry->rejected = grown;
		eng_jerry->rejected_cap = cap;
	}
	eng_jerry->rejected[eng_jerry->rejected_count++] = jerry_value_copy(promise);
}

static void rejected_remove(uint32_t index)
{
	jerry_value_t promise = eng_jerry->rejected[index];

	eng_jerry->rejected_count--;
	memmove(&eng_jerry->rejected[index], &eng_jerry->rejected[index + 1],
		(eng_jerry->rejected_count - index) * sizeof(*eng_jerry->rejected));
	jerry_value_free(promise);
}

static void promise_event(jerry_promise_event_type_t type, const jerry_value_t object,
			  const jerry_value_t value, void *user)
{
	(void)value;
	(void)user;
	if (type == JERRY_PROMISE_EVENT_REJECT_WITHOUT_HANDLER) {
		rejected_add(object);
	} else if (type == JERRY_PROMISE_EVENT_CATCH_HANDLER_ADDED) {
		for (uint32_t i = 0; i < eng_jerry->rejected_count; i++) {
			if (eng_jerry->rejected[i] == object) {
				rejected_remove(i);
				break;
			}
		}
	}
}

void eng_jerry_promises_init(void)
{
	jerry_promise_on_event(JERRY_PROMISE_EVENT_FILTER_ERROR, promise_event, NULL);
}

void eng_jerry_promises_free(void)
{
	while (eng_jerry->rejected_count > 0) {
		rejected_remove(eng_jerry->rejected_count - 1);
	}
	eng_jerry_free(eng_jerry->rejected, eng_jerry->rejected_cap * sizeof(*eng_jerry->rejected));
	eng_jerry->rejected = NULL;
	eng_jerry->rejected_cap = 0;
}

eng_value_t eng_run_jobs(void)
{
	ENG_JERRY_STACK_MARK();
	jerry_value_t result = jerry_run_jobs();

	if (jerry_value_is_exception(result)) {
		return eng_jerry_track(result);
	}
	jerry_value_free(result);
	if (eng_jerry->rejected_count > 0) {
		jerry_value_t reason = jerry_promise_result(eng_jerry->rejected[0]);

		rejected_remove(0);
		return eng_jerry_track(jerry_throw_value(reason, true));
	}
	return jerry_undefined();
}

bool eng_has_pending_jobs(void)
{
	return eng_jerry_private_pending_jobs() || eng_jerry->rejected_count > 0;
}

/* ------------------------------------------------------------------ descriptions */

typedef struct {
	char *buf;
	size_t cap;
	size_t len;
} text_t;

static void text_add(text_t *t, const char *s, size_t n)
{
	size_t room = t->cap - 1 - t->len;

	if (n > room) {
		n = room;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void text_add_z(text_t *t, const char *s)
{
	text_add(t, s, strlen(s));
}

static void text_add_value(text_t *t, jerry_value_t string)
{
	eng_jerry_string_to_utf8(string, t->buf + t->len, t->cap - t->len);
	t->len += strlen(t->buf + t->len);
}

/* A string property, or undefined (never an exception). */
static jerry_value_t string_property(jerry_value_t object, const char *key)
{
	jerry_value_t value = jerry_object_get_sz(object, key);

	if (!jerry_value_is_string(value)) {
		jerry_value_free(value);
		return jerry_undefined();
	}
	return value;
}

/* "file:line" of the innermost frame, from the backtrace JerryScript stores in `stack`. */
static void describe_location(text_t *t, jerry_value_t error)
{
	jerry_value_t stack = jerry_object_get_sz(error, "stack");
	jerry_value_t top = jerry_undefined();
	char where[96];

	if (jerry_value_is_array(stack) && jerry_array_length(stack) > 0) {
		top = jerry_object_get_index(stack, 0);
	}
	/* Frames without a name are snapshot code, which has no line information ("<anonymous>"
	 * at 1:1), or unnamed source ("<unknown>"): a location would only mislead. */
	if (jerry_value_is_string(top) &&
	    eng_jerry_string_to_utf8(top, where, sizeof(where)) < sizeof(where) &&
	    where[0] != '<') {
		char *column = strrchr(where, ':');

		if (column != NULL && column != where) {
			*column = '\0';
		}
		text_add_z(t, " (");
		text_add_z(t, where);
		text_add_z(t, ")");
	}
	jerry_value_free(top);
	jerry_value_free(stack);
}

void eng_describe(eng_value_t value, char *buf, size_t cap)
{
	ENG_JERRY_STACK_MARK();
	text_t t = {.buf = buf, .cap = cap, .len = 0};

	if (cap == 0) {
		return;
	}
	buf[0] = '\0';
	jerry_value_t v = jerry_exception_value(value, false);

	if (jerry_value_is_error(v)) {
		jerry_value_t name = string_property(v, "name");
		jerry_value_t message = string_property(v, "message");

		if (jerry_value_is_string(name)) {
			text_add_value(&t, name);
		} else {
			text_add_z(&t, "Error");
		}
		if (jerry_value_is_string(message) && jerry_string_length(message) > 0) {
			text_add_z(&t, ": ");
			text_add_value(&t, message);
		}
		describe_location(&t, v);
		jerry_value_free(message);
		jerry_value_free(name);
	} else {
		jerry_value_t text = jerry_value_is_symbol(v) ? jerry_symbol_descriptive_string(v)
							      : jerry_value_to_string(v);

		if (jerry_value_is_string(text)) {
			text_add_value(&t, text);
		} else {
			text_add_z(&t, "(value without a text form)");
		}
		jerry_value_free(text);
	}
	jerry_value_free(v);
}

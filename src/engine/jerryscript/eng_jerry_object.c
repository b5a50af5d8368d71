/*
 * eng_jerry_object.c: JerryScript backend: objects (properties, definitions, keys, prototypes,
 * internal properties) and JSON. Values and strings are in eng_jerry_value.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "eng_jerry_internal.h"

/* ------------------------------------------------------------------ objects */

static jerry_value_t key_string(const char *key)
{
	return eng_jerry_string_from_utf8(key, strlen(key));
}

/* Property read with JavaScript's semantics for primitives: "abc".length works, reading from
 * undefined or null is a TypeError. */
static jerry_value_t get_property(jerry_value_t object, jerry_value_t key, const char *name)
{
	if (jerry_value_is_object(object)) {
		return jerry_object_get(object, key);
	}
	if (jerry_value_is_undefined(object) || jerry_value_is_null(object) ||
	    jerry_value_is_exception(object)) {
		return jerry_throw_value(
			eng_jerry_make_errorf(ENG_ERROR_TYPE, NULL, "cannot read property '%s' of %s",
					      name, jerry_value_is_null(object) ? "null" : "undefined"),
			true);
	}
	jerry_value_t wrapper = jerry_value_to_object(object);

	if (jerry_value_is_exception(wrapper)) {
		return wrapper;
	}
	jerry_value_t result = jerry_object_get(wrapper, key);

	jerry_value_free(wrapper);
	return result;
}

eng_value_t eng_get(eng_value_t object, const char *key)
{
	ENG_JERRY_STACK_MARK();
	jerry_value_t name = key_string(key);
	jerry_value_t result = get_property(object, name, key);

	jerry_value_free(name);
	return eng_jerry_track(result);
}

eng_value_t eng_get_index(eng_value_t object, uint32_t index)
{
	ENG_JERRY_STACK_MARK();
	jerry_value_t result;

	if (jerry_value_is_object(object)) {
		result = jerry_object_get_index(object, index);
	} else {
		char name[12];

		snprintf(name, sizeof(name), "%" PRIu32, index);
		jerry_value_t key = key_string(name);

		result = get_property(object, key, name);
		jerry_value_free(key);
	}
	return eng_jerry_track(result);
}

static bool consume_success(jerry_value_t result)
{
	bool ok = jerry_value_is_true(result);

	jerry_value_free(result);
	return ok;
}

bool eng_set(eng_value_t object, const char *key, eng_value_t value)
{
	ENG_JERRY_STACK_MARK();
	if (!jerry_value_is_object(object) || jerry_value_is_exception(value)) {
		return false;
	}
	jerry_value_t name = key_string(key);
	bool ok = consume_success(jerry_object_set(object, name, value));

	jerry_value_free(name);
	return ok;
}

bool eng_set_index(eng_value_t object, uint32_t index, eng_value_t value)
{
	ENG_JERRY_STACK_MARK();
	if (!jerry_value_is_object(object) || jerry_value_is_exception(value)) {
		return false;
	}
	return consume_success(jerry_object_set_index(object, index, value));
}

bool eng_define_data(eng_value_t object, const char *key, size_t key_len, eng_value_t value)
{
	if (!jerry_value_is_object(object) || jerry_value_is_exception(value)) {
		return false;
	}
	jerry_property_descriptor_t desc = {
		.flags = JERRY_PROP_IS_VALUE_DEFINED | JERRY_PROP_IS_WRITABLE_DEFINED | JERRY_PROP_IS_WRITABLE |
			 JERRY_PROP_IS_ENUMERABLE_DEFINED | JERRY_PROP_IS_ENUMERABLE |
			 JERRY_PROP_IS_CONFIGURABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE,
		.value = value,
		.getter = jerry_undefined(),
		.setter = jerry_undefined(),
	};
	jerry_value_t name = eng_jerry_string_from_utf8(key != NULL ? key : "", key != NULL ? key_len : 0);
	bool ok = consume_success(jerry_object_define_own_prop(object, name, &desc));

	jerry_value_free(name);
	return ok;
}

bool eng_define_const(eng_value_t object, const char *key, eng_value_t value)
{
	if (!jerry_value_is_object(object) || jerry_value_is_exception(value)) {
		return false;
	}
	jerry_property_descriptor_t desc = {
		.flags = JERRY_PROP_IS_VALUE_DEFINED | JERRY_PROP_IS_WRITABLE_DEFINED |
			 JERRY_PROP_IS_ENUMERABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE_DEFINED,
		.value = value,
		.getter = jerry_undefined(),
		.setter = jerry_undefined(),
	};
	jerry_value_t name = key_string(key);
	bool ok = consume_success(jerry_object_define_own_prop(object, name, &desc));

	jerry_value_free(name);
	return ok;
}

bool eng_define_getter(eng_value_t object, const char *key, eng_value_t getter)
{
	if (!jerry_value_is_object(object) || !jerry_value_is_function(getter)) {
		return false;
	}
	jerry_property_descriptor_t desc = {
		.flags = JERRY_PROP_IS_GET_DEFINED | JERRY_PROP_IS_ENUMERABLE_DEFINED |
			 JERRY_PROP_IS_CONFIGURABLE_DEFINED | JERRY_PROP_IS_CONFIGURABLE,
		.value = jerry_undefined(),
		.getter = getter,
		.setter = jerry_undefined(),
	};
	jerry_value_t name = key_string(key);
	bool ok = consume_success(jerry_object_define_own_prop(object, name, &desc));

	jerry_value_free(name);
	return ok;
}

bool eng_has_own(eng_value_t object, const char *key)
{
	if (!jerry_value_is_object(object)) {
		return false;
	}
	jerry_value_t name = key_string(key);
	bool has = consume_success(jerry_object_has_own(object, name));

	jerry_value_free(name);
	return has;
}

eng_value_t eng_keys(eng_value_t object)
{
	if (!jerry_value_is_object(object)) {
		return eng_jerry_track(jerry_array(0));
	}
	return eng_jerry_track(jerry_object_keys(object));
}

uint32_t eng_array_length(eng_value_t array)
{
	if (jerry_value_is_array(array)) {
		return jerry_array_length(array);
	}
	if (jerry_value_is_typedarray(array)) {
		return jerry_typedarray_length(array);
	}
	return 0;
}

bool eng_set_prototype(eng_value_t object, eng_value_t prototype)
{
	if (!jerry_value_is_object(object) ||
	    !(jerry_value_is_object(prototype) || jerry_value_is_null(prototype))) {
		return false;
	}
	return consume_success(jerry_object_set_proto(object, prototype));
}

void eng_freeze(eng_value_t object)
{
	ENG_JERRY_STACK_MARK();
	if (jerry_value_is_object(object)) {
		jerry_value_free(jerry_call(eng_jerry->intrinsics.object_freeze, jerry_undefined(),
					    &object, 1));
	}
}

/* JerryScript's internal properties live in a hidden object the garbage collector traces, so a
 * callback stored there that refers back to its handle is an ordinary collectable cycle. */
bool eng_set_internal(eng_value_t object, const char *key, eng_value_t value)
{
	if (!jerry_value_is_object(object) || jerry_value_is_exception(value)) {
		return false;
	}
	jerry_value_t name = key_string(key);
	bool ok = jerry_object_set_internal(object, name, value);

	jerry_value_free(name);
	return ok;
}

eng_value_t eng_get_internal(eng_value_t object, const char *key)
{
	if (!jerry_value_is_object(object)) {
		return jerry_undefined();
	}
	jerry_value_t name = key_string(key);
	jerry_value_t value = jerry_object_get_internal(object, name);

	jerry_value_free(name);
	if (jerry_value_is_exception(value)) {
		jerry_value_free(value);
		return jerry_undefined();
	}
	return eng_jerry_track(value);
}

/* ------------------------------------------------------------------ JSON */

eng_value_t eng_json_stringify(eng_value_t value)
{
	ENG_JERRY_STACK_MARK();
	/* JSON.stringify itself, because jerry_json_stringify turns an undefined result (functions,
	 * undefined, toJSON returning undefined) into a SyntaxError. */
	if (jerry_value_is_exception(value)) {
		return eng_jerry_track(jerry_throw_sz(JERRY_ERROR_TYPE, "not a value"));
	}
	return eng_jerry_track(
		jerry_call(eng_jerry->intrinsics.json_stringify, jerry_undefined(), &value, 1));
}

eng_value_t eng_json_parse(const char *utf8, size_t len)
{
	ENG_JERRY_STACK_MARK();
	if (!eng_jerry_utf8_valid(utf8, len)) {
		return eng_jerry_track(jerry_throw_sz(JERRY_ERROR_SYNTAX, "JSON text is not valid UTF-8"));
	}
	return eng_jerry_track(jerry_json_parse((const jerry_char_t *)utf8, (jerry_size_t)len));
}

#include "rt_handle.h"

#include "rt_device.h"

void rt_handle_set_proto(size_t proto, eng_value_t prototype)
{
	rt_handle_state_t *st = &rt_device()->handles;
	if (proto >= API_PROTO_COUNT) {
		return;
	}
	if (st->protos[proto]) {
		eng_ref_free(st->protos[proto]);
	}
	st->protos[proto] = eng_ref_new(prototype);
}

void rt_handle_set_builder(rt_handle_builder_t builder)
{
	rt_device()->handles.builder = builder;
}

void rt_handle_reset(void)
{
	rt_handle_state_t *st = &rt_device()->handles;
	for (size_t i = 0; i < API_PROTO_COUNT; i++) {
		if (st->protos[i]) {
			eng_ref_free(st->protos[i]);
			st->protos[i] = 0;
		}
	}
	st->builder = NULL;
}

/* The native type of each prototype id, from the generated table of handle types. */
static const eng_native_type_t *native_type_of(size_t proto);

eng_value_t rt_handle_new(size_t proto, void *ptr)
{
	rt_handle_state_t *st = &rt_device()->handles;
	if (proto < API_PROTO_COUNT && !st->protos[proto] && st->builder != NULL) {
		eng_value_t made = st->builder(proto);
		rt_handle_set_proto(proto, made);
		eng_release(made);
	}
	eng_value_t obj = eng_object();
	if (proto < API_PROTO_COUNT && st->protos[proto]) {
		eng_value_t p = eng_ref_get(st->protos[proto]);
		eng_set_prototype(obj, p);
		eng_release(p);
		eng_set_native(obj, native_type_of(proto), ptr);
	}
	return obj;
}

bool rt_handle_is_any(eng_value_t value)
{
	for (size_t i = 0; i < API_NATIVE_TYPE_COUNT; i++) {
		if (eng_get_native(value, api_native_types[i]) != NULL) {
			return true;
		}
	}
	return false;
}

static const eng_native_type_t *native_type_of(size_t proto)
{
	return api_proto_native_types[proto];
}

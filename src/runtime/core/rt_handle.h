/*
 * rt_handle.h: handle objects (a timer, an advertiser) with their prototype.
 *
 * The glue builds each handle type's prototype (its methods for the app's API version) and
 * registers it here, or registers a builder that makes it with the type's first handle; services
 * make handles from it. So a service never
 * calls into the glue, and the glue never reaches into a service's state.
 */
#ifndef RT_HANDLE_H
#define RT_HANDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "api_types.h"
#include "engine.h"

/* Makes the prototype of a handle type (the glue's, for the app's API version). */
typedef eng_value_t (*rt_handle_builder_t)(size_t proto);

typedef struct {
	eng_ref_t protos[API_PROTO_COUNT];
	rt_handle_builder_t builder;
} rt_handle_state_t;

/* Register the prototype of handle type proto (API_PROTO_*); the runtime keeps a reference. */
void rt_handle_set_proto(size_t proto, eng_value_t prototype);
/* Or how to make each one when its first handle is made (so an app that makes no timer pays for
 * no timer prototype). */
void rt_handle_set_builder(rt_handle_builder_t builder);
/* Drop every prototype (before the engine instance goes). */
void rt_handle_reset(void);
/* A new object of handle type proto carrying the native pointer ptr. */
eng_value_t rt_handle_new(size_t proto, void *ptr);
/* Whether value carries the native pointer of any handle type. */
bool rt_handle_is_any(eng_value_t value);

#endif /* RT_HANDLE_H */

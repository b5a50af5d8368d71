/*
 * rt_handle.h: handle objects (a timer, an advertiser) with their prototype.
 *
 * The glue builds each handle type's prototype (its methods for the app's API version) when it
 * installs the API and registers it here; services make handles from it. So a service never
 * calls into the glue, and the glue never reaches into a service's state.
 */
#ifndef RT_HANDLE_H
#define RT_HANDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "api_types.h"
#include "engine.h"

typedef struct {
	eng_ref_t protos[API_PROTO_COUNT];
} rt_handle_state_t;

/* Register the prototype of handle type proto (API_PROTO_*); the runtime keeps a reference. */
void rt_handle_set_proto(size_t proto, eng_value_t prototype);
/* Drop every prototype (before the engine instance goes). */
void rt_handle_reset(void);
/* A new object of handle type proto carrying the native pointer ptr. */
eng_value_t rt_handle_new(size_t proto, void *ptr);
/* Whether value carries the native pointer of any handle type. */
bool rt_handle_is_any(eng_value_t value);

#endif /* RT_HANDLE_H */

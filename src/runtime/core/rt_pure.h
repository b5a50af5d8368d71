/*
 * rt_pure.h: whether a value is a "pure object" in the spec's sense: JSON-compatible, with no
 * function, promise or handle anywhere inside (cloud.enqueue, storage.save and every pure_object
 * argument refuse such values with ESR0203).
 */
#ifndef RT_PURE_H
#define RT_PURE_H

#include <stdbool.h>

#include "engine.h"

/* Nesting deeper than this is refused as well: serializing it would overflow a device stack. */
#define RT_PURE_DEPTH 32
/* Arrays up to this length are walked by index, longer ones by their keys (rt_pure.c). */
#define RT_PURE_INDEX_WALK_MAX 4096u

/* True when the value contains nothing JSON cannot carry (functions, promises, handles,
 * symbols, cycles, nesting deeper than RT_PURE_DEPTH). */
bool rt_pure_check(eng_value_t value);

#endif /* RT_PURE_H */

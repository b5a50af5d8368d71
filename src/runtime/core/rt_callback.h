/*
 * rt_callback.h: an app's callback kept in a slot of a service (a button's handler, a sensor's
 * listener, the cloud's onMessage): held with an engine reference so that the garbage collector
 * keeps it, replaced or released in one place.
 */
#ifndef RT_CALLBACK_H
#define RT_CALLBACK_H

#include "engine.h"

/* Release what the slot holds (nothing: nothing to do). */
static inline void rt_callback_drop(eng_ref_t *slot)
{
	if (*slot) {
		eng_ref_free(*slot);
		*slot = 0;
	}
}

/* Keep callback in the slot, replacing what was there; anything but a function (null,
 * undefined) leaves the slot empty: the app unregisters so. */
static inline void rt_callback_keep(eng_ref_t *slot, eng_value_t callback)
{
	rt_callback_drop(slot);
	if (eng_typeof(callback) == ENG_TYPE_FUNCTION) {
		*slot = eng_ref_new(callback);
	}
}

#endif /* RT_CALLBACK_H */

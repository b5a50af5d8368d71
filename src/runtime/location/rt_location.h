/*
 * rt_location.h: location.* on the receiver of hal_gnss, with the rules of rt_location_filter.
 *
 * The filter decides what reaches the callback and when the receiver runs; this module keeps the
 * app's callback and promise, feeds the filter the receiver's fixes (posted by the driver) and
 * mocked positions, and wakes it with an alarm at its deadlines (timeout, maxFixWait, the end of
 * an off period).
 */
#ifndef RT_LOCATION_H
#define RT_LOCATION_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "hal_gnss.h"
#include "rt_alarm.h"
#include "rt_location_filter.h"

/* Mocked positions reach the filter at the receiver's rate, once a second. */
#define RT_LOCATION_MOCK_PERIOD_MS 1000u

typedef struct {
	bool ready;                  /* filter initialised (the first use after power-on) */
	rt_location_filter_t filter; /* keeps the last known position across sessions and apps */
	eng_ref_t callback;
	eng_ref_t promise;
	rt_alarm_id_t alarm;         /* the filter's next deadline */
	bool gnss_on;                /* what the receiver was told last */
	bool mocking;
	rt_location_position_t mock;
	rt_alarm_id_t mock_alarm;
	uint32_t delivered;          /* positions given to the callback since power-on */
} rt_location_state_t;

struct rt_device;

/* A fix from the receiver, or its failure (from the driver, any thread). */
void rt_location_post_fix(struct rt_device *device, const hal_gnss_fix_t *fix);
void rt_location_post_error(struct rt_device *device);

/* The app ends: the session ends (GNSS off), callbacks and promises are let go; the last known
 * position stays. */
void rt_location_reset(void);

/* Whether a location session runs (for tests and the port). */
bool rt_location_tracking(void);

#endif /* RT_LOCATION_H */

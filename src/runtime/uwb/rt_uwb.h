/*
 * rt_uwb.h: uwb.* of 0.1.5: ranging on hal_uwb, with uwb.start's rules and window from
 * rt_uwb_model.
 */
#ifndef RT_UWB_H
#define RT_UWB_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "rt_alarm.h"
#include "rt_uwb_model.h"

/* The other device's id as the driver gives it (hex of its public id). */
#define RT_UWB_ID_MAX 33

typedef struct {
	bool running;
	rt_uwb_config_t config;
	eng_ref_t callback;
	eng_ref_t promise;
	rt_alarm_id_t timeout;
} rt_uwb_state_t;

struct rt_device;

/* An initiator measured dist_m to the responder id (NUL-terminated, at most RT_UWB_ID_MAX - 1
 * characters), with link quality lqi 0..100; from the driver, any thread. */
void rt_uwb_post_measurement(struct rt_device *device, const char *id, double dist_m, uint8_t lqi);

/* The app ends: ranging stops. */
void rt_uwb_reset(void);

#endif /* RT_UWB_H */

/*
 * hal_uwb.h: the ultra-wideband radio of the AI hardware variant (uwb.* of 0.1.5).
 *
 * The runtime starts the radio in a role with a mode and a PAN id; an initiator's driver reports
 * each distance measured to a responder with rt_uwb_post_measurement() (rt_uwb.h), from any
 * thread. The distance window of uwb.start (minDistance, maxDistance) is the runtime's.
 */
#ifndef HAL_UWB_H
#define HAL_UWB_H

#include <stdbool.h>
#include <stdint.h>

/* role: 0 responder, 1 initiator; mode: 0 high performance, 1 longer range. false: no radio. */
bool hal_uwb_start(uint8_t role, uint8_t mode, uint16_t pan_id);
void hal_uwb_stop(void);

#endif /* HAL_UWB_H */

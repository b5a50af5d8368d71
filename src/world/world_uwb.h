/*
 * world_uwb.h: the UWB radios of simulated devices (ai-beacon) ranging each other.
 *
 * An initiator started by the runtime (hal_uwb_start) polls every ranging interval: each other
 * device whose radio runs as a responder with the same mode and PAN id answers, and
 * rt_uwb_measure gives the distance from the two devices' positions (which follow their GNSS
 * tracks), within the mode's radio range. Each measurement reaches the initiator's runtime
 * (rt_uwb_post_measurement) with the responder's public id, and the trace.
 */
#ifndef WORLD_UWB_H
#define WORLD_UWB_H

#include <stdbool.h>
#include <stdint.h>

struct world;
struct world_device;
struct world_event;

#define WORLD_UWB_DEFAULT_INTERVAL_MS 1000u

typedef struct {
	bool running;
	uint8_t role, mode;
	uint16_t pan_id;
	uint32_t generation;
} world_uwb_t;

/* A ranging round of an initiator (WORLD_IN_UWB_ROUND: value[0] generation). */
void world_uwb_round_event(struct world *w, struct world_device *d, const struct world_event *e);
/* The device resets: its radio is off. */
void world_uwb_reset(struct world *w, struct world_device *d);

#endif /* WORLD_UWB_H */

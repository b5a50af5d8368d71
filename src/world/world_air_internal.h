/*
 * world_air_internal.h: what world_air.c (the air: sources, advertising events, reception) and
 * world_air_hal.c (the BLE radio HAL of simulated devices, and the list of scanning devices)
 * share, and no other file uses.
 */
#ifndef WORLD_AIR_INTERNAL_H
#define WORLD_AIR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* Whether anyone hears the air: a device scanning, or the trace. Advertising events are put on
 * the world's input heap only then. */
bool world_air_listening(const world_t *w);
/* Put a set's next event on the heap: the first nominal time at or after now. */
void world_air_wake_set(world_t *w, uint32_t source, uint32_t set_index, world_adv_set_t *set);
/* Bytes as a hex field of a trace record. */
void world_air_trace_hex(world_json_t *j, const char *key, const uint8_t *bytes, size_t n);

#endif /* WORLD_AIR_INTERNAL_H */

/*
 * world_air_internal.h: what world_air.c (the air: sources, advertising events, reception),
 * world_air_hal.c (the BLE radio HAL of simulated devices, and the list of scanning devices) and
 * world_air_reach.c (keyed draws, reach, the index of scanners, path losses) share, and no other
 * file uses.
 */
#ifndef WORLD_AIR_INTERNAL_H
#define WORLD_AIR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* Whether anyone hears the air: a device scanning, or the trace. Advertising events are put among
 * the world's inputs only then. */
bool world_air_listening(const world_t *w);
/* Queue a set's next event among the world's inputs: the first nominal time at or after now. */
void world_air_wake_set(world_t *w, uint32_t source, uint32_t set_index, world_adv_set_t *set);
/* A keyed uniform 64-bit draw (world_air_key_t): number `draw` of the key. */
uint64_t world_air_draw_u64(const world_t *w, const world_air_key_t *k, uint64_t draw);
/* The path loss from a source to a device, dB (cached while neither moves). */
double world_air_path_loss(world_t *w, uint32_t source, const world_device_t *rx);
/* A device starts (scanning true) or stops scanning: its place in the index. */
void world_air_index_scanner(world_t *w, world_device_t *d, bool scanning);
void world_air_index_free(world_t *w);
/* Bytes as a hex field of a trace record. */
void world_air_trace_hex(world_json_t *j, const char *key, const uint8_t *bytes, size_t n);

#endif /* WORLD_AIR_INTERNAL_H */

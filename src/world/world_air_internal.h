/*
 * world_air_internal.h: what world_air.c (the air: sources, advertising events, reception),
 * world_air_hal.c (the BLE radio HAL of simulated devices, and the list of scanning devices),
 * world_air_draw.c (keyed draws, their bound) and world_air_reach.c (reach, the index of scanners,
 * path losses, what each sender found) share, and no other file uses.
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
/* The finaliser of splitmix64: a bijective mix of 64 bits, each output bit depending on every
 * input bit. Chained over the parts of a key it gives an independent-looking uniform word per key
 * (a counter-based generator, as Random123's are), so a draw needs no state and no order; the
 * air's hash tables hash with it too. */
static inline uint64_t world_air_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
/* A keyed uniform 64-bit draw (world_air_key_t): number `draw` of the key. */
uint64_t world_air_draw_u64(const world_t *w, const world_air_key_t *k, uint64_t draw);
/* The same draws in steps, for the receivers of one event, which share all of the key but the
 * receiver: the hash of the key without it (once per event), then with it (once per receiver),
 * then the draws. world_air_gaussian(w, k, d) is world_air_gaussian_hashed(world_air_key_hash(
 * world_air_event_hash(w, k), k->receiver), d), to the bit. */
uint64_t world_air_event_hash(const world_t *w, const world_air_key_t *k);
static inline uint64_t world_air_key_hash(uint64_t event_hash, uint64_t receiver)
{
	return world_air_mix(event_hash ^ receiver);
}
double world_air_gaussian_hashed(uint64_t key_hash, uint32_t draw);
/* Start bringing into the cache what device source's last event found in reach. */
void world_air_prefetch_kept(const world_t *w, uint32_t source);
/* The path loss from a source to a device, dB (cached while neither moves). */
double world_air_path_loss(world_t *w, uint32_t source, const world_device_t *rx);
/* A device starts (scanning true) or stops scanning: its place in the index. */
void world_air_index_scanner(world_t *w, world_device_t *d, bool scanning);
void world_air_index_free(world_t *w);
/* Bytes as a hex field of a trace record. */
void world_air_trace_hex(world_json_t *j, const char *key, const uint8_t *bytes, size_t n);

#endif /* WORLD_AIR_INTERNAL_H */

/*
 * host_memory.h: the simulator's memory for fleets. Before a run, what a world of many devices
 * may need against what the machine (or its cgroup, or the process's address-space limit) has,
 * so that a world too large is refused at once rather than killed half way; after it, what a
 * device cost. docs/world.md, "Several devices"; the figures behind the estimate are measured by
 * bench/fleet-memory.sh (bench/RESULTS.md, "Fleet memory").
 */
#ifndef HOST_MEMORY_H
#define HOST_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* Bytes the process may still take, and where that limit comes from ("available memory",
 * "the cgroup's memory.max", "the address-space limit"); UINT64_MAX when nothing says. */
uint64_t host_memory_available(const char **source);

/* At most how many bytes the world's devices take with this engine: each device's fixed part
 * (runtime, world state, the engine and its built-ins) plus the room its app may fill in its
 * heap. */
uint64_t host_memory_estimate(const world_t *world);

/* The refusal when the estimate is over what is available (or over limit when it is not 0,
 * beacon-sim --memory-limit): the message in out, and -1; 0 when the world fits. */
int host_memory_check(const world_t *world, uint64_t limit, char *out, size_t cap);

/* What the run cost, for the run's end: the process's peak resident size and the devices' JS
 * heaps now (bytes in all). */
uint64_t host_memory_peak_rss(void);
uint64_t host_memory_js_heaps(world_t *world);

#endif /* HOST_MEMORY_H */

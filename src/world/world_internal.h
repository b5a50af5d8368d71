/*
 * world_internal.h: what world.c (the scheduler: wake and input heaps, setup, the run) and
 * world_device.c (a device's life: boot, guarded steps, faults and resets, install and start)
 * share, and no other file uses.
 */
#ifndef WORLD_INTERNAL_H
#define WORLD_INTERNAL_H

#include <stdint.h>

#include "world.h"

/* When the device wants to run next (WORLD_FOREVER: not until an input wakes it). */
void world_set_wake(world_t *w, world_device_t *d, uint64_t at);
/* Run the device's next step, guarded: a fault in it resets the device (world_device.c). */
void world_device_step(world_t *w, world_device_t *d);

#endif /* WORLD_INTERNAL_H */

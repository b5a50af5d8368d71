/*
 * world_internal.h: what world.c (the scheduler: the wake heap and the inputs, setup, the run) and
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
/* Apply every input due at or before the world's time (world.c): world_start does so between
 * booting the devices and running their apps' top level, so that inputs at 0 come first. */
void world_apply_due_inputs(world_t *w);

#endif /* WORLD_INTERNAL_H */

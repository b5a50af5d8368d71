/*
 * world_deploy.h: a simulated device that takes apps deployed from the cloud (docs/cloud-protocol.md
 * §3.8): its app store (two slots on a simulated flash of its own, as sim_listen's) and the target
 * the runtime's portable download and install use (rt_cloud_deploy.h). The install is the app
 * store's, the SMP upload's; the new app then starts from the top, as after an upload.
 */
#ifndef WORLD_DEPLOY_H
#define WORLD_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_app_store.h"
#include "world.h"

/* Give device index an app store and take deployments: its package is installed in the store
 * (as the listening simulator does) and runs from there until another is installed. 0, or -1
 * with why (out of memory; a package the store refuses stays the device's, and its start says
 * why). */
int world_deploy_enable(world_t *world, uint32_t index, char *why, size_t cap);
/* The same on a store the port mounted (the firmware's, on the board's app partitions): the
 * device runs what it runs, and a deployment is installed into that store. 0, or -1 (out of
 * memory, no store). */
int world_deploy_use_store(world_t *world, uint32_t index, rt_app_store_t *store);
/* After every boot (the runtime's state was cleared): the device takes deployments again. */
void world_deploy_attach(world_device_t *device);
/* The reboot-loop guard is about to stop the device's app: an app installed over the one before
 * it is rolled back instead (rt_app_store_roll_back), the device runs the one before, and its
 * next sync reports why. False when there is nothing to roll back to. */
bool world_deploy_roll_back(world_device_t *device, const char *why);
void world_deploy_free(world_device_t *device);

#endif /* WORLD_DEPLOY_H */

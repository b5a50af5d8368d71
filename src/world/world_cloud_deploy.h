/*
 * world_cloud_deploy.h: deployments in the world's loopback cloud (docs/cloud-protocol.md §3.8).
 * The scenario deploys a package to a device from a time on (`cloudDeploy`, lowered to the world
 * script's "at MS DEVICE cloud-deploy K", K a package beacon-sim was given with --deploy); the
 * loopback cloud then offers it at the device's sync starts, serves its chunks and records the
 * device's report, with the frames the cloud service uses (rt_cloud_deploy.h's cloud side).
 * The device fetches and installs it through the runtime's own rt_cloud_deploy.c, into the app
 * store world_deploy.c gives it.
 */
#ifndef WORLD_CLOUD_DEPLOY_H
#define WORLD_CLOUD_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_cbor.h"
#include "rt_cloud_deploy.h"
#include "world.h"

/* A package the scenario may deploy (copied): its number K, or -1 with why (not a package,
 * too large, out of memory). */
int world_cloud_deploy_package(world_t *world, const uint8_t *bytes, size_t len, char *why,
			       size_t cap);
/* Deploy package K to device index from world time at (ms) on: 0, or -1 with why. */
int world_cloud_deploy_add(world_t *world, uint32_t index, uint64_t at, uint32_t package,
			   char *why, size_t cap);
/* Whether the scenario deploys anything to device index (it then gets an app store). */
bool world_cloud_deploys_to(const world_t *world, uint32_t index);

/* The loopback cloud's side. A sync start arrived: its report is recorded (traced), and true
 * with *offer when the device is to be offered its package. */
bool world_cloud_deploy_start(world_device_t *device, const rt_cloud_sync_start_t *start,
			      rt_cloud_offer_t *offer);
/* A fetch: its chunk into e. False when the fetch is refused (not a fetch frame, past the end
 * of the package): the cloud closes the connection. */
bool world_cloud_deploy_fetch(world_device_t *device, const uint8_t *frame, size_t len,
			      rt_cbor_enc_t *e);
/* The connection ended: what was fetched in it, traced (one record a sync). */
void world_cloud_deploy_end(world_device_t *device);

void world_cloud_deploy_free(world_t *world);

#endif /* WORLD_CLOUD_DEPLOY_H */

/*
 * world_cloud_zephyr.h: a test board's device syncing with a real cloud (nrf52_bsim on the host's
 * sockets, --cloud mqtts://HOST:PORT): the world's device uses the firmware's own cloud client
 * (hal_cloud_zephyr.c) in place of the world's loopback model.
 */
#ifndef WORLD_CLOUD_ZEPHYR_H
#define WORLD_CLOUD_ZEPHYR_H

#include <stdbool.h>
#include <stddef.h>

#include "world.h"

/* Where to sync: the URL (mqtts:// verified against ca_pem_path's CA, or mqtt:// on plain TCP),
 * the device's secret. The strings must outlive the run. 0, or -1 with a reason. */
int world_cloud_zephyr_use(world_t *world, const char *url, const char *secret,
			   const char *ca_pem_path, char *err, size_t err_cap);

#endif /* WORLD_CLOUD_ZEPHYR_H */

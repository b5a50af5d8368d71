/*
 * world_cloud.h: the cloud of the simulated world.
 *
 * By default every device syncs with a loopback cloud inside the world: it speaks the protocol
 * (docs/cloud-protocol.md) through the same hal_cloud transport interface as a real connection,
 * checks and stores each batch, acknowledges it, delivers the messages a scenario queued for
 * the device, and writes what it stores and delivers to the trace ("cloud-event" records; the
 * device writes "cloud-message" and "cloud-sync"). It keeps, per device, the highest sequence
 * number it stored for the device's stream, so a batch sent again after a lost acknowledgement
 * is acknowledged and not stored twice (a device sends its queue in order; the real cloud keeps
 * a unique key per event instead).
 *
 * The host may give the world another transport instead (a real MQTT connection: beacon-sim
 * --cloud), or none (sync fails with "no network"). A scenario can take a device's network away
 * and give it back (input cloud-network 0|1). Syncs take no world time: the exchange runs while
 * the device's clock stands still.
 */
#ifndef WORLD_CLOUD_H
#define WORLD_CLOUD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_cloud.h"
#include "world.h"

typedef enum {
	WORLD_CLOUD_LOOPBACK = 0, /* the default */
	WORLD_CLOUD_NONE,         /* no cloud configured */
	WORLD_CLOUD_HOST,         /* the host's transport (world_cloud_use) */
} world_cloud_mode_t;

/* Sync every device through this transport (NULL: no cloud at all). seed is mixed into the
 * devices' stream ids (hal_cloud_entropy): a real cloud keeps what earlier runs stored, and a
 * device whose flash starts erased must not take the stream of an earlier run, or the cloud
 * would acknowledge its new events as duplicates of the old ones without storing them. The
 * host passes a random seed; 0 keeps the ids of the loopback cloud's repeatable runs. */
void world_cloud_use(world_t *world, const hal_cloud_transport_t *transport, uint64_t seed);
void world_cloud_set_mode(world_t *world, world_cloud_mode_t mode);

/* Queue a message for device index in the loopback cloud, from world time at (ms): delivered at
 * the device's next sync from then. payload_json is the payload as JSON. Returns 0, or -1 with a
 * reason. */
int world_cloud_add_message(world_t *world, uint32_t index, uint64_t at, const char *type,
			    const char *payload_json, char *err, size_t err_cap);

/* Events the loopback cloud stored for device index, and batches it acknowledged again without
 * storing (duplicates). */
uint32_t world_cloud_stored(const world_t *world, uint32_t index);
uint32_t world_cloud_duplicates(const world_t *world, uint32_t index);
/* Messages the device has acknowledged as processed (in a sync start or message ack). */
uint32_t world_cloud_delivered(const world_t *world, uint32_t index);

/* Take the device's network away (a sync then fails to connect) or give it back. */
void world_cloud_network(world_device_t *device, bool up);

/* Free a device's loopback state (world_free). */
void world_cloud_free(world_device_t *device);

#endif /* WORLD_CLOUD_H */

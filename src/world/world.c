/*
 * world.c: devices, inputs and the scheduler (see world.h): the wake heap, the queue of inputs
 * (world_queue.c), setup, the run. A device's life (boot, guarded steps, faults and resets,
 * install) is in world_device.c.
 */
#include "world.h"
#include "world_cloud.h"
#include "world_cloud_deploy.h"
#include "world_deploy.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_app.h"
#include "rt_loop.h"
#include "world_inputs.h"
#include "world_internal.h"

static world_device_t *current;

world_device_t *world_current(void)
{
	return current;
}

void world_select(world_t *world, world_device_t *device)
{
	world->current = device;
	current = device;
	rt_device_select(device != NULL ? &device->rt : NULL);
}

uint64_t world_device_ms(const world_device_t *device)
{
	return device->world->now - device->boot_at;
}

/* ------------------------------------------------------------------ wake heap */

static bool wakes_before(const world_t *w, uint32_t a, uint32_t b)
{
	const world_device_t *da = &w->devices[a], *db = &w->devices[b];
	return da->next_wake < db->next_wake || (da->next_wake == db->next_wake && a < b);
}

static void heap_place(world_t *w, uint32_t slot, uint32_t index)
{
	w->wake_heap[slot] = index;
	w->devices[index].heap_slot = slot;
}

static void heap_fix(world_t *w, uint32_t slot)
{
	uint32_t n = w->device_count;
	uint32_t index = w->wake_heap[slot];
	while (slot > 0) {
		uint32_t parent = (slot - 1) / 2;
		if (!wakes_before(w, index, w->wake_heap[parent])) {
			break;
		}
		heap_place(w, slot, w->wake_heap[parent]);
		slot = parent;
	}
	for (;;) {
		uint32_t child = 2 * slot + 1;
		if (child >= n) {
			break;
		}
		if (child + 1 < n && wakes_before(w, w->wake_heap[child + 1], w->wake_heap[child])) {
			child++;
		}
		if (!wakes_before(w, w->wake_heap[child], index)) {
			break;
		}
		heap_place(w, slot, w->wake_heap[child]);
		slot = child;
	}
	heap_place(w, slot, index);
}

void world_set_wake(world_t *w, world_device_t *d, uint64_t at)
{
	d->next_wake = at;
	heap_fix(w, d->heap_slot);
}

void world_wake(world_t *world, world_device_t *device)
{
	if (device->next_wake > world->now) {
		world_set_wake(world, device, world->now);
	}
}

void world_wake_posted(world_t *world)
{
	for (uint32_t i = 0; i < world->device_count; i++) {
		if (rt_loop_has_events_of(&world->devices[i].rt)) {
			world_wake(world, &world->devices[i]);
		}
	}
}

/* ------------------------------------------------------------------ inputs */

int world_add_event(world_t *world, const world_event_t *event)
{
	return world_queue_push(&world->queue, event, world->now);
}

world_event_t *world_new_event(world_t *world, uint64_t at)
{
	return world_queue_add(&world->queue, at, world->now);
}

/* ------------------------------------------------------------------ setup */

static void device_defaults(world_device_t *d, const world_profile_t *profile)
{
	d->profile = profile;
	d->features = profile->features;
	d->has_imu = true;
	d->rt.engine_config.heap_size = RT_JS_HEAP_BYTES;
	/* Lying flat, face up, at rest. */
	d->accel[0] = 0.0f;
	d->accel[1] = 0.0f;
	d->accel[2] = 1.0f;
	d->battery_percent = 100.0f;
	d->current_ma = NAN; /* the energy model's, unless the scenario gives a constant current */
	d->temp_history[0] = 22.0f;
	d->temp_since[0] = 0;
	d->temp_count = 1;
	d->utc_synced = true;
	world_modem_defaults(&d->modem, d->rt.index);
	rt_reset_record_check(&d->reset_record);
}

int world_init(world_t *world, uint32_t device_count, const world_io_t *io)
{
	memset(world, 0, sizeof(*world));
	world_queue_init(&world->queue);
	world->io = *io;
	world->verbose = io->verbose != NULL;
	world->until = WORLD_FOREVER;
	world->seed = 1; /* the script's seed replaces it */
	world->device_count = device_count;
	rt_uwb_model_init(&world->uwb_model, 1);
	world->uwb_interval_ms = WORLD_UWB_DEFAULT_INTERVAL_MS;
	world->devices = calloc(device_count ? device_count : 1, sizeof(world_device_t));
	world->wake_heap = calloc(device_count ? device_count : 1, sizeof(uint32_t));
	world->air_sets = calloc(device_count ? device_count * WORLD_AIR_SETS : 1, sizeof(world_adv_set_t));
	world->air_spots = calloc(device_count ? device_count : 1, sizeof(world_air_spot_t));
	if (world->devices == NULL || world->wake_heap == NULL || world->air_sets == NULL ||
	    world->air_spots == NULL) {
		world_free(world);
		return -1;
	}
	for (uint32_t i = 0; i < device_count; i++) {
		world_device_t *d = &world->devices[i];
		rt_device_init(&d->rt, i);
		d->rt.port = d;
		d->world = world;
		d->adv = &world->air_sets[(size_t)i * WORLD_AIR_SETS];
		snprintf(d->name, sizeof(d->name), "d%u", (unsigned)i);
		device_defaults(d, world_profile_default());
		world_device_identity(world, i, i);
		d->next_wake = WORLD_FOREVER;
		world_gnss_init(&d->gnss);
		world_nfc_init(&d->nfc);
		heap_place(world, i, i);
	}
	return 0;
}

void world_free(world_t *world)
{
	for (uint32_t i = 0; world->devices != NULL && i < world->device_count; i++) {
		world_device_t *d = &world->devices[i];
		if (d->rt.engine != NULL) {
			world_select(world, d);
			rt_app_deinit();
		}
	}
	world_select(world, NULL);
	for (uint32_t i = 0; world->devices != NULL && i < world->device_count; i++) {
		free(world->devices[i].flash);
		free(world->devices[i].flash_mem);
		world_gnss_free(&world->devices[i].gnss);
		world_nfc_free(&world->devices[i].nfc);
		world_cloud_free(&world->devices[i]);
		world_deploy_free(&world->devices[i]);
	}
	world_cloud_deploy_free(world);
	free(world->devices);
	free(world->wake_heap);
	world_queue_free(&world->queue);
	free(world->gnss_tracked);
	world->gnss_tracked = NULL;
	world_air_free(world);
	world->devices = NULL;
	world->wake_heap = NULL;
}

void world_device_setup(world_t *world, uint32_t index, const char *name,
			const world_profile_t *profile)
{
	world_device_t *d = &world->devices[index];
	if (name != NULL) {
		snprintf(d->name, sizeof(d->name), "%s", name);
	}
	if (profile != NULL) {
		device_defaults(d, profile);
	}
}

void world_device_identity(world_t *world, uint32_t index, uint32_t identity)
{
	/* The simulator's fixed identity, numbered per device, so output is reproducible. */
	static const uint8_t base[16] = {0x5e, 0xac, 0x0b, 0x1d, 0x00, 0x00, 0x4d, 0x0c,
					 0xbe, 0xac, 0x05, 0x1a, 0x00, 0x00, 0x00, 0x00};
	world_device_t *d = &world->devices[index];
	d->identity = identity;
	world->air_spots[index].identity = identity;
	memcpy(d->public_id, base, sizeof(base));
	d->public_id[14] = (char)((identity + 1) >> 8);
	d->public_id[15] = (char)((identity + 1) & 0xff);
	d->public_id_len = sizeof(base);
}

void world_device_package(world_t *world, uint32_t index, const uint8_t *package, size_t len)
{
	world->devices[index].package = package;
	world->devices[index].package_len = len;
}

static bool any_running(const world_t *w)
{
	for (uint32_t i = 0; i < w->device_count; i++) {
		if (w->devices[i].rt.app.state == RT_APP_RUNNING) {
			return true;
		}
	}
	return false;
}

static void apply_next_input(world_t *world)
{
	world_event_t e;
	world_queue_pop(&world->queue, &e);
	world->inputs++;
	/* In a large world what the next advertising event reads (its set, its sender's place, what
	 * it found in reach) is far in memory: asked for now, it arrives while this input is applied.
	 * (Further ahead gained nothing at 8,000 devices and cost where it all fits the cache.) */
	const world_event_t *next = world_queue_peek(&world->queue);
	if (next != NULL && next->kind == WORLD_IN_AIR_ADV) {
		world_air_prefetch(world, next);
	}
	if (e.kind == WORLD_IN_AIR_ADV) {
		world->air_pending--;
		world_air_event(world, &e);
		return;
	}
	if (e.device < world->device_count) {
		world_device_t *d = &world->devices[e.device];
		world_select(world, d);
		world_apply_input(world, d, &e);
	}
}

void world_apply_due_inputs(world_t *world)
{
	while (world_queue_count(&world->queue) > 0 && world_queue_next_at(&world->queue) <= world->now) {
		apply_next_input(world);
	}
	world_select(world, NULL);
}

uint64_t world_next_deadline(const world_t *world)
{
	uint64_t device_at = world->device_count ? world->devices[world->wake_heap[0]].next_wake
						 : WORLD_FOREVER;
	uint64_t event_at = world_queue_next_at(&world->queue);
	return device_at < event_at ? device_at : event_at;
}

world_end_t world_idle_until(world_t *world, uint64_t until)
{
	if (until != WORLD_FOREVER && until > world->now) {
		if (world->io.wait_until) {
			world->io.wait_until(world->io.ctx, until);
		}
		world->now = until;
		world_gnss_follow(world);
	}
	world_select(world, NULL);
	return WORLD_END_TIME_UP;
}

world_end_t world_run(world_t *world, uint64_t until, uint32_t *failed)
{
	*failed = world_start(world);
	return world_run_until(world, until);
}

world_end_t world_run_until(world_t *world, uint64_t until)
{
	if (until != world->until) {
		world->until = until;
		/* The batteries that run out (or fill) within the new time get their check. */
		for (uint32_t i = 0; i < world->device_count; i++) {
			world_energy_plan(world, &world->devices[i]);
		}
	}
	/* Beacons, and advertisers when the trace is read, are on the air from the start. */
	world_air_wake(world);
	for (;;) {
		uint64_t device_at = world->device_count ? world->devices[world->wake_heap[0]].next_wake
							 : WORLD_FOREVER;
		uint64_t event_at = world_queue_next_at(&world->queue);
		uint64_t at = device_at < event_at ? device_at : event_at;
		/* Advertisements no device can hear (only the trace reads them) do not keep a world
		 * going that has nothing else left to do. */
		if (device_at == WORLD_FOREVER && world_queue_count(&world->queue) == world->air_pending &&
		    world->scanner_count == 0) {
			at = WORLD_FOREVER;
		}
		if (at == WORLD_FOREVER) {
			world_select(world, NULL);
			return any_running(world) ? WORLD_END_IDLE : WORLD_END_STOPPED;
		}
		if (at > until) {
			return world_idle_until(world, until);
		}
		if (at > world->now) {
			if (world->io.wait_until) {
				world->io.wait_until(world->io.ctx, at);
			}
			world->now = at;
			world_gnss_follow(world);
		}
		/* Inputs first at equal times: a press at 1 s is seen by a timer due at 1 s. */
		if (event_at <= device_at) {
			apply_next_input(world);
			continue;
		}
		world_device_step(world, &world->devices[world->wake_heap[0]]);
	}
}

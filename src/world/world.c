/*
 * world.c: devices, inputs and the scheduler (see world.h).
 */
#include "world.h"
#include "world_cloud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "glue_app.h"
#include "hal_clock.h"
#include "rt_app.h"
#include "rt_scratch.h"
#include "world_inputs.h"

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

static void set_wake(world_t *w, world_device_t *d, uint64_t at)
{
	d->next_wake = at;
	heap_fix(w, d->heap_slot);
}

void world_wake(world_t *world, world_device_t *device)
{
	if (device->next_wake > world->now) {
		set_wake(world, device, world->now);
	}
}

/* ------------------------------------------------------------------ event heap */

static bool event_before(const world_event_t *a, const world_event_t *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

int world_add_event(world_t *world, const world_event_t *event)
{
	if (world->event_count == world->event_cap) {
		size_t cap = world->event_cap ? world->event_cap * 2 : 64;
		world_event_t *grown = realloc(world->events, cap * sizeof(*grown));
		if (grown == NULL) {
			return -1;
		}
		world->events = grown;
		world->event_cap = cap;
	}
	world_event_t e = *event;
	e.seq = world->event_seq++;
	if (e.at < world->now) {
		e.at = world->now;
	}
	size_t slot = world->event_count++;
	while (slot > 0) {
		size_t parent = (slot - 1) / 2;
		if (!event_before(&e, &world->events[parent])) {
			break;
		}
		world->events[slot] = world->events[parent];
		slot = parent;
	}
	world->events[slot] = e;
	return 0;
}

static world_event_t pop_event(world_t *world)
{
	world_event_t top = world->events[0];
	world_event_t last = world->events[--world->event_count];
	size_t slot = 0, n = world->event_count;
	for (;;) {
		size_t child = 2 * slot + 1;
		if (child >= n) {
			break;
		}
		if (child + 1 < n && event_before(&world->events[child + 1], &world->events[child])) {
			child++;
		}
		if (!event_before(&world->events[child], &last)) {
			break;
		}
		world->events[slot] = world->events[child];
		slot = child;
	}
	if (n > 0) {
		world->events[slot] = last;
	}
	return top;
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
	d->current_ma = profile->idle_current_ma;
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
	world->io = *io;
	world->verbose = io->verbose != NULL;
	world->until = WORLD_FOREVER;
	world->air_rng = 1; /* the script's seed replaces it */
	world->seed = 1;
	world->device_count = device_count;
	rt_uwb_model_init(&world->uwb_model, 1);
	world->uwb_interval_ms = WORLD_UWB_DEFAULT_INTERVAL_MS;
	world->devices = calloc(device_count ? device_count : 1, sizeof(world_device_t));
	world->wake_heap = calloc(device_count ? device_count : 1, sizeof(uint32_t));
	if (world->devices == NULL || world->wake_heap == NULL) {
		world_free(world);
		return -1;
	}
	for (uint32_t i = 0; i < device_count; i++) {
		world_device_t *d = &world->devices[i];
		rt_device_init(&d->rt, i);
		d->rt.port = d;
		d->world = world;
		snprintf(d->name, sizeof(d->name), "d%u", (unsigned)i);
		device_defaults(d, world_profile_default());
		/* The simulator's fixed identity, numbered per device, so output is reproducible. */
		static const uint8_t base[16] = {0x5e, 0xac, 0x0b, 0x1d, 0x00, 0x00, 0x4d, 0x0c,
						 0xbe, 0xac, 0x05, 0x1a, 0x00, 0x00, 0x00, 0x00};
		memcpy(d->public_id, base, sizeof(base));
		d->public_id[14] = (char)((i + 1) >> 8);
		d->public_id[15] = (char)((i + 1) & 0xff);
		d->public_id_len = sizeof(base);
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
	}
	free(world->devices);
	free(world->wake_heap);
	free(world->events);
	world_air_free(world);
	world->devices = NULL;
	world->wake_heap = NULL;
	world->events = NULL;
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

void world_device_package(world_t *world, uint32_t index, const uint8_t *package, size_t len)
{
	world->devices[index].package = package;
	world->devices[index].package_len = len;
}

/* ------------------------------------------------------------------ running */

/* ------------------------------------------------------------------ faults */

void world_fault(rt_reset_cause_t cause, const char *detail)
{
	world_device_t *d = world_current();
	if (d == NULL || !d->world->fault_armed) {
		world_port_fatal(detail);
	}
	world_t *w = d->world;
	w->fault_cause = cause;
	snprintf(w->fault_detail, sizeof(w->fault_detail), "%s", detail);
	w->fault_engine = eng_selected();
	w->fault_armed = false;
	longjmp(w->fault_jump, 1);
}

static void boot(world_t *w, world_device_t *d)
{
	d->boot_at = w->now;
	d->booted = true;
	d->boots++;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "boot");
		world_trace_strz(&w->json, "profile", d->profile->name);
		world_trace_strz(&w->json, "hardware", d->profile->hardware);
		world_trace_end(&w->json, w);
	}
	world_nfc_boot(w, d);
}

/* What a reset does to the hardware: the chips restart in their power-on state (the LEDs go
 * dark, the sensor forgets its events and levels); what is physical stays (a held button, how the
 * device lies, the battery). */
static void hardware_reset(world_t *w, world_device_t *d)
{
	world_gnss_reset(w, d);
	world_modem_reset(w, d);
	world_uwb_reset(w, d);
	memset(d->leds, 0, sizeof(d->leds));
	memset(d->led_shown, 0, sizeof(d->led_shown));
	d->ring_changed = false;
	d->imu_events = 0;
	memset(d->thresholds, 0, sizeof(d->thresholds));
	d->sensitivity = d->responsiveness = d->range = 0;
	d->motion_reported = false;
	d->temp_fast = false;
	d->hang_pending = false;
	d->crash_pending = false;
	d->power_cut_pending = false;
	world_air_device_reset(d->world, d);
}

static bool start_app(world_t *w, world_device_t *d);

/*
 * The device resets: its engine instance and runtime state are gone as RAM is on a real reset
 * (abandoned, not cleaned up: nothing in them can be trusted), the reset record keeps the cause,
 * and the device boots again and starts its app, unless the reboot-loop guard stops it.
 */
static void reset_device(world_t *w, world_device_t *d, rt_reset_cause_t cause, const char *detail)
{
	uint64_t uptime = w->now - d->boot_at;
	/* A power cut is not a fault: the device simply starts again, and what no-init RAM kept is
	 * gone with the power. */
	bool power_lost = cause == RT_RESET_NONE;
	if (!power_lost) {
		d->resets++;
		d->resets_by_cause[cause < RT_RESET_CAUSE_COUNT ? cause : RT_RESET_SYSTEM]++;
	}
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "reset");
		world_trace_strz(&w->json, "cause", power_lost ? "power" : rt_reset_cause_name(cause));
		world_trace_strz(&w->json, "detail", detail);
		world_trace_num(&w->json, "uptime", (double)uptime);
		world_trace_end(&w->json, w);
	}
	if (w->io.log) {
		char line[160];
		if (power_lost) {
			snprintf(line, sizeof(line), "power lost: the device starts again");
		} else {
			snprintf(line, sizeof(line), "device reset (%s): %s", rt_reset_cause_name(cause), detail);
		}
		w->io.log(w->io.ctx, d->name, w->device_count > 1, power_lost ? HAL_LOG_WARN : HAL_LOG_ERROR, line);
	}
	/* A fault while a new instance was being made (its heap built) leaves that one selected and
	 * not yet the device's: both go. */
	if (w->fault_engine != NULL && w->fault_engine != d->rt.engine) {
		eng_abandon(w->fault_engine);
	}
	w->fault_engine = NULL;
	if (d->rt.engine != NULL) {
		eng_abandon(d->rt.engine);
	}
	/* The runtime's shared scratch went with the RAM: a call cut short by the fault held it. */
	rt_scratch_reset();
	world_select(w, NULL);
	eng_config_t config = d->rt.engine_config;
	rt_device_init(&d->rt, d->rt.index);
	d->rt.engine_config = config;
	d->rt.port = d;
	hardware_reset(w, d);
	if (power_lost) {
		memset(&d->reset_record, 0, sizeof(d->reset_record));
		rt_reset_record_check(&d->reset_record);
	}
	bool stop = !power_lost && rt_reset_record_fault(&d->reset_record, cause, detail, uptime);
	boot(w, d);
	world_select(w, d);
	if (stop) {
		char why[160];
		snprintf(why, sizeof(why),
			 "ESR0002 Reboot loop detected: %u resets in a row within %u min of boot; the app is stopped",
			 RT_RESET_LOOP_COUNT, RT_RESET_LOOP_WINDOW_MS / 60000u);
		d->rt.app.state = RT_APP_STOPPED;
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "app");
			world_trace_strz(&w->json, "state", "stopped");
			world_trace_strz(&w->json, "detail", why);
			world_trace_end(&w->json, w);
		}
		if (w->io.log) {
			w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_ERROR, why);
		}
		set_wake(w, d, WORLD_FOREVER);
		return;
	}
	if (!power_lost) {
		rt_app_reset_notice(cause, detail, false);
	}
	if (!start_app(w, d) && w->io.log && d->failure[0]) {
		w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_ERROR, d->failure);
	}
}

/*
 * Run fn with the faults of d turned into a reset of d; returns false when d reset. The reset
 * starts the app again, which may fault again while it starts (an app that runs out of memory in
 * its top level): that is one more reset, until the reboot-loop guard stops the app.
 */
static bool guard(world_t *w, world_device_t *d, void (*fn)(world_t *, world_device_t *, void *),
		  void *context)
{
	volatile bool faulted = false;
	volatile rt_reset_cause_t cause = RT_RESET_NONE;
	char detail[RT_RESET_DETAIL_MAX] = "";
	for (;;) {
		world_select(w, d);
		w->fault_armed = true;
		if (setjmp(w->fault_jump) == 0) {
			if (!faulted) {
				fn(w, d, context);
			} else {
				reset_device(w, d, cause, detail);
			}
			w->fault_armed = false;
			return !faulted;
		}
		faulted = true;
		cause = w->fault_cause;
		snprintf(detail, sizeof(detail), "%s", w->fault_detail);
	}
}

typedef struct {
	void (*fn)(void *);
	void *context;
} outside_call_t;

static void call_outside(world_t *w, world_device_t *d, void *context)
{
	(void)w;
	(void)d;
	outside_call_t *call = context;
	call->fn(call->context);
}

bool world_guarded(world_t *world, world_device_t *device, void (*fn)(void *), void *context)
{
	outside_call_t call = {fn, context};
	return guard(world, device, call_outside, &call);
}

/* Start the device's package; false when it was refused or its top level threw (the reason is
 * in d->failure, and in the trace through the runtime's app record). */
static void install(world_t *w, world_device_t *d, void *context)
{
	bool *ok = context;
	d->failure[0] = '\0';
	*ok = glue_app_install(d->package, d->package_len, d->failure, sizeof(d->failure)) == 0;
	world_verbose_ring(w, d);
	set_wake(w, d, *ok ? w->now : WORLD_FOREVER);
}

static bool start_app(world_t *w, world_device_t *d)
{
	/* Called from inside guard() (a step, a reset) or from world_start/world_install, which
	 * guard it themselves. */
	bool ok = false;
	install(w, d, &ok);
	return ok;
}

static bool start_guarded(world_t *w, world_device_t *d)
{
	bool ok = false;
	return guard(w, d, install, &ok) && ok;
}

static void run_step(world_t *w, world_device_t *d, void *context)
{
	(void)context;
	if (d->crash_pending) {
		d->crash_pending = false;
		world_fault(RT_RESET_SYSTEM, "a fault in the firmware (scripted crash)");
	}
	if (d->power_cut_pending) {
		d->power_cut_pending = false;
		world_fault(RT_RESET_NONE, "power lost");
	}
	uint64_t next = HAL_CLOCK_FOREVER;
	rt_run_result_t r = rt_app_step(&next);
	w->steps++;
	world_verbose_ring(w, d);
	switch (r) {
	case RT_RUN_CONTINUE:
		set_wake(w, d, next == HAL_CLOCK_FOREVER ? WORLD_FOREVER : d->boot_at + next);
		break;
	case RT_RUN_RESTART:
		/* app.restart() (or the side button): the same package from the top, without a
		 * reboot; the app's uptime starts again. After the reboot-loop guard stopped it,
		 * its handler hears why once it is set. */
		if (d->reset_record.app_stopped) {
			rt_reset_record_cleared(&d->reset_record);
			rt_app_reset_notice((rt_reset_cause_t)d->reset_record.cause, d->reset_record.detail, true);
		}
		if (!start_app(w, d) && w->io.log) {
			w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_ERROR, d->failure);
		}
		break;
	default:
		set_wake(w, d, WORLD_FOREVER);
		break;
	}
}

static void step(world_t *w, world_device_t *d)
{
	guard(w, d, run_step, NULL);
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

const char *world_app_state_name(const world_t *world, uint32_t index)
{
	switch (world->devices[index].rt.app.state) {
	case RT_APP_RUNNING:
		return "running";
	case RT_APP_FAILED:
		return "failed";
	default:
		return "stopped";
	}
}

int world_install(world_t *world, uint32_t index, const uint8_t *package, size_t len, char *msg,
		  size_t msg_cap)
{
	world_device_t *d = &world->devices[index];
	world_select(world, d);
	if (!d->booted) {
		boot(world, d);
	}
	d->package = package;
	d->package_len = len;
	/* An upload starts a stopped app again, whatever stopped it. */
	rt_reset_record_cleared(&d->reset_record);
	bool ok = start_guarded(world, d);
	snprintf(msg, msg_cap, "%s", d->failure[0] ? d->failure : "the device reset while the app started");
	return ok ? 0 : -1;
}

uint32_t world_start(world_t *world)
{
	uint32_t failed = 0;
	for (uint32_t i = 0; i < world->device_count; i++) {
		world_device_t *d = &world->devices[i];
		if (d->package == NULL || d->booted) {
			continue;
		}
		world_select(world, d);
		boot(world, d);
		if (!start_guarded(world, d)) {
			failed++;
		}
	}
	return failed;
}

uint64_t world_next_deadline(const world_t *world)
{
	uint64_t device_at = world->device_count ? world->devices[world->wake_heap[0]].next_wake
						 : WORLD_FOREVER;
	uint64_t event_at = world->event_count ? world->events[0].at : WORLD_FOREVER;
	return device_at < event_at ? device_at : event_at;
}

world_end_t world_run(world_t *world, uint64_t until, uint32_t *failed)
{
	*failed = world_start(world);
	return world_run_until(world, until);
}

world_end_t world_run_until(world_t *world, uint64_t until)
{
	world->until = until;
	/* Beacons, and advertisers when the trace is read, are on the air from the start. */
	world_air_wake(world);
	for (;;) {
		uint64_t device_at = world->device_count ? world->devices[world->wake_heap[0]].next_wake
							 : WORLD_FOREVER;
		uint64_t event_at = world->event_count ? world->events[0].at : WORLD_FOREVER;
		uint64_t at = device_at < event_at ? device_at : event_at;
		/* Advertisements no device can hear (only the trace reads them) do not keep a world
		 * going that has nothing else left to do. */
		if (device_at == WORLD_FOREVER && world->event_count == world->air_pending &&
		    world->scanner_count == 0) {
			at = WORLD_FOREVER;
		}
		if (at == WORLD_FOREVER) {
			world_select(world, NULL);
			return any_running(world) ? WORLD_END_IDLE : WORLD_END_STOPPED;
		}
		if (at > until) {
			if (until > world->now) {
				if (world->io.wait_until) {
					world->io.wait_until(world->io.ctx, until);
				}
				world->now = until;
				world_gnss_follow(world);
			}
			world_select(world, NULL);
			return WORLD_END_TIME_UP;
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
			world_event_t e = pop_event(world);
			world->inputs++;
			if (e.kind == WORLD_IN_AIR_ADV) {
				world->air_pending--;
				world_air_event(world, &e);
				continue;
			}
			if (e.device < world->device_count) {
				world_device_t *d = &world->devices[e.device];
				world_select(world, d);
				world_apply_input(world, d, &e);
			}
			continue;
		}
		step(world, &world->devices[world->wake_heap[0]]);
	}
}

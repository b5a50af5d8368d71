/*
 * A device's life in the world (world.h): boot, its steps run under a guard, so that a fault (the
 * engine out of memory, a runaway callback, a hung driver, a scripted crash or power cut) is a
 * reset of the device as on the beacon, and the install and start of its app.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "glue_app.h"
#include "hal_clock.h"
#include "rt_app.h"
#include "rt_scratch.h"
#include "world.h"
#include "world_deploy.h"
#include "world_internal.h"

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
	d->rx_lost_since_boot = 0;
	if (!d->energy.ready) {
		world_energy_init(w, d);
	}
	world_energy_power(w, d, true);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "boot");
		world_trace_strz(&w->json, "profile", d->profile->name);
		world_trace_strz(&w->json, "hardware", d->profile->hardware);
		world_trace_end(&w->json, w);
	}
	world_nfc_boot(w, d);
	world_deploy_attach(d);
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
	/* The parts' currents follow: LEDs dark, radio idle, receiver off, modem to attach again. */
	world_energy_leds(w, d);
	world_energy_radio(w, d);
	world_energy_gnss(w, d);
	world_energy_modem_detach(w, d);
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
		snprintf(why, sizeof(why), "ESR0002 Reboot loop detected: %u resets in a row within %u min of boot",
			 RT_RESET_LOOP_COUNT, RT_RESET_LOOP_WINDOW_MS / 60000u);
		/* An app installed over another is rolled back, not stopped: the one before runs. */
		if (world_deploy_roll_back(d, why)) {
			rt_reset_record_cleared(&d->reset_record);
			if (w->io.log) {
				w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_ERROR, why);
				w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_INFO,
					  "the app was rolled back to the one installed before it");
			}
			stop = false;
		}
	}
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
		world_set_wake(w, d, WORLD_FOREVER);
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
	world_set_wake(w, d, *ok ? w->now : WORLD_FOREVER);
}

static bool start_app(world_t *w, world_device_t *d)
{
	/* Called from inside guard() (a world_device_step, a reset) or from world_start/world_install, which
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
	world_energy_turn(w, d);
	world_verbose_ring(w, d);
	switch (r) {
	case RT_RUN_CONTINUE:
		world_set_wake(w, d, next == HAL_CLOCK_FOREVER ? WORLD_FOREVER : d->boot_at + next);
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
		world_set_wake(w, d, WORLD_FOREVER);
		break;
	}
}

void world_device_step(world_t *w, world_device_t *d)
{
	if (d->energy.empty) {
		return; /* off until external power comes (world_device_battery_empty) */
	}
	if (!d->booted) {
		/* Off (before its power-on, or with no app): an input that woke it finds nothing to
		 * run, and it must not stay due or the scheduler would pick it again at once. */
		world_set_wake(w, d, WORLD_FOREVER);
		return;
	}
	if (d->start_pending) {
		/* Its power-on came at this millisecond and the inputs of it are applied: the app's
		 * top level now, as world_start does at 0. */
		d->start_pending = false;
		bool ok = false;
		if (guard(w, d, install, &ok) && !ok) {
			w->start_failed++;
			if (w->io.log && d->failure[0]) {
				w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_ERROR, d->failure);
			}
		}
		return;
	}
	guard(w, d, run_step, NULL);
}

void world_device_power_on(world_t *w, world_device_t *d)
{
	if (d->booted || d->package == NULL) {
		return; /* on already (an upload started it), or nothing to run, as at world_start */
	}
	/* An off device has no RAM to speak of: what reached its runtime before (a sensor report
	 * of an input before its start) and faults scripted for it are gone, as after a power cut
	 * (reset_device). Only what is physical stays: how it lies, a held button, the battery. */
	world_select(w, NULL);
	eng_config_t config = d->rt.engine_config;
	rt_device_init(&d->rt, d->rt.index);
	d->rt.engine_config = config;
	d->rt.port = d;
	d->hang_pending = d->crash_pending = d->power_cut_pending = false;
	boot(w, d);
	world_select(w, d);
	d->start_pending = true;
	world_set_wake(w, d, w->now);
}

void world_device_battery_empty(world_t *w, world_device_t *d)
{
	hardware_reset(w, d);
	world_energy_power(w, d, false);
	d->energy.empty = true;
	world_set_wake(w, d, WORLD_FOREVER);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "battery-empty");
		world_trace_num(&w->json, "uptime", (double)(w->now - d->boot_at));
		world_trace_end(&w->json, w);
	}
	if (w->io.log) {
		w->io.log(w->io.ctx, d->name, w->device_count > 1, HAL_LOG_WARN,
			  "battery empty: the device is off until external power comes");
	}
}

void world_device_power_restored(world_t *w, world_device_t *d)
{
	/* It starts again as from a power cut: nothing of the run before the battery died. */
	d->energy.empty = false;
	d->power_cut_pending = true;
	world_wake(w, d);
}

const char *world_app_state_name(const world_t *world, uint32_t index)
{
	return rt_app_state_name((rt_app_state_t)world->devices[index].rt.app.state);
}

uint32_t world_devices_alive(const world_t *world)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < world->device_count; i++) {
		const world_device_t *d = &world->devices[i];
		n += !d->energy.empty && d->rt.app.state == RT_APP_RUNNING;
	}
	return n;
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
	/* Boot every device, then give them the inputs due now, then run the apps' top level:
	 * docs/world.md has inputs at a millisecond come before any device runs at it, and the
	 * top level is what runs at 0 (a storageFault at 0 meets the app's first save). */
	uint32_t failed = 0;
	for (uint32_t i = 0; i < world->device_count; i++) {
		world_device_t *d = &world->devices[i];
		/* A device with a start time boots by its power-on input (world_device_power_on). */
		d->start_pending = d->package != NULL && !d->booted && d->power_on_at == 0;
		if (d->start_pending) {
			world_select(world, d);
			boot(world, d);
		}
	}
	world_apply_due_inputs(world);
	for (uint32_t i = 0; i < world->device_count; i++) {
		world_device_t *d = &world->devices[i];
		/* A reset among those inputs (a powerCut at 0) boots and starts the app itself. */
		if (!d->start_pending || d->rt.app.state != RT_APP_NONE) {
			d->start_pending = false;
			continue;
		}
		d->start_pending = false;
		world_select(world, d);
		if (!start_guarded(world, d)) {
			failed++;
		}
	}
	return failed;
}

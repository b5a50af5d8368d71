/*
 * The simulated world as a WebAssembly module: what `beacon studio` runs in the page.
 *
 * The same world, runtime, glue and engine as beacon-sim (src/port/host/sim_main.c); only the
 * front end differs. The page owns real time: it calls studio_run_until() in slices from its
 * animation frames (the world's virtual clock jumps, the page paces it), so no call blocks. The
 * world's outputs reach the page through Module.onPrint / onLog / onTrace (EM_JS below), in the
 * same words and order as beacon-sim writes them, so the page's output and trace equal
 * `beacon run`'s byte for byte.
 *
 * The energy model's records (studio_energy_records) come through onTrace too, when the page
 * turns them on; the page keeps them out of its trace.
 *
 * One world at a time lives in this module (the page's); studio_open() replaces it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <emscripten.h>

#include "rt_package.h"
#include "world.h"
#include "world_cloud_deploy.h"
#include "world_deploy.h"
#include "world_inputs.h"
#include "world_script.h"

EM_JS(void, studio_js_print, (const char *device, int several, const char *text, size_t len), {
	Module.onPrint(UTF8ToString(device), several !== 0, UTF8ToString(text, len));
});

EM_JS(void, studio_js_log, (const char *device, int several, int level, const char *text), {
	Module.onLog(UTF8ToString(device), several !== 0, level, UTF8ToString(text));
});

EM_JS(void, studio_js_trace, (const char *json, size_t len), {
	Module.onTrace(UTF8ToString(json, len));
});

static world_t world;
static bool world_open;
/* Each device's package: the world keeps pointers, so the module owns copies until the next one. */
static uint8_t **packages;
/* The packages the scenario deploys through the loopback cloud (studio_deploy_package), given
 * before studio_open, which hands them to the world before its script names them (as beacon-sim
 * takes --deploy before the script). Copies, kept until studio_deploy_clear(). */
#define STUDIO_MAX_DEPLOYS 16u
static uint8_t *deploys[STUDIO_MAX_DEPLOYS];
static uint32_t deploy_lengths[STUDIO_MAX_DEPLOYS];
static uint32_t deploy_count;
static char message[256];

static void print_line(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx;
	studio_js_print(device, several, text, len);
}

static void log_line(void *ctx, const char *device, bool several, hal_log_level_t level,
		     const char *text)
{
	(void)ctx;
	studio_js_log(device, several, (int)level, text);
}

static void trace_line(void *ctx, const char *json, size_t len)
{
	(void)ctx;
	studio_js_trace(json, len);
}

EMSCRIPTEN_KEEPALIVE const char *studio_message(void)
{
	return message;
}

EMSCRIPTEN_KEEPALIVE void studio_close(void)
{
	if (!world_open) {
		return;
	}
	for (uint32_t i = 0; i < world.device_count; i++) {
		free(packages[i]);
	}
	free(packages);
	packages = NULL;
	world_free(&world);
	memset(&world, 0, sizeof(world));
	world_open = false;
}

/* Forget the packages given with studio_deploy_package (the next world deploys none). */
EMSCRIPTEN_KEEPALIVE void studio_deploy_clear(void)
{
	for (uint32_t i = 0; i < deploy_count; i++) {
		free(deploys[i]);
		deploys[i] = NULL;
	}
	deploy_count = 0;
}

/*
 * A package the next world's script may deploy through the loopback cloud (its `cloud-deploy K`
 * lines number them in the order given, as beacon-sim's --deploy): before studio_open. Returns
 * K, or -1 (studio_message()).
 */
EMSCRIPTEN_KEEPALIVE int studio_deploy_package(const uint8_t *pkg, uint32_t len)
{
	message[0] = '\0';
	if (deploy_count == STUDIO_MAX_DEPLOYS) {
		snprintf(message, sizeof(message), "at most %u deployed packages", STUDIO_MAX_DEPLOYS);
		return -1;
	}
	uint8_t *copy = malloc(len > 0 ? len : 1);
	if (copy == NULL) {
		snprintf(message, sizeof(message), "out of memory");
		return -1;
	}
	memcpy(copy, pkg, len);
	deploys[deploy_count] = copy;
	deploy_lengths[deploy_count] = len;
	return (int)deploy_count++;
}

/*
 * A new world: `devices` devices of the default profile, or those of a world script (script_len
 * > 0). utc_ms: UTC at world time 0; synced: whether devices start with the time (the script may
 * say otherwise, as with beacon-sim). Returns the number of devices, or -1 (studio_message()).
 */
EMSCRIPTEN_KEEPALIVE int studio_open(const char *script, uint32_t script_len, uint32_t devices,
				     double utc_ms, int synced)
{
	/* Apps see UTC as local time, as on the device (sim_main.c says why): Emscripten's C
	 * library would otherwise follow the browser's time zone. */
	setenv("TZ", "UTC0", 1);
	tzset();
	studio_close();
	message[0] = '\0';
	if (script_len > 0) {
		devices = world_script_device_count(script, script_len);
		if (devices == 0) {
			devices = 1;
		}
	}
	if (devices == 0) {
		snprintf(message, sizeof(message), "a world needs at least one device");
		return -1;
	}
	world_io_t io = {0};
	io.print = print_line;
	io.log = log_line;
	io.trace = trace_line;
	packages = calloc(devices, sizeof(*packages));
	if (packages == NULL || world_init(&world, devices, &io) != 0) {
		free(packages);
		packages = NULL;
		snprintf(message, sizeof(message), "out of memory");
		return -1;
	}
	world_open = true;
	world.utc_at_start = (int64_t)utc_ms;
	for (uint32_t i = 0; i < devices; i++) {
		world.devices[i].utc_synced = synced != 0;
	}
	/* The deployed packages, before the script that names them. */
	for (uint32_t k = 0; k < deploy_count; k++) {
		char why[160];
		if (world_cloud_deploy_package(&world, deploys[k], deploy_lengths[k], why, sizeof(why)) < 0) {
			snprintf(message, sizeof(message), "deployed package %u: %s", (unsigned)k, why);
			studio_close();
			return -1;
		}
	}
	if (script_len > 0 && world_script_load(&world, script, script_len, message, sizeof(message)) != 0) {
		studio_close();
		return -1;
	}
	return (int)devices;
}

static uint8_t *copy_package(uint32_t index, const uint8_t *pkg, uint32_t len)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	if (copy == NULL) {
		return NULL;
	}
	memcpy(copy, pkg, len);
	free(packages[index]);
	packages[index] = copy;
	return copy;
}

/* Give device index its package before studio_start(). Returns 0, or -1. */
EMSCRIPTEN_KEEPALIVE int studio_device_package(uint32_t index, const uint8_t *pkg, uint32_t len)
{
	if (!world_open || index >= world.device_count) {
		return -1;
	}
	uint8_t *copy = copy_package(index, pkg, len);
	if (copy == NULL) {
		return -1;
	}
	world_device_package(&world, index, copy, len);
	return 0;
}

EMSCRIPTEN_KEEPALIVE void studio_device_heap(uint32_t index, uint32_t bytes)
{
	if (world_open && index < world.device_count) {
		world.devices[index].rt.engine_config.heap_size = bytes;
	}
}

/* Boot the devices and start their apps: how many could not start (studio_failure()). */
EMSCRIPTEN_KEEPALIVE uint32_t studio_start(void)
{
	if (!world_open) {
		return 0;
	}
	/* A device the scenario deploys to takes deployments (an app store that starts with its
	 * package), as beacon-sim's. */
	uint32_t failed = 0;
	for (uint32_t i = 0; i < world.device_count; i++) {
		if (world_cloud_deploys_to(&world, i) &&
		    world_deploy_enable(&world, i, world.devices[i].failure, sizeof(world.devices[i].failure)) != 0) {
			failed++;
		}
	}
	return failed > 0 ? failed : world_start(&world);
}

/* Why device index's app could not start ("" when it did). */
EMSCRIPTEN_KEEPALIVE const char *studio_failure(uint32_t index)
{
	return world_open && index < world.device_count ? world.devices[index].failure : "";
}

/*
 * With energy records on: count each device whose period has passed up to the world's present,
 * which writes its record. The model counts lazily (only when something changes or is read), so
 * a device that only advertises, or sleeps while others work, would otherwise give no record
 * until the run ends, and the page's gauge would stand still. Counting up to now more often only
 * splits the model's sums (the same currents over the same time): what the apps read (percent,
 * average current) is unchanged, and so is the rest of the trace.
 */
static void energy_catch_up(void)
{
	if (world.energy_period_ms == 0) {
		return;
	}
	for (uint32_t i = 0; i < world.device_count; i++) {
		world_device_t *d = &world.devices[i];
		if (d->energy.fig != NULL && world.now >= d->energy.record_at &&
		    world.now - d->energy.record_at >= world.energy_period_ms) {
			world_energy_update(&world, d);
		}
	}
}

/* world_run_until: returns a world_end_t. Times are doubles, exact for any ms a page reaches. */
EMSCRIPTEN_KEEPALIVE int studio_run_until(double until)
{
	if (!world_open) {
		return WORLD_END_STOPPED;
	}
	int end = (int)world_run_until(&world, until < 0 ? WORLD_FOREVER : (uint64_t)until);
	energy_catch_up();
	return end;
}

/* world_idle_until: a run with a set duration that went idle lasts it, as beacon run's. */
EMSCRIPTEN_KEEPALIVE int studio_idle_until(double until)
{
	if (!world_open) {
		return WORLD_END_STOPPED;
	}
	int end = (int)world_idle_until(&world, until < 0 ? WORLD_FOREVER : (uint64_t)until);
	energy_catch_up();
	return end;
}

EMSCRIPTEN_KEEPALIVE double studio_now(void)
{
	return world_open ? (double)world.now : 0;
}

/*
 * The energy model's records (world_energy.h): each device's draw by part every period_ms of world
 * time, in the trace as "energy" records, for the page's battery gauges and current charts. Off
 * unless the page asks (after studio_open: world_init turns them off), because `beacon run
 * --trace` has none unless --energy is given, and a world with them off traces byte for byte as
 * beacon-sim does. Turning them on changes nothing the apps see: a record only reads what the
 * model counted (and energy_catch_up only makes it count sooner).
 */
EMSCRIPTEN_KEEPALIVE void studio_energy_records(uint32_t period_ms)
{
	if (world_open) {
		world_energy_records(&world, period_ms);
	}
}

/*
 * Where the page ends or stops a run, before studio_close(): each device's last (shorter) period
 * and its "energy-summary" record, as beacon-sim writes them at the end of a run with --energy.
 * Nothing when the records are off.
 */
EMSCRIPTEN_KEEPALIVE void studio_energy_finish(void)
{
	if (world_open) {
		world_energy_finish(&world);
	}
}

/* When the world must run next (-1: only when an input comes). */
EMSCRIPTEN_KEEPALIVE double studio_next(void)
{
	if (!world_open) {
		return -1;
	}
	uint64_t next = world_next_deadline(&world);
	return next == WORLD_FOREVER ? -1 : (double)next;
}

/*
 * An input from the page (a click on the drawn button, a slider) at world time `at`, which must
 * not be before the world's present: the world then applies it as a scripted one.
 */
EMSCRIPTEN_KEEPALIVE int studio_input(uint32_t device, uint32_t kind, double at, double v0, double v1,
				      double v2, double v3, const char *text)
{
	if (!world_open || device >= world.device_count || at < (double)world.now) {
		return -1;
	}
	world_event_t e;
	memset(&e, 0, sizeof(e));
	e.at = (uint64_t)at;
	e.device = device;
	e.kind = (uint16_t)kind;
	e.value[0] = v0;
	e.value[1] = v1;
	e.value[2] = v2;
	e.value[3] = v3;
	if (text != NULL) {
		snprintf(e.text, sizeof(e.text), "%s", text);
	}
	return world_add_event(&world, &e);
}

/* Whether a package would be accepted (rt_package_check): 0, or -1 with the reason the
 * simulator gives for it (studio_message()). */
EMSCRIPTEN_KEEPALIVE int studio_check_package(const uint8_t *pkg, uint32_t len)
{
	rt_package_t parsed;
	message[0] = '\0';
	return rt_package_check(pkg, len, &parsed, message, sizeof(message)) == RT_PACKAGE_OK ? 0 : -1;
}

/* Upload a package to a device of the running world and start it (world_install). */
EMSCRIPTEN_KEEPALIVE int studio_install(uint32_t index, const uint8_t *pkg, uint32_t len)
{
	if (!world_open || index >= world.device_count) {
		return -1;
	}
	if (studio_check_package(pkg, len) != 0) {
		return -1;
	}
	uint8_t *copy = copy_package(index, pkg, len);
	if (copy == NULL) {
		snprintf(message, sizeof(message), "out of memory");
		return -1;
	}
	return world_install(&world, index, copy, len, message, sizeof(message));
}

EMSCRIPTEN_KEEPALIVE uint32_t studio_device_count(void)
{
	return world_open ? world.device_count : 0;
}

EMSCRIPTEN_KEEPALIVE const char *studio_device_name(uint32_t index)
{
	return world_open && index < world.device_count ? world.devices[index].name : "";
}

EMSCRIPTEN_KEEPALIVE const char *studio_device_profile(uint32_t index)
{
	return world_open && index < world.device_count ? world.devices[index].profile->name : "";
}

EMSCRIPTEN_KEEPALIVE uint32_t studio_device_leds(uint32_t index)
{
	return world_open && index < world.device_count ? world.devices[index].profile->leds : 0;
}

/* Devices alive (world_devices_alive): the page's progress readout, a few times a second. */
EMSCRIPTEN_KEEPALIVE uint32_t studio_devices_alive(void)
{
	return world_open ? world_devices_alive(&world) : 0;
}

EMSCRIPTEN_KEEPALIVE uint32_t studio_device_resets(uint32_t index)
{
	return world_open && index < world.device_count ? world.devices[index].resets : 0;
}

/* The device's state for the panels that are not driven by trace records (the page draws its
 * sliders from these at start). */
EMSCRIPTEN_KEEPALIVE double studio_device_value(uint32_t index, uint32_t what)
{
	if (!world_open || index >= world.device_count) {
		return 0;
	}
	const world_device_t *d = &world.devices[index];
	switch (what) {
	case 0: return d->battery_percent;
	case 1: return d->external;
	case 2: return d->charging;
	case 3: return d->temp_count ? d->temp_history[d->temp_count - 1] : 0;
	case 4: return d->accel[0];
	case 5: return d->accel[1];
	case 6: return d->accel[2];
	case 7: return d->moving;
	case 8: return d->has_imu;
	case 9: return d->lat;
	case 10: return d->lon;
	case 11: return d->alt;
	case 12: return d->profile->features;
	case 13: return d->profile->capacity_mah; /* the battery gauge's estimate of what is left */
	default: return 0;
	}
}

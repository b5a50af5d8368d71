/*
 * world.h: the simulated world: one or many devices, the inputs a scenario scripts for them, and
 * one discrete-event scheduler that owns time.
 *
 * Each device is a whole runtime (rt_device_t, with its own engine instance) plus the state of its
 * simulated hardware (LEDs, buttons, IMU, battery, temperature, clock). The world advances time
 * from one thing to the next: a scripted input, or the device whose next deadline is earliest
 * (ties: inputs first, then devices in index order), so the same packages and script give the
 * same output and trace, byte for byte, however fast the host is. Portable C with no OS calls:
 * the host simulator, the WebAssembly build and the emulated-device image all use it; they give
 * the world its outputs (world_io_t) and, in real-time mode, its sleep.
 */
#ifndef WORLD_H
#define WORLD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_cloud.h"
#include "hal_console.h"
#include "rt_device.h"
#include "rt_reset.h"
#include "sim_flash.h"
#include "world_air.h"
#include "world_energy.h"
#include "rt_uwb_model.h"
#include "world_gnss.h"
#include "world_modem.h"
#include "world_nfc.h"
#include "world_profile.h"
#include "world_queue.h"
#include "world_trace.h"
#include "world_uwb.h"

#define WORLD_FOREVER UINT64_MAX
#define WORLD_NAME_MAX 32

/* What the world hands to its host. ctx is given back to every function. */
typedef struct {
	void *ctx;
	/* A line the app printed. */
	void (*print)(void *ctx, const char *device, bool several, const char *text, size_t len);
	/* A message of the runtime itself. */
	void (*log)(void *ctx, const char *device, bool several, hal_log_level_t level,
		    const char *text);
	/* One trace record: a JSON object without the newline (NULL: no trace). */
	void (*trace)(void *ctx, const char *json, size_t len);
	/* A human line for --verbose (NULL: none). */
	void (*verbose)(void *ctx, const char *text);
	/* Real-time mode: return when world time `at` (ms) has come (NULL: virtual time). */
	void (*wait_until)(void *ctx, uint64_t at);
	/* One energy record (world_energy_records; NULL: none), as the trace also gets it. */
	void (*energy)(void *ctx, const char *json, size_t len);
} world_io_t;

typedef struct {
	bool on;
	float rgb[3];
	float brightness;
} world_led_t;

typedef struct world_deploy world_deploy_t;

typedef struct world_device {
	rt_device_t rt; /* rt.port points back here */
	struct world *world;
	char name[WORLD_NAME_MAX];
	/* Who the device is in its scenario: its index there, which makes its address, its public
	 * id and its random numbers. The same as rt.index (its place in this world) except in a world
	 * that plays one device of a larger scenario (world_script_load_device). */
	uint32_t identity;
	/* Where the device is: WGS-84 degrees and metres (the air, UWB ranging and GNSS use it). */
	double lat, lon, alt;
	/* The radio (world_air.c). Its WORLD_AIR_SETS advertising sets are in the world's air_sets:
	 * an advertising event reads its set and its sender's air_spots entry and nothing of the
	 * device (27 KB, mostly the runtime's state), so that in a world of thousands of devices an
	 * event is not a trip to memory for a page of each. */
	world_adv_set_t *adv;
	world_scan_t scan;
	world_air_place_t air_place;
	const world_profile_t *profile;
	uint32_t features;
	bool has_imu;
	char public_id[16];
	size_t public_id_len;

	/* The app: its package (owned by the host) and whether the device has one to run. */
	const uint8_t *package;
	size_t package_len;
	bool booted;
	bool start_pending;   /* booted (by world_start or its power-on), its app not yet started */
	/* World time the device is switched on (the scenario's start; 0: with the world). Until
	 * then it is off: no radio, no app, no current drawn; then it boots as from power-on. */
	uint64_t power_on_at;
	uint64_t boot_at;   /* world time of the last boot */
	uint32_t boots;     /* boots so far, power cuts and resets included */
	uint64_t random_draws; /* hal_device_random calls since the world began */
	uint64_t next_wake; /* world time the device must run next, WORLD_FOREVER: on input only */
	uint32_t heap_slot; /* position in the world's wake heap */
	/* Why the app last failed to start ("" when it did not). */
	char failure[200];

	/* Hardware. */
	world_led_t leds[CONFIG_BEACON_MAX_LEDS];
	bool led_shown[CONFIG_BEACON_MAX_LEDS];
	bool ring_changed; /* since the last --verbose summary */
	bool button_down[2];
	float accel[3];
	float gyro[3];
	bool moving;          /* the world says the device moves */
	float intensity;      /* how hard, g */
	bool motion_reported; /* what the sensor told the runtime last */
	uint8_t sensitivity, responsiveness, range;
	uint32_t imu_events;  /* enabled typed events */
	float thresholds[HAL_IMU_EVENT_COUNT];
	bool imu_fault;
	uint32_t steps;
	uint64_t motion_change_seq;
	/* Power. */
	float battery_percent;
	float current_ma;     /* a constant current the scenario set (world_energy.h: fixed) */
	bool external, charging;
	world_energy_t energy;
	/* Temperature: the ambient value over time and what the sensor last measured. */
	float temp_history[8];
	uint64_t temp_since[8];
	uint32_t temp_count;
	bool temp_fast;
	/* Clock. */
	bool utc_synced;

	/* Radios beyond BLE: GNSS (and the track the device follows), LTE, NFC, UWB. */
	world_gnss_t gnss;
	world_modem_t modem;
	world_nfc_t nfc;
	world_uwb_t uwb;

	/* The storage partition: made on first use (world_flash.c); it keeps its content across
	 * resets and power cuts, as flash does. */
	sim_flash_t *flash;
	uint8_t *flash_mem;
	hal_flash_t flash_area; /* the operations the runtime sees: the simulated flash's, where a
				 * power cut takes the device down */
	/* The flash the port keeps the storage in, when it has one of its own (the firmware on a
	 * test board): the simulated flash starts as its copy and writes go through to it, so the
	 * records outlive the process. NULL on the host. */
	const hal_flash_t *storage_backing;
	bool power_cut_pending;    /* the device loses power when it runs next (a scripted cut) */
	int flash_fault;           /* HAL_FLASH_E*: the next write or erase fails so (0: none) */
	/* Receptions the app's full event queue could not take: in all, and since the last boot. */
	uint64_t rx_lost;
	uint32_t rx_lost_since_boot;

	/* Faults. The reset record is what survives a reset (no-init RAM on the device). */
	rt_reset_record_t reset_record;
	bool hang_pending;  /* the next driver call hangs (a scripted fault) */
	bool crash_pending; /* the device faults when it runs next (a scripted fault) */
	uint32_t resets;
	uint32_t resets_by_cause[RT_RESET_CAUSE_COUNT];

	/* The cloud: the loopback cloud's state for this device (world_cloud.c, made on first use;
	 * it outlives resets, as a cloud does) and whether the scenario took the network away. */
	struct world_cloud *cloud;
	bool cloud_down;
	/* Its app store, when it takes apps deployed from the cloud (world_deploy.c; NULL: not). */
	struct world_deploy *deploy;
} world_device_t;

typedef struct world {
	world_io_t io;
	uint64_t now;          /* world time, ms since the world began */
	int64_t utc_at_start;  /* UTC ms at world time 0 */
	uint64_t until;        /* stop at this world time (WORLD_FOREVER: when nothing can happen) */
	bool verbose;

	world_device_t *devices;
	uint32_t device_count;
	world_device_t *current; /* the device whose code runs now, or NULL */

	/* Inputs by time, then order of arrival (world_queue.h). */
	world_queue_t queue;

	/* Devices by next_wake (a binary heap of device indices). */
	uint32_t *wake_heap;

	/* The air (world_air.c): scripted beacons, captured packets, the scanning devices in index
	 * order and by place (world_air_reach.c). Its draws (advDelay, RSSI noise) are keyed by the
	 * script's `seed` and what they are for (world_air_key_t). */
	world_beacon_t *beacons;
	uint32_t beacon_count, beacon_cap;
	world_capture_t *captures;
	uint32_t capture_count, capture_cap;
	uint32_t *scanners;
	uint32_t scanner_count;
	world_adv_set_t *air_sets;   /* WORLD_AIR_SETS per device, in device order */
	world_air_spot_t *air_spots; /* per device: where it is, for the air (world_air_moved) */
	world_air_index_t air_index;
	/* Every advertising set that is on has its next event scheduled (world_air_wake need not
	 * look), as long as someone listens. */
	bool air_all_awake;
	/* Tests: every advertising event visits every scanner, the reference the index must match. */
	bool air_exhaustive;
	/* The script's seed (default 1): the air's generator starts from it, and each device's
	 * hal_device_random (Math.random's seed) is drawn from it, the device and its boot. */
	uint64_t seed;
	uint64_t air_events, air_receptions;
	size_t air_pending; /* air events among the inputs */
	/* A real radio under the devices (world_air_use_radio), or NULL: the modeled air only. */
	const world_radio_t *radio;
	/* Devices that follow a GNSS track (their positions move with time): how many, and which. */
	uint32_t gnss_tracks;
	uint32_t *gnss_tracked;
	/* --energy: a record of each device's draw this often, ms (0: none). */
	uint32_t energy_period_ms;
	/* A receiver outside the world that takes the devices' fixes (world_gnss_use_wire). */
	world_gnss_wire_t gnss_wire;
	/* UWB ranging: the model (seed) and how often initiators poll. */
	rt_uwb_model_t uwb_model;
	uint32_t uwb_interval_ms;
	/* Which cloud the devices sync with (world_cloud_mode_t) and the host's transport. */
	uint8_t cloud_mode;
	const hal_cloud_transport_t *cloud_transport;
	/* Mixed into hal_cloud_entropy (world_cloud_use). */
	uint64_t cloud_seed;
	/* The packages the scenario deploys through the loopback cloud, and to whom (world_cloud_deploy.c). */
	struct world_cloud_deploys *cloud_deploys;

	/* Counters for the end-of-run summary. */
	uint64_t steps, inputs;
	/* Apps that could not start at their device's power-on after world_start (a start time):
	 * world_start counts those of the devices it boots itself. */
	uint32_t start_failed;
	/* Scratch for one trace record. */
	world_json_t json;

	/* While a device's code runs, a fault (world_fault) jumps back here; the world then resets
	 * that device instead of ending the process. */
	bool fault_armed;
	jmp_buf fault_jump;
	rt_reset_cause_t fault_cause;
	char fault_detail[RT_RESET_DETAIL_MAX];
	/* The engine instance selected when the fault came: the device's, or one being created. */
	eng_context_t *fault_engine;
} world_t;

/* Make a world of device_count devices (all with the default profile until configured).
 * Returns 0, or -1 when memory runs out. */
int world_init(world_t *world, uint32_t device_count, const world_io_t *io);
void world_free(world_t *world);

/* Configure device i before the world starts. */
void world_device_setup(world_t *world, uint32_t index, const char *name,
			const world_profile_t *profile);
/* Give device i its package (the buffer stays the host's and must outlive the run). */
void world_device_package(world_t *world, uint32_t index, const uint8_t *package, size_t len);

/* Queue an input (from a script or the host's control channel); one due before the world's
 * present is due now. Returns 0 or -1 (no memory). */
int world_add_event(world_t *world, const world_event_t *event);
/* Queue an input due at `at` (or now, if that is later) and return it for the caller to fill in
 * (device, kind, flags, value, text: zero until then); valid until the next input is queued or
 * taken. NULL when memory runs out. What world_add_event does without a copy of the input. */
world_event_t *world_new_event(world_t *world, uint64_t at);

/* Why world_run returned. */
typedef enum {
	WORLD_END_TIME_UP = 0, /* until was reached */
	WORLD_END_IDLE,        /* nothing is scheduled and no input is left */
	WORLD_END_STOPPED,     /* every device's app stopped, was removed or failed */
} world_end_t;

/* Give device index a new package and start it now (booting the device first if it never ran):
 * what an upload does. The buffer must outlive the run. Returns 0, or -1 with msg. */
/* The state of a device's app as SMP's status answer names it: running, failed or stopped. */
const char *world_app_state_name(const world_t *world, uint32_t index);
/* How many devices are alive: powered (the battery not empty) and their app running, not
 * stopped, failed or removed. What a long run's progress shows (the CLI's line, the studio's
 * readout); one pass over the devices, cheap at a display's refresh rate. */
uint32_t world_devices_alive(const world_t *world);

int world_install(world_t *world, uint32_t index, const uint8_t *package, size_t len, char *msg,
		  size_t msg_cap);

/* Boot every device that has a package and start its app; returns how many could not start. */
uint32_t world_start(world_t *world);
/* Run until world time `until` (ms) or until nothing can happen; may be called again with a
 * later time (a test or a control channel driving the world). Returns why it stopped. */
world_end_t world_run_until(world_t *world, uint64_t until);
/* A run given a time (--for) lasts it, even when world_run_until() found nothing more that can
 * happen (WORLD_END_IDLE: an app that only advertises, or waits for an input that never comes, is
 * still running when the time is up): the world's time passes to until, and the run ends as
 * timed out. The callers with a --for call it on IDLE (beacon-sim, the emulated image); a caller
 * that steps the world (the studio, the firmware's pacing) keeps IDLE as it is. */
world_end_t world_idle_until(world_t *world, uint64_t until);
/* The world time of the next thing scheduled (an input or a device's deadline), WORLD_FOREVER
 * when nothing is: how long a host driving the world in real time may sleep. */
uint64_t world_next_deadline(const world_t *world);
/* world_start, then world_run_until. */
world_end_t world_run(world_t *world, uint64_t until, uint32_t *failed);

/* The world device whose code runs now (the selected rt_device's). */
world_device_t *world_current(void);
/* Make device the current one (selects its runtime and engine). */
void world_select(world_t *world, world_device_t *device);

/* Mark a device due at the current world time (an input reached it). */
void world_wake(world_t *world, world_device_t *device);
/* Mark due every device that has events posted from outside the world (a real radio's
 * receptions, from its driver's thread): the host calls it on the world's thread. */
void world_wake_posted(world_t *world);
/* Give device `index` the identity of device `identity` of a larger scenario (see identity). */
void world_device_identity(world_t *world, uint32_t index, uint32_t identity);

/* A fault of the current device that a real device survives only by resetting (the engine out of
 * memory, the watchdog, a failed assertion): the simulated device resets (see rt_reset.h) and the
 * world goes on. Called from the device's code (through hal_device_fatal); does not return. */
void world_fault(rt_reset_cause_t cause, const char *detail) __attribute__((noreturn));

/* The battery of device d is empty: the device is off until external power comes (trace
 * "battery-empty", a log line). */
void world_device_battery_empty(world_t *world, world_device_t *d);
/* Device d's scheduled power-on (its start time) has come: it boots, and its app starts once
 * the inputs of this millisecond are applied (as world_start does at 0). */
void world_device_power_on(world_t *world, world_device_t *d);
/* External power came to a device whose battery is empty: it starts again. */
void world_device_power_restored(world_t *world, world_device_t *d);

/* Run device code outside the scheduler (a test driving a device): fault handling as in the
 * scheduler. Returns false when the device reset while fn ran (it has rebooted since). */
bool world_guarded(world_t *world, world_device_t *device, void (*fn)(void *), void *context);

/* What the host does when a fault comes while no device code is guarded (the package tool, which
 * has no world): end the process. Provided by the port. */
void world_port_fatal(const char *reason) __attribute__((noreturn));

/* The simulated flash of a device's storage partition (made if it does not exist yet). */
sim_flash_t *world_device_flash(world_device_t *device);
#define WORLD_FLASH_PAGE_SIZE 4096u
#define WORLD_FLASH_PAGES 64u /* 256 KB: see docs/storage.md */

/* Write the --verbose summary of a device's LED ring if it changed since the last one. */
void world_verbose_ring(world_t *world, world_device_t *device);

/* Device time (ms since its last boot) of the current device. */
uint64_t world_device_ms(const world_device_t *device);

#endif /* WORLD_H */

/*
 * The firmware's main on a board that has none of a beacon's parts (CONFIG_BEACON_SIMULATED_WORLD:
 * nrf52_bsim, mps2/an521 under QEMU). Zephyr boots as on a device; the device's buttons, LEDs,
 * sensors, GNSS, modem, NFC and UWB are the simulated world's models (src/world), driven by a
 * scenario, and the world's time is paced by the kernel's clock: before the world moves to its
 * next moment the JavaScript thread sleeps in k_sleep() until the kernel's uptime reaches it. So
 * a run on the board prints what `beacon run` prints on the host, byte for byte, while the
 * kernel, its timers and interrupts, the C library, the engine build and the flash underneath are
 * the firmware's own.
 *
 * The run's options come from the host (host_link.h), as beacon-sim's:
 *
 *   [--for MS] [--utc MS | --no-utc] [--world SCRIPT] [--trace FILE] [--stdout FILE]
 *   [--stderr FILE] [--verbose] [--heap BYTES] [--cloud loopback|none|mqtt[s]://HOST:PORT]
 *   [--cloud-secret S] [--cloud-ca PEM] [--power-cut-after N] [--storage model|board] [--listen] [--air model|radio] [--play N]
 *   [--tag NAME] [--deploy PKG.bapp]... [app.bapp]
 *
 * A package given is installed through the device's app store (checked, written to the staging
 * slot, switched: rt_app_store.h), as an upload is, and runs from flash; without one the device
 * runs what the store holds, as at a boot. The storage records are the world's model of flash
 * (its scripted power cuts and faults included), as on the simulator; with --storage board they
 * also go through to the board's storage partition, and the model starts as its copy. With the
 * board's flash kept in a file (nrf52_bsim's -flash=FILE), the app store and such storage outlive
 * the process, and --power-cut-after N ends it, as a cut power would, just before the store's Nth
 * flash write or erase: the test of a switch cut at each of its writes. (The board's flash takes
 * its real time on nrf52_bsim, 85 ms a page erase, so board storage is for the tests that need
 * records to outlive the process.)
 *
 * The air: the world's model (--air model, the default: the scenario's beacons and captures, as
 * on the simulator), or the model and the board's own BLE radio (--air radio, nrf52_bsim): the
 * app's advertising sets and its scanner then also go on BabbleSim's air, with the scenario
 * device's address and name, so that other firmwares hear the app and the app hears them. With
 * --play N the firmware is device N of a scenario of several devices, each played by a firmware
 * of its own on one air: the other devices' statements are left out (world_script_load_device),
 * and each line the app prints or logs starts with "@<world ms> [<device>] ", so that the host
 * merges the firmwares' outputs in the order of world time (bindings-ts/src/firmware/bsimWorld.ts).
 * With --tag NAME the firmware runs no app: it plays the scenario's beacon NAME on its radio
 * until --for (world_tag_zephyr.h), so that the scenario's tags are radios on the air too.
 *
 * Uploads: on a board with MCUmgr (nrf52_bsim: SMP over Bluetooth, smp_zephyr.c), the device
 * takes packages while it runs, as a device does; an install switches the world's device to the
 * new package. With --listen the run goes on until --for even when the app ends or there is none
 * yet, so that an upload can come. On the scenario's air (--air radio) the upload service is
 * advertised only with --listen.
 *
 * print() goes to the host's stdout (or --stdout FILE), the runtime's messages to its stderr (or
 * --stderr FILE), the trace to --trace FILE. After the run the firmware adds its figures on
 * stderr (`[beacon figure] name: value unit`), then ends the simulation with beacon-sim's exit
 * status: 0 run ended, 1 the package was refused or the app failed to start, 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "engine.h"
#include "hal_flash_zephyr.h"
#include "host_link.h"
#include "world.h"
#include "world_cloud.h"
#include "world_script.h"
#include "world_tag_zephyr.h"
#include "world_zephyr.h"
#if defined(CONFIG_MQTT_LIB)
#include "world_cloud_zephyr.h"
#endif

#define USAGE                                                                                      \
	"options: [--for MS] [--utc MS | --no-utc] [--world SCRIPT] [--trace FILE] "              \
	"[--stdout FILE] [--stderr FILE] [--verbose] [--heap BYTES] "                               \
	"[--cloud loopback|none|mqtt[s]://HOST:PORT] [--cloud-secret S] [--cloud-ca PEM] "          \
	"[--power-cut-after N] [--storage model|board] [--listen] [--air model|radio] [--play N] "     \
	"[--tag NAME] [--deploy PKG.bapp]... [app.bapp]"

/* Without --utc the world starts at this UTC, 2026-01-01T00:00:00Z (the host's tools always
 * pass the host's clock). */
#define DEFAULT_UTC_MS 1767225600000LL
#define MAX_ARGS 64
/* --deploy: the packages the scenario's cloud-deploy lines name, numbered from 0 (as beacon-sim). */
#define MAX_DEPLOYS 16

typedef struct {
	uint64_t for_ms;
	bool synced, verbose;
	uint64_t heap;
	int64_t utc;
	bool utc_given;
	const char *world_path, *trace_path, *stdout_path, *stderr_path, *package, *tag;
	int cloud; /* world_cloud_mode_t */
	const char *cloud_url, *cloud_secret, *cloud_ca; /* a real cloud (world_cloud_zephyr.h) */
	uint64_t cut_after;
	bool board_storage;
	bool listen;
	bool radio;
	int64_t play; /* the scenario's device this firmware is, -1: the scenario's only one */
	const char *deploys[MAX_DEPLOYS];
	int deploy_count;
} options_t;

typedef struct {
	long out, err, trace;
	uint64_t first_line; /* instructions at the app's first printed line, 0: none yet */
	bool printed;
} run_io_t;

static run_io_t rio = {.out = -1, .err = -1, .trace = -1};
static world_t world;
static bool playing; /* --play: lines carry their world time (and device, of several) */
static bool played_several; /* --play of a scenario of several devices */
/* Instructions at the boot's stages (instructions.boot.* figures, where they are counted). */
static struct {
	uint64_t kernel, install;
} boot_at;
/* --play: the kernel uptime at which the scenario's time is up. BabbleSim ends the simulation
 * for every device when one leaves, so a firmware whose device has nothing more to do stays on
 * the air, idle, until then: the other devices may still be hearing or pressing it. */
static int64_t play_end_uptime;

static void out_text(long file, const char *text, size_t len)
{
	if (file >= 0 && len > 0) {
		(void)host_link_write(file, text, len);
	}
}

static void err_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err_printf(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0) {
		out_text(rio.err, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

static int usage(const char *why)
{
	err_printf("beacon firmware: %s\n" USAGE "\n", why);
	return 2;
}

/* The command line split at spaces, in place. */
static int split(char *line, char **argv, int cap)
{
	int argc = 0;

	for (char *p = strtok(line, " \t\n"); p != NULL && argc < cap; p = strtok(NULL, " \t\n")) {
		argv[argc++] = p;
	}
	return argc;
}

static int parse_options(int argc, char **argv, options_t *o)
{
	o->for_ms = UINT64_MAX;
	o->synced = true;
	o->utc = DEFAULT_UTC_MS;
	o->play = -1;
	for (int i = 0; i < argc; i++) {
		uint64_t v;
		const char *a = argv[i];
		bool has_value = i + 1 < argc;

		if (strcmp(a, "--for") == 0 && has_value) {
			if (!world_script_parse_u64(argv[++i], &o->for_ms)) {
				return usage("--for takes milliseconds");
			}
		} else if (strcmp(a, "--utc") == 0 && has_value) {
			if (!world_script_parse_u64(argv[++i], &v)) {
				return usage("--utc takes milliseconds since 1970");
			}
			o->utc = (int64_t)v;
			o->utc_given = true;
		} else if (strcmp(a, "--no-utc") == 0) {
			o->synced = false;
		} else if (strcmp(a, "--listen") == 0) {
			o->listen = true;
		} else if (strcmp(a, "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(a, "--heap") == 0 && has_value) {
			if (!world_script_parse_u64(argv[++i], &o->heap) || o->heap < 16384 || o->heap > 524288) {
				return usage("--heap takes bytes from 16384 to 524288");
			}
		} else if (strcmp(a, "--world") == 0 && has_value) {
			o->world_path = argv[++i];
		} else if (strcmp(a, "--trace") == 0 && has_value) {
			o->trace_path = argv[++i];
		} else if (strcmp(a, "--stdout") == 0 && has_value) {
			o->stdout_path = argv[++i];
		} else if (strcmp(a, "--stderr") == 0 && has_value) {
			o->stderr_path = argv[++i];
		} else if (strcmp(a, "--cloud") == 0 && has_value) {
			const char *mode = argv[++i];

			if (strcmp(mode, "loopback") == 0) {
				o->cloud = WORLD_CLOUD_LOOPBACK;
			} else if (strcmp(mode, "none") == 0) {
				o->cloud = WORLD_CLOUD_NONE;
			} else if (IS_ENABLED(CONFIG_MQTT_LIB) && strncmp(mode, "mqtt", 4) == 0) {
				o->cloud_url = mode;
			} else {
				return usage(IS_ENABLED(CONFIG_MQTT_LIB)
						     ? "--cloud takes loopback, none or mqtt[s]://HOST:PORT"
						     : "--cloud takes loopback or none (the board has no network "
						       "for mqtt://)");
			}
		} else if (strcmp(a, "--cloud-secret") == 0 && has_value) {
			o->cloud_secret = argv[++i];
		} else if (strcmp(a, "--cloud-ca") == 0 && has_value) {
			o->cloud_ca = argv[++i];
		} else if (strcmp(a, "--storage") == 0 && has_value) {
			const char *where = argv[++i];

			if (strcmp(where, "board") == 0 || strcmp(where, "model") == 0) {
				o->board_storage = where[0] == 'b';
			} else {
				return usage("--storage takes model or board");
			}
		} else if (strcmp(a, "--air") == 0 && has_value) {
			o->radio = strcmp(argv[++i], "radio") == 0;
			if (!o->radio && strcmp(argv[i], "model") != 0) {
				return usage("--air takes model or radio");
			}
		} else if (strcmp(a, "--play") == 0 && has_value) {
			if (!world_script_parse_u64(argv[++i], &v) || v > 255) {
				return usage("--play takes a device index of the scenario");
			}
			o->play = (int64_t)v;
		} else if (strcmp(a, "--tag") == 0 && has_value) {
			o->tag = argv[++i];
		} else if (strcmp(a, "--deploy") == 0 && has_value) {
			if (o->deploy_count == MAX_DEPLOYS) {
				return usage("at most 16 --deploy packages");
			}
			o->deploys[o->deploy_count++] = argv[++i];
		} else if (strcmp(a, "--power-cut-after") == 0 && has_value) {
			if (!world_script_parse_u64(argv[++i], &o->cut_after) || o->cut_after == 0) {
				return usage("--power-cut-after takes a count from 1");
			}
		} else if (a[0] == '-') {
			return usage("unknown option");
		} else if (o->package == NULL) {
			o->package = a;
		} else {
			return usage("one package only: the board is one device");
		}
	}
	return 0;
}

static void print_line(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	ARG_UNUSED(ctx);
	if (!rio.printed) {
		rio.printed = true;
		rio.first_line = world_zephyr_busy_instructions();
	}
	if (several || playing) {
		char prefix[WORLD_NAME_MAX + 32];
		int n = !playing ? snprintf(prefix, sizeof(prefix), "[%s] ", device)
			: played_several ? snprintf(prefix, sizeof(prefix), "@%llu [%s] ",
						    (unsigned long long)world.now, device)
					 : snprintf(prefix, sizeof(prefix), "@%llu ",
						    (unsigned long long)world.now);

		out_text(rio.out, prefix, (size_t)n);
	}
	out_text(rio.out, text, len);
	out_text(rio.out, "\n", 1);
}

static void log_line(void *ctx, const char *device, bool several, hal_log_level_t level,
		     const char *text)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};

	ARG_UNUSED(ctx);
	if (playing) {
		err_printf("@%llu [beacon %s] %s%s%s\n", (unsigned long long)world.now,
			   names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG],
			   played_several ? device : "", played_several ? ": " : "", text);
		return;
	}
	err_printf("[beacon %s] %s%s%s\n", names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG],
		   several ? device : "", several ? ": " : "", text);
}

static void trace_line(void *ctx, const char *json, size_t len)
{
	ARG_UNUSED(ctx);
	out_text(rio.trace, json, len);
	out_text(rio.trace, "\n", 1);
}

static void verbose_line(void *ctx, const char *text)
{
	ARG_UNUSED(ctx);
	err_printf("%s\n", text);
}

static void figure(const char *name, unsigned long long value, const char *unit)
{
	err_printf("[beacon figure] %s: %llu %s\n", name, value, unit);
}

static long open_output(const char *path, long fallback, const char *what)
{
	if (path == NULL) {
		return fallback;
	}
	long f = host_link_open(path, true);

	if (f < 0) {
		err_printf("beacon firmware: cannot write %s (%s)\n", path, what);
	}
	return f;
}

static int run(void)
{
	static char line[1024];
	char *argv[MAX_ARGS];
	options_t o;

	rio.err = host_link_stderr();
	rio.out = host_link_stdout();
	strncpy(line, host_link_cmdline(), sizeof(line) - 1);
	memset(&o, 0, sizeof(o));
	int rc = parse_options(split(line, argv, MAX_ARGS), argv, &o);

	if (rc != 0) {
		return rc;
	}
	rio.out = open_output(o.stdout_path, rio.out, "--stdout");
	rio.err = open_output(o.stderr_path, rio.err, "--stderr");
	if (o.trace_path != NULL) {
		rio.trace = open_output(o.trace_path, -1, "--trace");
		if (rio.trace < 0) {
			return 2;
		}
	}

	char *script = NULL;
	size_t script_len = 0;

	if (o.world_path != NULL) {
		script = (char *)host_link_read_file(o.world_path, &script_len);
		if (script == NULL) {
			err_printf("beacon firmware: cannot read %s\n", o.world_path);
			return 2;
		}
		if (o.tag != NULL) {
			char why[160];

			return world_tag_play(script, script_len, o.tag, o.for_ms, why, sizeof(why)) == 0
				       ? 0
				       : usage(why);
		}
		if (world_script_device_count(script, script_len) > 1 && o.play < 0) {
			err_printf("beacon firmware: the world has %u devices; the board is one (--play "
				   "N makes it device N, beside firmwares playing the others)\n",
				   (unsigned)world_script_device_count(script, script_len));
			return 2;
		}
	} else if (o.play > 0 || o.tag != NULL) {
		return usage("--play and --tag take a scenario (--world)");
	}
	if (o.play >= 0 && o.for_ms == UINT64_MAX) {
		return usage("--play needs --for: the firmwares of a scenario leave the air together");
	}

	const uint8_t *package = NULL;
	size_t package_len = 0;
	char msg[200] = "";

	world_zephyr_cut_after(o.cut_after, rio.err);
	boot_at.kernel = world_zephyr_busy_instructions();
	if (o.package != NULL) {
		uint8_t *bytes = host_link_read_file(o.package, &package_len);

		if (bytes == NULL) {
			err_printf("beacon firmware: cannot read %s\n", o.package);
			return 1;
		}
		rc = world_zephyr_install(bytes, package_len, &package, &package_len, msg, sizeof(msg));
		free(bytes);
		if (rc != 0) {
			err_printf("beacon firmware: %s: %s\n", o.package, msg);
			return 1;
		}
	} else if (world_zephyr_boot_package(&package, &package_len, msg, sizeof(msg)) != 0) {
		if (!o.listen) {
			err_printf("beacon firmware: %s\n", msg);
			return 1;
		}
		err_printf("[beacon info] %s: waiting for an upload\n", msg);
		package = NULL;
	} else if (msg[0] != '\0') {
		/* A newer install was refused at boot; the one before it runs. */
		err_printf("[beacon warning] the newest installed app was refused: %s\n", msg);
	}

	world_io_t io = {
		.ctx = &rio,
		.print = print_line,
		.log = log_line,
		.trace = rio.trace >= 0 ? trace_line : NULL,
		.verbose = o.verbose ? verbose_line : NULL,
		.wait_until = NULL, /* run() paces the world by the kernel's clock */
	};
	if (world_init(&world, 1, &io) != 0) {
		err_printf("beacon firmware: out of memory\n");
		return 1;
	}
	world.utc_at_start = o.utc;
	world.devices[0].utc_synced = o.synced;
	world.verbose = o.verbose;
	world_cloud_set_mode(&world, (world_cloud_mode_t)o.cloud);
#if defined(CONFIG_MQTT_LIB)
	if (o.cloud_url != NULL) {
		char why[160];

		if (world_cloud_zephyr_use(&world, o.cloud_url, o.cloud_secret, o.cloud_ca, why,
					   sizeof(why)) != 0) {
			return usage(why);
		}
	}
#endif
	if (o.deploy_count > 0) {
		char why[200];

		if (world_zephyr_load_deploys(&world, o.deploys, o.deploy_count, why, sizeof(why)) != 0) {
			err_printf("beacon firmware: --deploy: %s\n", why);
			return 2;
		}
	}
	if (script != NULL) {
		char err[256];

		int loaded = o.play >= 0 ? world_script_load_device(&world, script, script_len,
								      (uint32_t)o.play, err, sizeof(err))
					 : world_script_load(&world, script, script_len, err, sizeof(err));

		if (loaded != 0) {
			err_printf("beacon firmware: %s: %s\n", o.world_path, err);
			return 2;
		}
		if (o.utc_given) {
			world.utc_at_start = o.utc;
		}
		if (!o.synced) {
			world.devices[0].utc_synced = false;
		}
	}
	if (o.heap != 0) {
		world.devices[0].rt.engine_config.heap_size = (size_t)o.heap;
	}
	if (o.board_storage) {
		/* The model mirrors into the partition page for page: one of another size would be
		 * dropped, and the records would not outlive the process. */
		const hal_flash_t *part = hal_flash_zephyr_storage();

		if (part == NULL || part->page_size != WORLD_FLASH_PAGE_SIZE ||
		    part->page_count != WORLD_FLASH_PAGES) {
			err_printf("beacon firmware: --storage board: the board's storage partition is not "
				   "the world's %u pages of %u bytes\n",
				   WORLD_FLASH_PAGES, WORLD_FLASH_PAGE_SIZE);
			return 2;
		}
		world.devices[0].storage_backing = part;
	}
	playing = o.play >= 0;
	played_several = playing && script != NULL && world_script_device_count(script, script_len) > 1;
	if (o.radio && !world_zephyr_use_radio(&world)) {
		err_printf("beacon firmware: --air radio: this board has no BLE radio to use\n");
		return 2;
	}
	world_zephyr_use_gnss_receiver(&world);
	world_device_package(&world, 0, package, package_len);
	/* On the scenario's air (--air radio) the upload service is offered only when an upload is
	 * awaited (--listen): the simulator's air model has no such advertisement, and scanning apps
	 * on the firmwares would hear each other's (docs/world.md, "The air"). */
	world_zephyr_uploads(&world, !o.radio || o.listen);

	play_end_uptime = k_uptime_get() + (int64_t)(o.play >= 0 ? o.for_ms : 0);
	boot_at.install = world_zephyr_busy_instructions();
	uint32_t failed = world_start(&world);

	if (failed > 0 && world.devices[0].failure[0]) {
		err_printf("beacon firmware: %s: %s\n", o.package != NULL ? o.package : "the installed app",
			   world.devices[0].failure);
	}
	/* A device of a scenario of several firmwares runs until the scenario's time is up, as with
	 * --listen: with nothing of its own left to do, its advertisers still reach the others. */
	world_end_t end = world_zephyr_run(&world, o.for_ms, o.listen || playing);
	uint64_t run_end = world_zephyr_busy_instructions();
	const char *ending = end == WORLD_END_TIME_UP ? "the time given ran out"
			     : end == WORLD_END_IDLE  ? "nothing more can happen"
			     : failed > 0             ? "the app could not run"
						      : "the app stopped";
	const world_device_t *d = &world.devices[0];

	if (d->resets > 0) {
		char causes[160];

		world_zephyr_reset_causes(d, causes, sizeof(causes));
		err_printf("[beacon info] reset %u time%s (%s)%s\n", (unsigned)d->resets,
			   d->resets == 1 ? "" : "s", causes,
			   d->reset_record.app_stopped ? "; the reboot-loop guard stopped the app" : "");
	}
	err_printf("[beacon info] run ended (%s) after %llu.%03llu s of device time\n", ending,
		   (unsigned long long)(world.now / 1000u), (unsigned long long)(world.now % 1000u));

	eng_mem_stats_t mem = {0};

	if (d->rt.engine != NULL) {
		world_select(&world, &world.devices[0]);
		eng_mem_stats(&mem);
	}
	if (world_zephyr_counts_instructions()) {
		/* Where the boot goes: Zephyr's start to main() and the options; the package installed
		 * through the app store (or the installed one checked) and the world set up; the engine
		 * started, the API installed and the package run to its first line. */
		figure("instructions.boot.kernel", boot_at.kernel, "instructions");
		figure("instructions.boot.install", boot_at.install - boot_at.kernel, "instructions");
		if (rio.first_line >= boot_at.install) {
			figure("instructions.boot.engine_to_first_line", rio.first_line - boot_at.install,
			       "instructions");
		}
		figure("instructions.first_line", rio.first_line, "instructions");
		figure("instructions.run", run_end, "instructions");
	}
	figure("js_heap.peak", mem.peak, "bytes");
	figure("js_heap.total", mem.total, "bytes");
	size_t stack_used, stack_size;

	if (world_zephyr_stack(&stack_used, &stack_size)) {
		figure("stack.peak", stack_used, "bytes");
		figure("stack.size", stack_size, "bytes");
	}
	if (world_zephyr_untraced_receptions() > 0) {
		err_printf("[beacon info] %u radio receptions are missing from the trace (its queue was "
			   "full)\n",
			   (unsigned)world_zephyr_untraced_receptions());
	}
	if (o.cut_after != 0) {
		/* Asked to cut and never did: how many writes there were to cut at. */
		err_printf("[beacon info] the app store made %llu flash operations\n",
			   (unsigned long long)world_zephyr_store_flash_ops());
	}
	/* The app's teardown belongs to the run's trace, as on the simulator. */
	world_free(&world);
	if (rio.trace >= 0) {
		host_link_close(rio.trace);
	}
	return failed > 0 ? 1 : 0;
}

int main(void)
{
	int status = run();

	if (playing) {
		int64_t left = play_end_uptime - k_uptime_get();

		if (left > 0) {
			k_sleep(K_MSEC(left));
		}
	}
	host_link_exit(status);
}

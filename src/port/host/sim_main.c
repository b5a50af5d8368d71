/*
 * beacon-sim: runs app packages on simulated devices in a simulated world.
 *
 *   beacon-sim [--for MS] [--realtime] [--utc MS | --no-utc] [--trust KEY.pub]...
 *              [--world SCRIPT] [--trace FILE] [--energy FILE] [--verbose] [--heap BYTES] [--flash DIR]
 *              app.bapp...
 *
 * Without --world, each package runs on a device of the default profile (d0, d1, ...). With a
 * world script (see world_script.h; `beacon run --world` writes it from a scenario), the packages
 * go to its devices in order; one package for several devices gives it to all of them.
 *
 * --flash keeps each device's storage partition in DIR/<device>.flash between runs: loaded before
 * the devices boot, written back when the run ends. Without it every run starts with erased flash.
 *
 * --trust makes every device trust that signing key (repeatable): it then runs only packages
 * signed with a trusted key (see rt_signature.h).
 *
 * `beacon-sim --listen ...` is the long-lived device that takes apps over SMP: see sim_listen.h.
 *
 * print() goes to stdout, the runtime's own messages to stderr, the trace (--trace) to a file of
 * JSON lines. Exit status: 0 when the run ended normally (time up, apps stopped, nothing left to
 * happen), 1 when a package was refused or an app failed while starting, 2 for a usage error.
 */
#include <errno.h>
#include <malloc.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file_util.h"
#include "hal_cloud_mosquitto.h"
#include "host_io.h"
#include "host_memory.h"
#include "key_file.h"
#include "rt_signature.h"
#include "sim_flash_file.h"
#include "sim_listen.h"
#include "world.h"
#include "world_cloud.h"
#include "world_cloud_deploy.h"
#include "world_deploy.h"
#include "world_script.h"

#define USAGE "usage: beacon-sim [--for MS] [--realtime] [--utc MS | --no-utc] [--trust KEY.pub]... " \
	      "[--world SCRIPT] [--trace FILE] [--energy FILE] [--verbose] [--heap BYTES] [--flash DIR] " \
	      "[--cloud loopback|none|mqtt://HOST:PORT [--cloud-secret S]] [--memory-limit MB] " \
	      "[--deploy PKG.bapp]... [--progress-fd FD | --no-progress] app.bapp..."

static int usage(const char *why)
{
	fprintf(stderr, "beacon-sim: %s\n" USAGE "\n", why);
	return 2;
}

typedef struct {
	uint64_t for_ms;
	int cloud; /* world_cloud_mode_t */
	const char *cloud_url;    /* mqtt://HOST:PORT: a real broker */
	const char *cloud_secret; /* the devices' password there */
	bool realtime, synced, verbose, utc_given;
	uint64_t heap; /* 0: each device's own (its profile's, or the world script's) */
	uint64_t memory_limit; /* bytes the world may take (0: what the machine has) */
	int progress_fd;       /* -1: a line on stderr when it is a terminal; -2: none */
	int64_t utc;
	const char *world_path, *trace_path, *energy_path, *flash_dir;
	const char **packages; /* one for every device, or one for all (grown as the arguments come) */
	/* --deploy: the packages the world script's cloud-deploy lines name, numbered from 0. */
	const char *deploys[16];
	int deploy_count;
	int package_count, package_cap;
} options_t;

/* DIR/<device>.flash */
static void flash_path(char *out, size_t cap, const char *dir, const world_device_t *d)
{
	snprintf(out, cap, "%s/%s.flash", dir, d->name);
}

/* Give each device the flash it had at the end of the last run with this directory. */
static int flash_load_all(world_t *w, const char *dir)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "beacon-sim: --flash: cannot make %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < w->device_count; i++) {
		world_device_t *d = &w->devices[i];
		char path[4096], msg[256];
		flash_path(path, sizeof(path), dir, d);
		if (world_device_flash(d) == NULL) {
			fprintf(stderr, "beacon-sim: out of memory\n");
			return -1;
		}
		if (sim_flash_load(d->flash, path, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
			return -1;
		}
	}
	return 0;
}

static int flash_save_all(world_t *w, const char *dir)
{
	int rc = 0;
	for (uint32_t i = 0; i < w->device_count; i++) {
		world_device_t *d = &w->devices[i];
		char path[4096], msg[256];
		flash_path(path, sizeof(path), dir, d);
		if (d->flash != NULL && sim_flash_save(d->flash, path, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
			rc = -1;
		}
	}
	return rc;
}

static int parse_options(int argc, char **argv, options_t *o)
{
	o->for_ms = UINT64_MAX;
	o->synced = true;
	o->progress_fd = -1;
	o->utc = (int64_t)time(NULL) * 1000;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		if (strcmp(argv[i], "--for") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &o->for_ms)) {
				return usage("--for takes milliseconds");
			}
		} else if (strcmp(argv[i], "--utc") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &v)) {
				return usage("--utc takes milliseconds since 1970");
			}
			o->utc = (int64_t)v;
			o->utc_given = true;
		} else if (strcmp(argv[i], "--no-utc") == 0) {
			o->synced = false;
		} else if (strcmp(argv[i], "--realtime") == 0) {
			o->realtime = true;
		} else if (strcmp(argv[i], "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(argv[i], "--heap") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &o->heap) || o->heap < 16384 || o->heap > 524288) {
				return usage("--heap takes bytes from 16384 to 524288");
			}
		} else if (strcmp(argv[i], "--memory-limit") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &v) || v == 0 || v > UINT64_MAX / (1024u * 1024u)) {
				return usage("--memory-limit takes megabytes");
			}
			o->memory_limit = v * 1024u * 1024u;
		} else if (strcmp(argv[i], "--progress-fd") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &v) || v > 1024) {
				return usage("--progress-fd takes a file descriptor");
			}
			o->progress_fd = (int)v;
		} else if (strcmp(argv[i], "--no-progress") == 0) {
			o->progress_fd = -2;
		} else if (strcmp(argv[i], "--world") == 0 && i + 1 < argc) {
			o->world_path = argv[++i];
		} else if (strcmp(argv[i], "--flash") == 0 && i + 1 < argc) {
			o->flash_dir = argv[++i];
		} else if (strcmp(argv[i], "--cloud") == 0 && i + 1 < argc) {
			/* loopback: the world's own cloud (the default); none: no network, every
			 * sync fails. */
			const char *mode = argv[++i];
			if (strncmp(mode, "mqtt://", 7) == 0) {
				o->cloud = WORLD_CLOUD_HOST;
				o->cloud_url = mode;
			} else if (strcmp(mode, "loopback") == 0) {
				o->cloud = WORLD_CLOUD_LOOPBACK;
			} else if (strcmp(mode, "none") == 0) {
				o->cloud = WORLD_CLOUD_NONE;
			} else {
				return usage("--cloud takes loopback, none or mqtt://HOST:PORT");
			}
		} else if (strcmp(argv[i], "--deploy") == 0 && i + 1 < argc) {
			if (o->deploy_count == (int)(sizeof(o->deploys) / sizeof(o->deploys[0]))) {
				return usage("at most 16 --deploy packages");
			}
			o->deploys[o->deploy_count++] = argv[++i];
		} else if (strcmp(argv[i], "--cloud-secret") == 0 && i + 1 < argc) {
			o->cloud_secret = argv[++i];
		} else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
			o->trace_path = argv[++i];
		} else if (strcmp(argv[i], "--energy") == 0 && i + 1 < argc) {
			o->energy_path = argv[++i];
		} else if (strcmp(argv[i], "--trust") == 0 && i + 1 < argc) {
			uint8_t key[RT_SIGNATURE_KEY_SIZE];
			char why[256];
			if (key_file_read_p256_public(argv[++i], key, why, sizeof(why)) != 0) {
				fprintf(stderr, "beacon-sim: --trust: %s\n", why);
				return 2;
			}
			if (rt_signature_trust(key) != 0) {
				return usage("too many --trust keys");
			}
		} else if (argv[i][0] == '-') {
			return usage("unknown option");
		} else {
			if (o->package_count == o->package_cap) {
				int cap = o->package_cap ? 2 * o->package_cap : 16;
				const char **grown = realloc(o->packages, (size_t)cap * sizeof(*grown));
				if (grown == NULL) {
					return usage("out of memory for the packages");
				}
				o->packages = grown;
				o->package_cap = cap;
			}
			o->packages[o->package_count++] = argv[i];
		}
	}
	if (o->package_count == 0) {
		return usage("no package given");
	}
	return 0;
}

/* Worlds of at least this many devices end with what the run cost (always with --verbose). */
#define FLEET_SUMMARY_DEVICES 100u

/* What a fleet cost: the process's memory at its peak, per device and how much of that the JS
 * heaps hold now, and what went over the air. */
static void fleet_summary(world_t *w)
{
	uint64_t peak = host_memory_peak_rss(), heaps = host_memory_js_heaps(w);
	uint32_t n = w->device_count;
	fprintf(stderr,
		"[beacon info] memory: %llu MB at the peak, %llu KB a device (its JS heap %llu KB of "
		"it); air: %llu advertising events, %llu receptions\n",
		(unsigned long long)(peak >> 20), (unsigned long long)(peak / n >> 10),
		(unsigned long long)(heaps / n >> 10), (unsigned long long)w->air_events,
		(unsigned long long)w->air_receptions);
}

int main(int argc, char **argv)
{
	/* Devices keep UTC and apps see UTC as local time (engine.h's ports; JerryScript's
	 * jerry_port_local_tza says 0). Duktape asks the C library, which would follow the host's
	 * TZ: new Date(2024, 0, 1) and getHours() would depend on the machine running the world. */
	setenv("TZ", "UTC0", 1);
	tzset();
#ifdef __GLIBC__
	/* A JerryScript device's heap is one block of 96 KB or more: from mmap, the kernel maps
	 * its pages as they are touched, where the C library's heap would have calloc write every
	 * byte. An idle device then holds only the pages its heap uses (bench/fleet-memory.sh). */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
	if (argc > 1 && strcmp(argv[1], "--listen") == 0) {
		return sim_listen_main(argc, argv);
	}
	options_t o;
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc != 0) {
		return rc;
	}

	char *script = NULL;
	size_t script_len = 0;
	uint32_t devices = (uint32_t)o.package_count;
	if (o.world_path != NULL) {
		script = (char *)file_read(o.world_path, &script_len);
		if (script == NULL) {
			fprintf(stderr, "beacon-sim: cannot read %s: %s\n", o.world_path, strerror(errno));
			return 2;
		}
		devices = world_script_device_count(script, script_len);
		if (devices == 0) {
			devices = 1;
		}
		if (o.package_count != 1 && (uint32_t)o.package_count != devices) {
			fprintf(stderr, "beacon-sim: the world has %u devices but %d packages were given\n",
				(unsigned)devices, o.package_count);
			free(script);
			return 2;
		}
	}

	uint8_t **packages = calloc((size_t)o.package_count, sizeof(uint8_t *));
	size_t *lengths = calloc((size_t)o.package_count, sizeof(size_t));
	if (packages == NULL || lengths == NULL) {
		fprintf(stderr, "beacon-sim: out of memory\n");
		return 1;
	}
	/* A package that several devices run is read once and shared (the world keeps a pointer to
	 * the host's buffer): a fleet of thousands runs a handful of apps. */
	bool *owned = calloc((size_t)o.package_count, sizeof(bool));
	if (owned == NULL) {
		fprintf(stderr, "beacon-sim: out of memory\n");
		return 1;
	}
	for (int i = 0; i < o.package_count; i++) {
		for (int j = 0; j < i && packages[i] == NULL; j++) {
			if (strcmp(o.packages[j], o.packages[i]) == 0) {
				packages[i] = packages[j];
				lengths[i] = lengths[j];
			}
		}
		if (packages[i] != NULL) {
			continue;
		}
		packages[i] = file_read(o.packages[i], &lengths[i]);
		owned[i] = packages[i] != NULL;
		if (packages[i] == NULL) {
			fprintf(stderr, "beacon-sim: cannot read %s: %s\n", o.packages[i], strerror(errno));
			return 1;
		}
	}

	host_io_t host = {0};
	host.realtime = o.realtime;
	if (o.trace_path != NULL) {
		host.trace = fopen(o.trace_path, "w");
		if (host.trace == NULL) {
			fprintf(stderr, "beacon-sim: cannot write %s: %s\n", o.trace_path, strerror(errno));
			return 2;
		}
	}
	if (o.energy_path != NULL) {
		host.energy = fopen(o.energy_path, "w");
		if (host.energy == NULL) {
			fprintf(stderr, "beacon-sim: cannot write %s: %s\n", o.energy_path, strerror(errno));
			return 2;
		}
	}
	world_io_t io;
	host_io_setup(&host, &io, o.verbose, o.progress_fd);
	static world_t world;
	if (world_init(&world, devices, &io) != 0) {
		fprintf(stderr, "beacon-sim: out of memory\n");
		return 1;
	}
	host.world = &world;
	/* --energy: each device's draw a minute, and its summary at the end (docs/world.md). */
	world_energy_records(&world, o.energy_path != NULL ? 60000u : 0u);
	world.utc_at_start = o.utc;
	world_cloud_set_mode(&world, (world_cloud_mode_t)o.cloud);
	if (o.cloud_url != NULL) {
		char why[200];
		const hal_cloud_transport_t *t = hal_cloud_mosquitto(o.cloud_url, o.cloud_secret, why,
								     sizeof(why));
		if (t == NULL) {
			fprintf(stderr, "beacon-sim: --cloud: %s\n", why);
			return 2;
		}
		/* A new stream id for every run whose flash starts erased (world_cloud.h): the
		 * kernel's generator (getrandom(2)). */
		uint64_t seed = 0;
		if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
			fprintf(stderr, "beacon-sim: --cloud: no random generator\n");
			return 2;
		}
		world_cloud_use(&world, t, seed);
	}
	for (uint32_t i = 0; i < devices; i++) {
		world.devices[i].utc_synced = o.synced;
	}
	/* The packages the loopback cloud may deploy, before the script that names them. */
	for (int i = 0; i < o.deploy_count; i++) {
		size_t len;
		char why[160];
		uint8_t *bytes = file_read(o.deploys[i], &len);
		if (bytes == NULL) {
			fprintf(stderr, "beacon-sim: --deploy: cannot read %s: %s\n", o.deploys[i], strerror(errno));
			return 2;
		}
		int k = world_cloud_deploy_package(&world, bytes, len, why, sizeof(why));
		free(bytes);
		if (k < 0) {
			fprintf(stderr, "beacon-sim: --deploy: %s: %s\n", o.deploys[i], why);
			return 2;
		}
	}
	if (script != NULL) {
		char err[256];
		if (world_script_load(&world, script, script_len, err, sizeof(err)) != 0) {
			fprintf(stderr, "beacon-sim: %s: %s\n", o.world_path, err);
			return 2;
		}
		/* The command line has the last word over the scenario. */
		if (o.utc_given) {
			world.utc_at_start = o.utc;
		}
		if (!o.synced) {
			for (uint32_t i = 0; i < devices; i++) {
				world.devices[i].utc_synced = false;
			}
		}
	}
	for (uint32_t i = 0; i < devices; i++) {
		int p = o.package_count == 1 ? 0 : (int)i;
		world_device_package(&world, i, packages[p], lengths[p]);
		if (o.heap != 0) {
			world.devices[i].rt.engine_config.heap_size = (size_t)o.heap;
		}
		/* With a real cloud, or a deployment of the scenario, a device takes the apps deployed
		 * to it (its app store starts empty: it runs the package given until one is installed). */
		char why_deploy[120];
		if ((o.cloud_url != NULL || world_cloud_deploys_to(&world, i)) &&
		    world_deploy_enable(&world, i, why_deploy, sizeof(why_deploy)) != 0) {
			fprintf(stderr, "beacon-sim: %s\n", why_deploy);
			return 1;
		}
	}

	/* A world too large for the machine is refused now rather than killed half way. */
	char why[400];
	if (host_memory_check(&world, o.memory_limit, why, sizeof(why)) != 0) {
		fprintf(stderr, "beacon-sim: %s\n", why);
		return 2;
	}
	if (o.flash_dir != NULL && flash_load_all(&world, o.flash_dir) != 0) {
		return 2;
	}
	uint32_t failed = world_start(&world);
	for (uint32_t i = 0; i < devices && failed > 0; i++) {
		if (world.devices[i].failure[0]) {
			fflush(stdout);
			fprintf(stderr, "beacon-sim: %s: %s\n", o.packages[o.package_count == 1 ? 0 : i],
				world.devices[i].failure);
		}
	}
	world_end_t end = world_run_until(&world, o.for_ms);
	if (end == WORLD_END_IDLE && o.for_ms != UINT64_MAX) {
		end = world_idle_until(&world, o.for_ms);
	}
	/* Devices with a start time started their apps during the run (the log said why one
	 * could not): they count as those world_start could not start. */
	failed += world.start_failed;
	const char *ending = end == WORLD_END_TIME_UP ? "the time given ran out"
			     : end == WORLD_END_IDLE  ? "nothing more can happen"
			     : failed == devices      ? "the app could not run"
						      : "the app stopped";
	uint64_t device_ms = world.now;
	host_progress_clear(&host.progress);
	fflush(stdout);
	for (uint32_t i = 0; i < devices; i++) {
		const world_device_t *d = &world.devices[i];
		if (d->rx_lost > 0) {
			fprintf(stderr, "[beacon warning] %s%s%llu BLE receptions lost in all: the app's event queue was full\n",
				devices > 1 ? d->name : "", devices > 1 ? ": " : "", (unsigned long long)d->rx_lost);
		}
		if (d->resets == 0) {
			continue;
		}
		char causes[160] = "";
		for (int c = 0; c < RT_RESET_CAUSE_COUNT; c++) {
			if (d->resets_by_cause[c]) {
				size_t used = strlen(causes);
				snprintf(causes + used, sizeof(causes) - used, "%s%s %u", used ? ", " : "",
					 rt_reset_cause_name((rt_reset_cause_t)c), (unsigned)d->resets_by_cause[c]);
			}
		}
		fprintf(stderr, "[beacon info] %s%sreset %u time%s (%s)%s\n", devices > 1 ? d->name : "",
			devices > 1 ? ": " : "", (unsigned)d->resets, d->resets == 1 ? "" : "s", causes,
			d->reset_record.app_stopped ? "; the reboot-loop guard stopped the app" : "");
	}
	fprintf(stderr, "[beacon info] run ended (%s) after %llu.%03llu s of device time, %llu ms real\n",
		ending, (unsigned long long)(device_ms / 1000u), (unsigned long long)(device_ms % 1000u),
		(unsigned long long)(host_real_ms() - host.real_start_ms));
	if (devices >= FLEET_SUMMARY_DEVICES || o.verbose) {
		fleet_summary(&world);
	}
	world_energy_finish(&world);
	int saved = o.flash_dir != NULL ? flash_save_all(&world, o.flash_dir) : 0;
	world_free(&world);
	if (host.trace) {
		fclose(host.trace);
	}
	if (host.energy) {
		fclose(host.energy);
	}
	for (int i = 0; i < o.package_count; i++) {
		if (owned[i]) {
			free(packages[i]);
		}
	}
	free(owned);
	free(packages);
	free(lengths);
	free(o.packages);
	free(script);
	return failed > 0 || saved != 0 ? 1 : 0;
}

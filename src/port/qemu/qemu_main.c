/*
 * beacon-qemu: the firmware image on the emulated core. It runs one app package on one device
 * of the simulated world, exactly as beacon-sim does on the host, and reads and writes its files
 * on the host over semihosting:
 *
 *   qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none -icount shift=0 \
 *     -semihosting-config enable=on,target=native,arg=beacon-qemu,arg=--world,arg=w.script,... \
 *     -kernel beacon-qemu.elf
 *
 *   beacon-qemu [--for MS] [--utc MS | --no-utc] [--world SCRIPT] [--trace FILE] [--verbose]
 *               [--heap BYTES] [--cloud loopback|none] app.bapp
 *   beacon-qemu --listen [...] [app.bapp]
 *
 * With --listen the device runs until QEMU is ended, taking apps over SMP on UART0 (run QEMU with
 * -serial pty and `beacon upload --device serial:/dev/pts/N`; qemu_listen.h); stdout is then its
 * console, flushed line by line, and no figures are printed.
 *
 * Output is the simulator's: print() on stdout, the runtime's messages on stderr, the trace
 * (--trace) to a host file. After the run the image adds its figures on stderr, one a line:
 *
 *   [beacon figure] instructions.first_line: 1234567 instructions
 *
 * The package is installed into the app store (two flash slots of the image, qemu_flash.h) as an
 * upload would be, verified as on the device, and run from its slot. Exit status as beacon-sim's: 0 run ended, 1 the package
 * was refused or the app failed to start, 2 usage error, 70 fatal error of the image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "qemu_flash.h"
#include "qemu_listen.h"
#include "qemu_port.h"
#include "qemu_profile.h"
#include "rt_app_store.h"
#include "rt_package.h"
#include "world.h"
#include "world_cloud.h"
#include "world_script.h"

#define USAGE "usage: beacon-qemu [--for MS] [--utc MS | --no-utc] [--world SCRIPT] [--trace FILE] " \
	      "[--verbose] [--heap BYTES] [--cloud loopback|none] app.bapp\n" \
	      "       beacon-qemu --listen [--utc MS | --no-utc] [--world SCRIPT] [--trace FILE] [app.bapp]"

/* Without --utc the world starts at this UTC (the simulator takes the host's clock, which a bare
 * core has not: the CLI always passes --utc). 2026-01-01T00:00:00Z. */
#define QEMU_DEFAULT_UTC_MS 1767225600000LL

typedef struct {
	uint64_t for_ms;
	bool synced, verbose, listen;
	uint64_t heap;
	int64_t utc;
	bool utc_given;
	const char *world_path, *trace_path, *package;
	uint64_t bench_records; /* --bench-records N: measure the record store, run no app */
	bool bench_app_store;   /* --bench-app-store: measure the app store, run no app */
	int cloud;              /* world_cloud_mode_t: loopback (the default) or none */
} options_t;

typedef struct {
	FILE *trace;
	bool live; /* --listen: a reader follows stdout and the trace while the device runs */
	uint64_t first_line; /* instructions at the app's first printed line, 0: none yet */
} qemu_io_t;

static int usage(const char *why)
{
	fprintf(stderr, "beacon-qemu: %s\n" USAGE "\n", why);
	return 2;
}

static int parse_options(int argc, char **argv, options_t *o)
{
	o->for_ms = UINT64_MAX;
	o->synced = true;
	o->utc = QEMU_DEFAULT_UTC_MS;
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
		} else if (strcmp(argv[i], "--listen") == 0) {
			o->listen = true;
		} else if (strcmp(argv[i], "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(argv[i], "--heap") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &o->heap) || o->heap < 16384 || o->heap > 524288) {
				return usage("--heap takes bytes from 16384 to 524288");
			}
		} else if (strcmp(argv[i], "--world") == 0 && i + 1 < argc) {
			o->world_path = argv[++i];
		} else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
			o->trace_path = argv[++i];
		} else if (strcmp(argv[i], "--bench-app-store") == 0) {
			o->bench_app_store = true;
		} else if (strcmp(argv[i], "--bench-records") == 0 && i + 1 < argc) {
			if (!world_script_parse_u64(argv[++i], &o->bench_records) || o->bench_records == 0 ||
			    o->bench_records > 1000) {
				return usage("--bench-records takes a count from 1 to 1000");
			}
		} else if (strcmp(argv[i], "--cloud") == 0 && i + 1 < argc) {
			/* The world's own loopback cloud, or none (every sync fails); a real broker
			 * needs a network the emulated board has not. */
			const char *mode = argv[++i];
			if (strcmp(mode, "loopback") == 0) {
				o->cloud = WORLD_CLOUD_LOOPBACK;
			} else if (strcmp(mode, "none") == 0) {
				o->cloud = WORLD_CLOUD_NONE;
			} else {
				return usage("--cloud takes loopback or none on the emulated board (no network "
					     "for mqtt://)");
			}
		} else if (strcmp(argv[i], "--realtime") == 0) {
			return usage("--realtime: the emulated core runs in virtual time only");
		} else if (strcmp(argv[i], "--trust") == 0) {
			return usage("--trust: this image cannot verify signatures (no ECDSA P-256 on "
				     "the emulated core; see hal_qemu.c)");
		} else if (argv[i][0] == '-') {
			return usage("unknown option");
		} else if (o->package == NULL) {
			o->package = argv[i];
		} else {
			return usage("one package only: the emulated board is one device");
		}
	}
	if (o->package == NULL && o->bench_records == 0 && !o->bench_app_store && !o->listen) {
		return usage("no package given");
	}
	return 0;
}

/* A whole host file over semihosting, NUL-terminated; NULL with errno set when it cannot. */
static char *read_host_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf != NULL) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			break;
		}
		char *bigger = realloc(buf, cap * 2 + 1);
		if (bigger == NULL) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	fclose(f);
	if (buf != NULL) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

static void print_line(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	qemu_io_t *io = ctx;
	if (io->first_line == 0) {
		io->first_line = qemu_instructions();
	}
	if (several) {
		printf("[%s] ", device);
	}
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
	if (io->live) {
		fflush(stdout);
	}
}

static void log_line(void *ctx, const char *device, bool several, hal_log_level_t level,
		     const char *text)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	(void)ctx;
	fflush(stdout);
	fprintf(stderr, "[beacon %s] %s%s%s\n", names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG],
		several ? device : "", several ? ": " : "", text);
}

static void trace_line(void *ctx, const char *json, size_t len)
{
	qemu_io_t *io = ctx;
	fwrite(json, 1, len, io->trace);
	fputc('\n', io->trace);
	if (io->live) {
		fflush(io->trace);
	}
}

static void verbose_line(void *ctx, const char *text)
{
	(void)ctx;
	fflush(stdout);
	fprintf(stderr, "%s\n", text);
}

static void figure(const char *name, unsigned long long value, const char *unit)
{
	fprintf(stderr, "[beacon figure] %s: %llu %s\n", name, value, unit);
}

/*
 * What storage.save of 100 bytes costs below the JavaScript API, which is not built yet: count
 * writes of 100-byte records into the store on the storage area (new ids, then the same ids
 * again: a replacement also marks the old copy), garbage collection included when it comes.
 */
static int bench_records(uint64_t count)
{
	rt_records_t *store = qemu_storage();
	if (store == NULL) {
		fprintf(stderr, "beacon-qemu: the storage area cannot be mounted\n");
		return 1;
	}
	uint8_t data[100];
	for (size_t i = 0; i < sizeof(data); i++) {
		data[i] = (uint8_t)(i * 7u);
	}
	uint64_t start = qemu_instructions();
	for (uint64_t n = 0; n < 2 * count; n++) {
		data[0] = (uint8_t)n;
		rt_records_err_t err = rt_records_write(store, 1, (uint32_t)(n % count), data, sizeof(data));
		if (err != RT_RECORDS_OK) {
			fprintf(stderr, "beacon-qemu: record write %llu: %s\n", (unsigned long long)n,
				rt_records_strerror(err));
			return 1;
		}
	}
	uint64_t spent = qemu_instructions() - start;
	figure("records.write_100_bytes", spent / (2 * count), "instructions");
	return 0;
}

/*
 * What the app store costs on the device's core (bench/app_store.sh): a typical package (8,553
 * bytes, the asset tracker's size; its bytes do not matter to the store) staged in the SMP
 * server's 933-byte chunks, installed (checked in place, switched to), and looked up as a boot
 * does with an app in both slots.
 */
static int bench_app_store(void)
{
	rt_app_store_t *store = qemu_app_store();
	/* Made here, in the harness's memory (rt_package_build would take the device's malloc). */
	size_t code_len = 8513, len = RT_PACKAGE_HEADER_SIZE + code_len;
	uint8_t *pkg = malloc(len);
	if (store == NULL || pkg == NULL) {
		fprintf(stderr, "beacon-qemu: the app store cannot be used\n");
		return 1;
	}
	const uint32_t fields[] = {RT_PACKAGE_FORMAT | RT_PACKAGE_HEADER_SIZE << 16, 0x000206u, eng_id(),
				   eng_version(), eng_config_hash(), (uint32_t)code_len, 3u * (uint32_t)code_len, 0};
	memcpy(pkg, RT_PACKAGE_MAGIC, 4);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		for (size_t b = 0; b < 4; b++) {
			pkg[4 + 4 * i + b] = (uint8_t)(fields[i] >> (8 * b));
		}
	}
	uint32_t x = 0x2545f491u;
	for (size_t i = RT_PACKAGE_HEADER_SIZE; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pkg[i] = (uint8_t)x;
	}
	uint32_t crc = rt_crc32(rt_crc32(0, pkg, 36), pkg + RT_PACKAGE_HEADER_SIZE, code_len);
	for (size_t b = 0; b < 4; b++) {
		pkg[36 + b] = (uint8_t)(crc >> (8 * b));
	}
	uint64_t staging = 0, installing = 0;
	for (int round = 0; round < 2; round++) {
		uint64_t t0 = qemu_instructions();
		rt_app_store_err_t err = rt_app_store_stage_begin(store, (uint32_t)len);
		for (size_t off = 0; err == RT_APP_STORE_OK && off < len; off += 933u) {
			size_t n = len - off < 933u ? len - off : 933u;
			err = rt_app_store_stage_write(store, (uint32_t)off, pkg + off, n);
		}
		uint64_t t1 = qemu_instructions();
		rt_package_t parsed;
		char msg[160];
		if (err != RT_APP_STORE_OK || rt_app_store_install(store, (uint32_t)len, &parsed, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "beacon-qemu: app store: %s\n", err != RT_APP_STORE_OK ? rt_app_store_strerror(err) : msg);
			return 1;
		}
		staging = t1 - t0;
		installing = qemu_instructions() - t1;
	}
	uint64_t t2 = qemu_instructions();
	store = qemu_app_store_boot();
	uint64_t lookup = qemu_instructions() - t2;
	if (store == NULL || rt_app_store_sequence(store) != 2) {
		fprintf(stderr, "beacon-qemu: app store: the boot did not find the app\n");
		return 1;
	}
	figure("app_store.stage_8553_bytes", staging, "instructions");
	figure("app_store.install_8553_bytes", installing, "instructions");
	figure("app_store.boot_lookup", lookup, "instructions");
	free(pkg);
	return 0;
}

int main(int argc, char **argv)
{
	options_t o;
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc != 0) {
		return rc;
	}

	if (o.bench_records != 0) {
		return bench_records(o.bench_records);
	}
	if (o.bench_app_store) {
		return bench_app_store();
	}

	char *script = NULL;
	size_t script_len = 0;
	if (o.world_path != NULL) {
		script = read_host_file(o.world_path, &script_len);
		if (script == NULL) {
			fprintf(stderr, "beacon-qemu: cannot read %s: %s\n", o.world_path, strerror(errno));
			return 2;
		}
		if (world_script_device_count(script, script_len) > 1) {
			fprintf(stderr, "beacon-qemu: the world has %u devices; the emulated board is one "
					"(run several-device worlds on the simulator)\n",
				(unsigned)world_script_device_count(script, script_len));
			return 2;
		}
	}

	/* The package goes into the app store first; the device runs it from its slot. */
	const uint8_t *slot = NULL;
	size_t slot_len = 0;
	if (o.package != NULL) {
		FILE *package = fopen(o.package, "rb");
		if (package == NULL) {
			fprintf(stderr, "beacon-qemu: cannot read %s: %s\n", o.package, strerror(errno));
			return 1;
		}
		char msg[200];
		int installed = qemu_app_store_install_file(package, msg, sizeof(msg));
		fclose(package);
		if (installed != 0) {
			fflush(stdout);
			fprintf(stderr, "beacon-qemu: %s: %s\n", o.package, msg);
			/* A listening device waits for a good package instead, as the simulator's. */
			if (!o.listen) {
				return 1;
			}
		}
	}
	rt_app_store_t *store = qemu_app_store();
	if (store != NULL) {
		(void)rt_app_store_installed(store, &slot, &slot_len);
	}

	qemu_io_t qio = {.live = o.listen};
	if (o.trace_path != NULL) {
		qio.trace = fopen(o.trace_path, "w");
		if (qio.trace == NULL) {
			fprintf(stderr, "beacon-qemu: cannot write %s: %s\n", o.trace_path, strerror(errno));
			return 2;
		}
	}
	world_io_t io = {
		.ctx = &qio,
		.print = print_line,
		.log = log_line,
		.trace = qio.trace ? trace_line : NULL,
		.verbose = o.verbose ? verbose_line : NULL,
		.wait_until = NULL,
	};
	static world_t world;
	if (world_init(&world, 1, &io) != 0) {
		fprintf(stderr, "beacon-qemu: out of memory\n");
		return 1;
	}
	world.utc_at_start = o.utc;
	world.devices[0].utc_synced = o.synced;
	world_cloud_set_mode(&world, (world_cloud_mode_t)o.cloud);
	if (script != NULL) {
		char err[256];
		if (world_script_load(&world, script, script_len, err, sizeof(err)) != 0) {
			fprintf(stderr, "beacon-qemu: %s: %s\n", o.world_path, err);
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
	if (o.listen) {
		qemu_listen(&world, o.package, slot, slot_len);
	}
	world_device_package(&world, 0, slot, slot_len);

	uint32_t failed = world_start(&world);
	if (failed > 0 && world.devices[0].failure[0]) {
		fflush(stdout);
		fprintf(stderr, "beacon-qemu: %s: %s\n", o.package, world.devices[0].failure);
	}
	world_end_t end = world_run_until(&world, o.for_ms);
	if (end == WORLD_END_IDLE && o.for_ms != UINT64_MAX) {
		end = world_idle_until(&world, o.for_ms);
	}
	uint64_t run_end = qemu_instructions();
	const char *ending = end == WORLD_END_TIME_UP ? "the time given ran out"
			     : end == WORLD_END_IDLE  ? "nothing more can happen"
			     : failed > 0             ? "the app could not run"
						      : "the app stopped";
	fflush(stdout);
	const world_device_t *d = &world.devices[0];
	if (d->resets > 0) {
		char causes[160] = "";
		for (int c = 0; c < RT_RESET_CAUSE_COUNT; c++) {
			if (d->resets_by_cause[c]) {
				size_t used = strlen(causes);
				snprintf(causes + used, sizeof(causes) - used, "%s%s %u", used ? ", " : "",
					 rt_reset_cause_name((rt_reset_cause_t)c), (unsigned)d->resets_by_cause[c]);
			}
		}
		fprintf(stderr, "[beacon info] reset %u time%s (%s)%s\n", (unsigned)d->resets,
			d->resets == 1 ? "" : "s", causes,
			d->reset_record.app_stopped ? "; the reboot-loop guard stopped the app" : "");
	}
	fprintf(stderr, "[beacon info] run ended (%s) after %llu.%03llu s of device time\n", ending,
		(unsigned long long)(world.now / 1000u), (unsigned long long)(world.now % 1000u));

	eng_mem_stats_t mem = {0};
	if (d->rt.engine != NULL) {
		world_select(&world, &world.devices[0]);
		eng_mem_stats(&mem);
	}
	figure("instructions.first_line", qio.first_line, "instructions");
	figure("instructions.run", run_end, "instructions");
	const qemu_boot_profile_t *boot = qemu_boot_profile();
	if (boot->engine_create != 0) {
		figure("instructions.boot.before_engine", boot->first_call_at, "instructions");
		figure("instructions.boot.engine_create", boot->engine_create, "instructions");
		if (boot->duk_heap != 0) {
			figure("instructions.boot.engine_create.duk_heap", boot->duk_heap, "instructions");
			figure("instructions.boot.engine_create.promise", boot->duk_promise, "instructions");
		}
		figure("instructions.boot.api_install", boot->api_install, "instructions");
		figure("instructions.boot.package_run", boot->package_run, "instructions");
	}
	figure("js_heap.peak", mem.peak, "bytes");
	figure("js_heap.total", mem.total, "bytes");
	figure("malloc.peak", qemu_malloc_peak(), "bytes");
	figure("stack.peak", qemu_stack_depth(), "bytes");
	figure("stack.size", qemu_stack_size(), "bytes");
	fflush(stderr);
	/* The app's teardown, as the simulator's at the end of a run: what it traces (an NFC tag's
	 * message withdrawn, say) belongs to the run's trace. */
	world_free(&world);
	if (qio.trace) {
		fclose(qio.trace);
	}
	return failed > 0 ? 1 : 0;
}

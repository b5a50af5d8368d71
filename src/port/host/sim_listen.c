/*
 * beacon-sim --listen: one simulated device serving SMP over UDP and a pseudo-terminal, with its
 * world stepped against the wall clock (see sim_listen.h).
 *
 * One thread: poll() waits for a datagram, serial bytes or a control line, at most until the
 * world's next deadline; then the world runs up to the wall-clock time. So SMP requests are
 * handled between two steps of the device, never during one, as the device's SMP work queue
 * and its JavaScript thread take turns.
 *
 * This file: the options, the device's flash and app store, installs and status; the transports,
 * the control channel and the serving loop are in sim_listen_serve.c.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include "host_pty.h"
#include "sim_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_util.h"
#include "host_io.h"
#include "key_file.h"
#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "rt_smp.h"
#include "sim_flash_file.h"
#include "sim_listen_internal.h"
#include "world.h"
#include "world_script.h"

#define USAGE                                                                                  \
	"usage: beacon-sim --listen [--udp-port N] [--no-udp] [--no-pty] [--baud N] [--flash DIR] " \
	"[--trust KEY.pub]... [--trace FILE] [--utc MS | --no-utc] [--heap BYTES] [--virtual] "     \
	"[--control] [--idle-ms N] [app.bapp]"

volatile sig_atomic_t sim_listen_stop;

static void on_signal(int sig)
{
	(void)sig;
	sim_listen_stop = 1;
}

static int usage(const char *why)
{
	fprintf(stderr, "beacon-sim: %s\n" USAGE "\n", why);
	return 2;
}


uint64_t sim_listen_real_now(const listen_t *l)
{
	return host_real_ms() - l->real_start;
}

/* Time a UART at the simulated rate takes for n bytes (8N1: 10 bits a byte). */

/* The console on the pseudo-terminal: best effort, as a UART's TX buffer that nobody drains. */
static void pty_text(listen_t *l, const char *text, size_t len)
{
	if (l->pty < 0) {
		return;
	}
	if (write(l->pty, text, len) < 0) {
		return;
	}
}

static void print_line(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	listen_t *l = ctx;
	(void)device;
	(void)several;
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
	fflush(stdout);
	/* A line starting with a frame marker byte would be taken for SMP by the client. */
	if (len > 0 && (text[0] == 0x06 || text[0] == 0x04)) {
		return;
	}
	pty_text(l, text, len);
	pty_text(l, "\n", 1);
}

static void log_line(void *ctx, const char *device, bool several, hal_log_level_t level,
		     const char *text)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	(void)ctx;
	(void)device;
	(void)several;
	fflush(stdout);
	fprintf(stderr, "[beacon %s] %s\n", names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG], text);
}

static void trace_line(void *ctx, const char *json, size_t len)
{
	listen_t *l = ctx;
	fwrite(json, 1, len, l->trace);
	fputc('\n', l->trace);
	/* Flushed per record: tools follow the file while the device runs. */
	fflush(l->trace);
}

static void info(const char *fmt, const char *detail)
{
	fflush(stdout);
	fprintf(stderr, "[beacon info] ");
	fprintf(stderr, fmt, detail);
	fputc('\n', stderr);
}

/* --- flash kept in DIR --- */

static void apps_path(char *out, size_t cap, const listen_t *l)
{
	snprintf(out, cap, "%s/%s.apps.flash", l->flash_dir, l->world->devices[0].name);
}

/* The app store's flash goes to DIR after every install (sim_flash_save: a temporary file and a
 * rename, so a crash leaves the file before the install or after it). */
static int save_apps(listen_t *l)
{
	if (l->flash_dir == NULL) {
		return 0;
	}
	char path[4096], msg[256];
	apps_path(path, sizeof(path), l);
	if (sim_flash_save(&l->apps, path, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
		return -1;
	}
	return 0;
}

static int save_storage(const listen_t *l)
{
	world_device_t *d = &l->world->devices[0];
	if (l->flash_dir == NULL || d->flash == NULL) {
		return 0;
	}
	char path[4096], msg[256];
	snprintf(path, sizeof(path), "%s/%s.flash", l->flash_dir, d->name);
	if (sim_flash_save(d->flash, path, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
		return -1;
	}
	return 0;
}

/* --- install and status (the beacon SMP group) --- */

void sim_listen_catch_up(listen_t *l)
{
	if (!l->virtual_time) {
		uint64_t now = sim_listen_real_now(l);
		world_run_until(l->world, now);
		if (l->world->now < now) {
			l->world->now = now;
		}
	}
}

/* Start the store's installed app on the device (stopping the one it ran). */
static int start_installed(listen_t *l, char *msg, size_t cap)
{
	const uint8_t *pkg;
	size_t len;
	if (!rt_app_store_installed(&l->store, &pkg, &len)) {
		snprintf(msg, cap, "no app is installed");
		return -1;
	}
	sim_listen_catch_up(l);
	return world_install(l->world, 0, pkg, len, msg, cap);
}

static int install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	listen_t *l = ctx;
	rt_package_t pkg;
	(void)st; /* the store's staging slot */
	if (rt_app_store_install(&l->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		info("refused: %s", msg);
		return -1;
	}
	save_apps(l);
	char why[200];
	if (start_installed(l, why, sizeof(why)) != 0) {
		snprintf(msg, cap, "installed, but %s", why);
		info("%s", msg);
		return -1;
	}
	rt_smp_installed_msg(&pkg, msg, cap);
	info("%s", msg);
	return 0;
}

static void status(void *ctx, rt_smp_app_status_t *out)
{
	listen_t *l = ctx;
	const uint8_t *pkg;
	size_t len;
	if (!rt_app_store_installed(&l->store, &pkg, &len)) {
		pkg = NULL;
		len = 0;
	}
	rt_smp_status_of(out, pkg, len, world_app_state_name(l->world, 0));
}

/* --- main --- */

typedef struct {
	unsigned long long udp_port, idle_ms, heap, utc;
	bool use_udp, use_pty, control, synced, utc_given;
	const char *trace_path;
	const char *package;
} listen_options_t;

static int parse(int argc, char **argv, listen_t *l, listen_options_t *o)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t *num = NULL;
		uint64_t scratch = 0;
		if (strcmp(a, "--no-udp") == 0) {
			o->use_udp = false;
		} else if (strcmp(a, "--no-pty") == 0) {
			o->use_pty = false;
		} else if (strcmp(a, "--control") == 0) {
			o->control = true;
		} else if (strcmp(a, "--virtual") == 0) {
			l->virtual_time = true;
		} else if (strcmp(a, "--no-utc") == 0) {
			o->synced = false;
		} else if (strcmp(a, "--flash") == 0 && v) {
			l->flash_dir = v;
			i++;
		} else if (strcmp(a, "--trace") == 0 && v) {
			o->trace_path = v;
			i++;
		} else if (strcmp(a, "--trust") == 0 && v) {
			uint8_t key[RT_SIGNATURE_KEY_SIZE];
			char why[256];
			if (key_file_read_p256_public(v, key, why, sizeof(why)) != 0) {
				fprintf(stderr, "beacon-sim: --trust: %s\n", why);
				return 2;
			}
			if (rt_signature_trust(key) != 0) {
				return usage("too many --trust keys");
			}
			i++;
		} else if (strcmp(a, "--udp-port") == 0 || strcmp(a, "--baud") == 0 ||
			   strcmp(a, "--idle-ms") == 0 || strcmp(a, "--heap") == 0 || strcmp(a, "--utc") == 0) {
			num = &scratch;
			if (!v || !world_script_parse_u64(v, num)) {
				char why[160];
				snprintf(why, sizeof(why), "%s takes a number", a);
				return usage(why);
			}
			i++;
			if (a[2] == 'u' && a[3] == 'd') {
				o->udp_port = scratch;
			} else if (a[2] == 'b') {
				l->baud = (unsigned long)scratch;
			} else if (a[2] == 'i') {
				o->idle_ms = scratch;
			} else if (a[2] == 'h') {
				o->heap = scratch;
			} else {
				o->utc = scratch;
				o->utc_given = true;
			}
		} else if (a[0] == '-') {
			char why[160];
			snprintf(why, sizeof(why), "unknown or incomplete option '%s'", a);
			return usage(why);
		} else if (o->package == NULL) {
			o->package = a;
		} else {
			return usage("one device takes one package");
		}
	}
	if (o->udp_port > 65535 || o->idle_ms > 0xffffffffu || (o->heap != 0 && (o->heap < 16384 || o->heap > 524288))) {
		return usage("a number is out of range (--udp-port up to 65535, --heap 16384 to 524288)");
	}
	if (!o->use_udp && !o->use_pty) {
		return usage("nothing to sim_listen_serve: both --no-udp and --no-pty");
	}
	return 0;
}

/* Install a package file into the store, as an upload would (refused: the store keeps what it
 * had); a package the store holds already is left as it is. Returns -1 when it cannot be read. */
static int install_file(listen_t *l, const char *from)
{
	size_t len;
	uint8_t *pkg = file_read(from, &len);
	if (pkg == NULL) {
		fprintf(stderr, "beacon-sim: cannot read %s: %s\n", from, strerror(errno));
		return -1;
	}
	const uint8_t *have;
	size_t have_len;
	if (!rt_app_store_installed(&l->store, &have, &have_len) || have_len != len ||
	    memcmp(have, pkg, len) != 0) {
		rt_package_t parsed;
		char msg[256];
		if (rt_app_store_install_buffer(&l->store, pkg, len, &parsed, msg, sizeof(msg)) != RT_APP_STORE_OK) {
			fprintf(stderr, "beacon-sim: %s: %s\n", from, msg);
		} else {
			save_apps(l);
		}
	}
	free(pkg);
	return 0;
}

/* The device's app store: loaded from DIR, mounted (a newer app it refuses is said so, and the
 * one before it runs). A store that DIR kept as an app file (DIR/<device>.bapp, before the store)
 * is moved into it. */
static int open_store(listen_t *l)
{
	char path[4096], msg[256];
	l->apps_mem = malloc((size_t)2u * SLOT_PAGES * SLOT_PAGE_SIZE);
	if (l->apps_mem == NULL || !sim_flash_init(&l->apps, l->apps_mem, SLOT_PAGE_SIZE, 2u * SLOT_PAGES) ||
	    rt_flash_window_init(&l->slots[0], &l->apps.flash, 0, SLOT_PAGES) != 0 ||
	    rt_flash_window_init(&l->slots[1], &l->apps.flash, SLOT_PAGES, SLOT_PAGES) != 0) {
		fprintf(stderr, "beacon-sim: out of memory\n");
		return 1;
	}
	if (l->flash_dir != NULL) {
		apps_path(path, sizeof(path), l);
		if (sim_flash_load(&l->apps, path, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
			return 2;
		}
	}
	rt_app_store_config_t config = {{{&l->slots[0].flash, l->apps_mem},
					 {&l->slots[1].flash, l->apps_mem + (size_t)SLOT_PAGES * SLOT_PAGE_SIZE}}};
	rt_app_store_err_t err = rt_app_store_mount(&l->store, &config, msg, sizeof(msg));
	if (msg[0] != '\0') {
		fprintf(stderr, "beacon-sim: app store: %s\n", msg);
	}
	if (err != RT_APP_STORE_OK && err != RT_APP_STORE_ENOAPP) {
		fprintf(stderr, "beacon-sim: app store: %s\n", rt_app_store_strerror(err));
		return 1;
	}
	if (err == RT_APP_STORE_ENOAPP && l->flash_dir != NULL) {
		snprintf(path, sizeof(path), "%s/%s.bapp", l->flash_dir, l->world->devices[0].name);
		if (access(path, F_OK) == 0 && install_file(l, path) != 0) {
			return 1;
		}
	}
	return 0;
}

/* The app the device starts with: the command line's (installed into the store), else the
 * store's. */
static int boot_package(listen_t *l, const listen_options_t *o)
{
	if (o->package != NULL && install_file(l, o->package) != 0) {
		return -1;
	}
	char msg[256];
	if (rt_app_store_sequence(&l->store) != 0 && start_installed(l, msg, sizeof(msg)) != 0) {
		fflush(stdout);
		fprintf(stderr, "beacon-sim: %s: %s\n", o->package ? o->package : "app store", msg);
	}
	return 0;
}

int sim_listen_main(int argc, char **argv)
{
	static listen_t l;
	listen_options_t o = {.udp_port = 1337, .idle_ms = 30000, .use_udp = true, .use_pty = true, .synced = true};
	l.pty = -1;
	int rc = parse(argc, argv, &l, &o);
	if (rc != 0) {
		return rc;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (o.trace_path != NULL) {
		l.trace = fopen(o.trace_path, "w");
		if (l.trace == NULL) {
			fprintf(stderr, "beacon-sim: cannot write %s: %s\n", o.trace_path, strerror(errno));
			return 2;
		}
	}
	world_io_t io = {0};
	io.ctx = &l;
	io.print = print_line;
	io.log = log_line;
	io.trace = l.trace ? trace_line : NULL;
	static world_t world;
	l.world = &world;
	if (world_init(&world, 1, &io) != 0) {
		fprintf(stderr, "beacon-sim: out of memory\n");
		return 1;
	}
	world.utc_at_start = o.utc_given ? (int64_t)o.utc : (int64_t)time(NULL) * 1000;
	world.devices[0].utc_synced = o.synced;
	if (o.heap != 0) {
		world.devices[0].rt.engine_config.heap_size = (size_t)o.heap;
	}
	if (l.flash_dir != NULL) {
		char path[4096], msg[256];
		if (mkdir(l.flash_dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "beacon-sim: --flash: cannot make %s: %s\n", l.flash_dir, strerror(errno));
			return 2;
		}
		snprintf(path, sizeof(path), "%s/%s.flash", l.flash_dir, world.devices[0].name);
		if (world_device_flash(&world.devices[0]) == NULL) {
			fprintf(stderr, "beacon-sim: out of memory\n");
			return 1;
		}
		if (sim_flash_load(world.devices[0].flash, path, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "beacon-sim: --flash: %s\n", msg);
			return 2;
		}
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int udp = -1, slave = -1;
	char pty_name[256];
	if (o.use_pty) {
		l.pty = host_pty_open(pty_name, sizeof(pty_name), &slave, true);
		if (l.pty < 0) {
			fprintf(stderr, "beacon-sim: cannot open a pseudo-terminal: %s\n", strerror(errno));
			return 1;
		}
	}
	struct sockaddr_in addr = {0};
	if (o.use_udp) {
		/* Loopback only: a simulated device has no business on a real network. */
		addr.sin_family = AF_INET;
		addr.sin_port = htons((uint16_t)o.udp_port);
		addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t alen = sizeof(addr);
		udp = socket(AF_INET, SOCK_DGRAM, 0);
		if (udp < 0 || bind(udp, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
		    getsockname(udp, (struct sockaddr *)&addr, &alen) != 0) {
			fprintf(stderr, "beacon-sim: cannot bind UDP 127.0.0.1:%llu: %s\n", o.udp_port, strerror(errno));
			return 1;
		}
	}

	rc = open_store(&l);
	if (rc != 0) {
		return rc;
	}
	rt_smp_staging_t staging;
	rt_app_store_smp_staging(&l.store, &staging);
	rt_smp_config_t cfg = {
		.staging = &staging,
		.install = install,
		.status = status,
		.app_ctx = &l,
		.buf_size = 1024,
		.buf_count = 2,
		.idle_ms = (uint32_t)o.idle_ms,
	};
	static rt_smp_server_t server;
	rt_smp_init(&server, &cfg);

	l.real_start = host_real_ms();
	/* Addresses first, then "ready", then the console: a reader takes everything after "ready"
	 * for the app's lines. Requests sent meanwhile wait in the sockets. */
	if (o.use_pty) {
		printf("pty: %s\n", pty_name);
	}
	if (o.use_udp) {
		printf("udp: 127.0.0.1:%u\n", (unsigned)ntohs(addr.sin_port));
	}
	printf("ready\n");
	fflush(stdout);
	if (boot_package(&l, &o) != 0) {
		return 1;
	}

	sim_listen_serve(&l, &server, udp, o.control ? STDIN_FILENO : -1);

	sim_listen_catch_up(&l);
	int saved = save_storage(&l);
	if (save_apps(&l) != 0) {
		saved = -1;
	}
	world_free(&world);
	if (l.trace) {
		fclose(l.trace);
	}
	if (udp >= 0) {
		close(udp);
	}
	if (l.pty >= 0) {
		close(l.pty);
		close(slave);
	}
	free(l.apps_mem);
	return saved != 0 ? 1 : 0;
}

/*
 * beacon-smp-testd: the SMP server (rt_smp.h) on the host, for the upload tools' tests and
 * benchmarks. Not the simulator's integration (beacon sim --listen serves a simulated device);
 * this one has the device's app store (rt_app_store.h: a staging slot and the installed app) on a
 * simulated flash in RAM, and runs nothing.
 *
 *   beacon-smp-testd [--udp-port N] [--no-udp] [--no-pty] [--trust KEY.pub]... [--baud N]
 *                    [--drop-after N] [--drop-count M] [--fail-once] [--idle-ms N]
 *                    [--buf-size N] [--staging-size N] [--exit-on-stdin-eof]
 *
 * Transports, as Zephyr's: UDP on 127.0.0.1 (one SMP packet per datagram; port 1337 by default,
 * 0 for any free one) and a pseudo-terminal speaking the SMP serial framing (rt_smp_serial.h).
 * When both are up it prints, on stdout, one line each and then "ready":
 *
 *   pty: /dev/pts/7
 *   udp: 127.0.0.1:1337
 *   ready
 *
 * Install is the app store's (rt_app_store_install: rt_package_check and rt_signature_check
 * with the --trust keys on the staged package, then the switch); only a package that passes
 * replaces the installed one. What happens is logged on stderr, one line per upload start,
 * install and fault.
 *
 * Fault switches for tests:
 *   --drop-after N   after N answered requests, the answers to the next M (--drop-count,
 *                    default 1) requests are lost: the requests take effect, the client hears
 *                    nothing and must retry or resume;
 *   --fail-once      the first write to the staging area fails, as a flash write error would.
 *   --baud N         the serial line runs at N baud (10 bits a byte): the server takes as long
 *                    to read a request and to send an answer as a UART would, by sleeping for
 *                    10 / N seconds per byte received and sent on the pseudo-terminal.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "host_pty.h"
#include "engine.h"
#include "key_file.h"
#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"
#include "sim_flash.h"

#define MAX_STAGING (1024u * 1024u)
#define MAX_PACKET 4096u
/* A serial line is one client; UDP clients are told apart by address and port. */
#define SERIAL_CLIENT 0x5e71a1u

typedef struct {
	/* The app store's two slots, each --staging-size bytes and its header, on one simulated
	 * flash. */
	sim_flash_t flash;
	uint8_t *flash_mem;
	rt_flash_window_t slots[2];
	rt_app_store_t store;
	rt_smp_staging_t store_staging;
	bool fail_next_write;
	unsigned long drop_after;
	unsigned long drop_count;
	unsigned long answered;
	unsigned long baud;
} testd_t;

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int usage(const char *why)
{
	fprintf(stderr,
		"beacon-smp-testd: %s\nusage: beacon-smp-testd [--udp-port N] [--no-udp] [--no-pty] "
		"[--trust KEY.pub]... [--baud N] [--drop-after N] [--drop-count M] [--fail-once] "
		"[--idle-ms N] [--buf-size N] [--staging-size N] [--exit-on-stdin-eof]\n",
		why);
	return 2;
}

static uint32_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static int st_begin(void *ctx, uint32_t total)
{
	testd_t *t = ctx;
	if (t->store_staging.begin(t->store_staging.ctx, total) != 0) {
		return -1;
	}
	fprintf(stderr, "beacon-smp-testd: upload of %lu bytes started\n", (unsigned long)total);
	return 0;
}

static int st_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	testd_t *t = ctx;
	if (t->fail_next_write) {
		t->fail_next_write = false;
		fprintf(stderr, "beacon-smp-testd: fault: staging write at %lu fails\n", (unsigned long)off);
		return -1;
	}
	return t->store_staging.write(t->store_staging.ctx, off, data, len);
}

static int st_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	testd_t *t = ctx;
	return t->store_staging.read(t->store_staging.ctx, off, data, len);
}

static int install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	testd_t *t = ctx;
	rt_package_t pkg;
	(void)st; /* the store's staging slot */
	if (rt_app_store_install(&t->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		fprintf(stderr, "beacon-smp-testd: refused: %s\n", msg);
		return -1;
	}
	rt_smp_installed_msg(&pkg, msg, cap);
	fprintf(stderr, "beacon-smp-testd: %s\n", msg);
	return 0;
}

static void status(void *ctx, rt_smp_app_status_t *out)
{
	testd_t *t = ctx;
	const uint8_t *pkg;
	size_t len;
	if (!rt_app_store_installed(&t->store, &pkg, &len)) {
		pkg = NULL;
		len = 0;
	}
	rt_smp_status_of(out, pkg, len, "running");
}

/* Whether the answer to this request is lost (--drop-after). */
static bool drop_answer(testd_t *t)
{
	if (t->drop_count == 0 || t->answered < t->drop_after) {
		t->answered++;
		return false;
	}
	t->drop_count--;
	fprintf(stderr, "beacon-smp-testd: fault: answer dropped\n");
	return true;
}

static int parse_ulong(const char *s, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0') {
		return -1;
	}
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long udp_port = 1337, idle_ms = 30000, buf_size = 1024, staging_size = 256 * 1024;
	bool use_udp = true, use_pty = true, stdin_watch = false;
	testd_t t = {0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long *num = NULL;
		if (strcmp(a, "--no-udp") == 0) {
			use_udp = false;
		} else if (strcmp(a, "--no-pty") == 0) {
			use_pty = false;
		} else if (strcmp(a, "--fail-once") == 0) {
			t.fail_next_write = true;
		} else if (strcmp(a, "--exit-on-stdin-eof") == 0) {
			stdin_watch = true;
		} else if (strcmp(a, "--trust") == 0 && v) {
			uint8_t key[RT_SIGNATURE_KEY_SIZE];
			char why[256];
			if (key_file_read_p256_public(v, key, why, sizeof(why)) != 0) {
				fprintf(stderr, "beacon-smp-testd: --trust: %s\n", why);
				return 2;
			}
			if (rt_signature_trust(key) != 0) {
				return usage("too many --trust keys");
			}
			i++;
		} else if (strcmp(a, "--udp-port") == 0) {
			num = &udp_port;
		} else if (strcmp(a, "--baud") == 0) {
			num = &t.baud;
		} else if (strcmp(a, "--drop-after") == 0) {
			num = &t.drop_after;
			if (t.drop_count == 0) {
				t.drop_count = 1;
			}
		} else if (strcmp(a, "--drop-count") == 0) {
			num = &t.drop_count;
		} else if (strcmp(a, "--idle-ms") == 0) {
			num = &idle_ms;
		} else if (strcmp(a, "--buf-size") == 0) {
			num = &buf_size;
		} else if (strcmp(a, "--staging-size") == 0) {
			num = &staging_size;
		} else {
			char why[160];
			snprintf(why, sizeof(why), "unknown or incomplete option '%s'", a);
			return usage(why);
		}
		if (num) {
			if (!v || parse_ulong(v, num) != 0) {
				char why[160];
				snprintf(why, sizeof(why), "%s needs a number", a);
				return usage(why);
			}
			i++;
		}
	}
	if (udp_port > 65535 || buf_size < 64 || buf_size > MAX_PACKET || staging_size > MAX_STAGING ||
	    idle_ms > 0xffffffffu) {
		return usage("a number is out of range");
	}
	if (!use_udp && !use_pty) {
		return usage("nothing to serve: both --no-udp and --no-pty");
	}

	/* Slots of the device's 4 KB pages, each with room for the slot header and the package. */
	uint32_t slot_pages = (uint32_t)((RT_APP_STORE_HEADER_SIZE + staging_size + 4095u) / 4096u);
	t.flash_mem = malloc((size_t)slot_pages * 2u * 4096u);
	char why[160];
	if (t.flash_mem == NULL || !sim_flash_init(&t.flash, t.flash_mem, 4096u, 2u * slot_pages) ||
	    rt_flash_window_init(&t.slots[0], &t.flash.flash, 0, slot_pages) != 0 ||
	    rt_flash_window_init(&t.slots[1], &t.flash.flash, slot_pages, slot_pages) != 0) {
		fprintf(stderr, "beacon-smp-testd: out of memory\n");
		return 1;
	}
	rt_app_store_config_t store_config = {{{&t.slots[0].flash, t.flash_mem},
						{&t.slots[1].flash, t.flash_mem + (size_t)slot_pages * 4096u}}};
	rt_app_store_err_t mounted = rt_app_store_mount(&t.store, &store_config, why, sizeof(why));
	if (mounted != RT_APP_STORE_OK && mounted != RT_APP_STORE_ENOAPP) {
		fprintf(stderr, "beacon-smp-testd: app store: %s\n", rt_app_store_strerror(mounted));
		return 1;
	}
	rt_app_store_smp_staging(&t.store, &t.store_staging);
	/* The largest package is the one asked for, not the slot's page-rounded room. */
	rt_smp_staging_t staging = {st_begin, st_write, st_read, (uint32_t)staging_size, &t, NULL, NULL, NULL};
	rt_smp_config_t cfg = {
		.staging = &staging,
		.install = install,
		.status = status,
		.app_ctx = &t,
		.buf_size = (uint32_t)buf_size,
		.buf_count = 2,
		.idle_ms = (uint32_t)idle_ms,
	};
	static rt_smp_server_t server;
	rt_smp_init(&server, &cfg);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int udp = -1, pty = -1, slave = -1;
	char pty_name[256];
	if (use_pty) {
		pty = host_pty_open(pty_name, sizeof(pty_name), &slave, false);
		if (pty < 0) {
			fprintf(stderr, "beacon-smp-testd: cannot open a pseudo-terminal: %s\n", strerror(errno));
			return 1;
		}
		printf("pty: %s\n", pty_name);
	}
	if (use_udp) {
		/* Loopback only: a test server has no business on a real network. */
		struct sockaddr_in addr = {0};
		addr.sin_family = AF_INET;
		addr.sin_port = htons((uint16_t)udp_port);
		addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t alen = sizeof(addr);
		udp = socket(AF_INET, SOCK_DGRAM, 0);
		if (udp < 0 || bind(udp, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
		    getsockname(udp, (struct sockaddr *)&addr, &alen) != 0) {
			fprintf(stderr, "beacon-smp-testd: cannot bind UDP 127.0.0.1:%lu: %s\n", udp_port, strerror(errno));
			return 1;
		}
		printf("udp: 127.0.0.1:%u\n", (unsigned)ntohs(addr.sin_port));
	}
	printf("ready\n");
	fflush(stdout);

	static uint8_t rx[MAX_PACKET + 2], pkt_rsp[MAX_PACKET], frames[MAX_PACKET * 2];
	rt_smp_serial_dec_t dec;
	rt_smp_serial_dec_init(&dec, rx, sizeof(rx), NULL, NULL);

	while (!stop_requested) {
		struct pollfd fds[3];
		int nfds = 0, i_udp = -1, i_pty = -1, i_in = -1;
		if (udp >= 0) {
			i_udp = nfds;
			fds[nfds++] = (struct pollfd){udp, POLLIN, 0};
		}
		if (pty >= 0) {
			i_pty = nfds;
			fds[nfds++] = (struct pollfd){pty, POLLIN, 0};
		}
		if (stdin_watch) {
			i_in = nfds;
			fds[nfds++] = (struct pollfd){STDIN_FILENO, POLLIN, 0};
		}
		if (poll(fds, (nfds_t)nfds, 1000) < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		if (i_in >= 0 && fds[i_in].revents) {
			char b[256];
			if (read(STDIN_FILENO, b, sizeof(b)) <= 0) {
				break;
			}
		}
		if (i_udp >= 0 && (fds[i_udp].revents & POLLIN)) {
			uint8_t req[MAX_PACKET];
			struct sockaddr_in from;
			socklen_t flen = sizeof(from);
			ssize_t n = recvfrom(udp, req, sizeof(req), 0, (struct sockaddr *)&from, &flen);
			if (n >= 0) {
				uint32_t client = ntohl(from.sin_addr.s_addr) * 65599u + ntohs(from.sin_port);
				size_t m = rt_smp_handle(&server, client, now_ms(), req, (size_t)n, pkt_rsp, sizeof(pkt_rsp));
				if (m > 0 && !drop_answer(&t)) {
					sendto(udp, pkt_rsp, m, 0, (struct sockaddr *)&from, flen);
				}
			}
		}
		if (i_pty >= 0 && (fds[i_pty].revents & POLLIN)) {
			uint8_t b[512];
			ssize_t n = read(pty, b, sizeof(b));
			if (n > 0) {
				host_pty_line_delay(t.baud, (size_t)n, &stop_requested);
				for (ssize_t i = 0; i < n; i++) {
					const uint8_t *pkt;
					size_t len;
					rt_smp_serial_result_t r = rt_smp_serial_feed(&dec, b[i], &pkt, &len);
					if (r < 0) {
						fprintf(stderr, "beacon-smp-testd: serial: %s\n", rt_smp_serial_strerror(r));
					}
					if (r != RT_SMP_SERIAL_PACKET) {
						continue;
					}
					size_t m = rt_smp_handle(&server, SERIAL_CLIENT, now_ms(), pkt, len, pkt_rsp, sizeof(pkt_rsp));
					if (m == 0 || drop_answer(&t)) {
						continue;
					}
					size_t k = rt_smp_serial_encode(pkt_rsp, m, frames, sizeof(frames));
					host_pty_line_delay(t.baud, k, &stop_requested);
					host_pty_write_all(pty, frames, k, false);
				}
			}
		}
	}
	if (udp >= 0) {
		close(udp);
	}
	if (pty >= 0) {
		close(pty);
		close(slave);
	}
	free(t.flash_mem);
	return 0;
}

/*
 * The rig's phone (tests/rig-bsim): a firmware for nrf52_bsim that does what a phone does to a
 * beacon on BabbleSim's air, and writes what happened as JSON lines. Its options come as the
 * device's -beacon_args="..." (host_link.h):
 *
 *   --out FILE                     where the JSON lines go (default: stdout)
 *   --exit                         end the rig's process after the command
 *   upload PACKAGE --sha HEX [--chunk BYTES] [--stop-after BYTES] [--drop-at BYTES]
 *          [--no-install] [--interval-ms MS] [--default-mtu] [--scan-timeout-ms MS]
 *                                  find the beacon's upload service, connect, upload the package
 *                                  (resuming where the device is), install it; --drop-at
 *                                  disconnects once that many bytes are acknowledged, connects
 *                                  again and uploads the same package from the start, which the
 *                                  device answers with the offset it holds; --default-mtu keeps
 *                                  BLE's 23-byte ATT MTU and 27-byte packets (a client that asks
 *                                  for nothing), --interval-ms the connection interval (30)
 *   hold PACKAGE --sha HEX --bytes N
 *                                  upload N bytes of the package, then stay connected, silent
 *                                  (a client that took the staging slot and went quiet)
 *   stranger PACKAGE --sha HEX [--delay-ms MS] [--retry-after-ms MS]
 *                                  after MS, connect (a second client, while another may hold the
 *                                  slot) and send hostile requests, each answer a line
 *                                  {"event":"answer","step":...}; then, after --retry-after-ms,
 *                                  upload the package properly and install it
 *   scan MS                        log every advertisement heard for MS milliseconds
 *
 * After its command the rig stays on the air, idle, until the simulation ends (BabbleSim ends the
 * simulation for everyone when a device leaves), so that the beacon runs for as long as it was
 * asked; --exit ends it instead.
 *
 * Lines: {"event":"connected","t":ms,"mtu":n,"interval_ms":x}, {"event":"uploaded","t":ms,
 * "off":n,"ms":upload time}, {"event":"install","t":ms,"rc":n,"err":n,"msg":"..."},
 * {"event":"error","what":"...","code":n}, scan lines (rig_scan.h), {"event":"done","t":ms}.
 * Times are the rig's uptime in simulated milliseconds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "host_link.h"
#include "rig_link.h"
#include "rig_scan.h"
#include "rig_smp.h"

#define MAX_ARGS 24
#define PACKAGE_MAX (64 * 1024)

static long out = 1;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	char line[320];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2) {
		n = (int)sizeof(line) - 2;
	}
	line[n++] = '\n';
	(void)host_link_write(out, line, (size_t)n);
}

/* A JSON string's content: quotes and backslashes escaped, control characters dropped. */
static void json_text(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (; *src != '\0' && n + 2 < cap; src++) {
		if (*src == '"' || *src == '\\') {
			dst[n++] = '\\';
		}
		if ((unsigned char)*src >= 0x20) {
			dst[n++] = *src;
		}
	}
	dst[n] = '\0';
}

static int hex_bytes(const char *hex, uint8_t *out_bytes, size_t cap)
{
	size_t n = strlen(hex) / 2;

	if (n > cap) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], '\0'};

		out_bytes[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return (int)n;
}

static uint8_t package[PACKAGE_MAX];

static long read_file(const char *path)
{
	long f = host_link_open(path, false);

	if (f < 0) {
		return -1;
	}
	long n = 0, got;

	while ((got = host_link_read(f, package + n, sizeof(package) - (size_t)n)) > 0) {
		n += got;
	}
	host_link_close(f);
	return n;
}

static int upload(int argc, char **argv)
{
	const char *path = NULL;
	uint8_t sha[32];
	int sha_len = 0;
	size_t chunk = 0, stop_after = 0, drop_at = 0;
	bool install = true;
	rig_link_params_t lp = {.interval_units = 24, .default_mtu = false, .scan_timeout_ms = 30000};

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--sha") == 0 && i + 1 < argc) {
			sha_len = hex_bytes(argv[++i], sha, sizeof(sha));
		} else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc) {
			chunk = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc) {
			stop_after = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--drop-at") == 0 && i + 1 < argc) {
			drop_at = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--no-install") == 0) {
			install = false;
		} else if (strcmp(argv[i], "--default-mtu") == 0) {
			lp.default_mtu = true;
		} else if (strcmp(argv[i], "--interval-ms") == 0 && i + 1 < argc) {
			lp.interval_units = (uint16_t)(strtoul(argv[++i], NULL, 10) * 4u / 5u);
		} else if (strcmp(argv[i], "--scan-timeout-ms") == 0 && i + 1 < argc) {
			lp.scan_timeout_ms = strtoul(argv[++i], NULL, 10);
		} else if (path == NULL) {
			path = argv[i];
		}
	}
	long len = path != NULL ? read_file(path) : -1;

	if (len <= 0 || sha_len < 0) {
		emit("{\"event\":\"error\",\"what\":\"usage: upload PACKAGE --sha HEX\",\"code\":%d}",
		     -EINVAL);
		return 2;
	}
	int err = rig_link_open(&lp);

	if (err != 0) {
		emit("{\"event\":\"error\",\"what\":\"connect\",\"code\":%d}", err);
		return 1;
	}
	emit("{\"event\":\"connected\",\"t\":%lld,\"mtu\":%u,\"interval_ms\":%u.%02u}",
	     (long long)k_uptime_get(), rig_link_mtu(), rig_link_interval() * 5u / 4u,
	     (rig_link_interval() * 125u) % 100u);
	/* Chunks as `beacon upload` sizes them: what the device takes, less the request's header
	 * and the first chunk's CBOR (offset, name, length, a 32-byte sha: 96 bytes at most). */
	if (chunk == 0) {
		int64_t buf = rig_smp_buf_size();

		chunk = buf > 256 ? (size_t)buf - 128u : 128u;
	}
	rig_answer_t a;

	memset(&a, 0, sizeof(a));
	int64_t start = k_uptime_get();
	int64_t off;

	if (drop_at > 0) {
		/* The link is lost mid-upload; a new connection sends the first chunk again. */
		off = rig_smp_upload(package, (size_t)len, sha, (size_t)sha_len, chunk, drop_at, &a);
		emit("{\"event\":\"dropped\",\"t\":%lld,\"off\":%lld}", (long long)k_uptime_get(),
		     (long long)off);
		rig_link_close();
		err = rig_link_open(&lp);
		if (err != 0) {
			emit("{\"event\":\"error\",\"what\":\"reconnect\",\"code\":%d}", err);
			return 1;
		}
		/* One chunk from offset 0 with the package's len and sha: the answer names the offset
		 * the device holds. */
		off = rig_smp_upload(package, (size_t)len, sha, (size_t)sha_len, chunk, 1, &a);
		emit("{\"event\":\"resumed\",\"t\":%lld,\"off\":%lld}", (long long)k_uptime_get(),
		     (long long)off);
	}
	off = rig_smp_upload_from(package, (size_t)len, sha, (size_t)sha_len, chunk, stop_after, &a,
				  drop_at > 0 && off > 0 ? (size_t)off : 0);

	if (off < 0) {
		char msg[200];

		json_text(msg, sizeof(msg), a.msg);
		emit("{\"event\":\"error\",\"what\":\"upload\",\"code\":%lld,\"rc\":%lld,"
		     "\"err\":%lld,\"msg\":\"%s\"}",
		     (long long)off, (long long)a.rc, (long long)a.err_rc, msg);
		rig_link_close();
		return 1;
	}
	emit("{\"event\":\"uploaded\",\"t\":%lld,\"off\":%lld,\"len\":%ld,\"ms\":%lld}",
	     (long long)k_uptime_get(), (long long)off, len, (long long)(k_uptime_get() - start));
	if (install && off == len) {
		err = rig_smp_install(&a);
		char msg[200];

		json_text(msg, sizeof(msg), a.msg);
		emit("{\"event\":\"install\",\"t\":%lld,\"code\":%d,\"rc\":%lld,\"err\":%lld,"
		     "\"msg\":\"%s\",\"ms\":%lld}",
		     (long long)k_uptime_get(), err, (long long)a.rc, (long long)a.err_rc, msg,
		     (long long)(k_uptime_get() - start));
	}
	rig_link_close();
	return 0;
}

static void emit_answer(const char *step, int err, const rig_answer_t *a)
{
	char msg[200];

	json_text(msg, sizeof(msg), a->msg);
	emit("{\"event\":\"answer\",\"step\":\"%s\",\"t\":%lld,\"code\":%d,\"rc\":%lld,"
	     "\"err_group\":%lld,\"err\":%lld,\"off\":%lld,\"msg\":\"%s\"}",
	     step, (long long)k_uptime_get(), err, (long long)a->rc, (long long)a->err_group,
	     (long long)a->err_rc, (long long)a->off, msg);
}

struct common_args {
	const char *path;
	uint8_t sha[32];
	int sha_len;
	size_t bytes;
	uint32_t delay_ms, retry_ms;
};

static long parse_common(int argc, char **argv, struct common_args *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--sha") == 0 && i + 1 < argc) {
			c->sha_len = hex_bytes(argv[++i], c->sha, sizeof(c->sha));
		} else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
			c->bytes = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc) {
			c->delay_ms = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--retry-after-ms") == 0 && i + 1 < argc) {
			c->retry_ms = strtoul(argv[++i], NULL, 10);
		} else if (c->path == NULL) {
			c->path = argv[i];
		}
	}
	return c->path != NULL ? read_file(c->path) : -1;
}

static int connect_default(void)
{
	rig_link_params_t lp = {.interval_units = 24, .default_mtu = false, .scan_timeout_ms = 30000};
	int err = rig_link_open(&lp);

	if (err != 0) {
		emit("{\"event\":\"error\",\"what\":\"connect\",\"code\":%d}", err);
	} else {
		emit("{\"event\":\"connected\",\"t\":%lld,\"mtu\":%u}", (long long)k_uptime_get(),
		     rig_link_mtu());
	}
	return err;
}

static int hold(int argc, char **argv)
{
	struct common_args c;
	long len = parse_common(argc, argv, &c);
	rig_answer_t a;

	if (len <= 0 || c.bytes == 0 || connect_default() != 0) {
		return 1;
	}
	memset(&a, 0, sizeof(a));
	int64_t off = rig_smp_upload(package, (size_t)len, c.sha, (size_t)c.sha_len, 256, c.bytes,
				     &a);
	emit("{\"event\":\"holding\",\"t\":%lld,\"off\":%lld}", (long long)k_uptime_get(),
	     (long long)off);
	/* Connected and silent from now on. */
	return 0;
}

static int stranger(int argc, char **argv)
{
	struct common_args c;
	long len = parse_common(argc, argv, &c);
	rig_answer_t a;
	uint8_t junk[16] = {0x01, 0x02, 0x03};
	uint8_t other_sha[32];
	int err;

	if (len <= 0) {
		return 2;
	}
	k_sleep(K_MSEC(c.delay_ms));
	if (connect_default() != 0) {
		return 1;
	}
	memcpy(other_sha, c.sha, sizeof(other_sha));
	other_sha[0] ^= 0xff;
	memset(&a, 0, sizeof(a));
	/* A group the device does not have. */
	err = rig_smp_request(1, 0, 99, 0, NULL, 0, &a, 5000);
	emit_answer("unknown-group", err, &a);
	/* An upload whose body is not a CBOR map. */
	err = rig_smp_request(1, 2, 8, 0, junk, 3, &a, 5000);
	emit_answer("not-cbor", err, &a);
	/* A package larger than any slot. */
	err = rig_smp_chunk(0, package, 64, 1000000, c.sha, (size_t)c.sha_len, &a);
	emit_answer("oversized-len", err, &a);
	/* Another package while one is being uploaded by someone else: the same length, another
	 * sha. */
	err = rig_smp_chunk(0, package, 64, (size_t)len, other_sha, sizeof(other_sha), &a);
	emit_answer("other-sha-while-held", err, &a);
	/* A chunk further on of someone else's upload. */
	err = rig_smp_chunk(512, package + 512, 64, 0, NULL, 0, &a);
	emit_answer("chunk-of-held-upload", err, &a);
	/* Install what someone else staged. */
	err = rig_smp_install(&a);
	emit_answer("install-not-owner", err, &a);
	if (c.retry_ms == 0) {
		return 0;
	}
	/* Past the holder's idle time the slot is free again. */
	k_sleep(K_MSEC(c.retry_ms));
	err = rig_smp_chunk(0, package, 256, (size_t)len, other_sha, sizeof(other_sha), &a);
	emit_answer("first-chunk-after-idle", err, &a);
	/* A chunk past the end of the package: not written, the device names its offset. */
	err = rig_smp_chunk((size_t)len + 100, package, 64, 0, NULL, 0, &a);
	emit_answer("offset-past-end", err, &a);
	/* More data than the package has left (64 bytes more; within one request's size). */
	size_t past = (size_t)len - 256u + 64u;

	err = rig_smp_chunk(256, package, past < 980u ? past : 980u, 0, NULL, 0, &a);
	emit_answer("data-past-end", err, &a);
	/* Install before the last chunk. */
	err = rig_smp_install(&a);
	emit_answer("install-incomplete", err, &a);
	/* The rest, then the install. */
	int64_t off = rig_smp_upload_from(package, (size_t)len, other_sha, sizeof(other_sha), 256, 0,
					  &a, 256);
	emit_answer("rest-of-upload", off < 0 ? (int)off : 0, &a);
	err = rig_smp_install(&a);
	emit_answer("install", err, &a);
	rig_link_close();
	return 0;
}

int main(void)
{
	static char line[1024];
	char *argv[MAX_ARGS];
	int argc = 0;

	strncpy(line, host_link_cmdline(), sizeof(line) - 1);
	for (char *p = strtok(line, " "); p != NULL && argc < MAX_ARGS; p = strtok(NULL, " ")) {
		argv[argc++] = p;
	}
	int first = 0;
	bool stay = true;

	for (;;) {
		if (first + 1 < argc && strcmp(argv[first], "--out") == 0) {
			long f = host_link_open(argv[first + 1], true);

			if (f >= 0) {
				out = f;
			}
			first += 2;
		} else if (first < argc && strcmp(argv[first], "--exit") == 0) {
			stay = false;
			first++;
		} else {
			break;
		}
	}
	int status = 2;

	if (first < argc && strcmp(argv[first], "upload") == 0) {
		status = upload(argc - first - 1, argv + first + 1);
	} else if (first < argc && strcmp(argv[first], "hold") == 0) {
		status = hold(argc - first - 1, argv + first + 1);
	} else if (first < argc && strcmp(argv[first], "stranger") == 0) {
		status = stranger(argc - first - 1, argv + first + 1);
	} else if (first + 1 < argc && strcmp(argv[first], "scan") == 0) {
		int n = rig_scan(strtoul(argv[first + 1], NULL, 10), out);

		status = n < 0 ? 1 : 0;
	} else {
		emit("{\"event\":\"error\",\"what\":\"usage: [--out FILE] upload PACKAGE --sha HEX ... "
		     "| scan MS\",\"code\":%d}", -EINVAL);
	}
	emit("{\"event\":\"done\",\"t\":%lld,\"status\":%d}", (long long)k_uptime_get(), status);
	if (stay) {
		k_sleep(K_FOREVER);
	}
	host_link_close(out);
	host_link_exit(status);
}

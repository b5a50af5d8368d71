/*
 * beacon-sim: runs an app package on the host simulator.
 *
 *   beacon-sim [--for MS] [--realtime] [--utc MS | --no-utc] [--trust KEY.pub]... app.bapp
 *
 * --trust makes the simulator a device that trusts that signing key (repeatable): it then runs
 * only packages signed with a trusted key (see rt_signature.h).
 *
 * print() goes to stdout, the runtime's own messages to stderr. Exit status: 0 when the run ended
 * normally (time up, app stopped, nothing left to happen), 1 when the package was refused or the
 * app failed while starting, 2 for a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file_util.h"
#include "glue_app.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "key_file.h"
#include "rt_app.h"
#include "rt_device.h"
#include "rt_signature.h"
#include "sim.h"

static int usage(const char *why)
{
	fprintf(stderr, "beacon-sim: %s\nusage: beacon-sim [--for MS] [--realtime] [--utc MS | --no-utc] [--trust KEY.pub]... app.bapp\n", why);
	return 2;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		return false;
	}
	*out = v;
	return true;
}

static uint64_t real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int main(int argc, char **argv)
{
	uint64_t for_ms = HAL_CLOCK_FOREVER;
	bool realtime = false, synced = true;
	int64_t utc = (int64_t)time(NULL) * 1000;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		uint64_t v;
		if (strcmp(argv[i], "--for") == 0 && i + 1 < argc) {
			if (!parse_u64(argv[++i], &for_ms)) {
				return usage("--for takes milliseconds");
			}
		} else if (strcmp(argv[i], "--utc") == 0 && i + 1 < argc) {
			if (!parse_u64(argv[++i], &v)) {
				return usage("--utc takes milliseconds since 1970");
			}
			utc = (int64_t)v;
		} else if (strcmp(argv[i], "--no-utc") == 0) {
			synced = false;
		} else if (strcmp(argv[i], "--realtime") == 0) {
			realtime = true;
		} else if (strcmp(argv[i], "--trust") == 0 && i + 1 < argc) {
			uint8_t key[RT_PACKAGE_SIG_KEY_SIZE];
			char why[256];
			if (key_file_read_ed25519_public(argv[++i], key, why, sizeof(why)) != 0) {
				fprintf(stderr, "beacon-sim: --trust: %s\n", why);
				return 2;
			}
			if (rt_signature_trust(key) != 0) {
				return usage("too many --trust keys");
			}
		} else if (argv[i][0] == '-') {
			return usage("unknown option");
		} else if (path == NULL) {
			path = argv[i];
		} else {
			return usage("one package at a time");
		}
	}
	if (path == NULL) {
		return usage("no package given");
	}
	size_t len;
	uint8_t *package = file_read(path, &len);
	if (package == NULL) {
		fprintf(stderr, "beacon-sim: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}

	sim_clock_configure(realtime, synced, utc);
	uint64_t started = real_ms();
	static rt_device_t the_device;
	rt_device_init(&the_device, 0);
	rt_device_select(&the_device);
	int status = 0;
	const char *ending = "";
	for (;;) {
		char msg[256];
		if (glue_app_install(package, len, msg, sizeof(msg)) != 0) {
			sim_console_flush();
			fprintf(stderr, "beacon-sim: %s: %s\n", path, msg);
			status = 1;
			ending = "the app could not run";
			break;
		}
		uint64_t until = for_ms == HAL_CLOCK_FOREVER ? HAL_CLOCK_FOREVER : for_ms;
		rt_run_result_t r = rt_app_run(until);
		if (r == RT_RUN_RESTART) {
			continue;
		}
		ending = r == RT_RUN_TIME_UP ? "the time given ran out"
			 : r == RT_RUN_IDLE  ? "nothing more can happen"
					     : "the app stopped";
		break;
	}
	rt_app_deinit();
	sim_console_flush();
	uint64_t device = sim_clock_elapsed_ms();
	hal_log(HAL_LOG_INFO, "run ended (%s) after %llu.%03llu s of device time, %llu ms real",
		ending, (unsigned long long)(device / 1000u), (unsigned long long)(device % 1000u),
		(unsigned long long)(real_ms() - started));
	free(package);
	return status;
}

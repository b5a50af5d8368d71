/*
 * beacon-pack: compiles an ES5 script to this engine's bytecode and writes the app package.
 *
 *   beacon-pack --api 0.2.6 -o app.bapp app.js
 *
 * Built from the same engine sources and configuration as the simulator and the firmware, so a
 * package it writes loads on them. On success prints one JSON line with the sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "file_util.h"
#include "rt_api_version.h"
#include "hal_clock.h"
#include "rt_package.h"

static int usage(const char *why)
{
	fprintf(stderr, "beacon-pack: %s\nusage: beacon-pack --api X.Y.Z -o app.bapp [--name NAME] app.js\n", why);
	return 2;
}

int main(int argc, char **argv)
{
	const char *api = NULL, *out = NULL, *in = NULL, *name = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--api") == 0 && i + 1 < argc) {
			api = argv[++i];
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
			name = argv[++i];
		} else if (argv[i][0] == '-') {
			return usage("unknown option");
		} else {
			in = argv[i];
		}
	}
	if (api == NULL || out == NULL || in == NULL) {
		return usage("--api, -o and an input file are required");
	}
	unsigned a, b, c;
	char extra;
	if (sscanf(api, "%u.%u.%u%c", &a, &b, &c, &extra) != 3 || a > 255 || b > 255 || c > 255) {
		return usage("--api takes a version like 0.2.6");
	}
	uint32_t api_version = a << 16 | b << 8 | c;
	if (rt_api_version_bit_of(api_version) < 0) {
		fprintf(stderr, "beacon-pack: API %s is unknown to this firmware\n", api);
		return 1;
	}
	size_t len;
	uint8_t *source = file_read(in, &len);
	if (source == NULL) {
		fprintf(stderr, "beacon-pack: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	/* The compiler needs room for the parser: a host-sized heap. */
	eng_config_t config = {.heap_size = 64u * 1024u * 1024u, .exec_budget = 0};
	if (eng_init(&config) != 0) {
		fprintf(stderr, "beacon-pack: the engine could not start\n");
		return 1;
	}
	uint8_t *bytecode = NULL;
	size_t bytecode_len = 0;
	char err[512];
	eng_scope_enter();
	int rc = eng_compile((const char *)source, len, name ? name : in, &bytecode, &bytecode_len,
			     err, sizeof(err));
	eng_scope_leave();
	eng_deinit();
	if (rc != 0) {
		fprintf(stderr, "%s\n", err);
		free(source);
		return 1;
	}
	size_t package_len;
	uint8_t *package = rt_package_build(api_version, bytecode, bytecode_len, len, &package_len);
	if (package == NULL || file_write(out, package, package_len) != 0) {
		fprintf(stderr, "beacon-pack: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("{\"engine\":\"%s\",\"engineVersion\":%u,\"source\":%zu,\"bytecode\":%zu,\"package\":%zu}\n",
	       eng_name(), (unsigned)eng_version(), len, bytecode_len, package_len);
	free(package);
	free(bytecode);
	free(source);
	return 0;
}

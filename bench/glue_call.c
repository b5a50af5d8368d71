/*
 * beacon-bench-glue: a JS loop that calls one function N times, for instruction counts under
 * callgrind. Run once per mode; the per-call cost is (count(mode) - count(loop)) / N.
 *
 *   beacon-bench-glue MODE N      MODE: loop | empty | empty2 | empty4 | getUptime | toMs | toHex
 *
 * "empty*" call a native function that does nothing, registered straight through engine.h;
 * the others call generated bindings of API 0.2.6, so the difference is what the glue adds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "glue_core.h"
#include "rt_app.h"
#include "rt_config.h"
#include "sim.h"

static eng_value_t empty_native(const eng_call_t *call)
{
	(void)call;
	return eng_undefined();
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: beacon-bench-glue MODE N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = strtol(argv[2], NULL, 10);
	static const struct {
		const char *mode;
		const char *call;
	} calls[] = {
		{"loop", ""},
		{"empty", "empty();"},
		{"empty2", "empty(1, 2);"},
		{"empty4", "empty(1, 2, 3, 4);"},
		{"getUptime", "sys.getUptime();"},
		{"toMs", "toMs(5);"},
		{"toHex", "toHex([1, 2]);"},
	};
	const char *call = NULL;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (strcmp(calls[i].mode, mode) == 0) {
			call = calls[i].call;
		}
	}
	if (call == NULL) {
		fprintf(stderr, "beacon-bench-glue: unknown mode %s\n", mode);
		return 2;
	}
	sim_clock_configure(false, true, 0);
	eng_config_t config = {.heap_size = RT_JS_HEAP_BYTES, .exec_limit_ms = 0};
	if (eng_init(&config) != 0 || glue_install(glue_version_bit(0x000206)) != 0) {
		fprintf(stderr, "beacon-bench-glue: engine start failed\n");
		return 1;
	}
	eng_scope_enter();
	eng_value_t global = eng_global();
	eng_value_t fn = eng_function(empty_native, NULL, "empty");
	eng_set(global, "empty", fn);
	char source[256];
	snprintf(source, sizeof(source), "for (var i = 0; i < %ld; i++) { %s }", n, call);
	eng_value_t r = eng_eval(source, strlen(source), "bench.js");
	int rc = 0;
	if (eng_is_exception(r)) {
		char text[200];
		eng_describe(eng_exception_value(r), text, sizeof(text));
		fprintf(stderr, "beacon-bench-glue: %s\n", text);
		rc = 1;
	}
	eng_scope_leave();
	glue_uninstall();
	eng_deinit();
	return rc;
}

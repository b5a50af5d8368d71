/*
 * beacon-bench-watchdog: what the work budget (the runaway watchdog) costs running code.
 *
 *   beacon-bench-watchdog on|off ITERATIONS
 *
 * Runs a loop of ITERATIONS iterations once, with the watchdog armed (a budget no loop reaches) or
 * not; bench/faults.sh counts the instructions of both under callgrind. It prints the work units
 * the engine counted, from which the script gets the bytecodes run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* The loop of a busy app: arithmetic, a property read and a call, a backward branch. */
static const char source_fmt[] =
	"(function () { var o = { n: 0 }; function f(x) { return x + 1; }\n"
	"  for (var i = 0; i < %lu; i++) { o.n = f(o.n) * 1; } return o.n; })()";

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0)) {
		fprintf(stderr, "usage: beacon-bench-watchdog on|off ITERATIONS\n");
		return 2;
	}
	unsigned long iterations = strtoul(argv[2], NULL, 10);
	bool on = strcmp(argv[1], "on") == 0;
	eng_config_t config = {.heap_size = 0, .exec_budget = on ? UINT64_MAX / 2 : 0};
	if (eng_init(&config) != 0) {
		return 1;
	}
	char source[sizeof(source_fmt) + 32];
	snprintf(source, sizeof(source), source_fmt, iterations);
	eng_scope_enter();
	eng_watchdog_arm();
	eng_value_t v = eng_eval(source, strlen(source), "loop.js");
	uint64_t units = eng_watchdog_units();
	eng_watchdog_disarm();
	int rc = eng_is_exception(v) ? 1 : 0;
	eng_scope_leave();
	eng_deinit();
	printf("units: %llu\n", (unsigned long long)units);
	return rc;
}

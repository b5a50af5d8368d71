/*
 * beacon-bench-glue: a JS loop that calls one function N times, for instruction counts under
 * callgrind. Run once per mode; the per-call cost is (count(mode) - count(loop)) / N.
 *
 *   beacon-bench-glue MODE N      MODE: one of the modes below ("loop" calls nothing)
 *
 * "empty*" call a native function that does nothing, registered straight through engine.h;
 * the others call generated bindings of API 0.2.6, so the difference is what the glue adds.
 *
 * glue0, glue2 and glue4 measure the glue alone, for sensors.temp.get(), io.led(1, true) and
 * ble.build.iBeacon(u, 1, 2, -50) (u: a 16-byte ArrayBuffer): the link swaps their runtime
 * functions for ones that return at once (-Wl,--wrap, see CMakeLists.txt), so a call is the
 * engine's native call, the generated wrapper and glue_convert (for io.led: choosing one of its
 * two forms, then an integer and a boolean; for iBeacon: 16 bytes and three integers). base0,
 * base2 and base4 call the empty native with the same arguments. Both call a local variable, so
 * looking up sensors.temp.get costs neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_glue.h"
#include "engine.h"
#include "glue_core.h"
#include "rt_api_version.h"
#include "rt_app.h"
#include "rt_device.h"
#include "rt_handle.h"
#include "rt_config.h"
#include "world.h"

static eng_value_t empty_native(const eng_call_t *call)
{
	(void)call;
	return eng_undefined();
}

/* The runtime side of the glue-only modes: nothing, as for the empty native. */
eng_value_t __wrap_rt_sensors_temp_get(void);
eng_value_t __wrap_rt_io_led(const rt_io_led_args_t *args);
eng_value_t __wrap_rt_ble_build_iBeacon(const rt_ble_build_iBeacon_args_t *args);

eng_value_t __wrap_rt_sensors_temp_get(void)
{
	return eng_undefined();
}

eng_value_t __wrap_rt_io_led(const rt_io_led_args_t *args)
{
	(void)args;
	return eng_undefined();
}

eng_value_t __wrap_rt_ble_build_iBeacon(const rt_ble_build_iBeacon_args_t *args)
{
	(void)args;
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
		const char *setup; /* statements before the loop, or NULL */
		const char *call;
	} calls[] = {
		{"loop", NULL, ""},
		{"empty", NULL, "empty();"},
		{"empty2", NULL, "empty(1, 2);"},
		{"empty4", NULL, "empty(1, 2, 3, 4);"},
		{"getUptime", NULL, "sys.getUptime();"},
		{"toMs", NULL, "toMs(5);"},
		{"toHex", NULL, "toHex([1, 2]);"},
		{"base0", "f = empty; ", "f();"},
		{"glue0", "f = sensors.temp.get; ", "f();"},
		{"base2", "f = empty; ", "f(1, true);"},
		{"glue2", "f = io.led; ", "f(1, true);"},
		{"base4", "f = empty; ", "f(u, 1, 2, -50);"},
		{"glue4", "f = ble.build.iBeacon; ", "f(u, 1, 2, -50);"},
	};
	const char *call = NULL, *setup = NULL;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (strcmp(calls[i].mode, mode) == 0) {
			call = calls[i].call;
			setup = calls[i].setup;
		}
	}
	if (call == NULL) {
		fprintf(stderr, "beacon-bench-glue: unknown mode %s\n", mode);
		return 2;
	}
	static world_t world;
	world_io_t io = {0};
	if (world_init(&world, 1, &io) != 0) {
		return 1;
	}
	world_select(&world, &world.devices[0]);
	rt_device_t *dev = rt_device();
	dev->api_version = RT_API_VERSION(0, 2, 6);
	dev->api_bit = rt_api_version_bit_of(dev->api_version);
	dev->engine_config.exec_budget = 0;
	dev->engine = eng_create(&dev->engine_config);
	if (dev->engine == NULL || glue_install() != 0) {
		fprintf(stderr, "beacon-bench-glue: engine start failed\n");
		return 1;
	}
	eng_scope_enter();
	eng_value_t global = eng_global();
	eng_value_t fn = eng_function(empty_native, NULL, "empty");
	eng_set(global, "empty", fn);
	char source[256];
	snprintf(source, sizeof(source), "var u = new ArrayBuffer(16), f; %sfor (var i = 0; i < %ld; i++) { %s }",
		 setup ? setup : "", n, call);
	eng_value_t r = eng_eval(source, strlen(source), "bench.js");
	int rc = 0;
	if (eng_is_exception(r)) {
		char text[200];
		eng_describe(eng_exception_value(r), text, sizeof(text));
		fprintf(stderr, "beacon-bench-glue: %s\n", text);
		rc = 1;
	}
	eng_scope_leave();
	rt_handle_reset();
	eng_destroy(dev->engine);
	dev->engine = NULL;
	world_free(&world);
	return rc;
}

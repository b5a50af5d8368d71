/*
 * beacon-bench-api-heap: what installing the API costs the JS heap, before the app's first line,
 * and what using all of it costs, on the engine this is built with.
 *
 *   beacon-bench-api-heap [0.0.9|0.1.5|0.2.6]
 *
 * Prints one line per figure: the engine's own start-up use, the API installed (what an app pays
 * before its first line), and every namespace read once (what an app using the whole API pays).
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "glue_core.h"
#include "rt_api_version.h"
#include "rt_device.h"
#include "rt_handle.h"
#include "world.h"

static size_t used(void)
{
	eng_mem_stats_t s;
	eng_mem_stats(&s);
	return s.used;
}

int main(int argc, char **argv)
{
	unsigned a = 0, b = 2, c = 6;
	if (argc > 1 && sscanf(argv[1], "%u.%u.%u", &a, &b, &c) != 3) {
		fprintf(stderr, "usage: beacon-bench-api-heap [version]\n");
		return 2;
	}
	static world_t world;
	world_io_t io = {0};
	if (world_init(&world, 1, &io) != 0) {
		return 1;
	}
	world_select(&world, &world.devices[0]);
	rt_device_t *dev = rt_device();
	dev->api_version = RT_API_VERSION(a, b, c);
	dev->api_bit = rt_api_version_bit_of(dev->api_version);
	if (dev->api_bit < 0) {
		fprintf(stderr, "beacon-bench-api-heap: unknown API version\n");
		return 2;
	}
	dev->engine = eng_create(&dev->engine_config);
	if (dev->engine == NULL) {
		return 1;
	}
	eng_gc();
	size_t engine = used();
	eng_scope_enter();
	if (glue_install() != 0) {
		return 1;
	}
	eng_scope_leave();
	eng_gc();
	size_t installed = used();
	/* Read every namespace once and make one handle of each kind, as an app using all of the
	 * API would. */
	static const char touch[] =
		"var all = [typeof timers, typeof ble, typeof io, typeof sensors, typeof cloud,"
		" typeof sync, typeof storage, typeof location, typeof sys, typeof modem, typeof lte,"
		" typeof app, typeof nfc, typeof uwb, typeof print];"
		"if (typeof timers !== 'undefined') timers.single(1e9, function () {}).stop();";
	eng_scope_enter();
	eng_value_t r = eng_eval(touch, sizeof(touch) - 1, "touch.js");
	if (eng_is_exception(r)) {
		char text[200];
		eng_describe(r, text, sizeof(text));
		fprintf(stderr, "beacon-bench-api-heap: %s\n", text);
		return 1;
	}
	eng_scope_leave();
	eng_gc();
	size_t everything = used();
	printf("engine_start_heap_bytes_%s: %zu bytes\n", eng_name(), engine);
	printf("api_installed_heap_bytes_%s_%u.%u.%u: %zu bytes\n", eng_name(), a, b, c, installed - engine);
	printf("api_all_namespaces_read_heap_bytes_%s_%u.%u.%u: %zu bytes\n", eng_name(), a, b, c,
	       everything - engine);
	rt_handle_reset();
	eng_destroy(dev->engine);
	dev->engine = NULL;
	world_free(&world);
	return 0;
}

/*
 * The cloud queue and messages against power cuts, through the whole stack (app, runtime, event
 * queue, record store, simulated flash, the world's loopback cloud): the power fails at every
 * flash operation of a sync in turn, and after the reboot and the next sync the cloud holds every
 * non-volatile event exactly once and the app got every message exactly once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rt_package.h"
#include "world.h"
#include "world_cloud.h"

#define EVENTS 6

/* Six non-volatile events queued once (a storage record remembers it); a sync 1 s after every
 * boot; each message printed. */
static const char app_source[] =
	"print('boot');\n"
	"cloud.onReceive(function (m) { print('msg ' + m.type + ' ' + JSON.stringify(m.payload)); });\n"
	"if (storage.read(1) === undefined) {\n"
	"  for (var i = 1; i <= 6; i++) cloud.enqueue('e', { i: i }, { volatile: false });\n"
	"  storage.save(1, 1);\n"
	"}\n"
	"timers.single(1000, function () { sync.now(); });\n";

static unsigned boots, msg1, msg2, others;

static void on_print(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx;
	(void)device;
	(void)several;
	if (len == 4 && memcmp(text, "boot", 4) == 0) {
		boots++;
	} else if (len == strlen("msg cmd {\"k\":1}") && memcmp(text, "msg cmd {\"k\":1}", len) == 0) {
		msg1++;
	} else if (len == strlen("msg cmd {\"k\":2}") && memcmp(text, "msg cmd {\"k\":2}", len) == 0) {
		msg2++;
	} else {
		others++;
		fprintf(stderr, "unexpected output: %.*s\n", (int)len, text);
	}
}

static uint8_t *build_package(size_t *len)
{
	eng_config_t config = {.heap_size = 0, .exec_budget = 0};
	uint8_t *bytecode = NULL;
	size_t bytecode_len = 0;
	char err[256];
	assert_int_equal(eng_init(&config), 0);
	eng_scope_enter();
	int rc = eng_compile(app_source, sizeof(app_source) - 1, "cloud.js", &bytecode, &bytecode_len,
			     err, sizeof(err));
	eng_scope_leave();
	eng_deinit();
	if (rc != 0) {
		fail_msg("%s", err);
	}
	uint8_t *package = rt_package_build(0x000206u, bytecode, bytecode_len, 0, len);
	free(bytecode);
	return package;
}

static void power_cut_at_every_flash_operation_of_a_sync(void **state)
{
	(void)state;
	size_t len;
	uint8_t *package = build_package(&len);
	assert_non_null(package);
	uint64_t op;
	unsigned cuts = 0;
	for (op = 1;; op++) {
		static world_t world;
		world_io_t io = {0};
		io.print = on_print;
		boots = msg1 = msg2 = others = 0;
		char err[128];
		assert_int_equal(world_init(&world, 1, &io), 0);
		assert_int_equal(world_cloud_add_message(&world, 0, 0, "cmd", "{\"k\":1}", err, sizeof(err)), 0);
		assert_int_equal(world_cloud_add_message(&world, 0, 0, "cmd", "{\"k\":2}", err, sizeof(err)), 0);
		world_device_package(&world, 0, package, len);
		assert_int_equal(world_start(&world), 0);
		world_device_t *d = &world.devices[0];
		/* The events are queued; the cut waits for the sync at 1 s. */
		sim_flash_cut_after(world_device_flash(d), op, (uint32_t)op);
		world_run_until(&world, 10000);
		uint32_t stored = world_cloud_stored(&world, 0);
		uint32_t delivered = world_cloud_delivered(&world, 0);
		world_free(&world);
		assert_int_equal(others, 0);
		if (stored != EVENTS || msg1 != 1 || msg2 != 1 || delivered != 2) {
			fail_msg("power cut at flash operation %llu: %u events stored, messages handed over "
				 "%u and %u times, %u acknowledged",
				 (unsigned long long)op, stored, msg1, msg2, delivered);
		}
		if (boots == 1) {
			break; /* the cut came after the sync's last flash operation: the sweep is done */
		}
		cuts++;
		assert_true(op < 100000);
	}
	print_message("%u cut points inside the sync, every one recovered\n", cuts);
	/* The sync writes the last message id twice and deletes six events: dozens of words. */
	assert_true(cuts > 20);
	free(package);
}

/*
 * The app's code that runs inside a sync takes the runtime's shared scratch (rt_scratch.h) again:
 * the start handler enqueues; each message handler enqueues a reply, saves a 5 kB record, reads
 * it back and prints. None of that may find the scratch held by the exchange (a device reset),
 * and what the handlers queue goes out in the same sync.
 */
static const char handlers_source[] =
	"sync.setHandler(function () { cloud.enqueue('start', { s: 1 }, { volatile: false }); });\n"
	"cloud.onReceive(function (m) {\n"
	"  cloud.enqueue('reply', { to: m.payload.k, pad: new Array(3000).join('y') }, { volatile: false });\n"
	"  storage.save(2, { got: m.payload.k, big: new Array(5000).join('z') });\n"
	"  print('msg cmd {\"k\":' + storage.read(2).got + '}');\n"
	"});\n"
	"print('boot');\n"
	"timers.single(1000, function () { sync.now(); });\n";

static void handlers_inside_a_sync_use_storage_and_the_queue(void **state)
{
	(void)state;
	eng_config_t config = {.heap_size = 0, .exec_budget = 0};
	uint8_t *bytecode = NULL;
	size_t bytecode_len = 0, len = 0;
	char err[256];
	assert_int_equal(eng_init(&config), 0);
	eng_scope_enter();
	int rc = eng_compile(handlers_source, sizeof(handlers_source) - 1, "handlers.js", &bytecode,
			     &bytecode_len, err, sizeof(err));
	eng_scope_leave();
	eng_deinit();
	if (rc != 0) {
		fail_msg("%s", err);
	}
	uint8_t *package = rt_package_build(0x000206u, bytecode, bytecode_len, 0, &len);
	free(bytecode);
	static world_t world;
	world_io_t io = {0};
	io.print = on_print;
	boots = msg1 = msg2 = others = 0;
	assert_int_equal(world_init(&world, 1, &io), 0);
	assert_int_equal(world_cloud_add_message(&world, 0, 0, "cmd", "{\"k\":1}", err, sizeof(err)), 0);
	assert_int_equal(world_cloud_add_message(&world, 0, 0, "cmd", "{\"k\":2}", err, sizeof(err)), 0);
	world_device_package(&world, 0, package, len);
	assert_int_equal(world_start(&world), 0);
	world_run_until(&world, 10000);
	uint32_t stored = world_cloud_stored(&world, 0);
	uint32_t resets = world.devices[0].resets;
	world_free(&world);
	free(package);
	assert_int_equal(resets, 0);
	assert_int_equal(boots, 1);
	assert_int_equal(others, 0);
	assert_int_equal(msg1, 1);
	assert_int_equal(msg2, 1);
	/* The start handler's event and the two replies, in this one sync. */
	assert_int_equal(stored, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(power_cut_at_every_flash_operation_of_a_sync),
		cmocka_unit_test(handlers_inside_a_sync_use_storage_and_the_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

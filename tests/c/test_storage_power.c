/*
 * storage.save against power cuts, through the whole stack (app, runtime, record store, simulated
 * flash): the power fails at every single flash operation of a save in turn, and after each
 * reboot the app finds the record it was rewriting either as it was or as it was being written,
 * whole, and its other record untouched. The store commits a record with the last word it writes
 * (its allocation-table entry), so every cut inside the save must give back the old value; the
 * sweep ends at the first cut point past the save, which the save survives.
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
#include "test_app_package.h"
#include "world.h"

/* Record 1 holds generation g in three places; a mix of two saves would show. Record 2 never
 * changes. At 1 s the app saves generation g + 1. */
static const char app_source[] =
	"var pad = new Array(300).join('.');\n"
	"function make(g) { return { g: g, a: g + pad, b: pad + g }; }\n"
	"var r1 = storage.read(1), r2 = storage.read(2);\n"
	"if (r1 === undefined) { storage.save(2, { keep: 'me' }); storage.save(1, make(1)); print('fresh'); }\n"
	"else print('boot ' + r1.g + ' ' + (r1.a === r1.g + pad && r1.b === pad + r1.g ? 'whole' : 'mixed') +\n"
	"           ' ' + JSON.stringify(r2));\n"
	"timers.single(1000, function () { storage.save(1, make(storage.read(1).g + 1)); print('saved'); });\n";

static char last_boot[128];
static unsigned boots, saves, others;

static void on_print(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx;
	(void)device;
	(void)several;
	if (len > 5 && memcmp(text, "boot ", 5) == 0 && len < sizeof(last_boot)) {
		memcpy(last_boot, text, len);
		last_boot[len] = '\0';
		boots++;
	} else if (len == 5 && memcmp(text, "saved", 5) == 0) {
		saves++;
	} else if (!(len == 5 && memcmp(text, "fresh", 5) == 0)) {
		others++;
		fprintf(stderr, "unexpected output: %.*s\n", (int)len, text);
	}
}

static void test_power_cut_at_every_flash_operation_of_a_save(void **state)
{
	(void)state;
	size_t len;
	uint8_t *package = test_app_package(app_source, "saver.js", &len);
	assert_non_null(package);
	unsigned kept_old = 0, got_new = 0;
	uint64_t op;
	for (op = 1;; op++) {
		static world_t world;
		world_io_t io = {0};
		io.print = on_print;
		boots = saves = others = 0;
		last_boot[0] = '\0';
		assert_int_equal(world_init(&world, 1, &io), 0);
		world_device_package(&world, 0, package, len);
		assert_int_equal(world_start(&world), 0);
		world_device_t *d = &world.devices[0];
		/* Booted, saved the first generation; now the cut waits for the save at 1 s. */
		sim_flash_cut_after(world_device_flash(d), op, (uint32_t)op);
		world_run_until(&world, 1500);
		assert_int_equal(others, 0);
		world_free(&world);
		if (boots == 0) {
			/* The cut came after the last operation of the save: the sweep is done. */
			assert_int_equal(saves, 1);
			break;
		}
		assert_int_equal(boots, 1);
		if (strcmp(last_boot, "boot 1 whole {\"keep\":\"me\"}") == 0) {
			kept_old++;
		} else if (strcmp(last_boot, "boot 2 whole {\"keep\":\"me\"}") == 0) {
			got_new++;
		} else {
			fail_msg("power cut at flash operation %llu: %s", (unsigned long long)op, last_boot);
		}
		/* Old before the commit, new after it: never old again once new was seen. */
		if (got_new > 0 && strcmp(last_boot, "boot 1 whole {\"keep\":\"me\"}") == 0) {
			fail_msg("power cut at flash operation %llu: the old record came back", (unsigned long long)op);
		}
		assert_true(op < 100000);
	}
	print_message("%llu cut points: old record kept %u times, new one %u times\n",
		      (unsigned long long)(op - 1), kept_old, got_new);
	/* A save of some 700 bytes is well over a hundred word writes: the sweep really went through it. */
	assert_true(kept_old > 100);
	assert_int_equal(kept_old + got_new, op - 1);
	free(package);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_cut_at_every_flash_operation_of_a_save),
	};
	return cmocka_run_group_tests_name(eng_name(), tests, NULL, NULL);
}

/*
 * A thousand device resets in one run: every reset gives back all the memory of the life before
 * it (the test counts the blocks and bytes the C library hands out, through --wrap of its
 * allocator, and they return to where they were; in build/sanitize LeakSanitizer watches too),
 * and nothing of an earlier life (a timer, a handle, a callback) acts in a later one.
 */
#include <malloc.h>
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

#define RESETS 1000u

/* Live blocks and bytes of the C library's allocator (this binary links with --wrap). */
static long live_blocks, live_bytes;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
void __real_free(void *ptr);

/* A block the C library handed out, counted. */
static void *counted(void *p)
{
	if (p != NULL) {
		live_blocks++;
		live_bytes += (long)malloc_usable_size(p);
	}
	return p;
}

/* Duktape's heaps take their small blocks from aligned chunks (eng_duk_slab.h). */
void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
	return counted(__real_aligned_alloc(alignment, size));
}

void *__wrap_malloc(size_t size)
{
	return counted(__real_malloc(size));
}

void *__wrap_calloc(size_t n, size_t size)
{
	return counted(__real_calloc(n, size));
}

void *__wrap_realloc(void *ptr, size_t size)
{
	long old = ptr != NULL ? (long)malloc_usable_size(ptr) : 0;
	void *p = __real_realloc(ptr, size);
	if (p != NULL) {
		live_blocks += ptr == NULL;
		live_bytes += (long)malloc_usable_size(p) - old;
	} else if (size == 0 && ptr != NULL) {
		live_blocks--;
		live_bytes -= old;
	}
	return p;
}

void __wrap_free(void *ptr)
{
	if (ptr != NULL) {
		live_blocks--;
		live_bytes -= (long)malloc_usable_size(ptr);
	}
	__real_free(ptr);
}

/* Each life: say so, arm a timer that a later life must never see, and run the heap out at
 * 11 minutes (past the reboot-loop window, so the guard lets the device go on). */
static const char app_source[] =
	"app.setErrorHandler(function (type, e) { if (e.reset !== 'out-of-memory') print('wrong cause'); });\n"
	"print('life');\n"
	"timers.single(700000, function () { print('a timer of an earlier life fired'); });\n"
	"var rows = [];\n"
	"timers.single(660000, function () { for (;;) rows.push({ n: rows.length, s: 'row ' + rows.length }); });\n";

static unsigned lives, wrong;

static void on_print(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	(void)ctx;
	(void)device;
	(void)several;
	if (len == 4 && memcmp(text, "life", 4) == 0) {
		lives++;
	} else {
		wrong++;
		fprintf(stderr, "unexpected output: %.*s\n", (int)len, text);
	}
}

static void test_a_thousand_resets(void **state)
{
	(void)state;
	size_t len;
	uint8_t *package = test_app_package(app_source, "resets.js", &len);
	assert_non_null(package);
	long blocks_before = live_blocks, bytes_before = live_bytes;

	static world_t world;
	world_io_t io = {0};
	io.print = on_print;
	assert_int_equal(world_init(&world, 1, &io), 0);
	world_device_package(&world, 0, package, len);
	assert_int_equal(world_start(&world), 0);
	uint64_t life_ms = 660000;
	world_run_until(&world, life_ms * RESETS + life_ms / 2);
	const world_device_t *d = &world.devices[0];
	assert_int_equal(d->resets, RESETS);
	assert_int_equal(d->resets_by_cause[RT_RESET_OUT_OF_MEMORY], RESETS);
	assert_false(d->reset_record.app_stopped);
	assert_int_equal(lives, RESETS + 1);
	assert_int_equal(wrong, 0);
	world_free(&world);

	assert_int_equal(live_blocks, blocks_before);
	assert_int_equal(live_bytes, bytes_before);
	free(package);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_thousand_resets),
	};
	return cmocka_run_group_tests_name(eng_name(), tests, NULL, NULL);
}

/*
 * The small-block allocator of Duktape's heaps in the host simulator (eng_duk_slab.h): blocks
 * of each size class never overlap and keep what is written in them, a block is told from a
 * larger one by its address, emptied pages are used again rather than new ones taken, and
 * giving everything back leaves nothing (the sanitizer build's leak check sees to it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eng_duk_slab.h"

static void classes_round_up_to_16_then_32(void **state)
{
	(void)state;
	const size_t cases[][2] = {{0, 16},    {1, 16},    {16, 16},   {17, 32},   {100, 112}, {128, 128},
				   {129, 160}, {160, 160}, {161, 192}, {255, 256}, {256, 256}, {257, 0},
				   {4096, 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(eng_duk_slab_class_bytes(cases[i][0]), cases[i][1]);
	}
}

/* splitmix64, for reproducible sequences. */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#define LIVE 3000

typedef struct {
	uint8_t *p;
	size_t size;
	uint8_t fill;
} live_t;

static void blocks_keep_their_bytes_through_random_churn(void **state)
{
	(void)state;
	eng_duk_slabs_t slabs;
	eng_duk_slabs_init(&slabs);
	static live_t live[LIVE];
	memset(live, 0, sizeof(live));
	uint64_t seed = 42;
	for (int step = 0; step < 200000; step++) {
		live_t *l = &live[next(&seed) % LIVE];
		if (l->p != NULL) {
			/* Still what was written: no other block overlapped it. */
			for (size_t i = 0; i < l->size; i++) {
				assert_int_equal(l->p[i], l->fill);
			}
			assert_int_equal(eng_duk_slab_block_bytes(&slabs, l->p), eng_duk_slab_class_bytes(l->size));
			eng_duk_slab_free(&slabs, l->p);
			l->p = NULL;
			continue;
		}
		l->size = 1 + next(&seed) % ENG_DUK_SLAB_MAX;
		l->p = eng_duk_slab_alloc(&slabs, l->size);
		assert_non_null(l->p);
		assert_int_equal((uintptr_t)l->p % 16u, 0);
		l->fill = (uint8_t)next(&seed);
		memset(l->p, l->fill, l->size);
	}
	/* Memory from elsewhere is not a slab's. */
	void *large = malloc(512);
	assert_int_equal(eng_duk_slab_block_bytes(&slabs, large), 0);
	free(large);
	int x;
	assert_int_equal(eng_duk_slab_block_bytes(&slabs, &x), 0);
	eng_duk_slabs_free_all(&slabs);
	assert_int_equal(slabs.chunk_count, 0);
}

static void emptied_pages_serve_other_classes(void **state)
{
	(void)state;
	eng_duk_slabs_t slabs;
	eng_duk_slabs_init(&slabs);
	/* Fill three pages of 16-byte blocks, then free them all. */
	enum { PER_PAGE = (ENG_DUK_SLAB_BYTES - 32) / 16, N = 3 * PER_PAGE };
	static void *small[N];
	for (int i = 0; i < N; i++) {
		small[i] = eng_duk_slab_alloc(&slabs, 16);
	}
	uintptr_t fresh = slabs.fresh;
	for (int i = 0; i < N; i++) {
		eng_duk_slab_free(&slabs, small[i]);
	}
	/* Two of the three pages are empty and kept: the next two classes' pages are those, not new
	 * ones from the chunk. */
	void *a = eng_duk_slab_alloc(&slabs, 200);
	void *b = eng_duk_slab_alloc(&slabs, 100);
	assert_int_equal(slabs.fresh, fresh);
	assert_int_equal(eng_duk_slab_block_bytes(&slabs, a), 224);
	assert_int_equal(eng_duk_slab_block_bytes(&slabs, b), 112);
	/* The third is still its class's page with room. */
	void *c = eng_duk_slab_alloc(&slabs, 10);
	assert_int_equal(slabs.fresh, fresh);
	assert_int_equal(eng_duk_slab_block_bytes(&slabs, c), 16);
	eng_duk_slabs_free_all(&slabs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classes_round_up_to_16_then_32),
		cmocka_unit_test(blocks_keep_their_bytes_through_random_churn),
		cmocka_unit_test(emptied_pages_serve_other_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

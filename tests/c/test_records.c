/*
 * The flash record store (rt_records) on the simulated nRF52840 flash (sim_flash): what
 * storage.save/read/remove/readAll/clear/getStats and the persistent event queue rely on, and
 * that a power cut at any flash operation leaves every record as it was before the interrupted
 * call or as it is after it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_records.h"
#include "sim_flash_file.h"

#define PAGE 4096u
#define MAX_PAGES 16u
#define INDEX_CAP 128u

typedef struct rig {
	sim_flash_t sim;
	uint8_t mem[MAX_PAGES * PAGE];
	rt_records_entry_t index[INDEX_CAP];
	rt_records_config_t config;
	rt_records_t store;
} rig_t;

static rig_t *rig_new(uint32_t pages, uint32_t pages_per_sector, uint32_t capacity)
{
	rig_t *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_true(sim_flash_init(&r->sim, r->mem, PAGE, pages));
	r->config = (rt_records_config_t){.flash = &r->sim.flash,
					  .pages_per_sector = pages_per_sector,
					  .index = r->index,
					  .index_capacity = capacity};
	return r;
}

static rt_records_err_t rig_mount(rig_t *r)
{
	return rt_records_mount(&r->store, &r->config);
}

/* Deterministic content of a record: every (key, version) has its own bytes. */
static void fill(uint8_t *buf, size_t len, uint32_t key, uint32_t version)
{
	uint32_t x = key * 0x9e3779b9u ^ version * 0x85ebca6bu ^ 0x1234567u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

static void put(rig_t *r, uint8_t ns, uint32_t id, size_t len, uint32_t version)
{
	static uint8_t buf[20000];
	fill(buf, len, ns * 1000003u + id, version);
	rt_records_err_t err = rt_records_write(&r->store, ns, id, buf, len);
	if (err != RT_RECORDS_OK) {
		fail_msg("write ns %u id %u len %zu: %s", ns, (unsigned)id, len, rt_records_strerror(err));
	}
}

/* The record holds exactly what put(ns, id, len, version) wrote. */
static void expect(rig_t *r, uint8_t ns, uint32_t id, size_t len, uint32_t version)
{
	static uint8_t want[20000], got[20000];
	fill(want, len, ns * 1000003u + id, version);
	size_t n = 0;
	rt_records_err_t err = rt_records_read(&r->store, ns, id, got, sizeof(got), &n);
	if (err != RT_RECORDS_OK) {
		fail_msg("read ns %u id %u: %s", ns, (unsigned)id, rt_records_strerror(err));
	}
	assert_int_equal(n, len);
	assert_memory_equal(got, want, len);
}

static void expect_absent(rig_t *r, uint8_t ns, uint32_t id)
{
	uint8_t buf[16];
	size_t n;
	assert_int_equal(rt_records_read(&r->store, ns, id, buf, sizeof(buf), &n),
			 RT_RECORDS_ENOTFOUND);
}

/* ------------------------------------------------------------------------------ sim_flash */

static void test_sim_flash_rules(void **state)
{
	rig_t *r = rig_new(2, 1, INDEX_CAP);
	const hal_flash_t *f = &r->sim.flash;
	uint8_t w[4] = {0x12, 0x34, 0x56, 0x78}, back[4];
	assert_int_equal(f->page_size, 4096);
	assert_int_equal(f->write_block, 4);
	assert_int_equal(f->page_count, 2);
	assert_int_equal(hal_flash_read(f, 100, back, 4), 0);
	assert_memory_equal(back, "\xff\xff\xff\xff", 4);
	assert_int_equal(hal_flash_program(f, 100, w, 4), 0);
	assert_int_equal(hal_flash_read(f, 100, back, 4), 0);
	assert_memory_equal(back, w, 4);
	/* A written word cannot be written again without an erase, even to clear more bits. */
	uint8_t zero[4] = {0};
	assert_int_equal(hal_flash_program(f, 100, zero, 4), HAL_FLASH_ENOTERASED);
	assert_int_equal(r->sim.violations, 1);
	assert_int_equal(hal_flash_read(f, 100, back, 4), 0);
	assert_memory_equal(back, w, 4);
	assert_int_equal(hal_flash_program(f, 102, w, 4), HAL_FLASH_EALIGN);
	assert_int_equal(hal_flash_program(f, 8192, w, 4), HAL_FLASH_ERANGE);
	assert_int_equal(hal_flash_erase(f, 0), 0);
	assert_int_equal(hal_flash_read(f, 100, back, 4), 0);
	assert_memory_equal(back, "\xff\xff\xff\xff", 4);
	assert_int_equal(r->sim.word_programs, 1);
	assert_int_equal(r->sim.page_erases, 1);
	assert_int_equal(r->sim.erase_count[0], 1);
	free(r);
}

static void test_sim_flash_power_cut(void **state)
{
	rig_t *r = rig_new(2, 1, INDEX_CAP);
	const hal_flash_t *f = &r->sim.flash;
	uint8_t data[16], back[16];
	memset(data, 0x0F, sizeof(data));
	/* The third word of a four-word program is the one the power fails in. */
	sim_flash_cut_after(&r->sim, 3, 7);
	assert_int_equal(hal_flash_program(f, 0, data, 16), HAL_FLASH_EPOWER);
	assert_true(sim_flash_is_cut(&r->sim));
	assert_int_equal(hal_flash_read(f, 0, back, 16), HAL_FLASH_EPOWER);
	assert_int_equal(hal_flash_erase(f, 1), HAL_FLASH_EPOWER);
	sim_flash_power_on(&r->sim);
	assert_int_equal(hal_flash_read(f, 0, back, 16), 0);
	assert_memory_equal(back, data, 8);                        /* done before the cut */
	assert_memory_equal(back + 12, "\xff\xff\xff\xff", 4);     /* never started */
	/* The cut word only lost bits it was going to lose. */
	uint32_t cut;
	memcpy(&cut, back + 8, 4);
	assert_int_equal(cut & 0x0F0F0F0Fu, 0x0F0F0F0Fu);

	/* The same cut with the same seed leaves the same bytes. */
	uint8_t first[PAGE];
	memset(r->mem, 0, PAGE);
	sim_flash_cut_after(&r->sim, 1, 99);
	assert_int_equal(hal_flash_erase(f, 0), HAL_FLASH_EPOWER);
	memcpy(first, r->mem, PAGE);
	bool some_erased = false, some_kept = false;
	for (uint32_t i = 0; i < PAGE; i += 4) {
		some_erased = some_erased || memcmp(first + i, "\xff\xff\xff\xff", 4) == 0;
		some_kept = some_kept || memcmp(first + i, "\0\0\0\0", 4) == 0;
	}
	assert_true(some_erased && some_kept);
	sim_flash_power_on(&r->sim);
	r->sim.ops--; /* replay the same operation number */
	memset(r->mem, 0, PAGE);
	sim_flash_cut_after(&r->sim, 1, 99);
	assert_int_equal(hal_flash_erase(f, 0), HAL_FLASH_EPOWER);
	assert_memory_equal(r->mem, first, PAGE);
	free(r);
}

static char *temp_path(const char *name)
{
	static char dir[64];
	static char path[128];
	if (dir[0] == 0) {
		strcpy(dir, "/tmp/test_records_XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void test_sim_flash_file(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	char msg[256];
	const char *path = temp_path("flash.bin");
	unlink(path);
	assert_int_equal(sim_flash_load(&r->sim, path, msg, sizeof(msg)), 0); /* none yet */
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, 0, 42, 300, 1);
	assert_int_equal(sim_flash_save(&r->sim, path, msg, sizeof(msg)), 0);

	/* The next run of the simulator finds the record. */
	rig_t *again = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(sim_flash_load(&again->sim, path, msg, sizeof(msg)), 1);
	assert_int_equal(rig_mount(again), RT_RECORDS_OK);
	expect(again, 0, 42, 300, 1);

	/* Another geometry: refused with the reason, and the file is not overwritten. */
	rig_t *other = rig_new(8, 1, INDEX_CAP);
	assert_int_equal(sim_flash_load(&other->sim, path, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "4 pages of 4096 bytes"));
	assert_non_null(strstr(msg, "8 pages"));
	assert_int_equal(sim_flash_save(&other->sim, path, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "not overwritten"));
	assert_int_equal(sim_flash_load(&again->sim, path, msg, sizeof(msg)), 1);

	/* A damaged header: refused, not overwritten. */
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 13, SEEK_SET);
	fputc(0x55, f);
	fclose(f);
	assert_int_equal(sim_flash_load(&again->sim, path, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "damaged"));
	assert_int_equal(sim_flash_save(&again->sim, path, msg, sizeof(msg)), -1);
	f = fopen(path, "rb");
	fseek(f, 13, SEEK_SET);
	assert_int_equal(fgetc(f), 0x55);
	fclose(f);

	/* Something else entirely. */
	const char *junk = temp_path("junk.bin");
	f = fopen(junk, "wb");
	fputs("hello", f);
	fclose(f);
	assert_int_equal(sim_flash_load(&again->sim, junk, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "not a flash image"));
	unlink(junk);
	unlink(path);
	free(r);
	free(again);
	free(other);
}

/* ------------------------------------------------------------------------------ functional */

static void test_mount_erased_area(void **state)
{
	rig_t *r = rig_new(8, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.used, 0);
	/* Seven sectors hold records (one is the spare), each less a header and two reserves. */
	assert_int_equal(st.total, 7 * (PAGE - 3 * RT_RECORDS_ATE_SIZE));
	assert_int_equal(st.free, st.total);
	assert_int_equal(st.max_record, PAGE - 4 * RT_RECORDS_ATE_SIZE);
	/* Only the first sector header was written. */
	assert_int_equal(r->sim.word_programs, RT_RECORDS_ATE_SIZE / 4);
	assert_int_equal(r->sim.page_erases, 0);
	uint64_t ops = r->sim.ops;
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	assert_int_equal(r->sim.ops, ops);
	rt_records_iter_t it;
	uint32_t id;
	size_t len;
	rt_records_iter_init(&it, RT_RECORDS_NS_APP);
	assert_int_equal(rt_records_iter_next(&r->store, &it, &id, &len), RT_RECORDS_ENOTFOUND);
	free(r);
}

static void test_save_read_replace_delete(void **state)
{
	rig_t *r = rig_new(8, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect_absent(r, 0, 1);
	put(r, 0, 1, 5, 1);
	expect(r, 0, 1, 5, 1);
	put(r, 0, 1, 700, 2); /* replace, longer */
	expect(r, 0, 1, 700, 2);
	put(r, 0, 1, 0, 3); /* an empty record exists and is not a delete */
	expect(r, 0, 1, 0, 3);
	size_t len = 99;
	assert_int_equal(rt_records_size(&r->store, 0, 1, &len), RT_RECORDS_OK);
	assert_int_equal(len, 0);
	assert_int_equal(rt_records_delete(&r->store, 0, 1), RT_RECORDS_OK);
	expect_absent(r, 0, 1);
	assert_int_equal(rt_records_delete(&r->store, 0, 1), RT_RECORDS_ENOTFOUND);
	/* All of it survives a reboot. */
	put(r, 0, 2, 33, 1);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect_absent(r, 0, 1);
	expect(r, 0, 2, 33, 1);
	assert_int_equal(r->sim.violations, 0);
	free(r);
}

static void test_same_value_is_not_rewritten(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, 0, 9, 500, 1);
	uint64_t programs = r->sim.word_programs;
	put(r, 0, 9, 500, 1);
	assert_int_equal(r->sim.word_programs, programs);
	put(r, 0, 9, 500, 2);
	assert_true(r->sim.word_programs > programs);
	expect(r, 0, 9, 500, 2);
	free(r);
}

static void test_extreme_ids_and_id_order(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	static const uint32_t ids[] = {0xFFFFFFFFu, 7, 0, 0x80000000u, 1};
	for (size_t i = 0; i < 5; i++) {
		put(r, 0, ids[i], 10 + i, (uint32_t)i);
	}
	for (int boot = 0; boot < 2; boot++) {
		static const uint32_t sorted[] = {0, 1, 7, 0x80000000u, 0xFFFFFFFFu};
		rt_records_iter_t it;
		rt_records_iter_init(&it, 0);
		uint32_t id;
		size_t len;
		for (size_t i = 0; i < 5; i++) {
			assert_int_equal(rt_records_iter_next(&r->store, &it, &id, &len), RT_RECORDS_OK);
			assert_int_equal(id, sorted[i]);
		}
		assert_int_equal(rt_records_iter_next(&r->store, &it, &id, &len), RT_RECORDS_ENOTFOUND);
		expect(r, 0, 0, 12, 2);
		expect(r, 0, 0xFFFFFFFFu, 10, 0);
		assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	}
	free(r);
}

static void test_iteration_while_changing(void **state)
{
	/* readAll's callback may save and remove: iteration goes on from the next id. */
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	for (uint32_t id = 10; id <= 50; id += 10) {
		put(r, 0, id, 8, id);
	}
	rt_records_iter_t it;
	rt_records_iter_init(&it, 0);
	uint32_t id, seen[8];
	size_t len, n = 0;
	while (rt_records_iter_next(&r->store, &it, &id, &len) == RT_RECORDS_OK) {
		seen[n++] = id;
		if (id == 20) {
			assert_int_equal(rt_records_delete(&r->store, 0, 30), RT_RECORDS_OK);
			put(r, 0, 35, 8, 1);
			put(r, 0, 5, 8, 1); /* behind the cursor: not visited */
		}
	}
	assert_int_equal(n, 5);
	static const uint32_t want[] = {10, 20, 35, 40, 50};
	assert_memory_equal(seen, want, sizeof(want));
	free(r);
}

static void test_namespaces_are_isolated(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, RT_RECORDS_NS_APP, 1, 100, 1);
	put(r, RT_RECORDS_NS_EVENTS, 1, 200, 2);
	put(r, RT_RECORDS_NS_EVENTS, 2, 50, 3);
	put(r, RT_RECORDS_NS_SYSTEM, 1, 4, 4);
	expect(r, RT_RECORDS_NS_APP, 1, 100, 1);
	expect(r, RT_RECORDS_NS_EVENTS, 1, 200, 2);
	uint32_t n, bytes;
	rt_records_ns_usage(&r->store, RT_RECORDS_NS_EVENTS, &n, &bytes);
	assert_int_equal(n, 2);
	assert_int_equal(bytes, rt_records_footprint(200) + rt_records_footprint(50));
	/* storage.clear() empties the app's namespace only. */
	assert_int_equal(rt_records_clear(&r->store, RT_RECORDS_NS_APP), RT_RECORDS_OK);
	expect_absent(r, RT_RECORDS_NS_APP, 1);
	expect(r, RT_RECORDS_NS_EVENTS, 1, 200, 2);
	expect(r, RT_RECORDS_NS_SYSTEM, 1, 4, 4);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect_absent(r, RT_RECORDS_NS_APP, 1);
	expect(r, RT_RECORDS_NS_EVENTS, 2, 50, 3);
	/* A record written after the clear is not cleared by it at the next mount. */
	put(r, RT_RECORDS_NS_APP, 1, 10, 5);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, RT_RECORDS_NS_APP, 1, 10, 5);
	assert_int_equal(rt_records_clear(&r->store, RT_RECORDS_NS_ALL), RT_RECORDS_OK);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.used, 0);
	free(r);
}

static void test_stats_add_up(void **state)
{
	rig_t *r = rig_new(8, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	static const size_t lens[] = {1, 4, 5, 100, 1024, 0, 333};
	uint32_t sum = 0;
	for (uint32_t i = 0; i < 7; i++) {
		put(r, (uint8_t)(i % 3), i, lens[i], 1);
		sum += rt_records_footprint(lens[i]);
	}
	put(r, 0, 3, 50, 2); /* id 3 (ns 0) replaced: 100 bytes -> 50 */
	sum = sum - rt_records_footprint(100) + rt_records_footprint(50);
	assert_int_equal(rt_records_delete(&r->store, 1, 4), RT_RECORDS_OK);
	sum -= rt_records_footprint(1024);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.records, 6);
	assert_int_equal(st.used, sum);
	assert_int_equal(st.free, st.total - sum);
	assert_int_equal(rt_records_footprint(100), 120);
	assert_int_equal(rt_records_footprint(1), 24);
	uint32_t n0, b0, n1, b1, n2, b2;
	rt_records_ns_usage(&r->store, 0, &n0, &b0);
	rt_records_ns_usage(&r->store, 1, &n1, &b1);
	rt_records_ns_usage(&r->store, 2, &n2, &b2);
	assert_int_equal(n0 + n1 + n2, 6);
	assert_int_equal(b0 + b1 + b2, sum);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	rt_records_stats_t again;
	rt_records_stats(&r->store, &again);
	assert_int_equal(again.used, sum);
	assert_int_equal(again.records, 6);
	free(r);
}

static void test_full_store_then_gc_reclaims(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	uint32_t n = 0;
	rt_records_err_t err;
	static uint8_t buf[1000];
	for (;;) {
		fill(buf, sizeof(buf), n, 1);
		err = rt_records_write(&r->store, 0, n, buf, sizeof(buf));
		if (err != RT_RECORDS_OK) {
			break;
		}
		n++;
	}
	assert_int_equal(err, RT_RECORDS_ENOSPC);
	/* Three usable sectors of 4 KB: three records of 1,020 bytes each. */
	assert_int_equal(n, 9);
	/* The refusal left a working store: what each sector has left still takes a smaller one. */
	put(r, 0, 100, 500, 1);
	assert_int_equal(rt_records_delete(&r->store, 0, 100), RT_RECORDS_OK);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	/* Nothing written before the refusal was lost, and a delete still works when full. */
	for (uint32_t i = 0; i < n; i++) {
		expect(r, 0, i, sizeof(buf), 1);
	}
	for (uint32_t i = 0; i < n; i += 2) {
		assert_int_equal(rt_records_delete(&r->store, 0, i), RT_RECORDS_OK);
	}
	/* Garbage collection makes the deleted space usable again, many times over. */
	uint32_t runs = st.gc_runs;
	for (uint32_t round = 2; round < 12; round++) {
		for (uint32_t i = 0; i < 6; i += 2) {
			put(r, 0, i, sizeof(buf), round);
		}
		for (uint32_t i = 0; i < 6; i += 2) {
			assert_int_equal(rt_records_delete(&r->store, 0, i), RT_RECORDS_OK);
		}
	}
	rt_records_stats(&r->store, &st);
	assert_true(st.gc_runs > runs + 10);
	for (uint32_t i = 1; i < n; i += 2) {
		expect(r, 0, i, sizeof(buf), 1);
	}
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	for (uint32_t i = 0; i < n; i++) {
		if (i % 2) {
			expect(r, 0, i, sizeof(buf), 1);
		} else {
			expect_absent(r, 0, i);
		}
	}
	assert_int_equal(r->sim.violations, 0);
	free(r);
}

static void test_index_capacity(void **state)
{
	rig_t *r = rig_new(4, 1, 3);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, 0, 1, 10, 1);
	put(r, 0, 2, 10, 1);
	put(r, 1, 1, 10, 1);
	uint64_t ops = r->sim.ops;
	uint8_t b[4] = {1, 2, 3, 4};
	assert_int_equal(rt_records_write(&r->store, 0, 3, b, 4), RT_RECORDS_EINDEX_FULL);
	assert_int_equal(r->sim.ops, ops); /* refused before touching flash */
	put(r, 0, 2, 20, 2); /* replacing needs no new entry */
	assert_int_equal(rt_records_delete(&r->store, 0, 1), RT_RECORDS_OK);
	put(r, 0, 3, 4, 1);
	/* A store with more records than the index can hold is refused, untouched. */
	r->config.index_capacity = 2;
	ops = r->sim.ops;
	assert_int_equal(rig_mount(r), RT_RECORDS_EINDEX_FULL);
	assert_int_equal(r->sim.ops, ops);
	assert_int_equal(rt_records_write(&r->store, 0, 9, b, 4), RT_RECORDS_ENOTMOUNTED);
	r->config.index_capacity = 3;
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, 0, 2, 20, 2);
	expect(r, 0, 3, 4, 1);
	free(r);
}

static void test_record_of_12_kb(void **state)
{
	/* Sectors of four 4 KB pages, as the device uses: the API's 12 kB records fit. */
	rig_t *r = rig_new(16, 4, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.max_record, 4 * PAGE - 4 * RT_RECORDS_ATE_SIZE);
	put(r, 0, 1, 12 * 1024, 1);
	expect(r, 0, 1, 12 * 1024, 1);
	static uint8_t big[20000];
	assert_int_equal(rt_records_write(&r->store, 0, 2, big, st.max_record + 1),
			 RT_RECORDS_ETOOBIG);
	put(r, 0, 2, st.max_record, 1);
	/* Replacing both many times goes round the ring and through garbage collection. */
	for (uint32_t v = 2; v < 12; v++) {
		put(r, 0, v % 2 ? 1 : 2, v % 2 ? 12 * 1024 : st.max_record, v);
		put(r, 0, 3, 100, v);
	}
	rt_records_stats(&r->store, &st);
	assert_true(st.gc_runs >= 5);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, 0, 1, 12 * 1024, 11);
	expect(r, 0, 2, st.max_record, 10);
	expect(r, 0, 3, 100, 11);
	assert_int_equal(r->sim.violations, 0);
	free(r);
}

static void test_many_reboots_same_content(void **state)
{
	rig_t *r = rig_new(6, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	uint32_t version[20] = {0};
	size_t lens[20] = {0};
	uint32_t x = 1;
	for (int boot = 0; boot < 150; boot++) {
		/* A few changes per boot, then a reboot: everything is as last written. */
		for (int k = 0; k < 3; k++) {
			x = x * 1103515245u + 12345u;
			uint32_t id = (x >> 8) % 20;
			if ((x >> 20) % 4 == 0 && version[id] != 0) {
				assert_int_equal(rt_records_delete(&r->store, 0, id), RT_RECORDS_OK);
				version[id] = 0;
			} else {
				lens[id] = (x >> 12) % 300;
				version[id] = (uint32_t)boot * 10u + (uint32_t)k + 1u;
				put(r, 0, id, lens[id], version[id]);
			}
		}
		assert_int_equal(rig_mount(r), RT_RECORDS_OK);
		for (uint32_t id = 0; id < 20; id++) {
			if (version[id] != 0) {
				expect(r, 0, id, lens[id], version[id]);
			} else {
				expect_absent(r, 0, id);
			}
		}
	}
	/* Mounting again and again changes nothing on flash. */
	uint64_t ops = r->sim.ops;
	for (int i = 0; i < 50; i++) {
		assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	}
	assert_int_equal(r->sim.ops, ops);
	assert_int_equal(r->sim.violations, 0);
	free(r);
}

static void test_wear_rotates_over_sectors(void **state)
{
	/* One record rewritten over and over wears every sector alike. */
	rig_t *r = rig_new(6, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, 0, 1, 2000, 0); /* static data moves with the ring */
	for (uint32_t v = 1; v <= 300; v++) {
		put(r, 0, 2, 400, v);
	}
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t p = 0; p < 6; p++) {
		lo = r->sim.erase_count[p] < lo ? r->sim.erase_count[p] : lo;
		hi = r->sim.erase_count[p] > hi ? r->sim.erase_count[p] : hi;
	}
	assert_true(lo >= 5);
	assert_true(hi - lo <= 1);
	expect(r, 0, 1, 2000, 0);
	free(r);
}

static void test_bad_input(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	uint8_t b[8] = {0};
	size_t len;
	assert_int_equal(rt_records_write(&r->store, 0, 1, b, 1), RT_RECORDS_ENOTMOUNTED);
	/* Geometry: two sectors at least, whole pages. */
	r->config.pages_per_sector = 3;
	assert_int_equal(rig_mount(r), RT_RECORDS_EINVAL);
	r->config.pages_per_sector = 0;
	assert_int_equal(rig_mount(r), RT_RECORDS_EINVAL);
	r->config.pages_per_sector = 1;
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	assert_int_equal(rt_records_write(&r->store, RT_RECORDS_NS_ALL, 1, b, 1), RT_RECORDS_EINVAL);
	/* The index entry has two bits of namespace: 0..3. */
	assert_int_equal(rt_records_write(&r->store, RT_RECORDS_NS_MAX + 1u, 1, b, 1), RT_RECORDS_EINVAL);
	assert_int_equal(rt_records_write(&r->store, RT_RECORDS_NS_MAX, 1, b, 1), RT_RECORDS_OK);
	assert_int_equal(rt_records_delete(&r->store, RT_RECORDS_NS_MAX, 1), RT_RECORDS_OK);
	assert_int_equal(rt_records_write(&r->store, 0, 1, NULL, 3), RT_RECORDS_EINVAL);
	put(r, 0, 1, 100, 1);
	/* A buffer that is too small: the length, and nothing else. */
	assert_int_equal(rt_records_read(&r->store, 0, 1, b, sizeof(b), &len), RT_RECORDS_ETOOBIG);
	assert_int_equal(len, 100);
	expect(r, 0, 1, 100, 1);
	assert_string_equal(rt_records_strerror(RT_RECORDS_ENOSPC), "no storage space");
	free(r);
}

/* The RAM index costs 8 bytes a record (docs/storage.md); its narrow fields number 16 sectors
 * and sectors of up to 40 KB, which the largest geometries here reach. */
static void test_index_entry_size(void **state)
{
	(void)state;
	assert_int_equal(sizeof(rt_records_entry_t), 8);
	/* 16 sectors of one page: the most the entry numbers. */
	rig_t *r = rig_new(16, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	assert_int_equal(rt_records_max_record(&r->store), 4096u - 80u);
	free(r);
	/* Two 32 KB sectors: 1,638 entry slots each. */
	r = rig_new(16, 8, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	assert_int_equal(rt_records_max_record(&r->store), RT_RECORDS_LEN_MAX);
	free(r);
}

static void test_foreign_area_is_left_alone(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	uint32_t x = 5;
	for (uint32_t i = 0; i < 4 * PAGE; i++) {
		x = x * 1103515245u + 12345u;
		r->mem[i] = (uint8_t)(x >> 16);
	}
	static uint8_t copy[4 * PAGE];
	memcpy(copy, r->mem, sizeof(copy));
	assert_int_equal(rig_mount(r), RT_RECORDS_EFORMAT);
	assert_memory_equal(r->mem, copy, sizeof(copy));
	free(r);

	/* A store made with one-page sectors is not mounted as two-page sectors. */
	r = rig_new(8, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	for (uint32_t v = 0; v < 20; v++) {
		put(r, 0, v, 900, v);
	}
	memcpy(copy, r->mem, sizeof(copy));
	r->config.pages_per_sector = 2;
	assert_int_equal(rig_mount(r), RT_RECORDS_EFORMAT);
	assert_memory_equal(r->mem, copy, sizeof(copy));
	r->config.pages_per_sector = 1;
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, 0, 19, 900, 19);
	free(r);
}

/* ------------------------------------------------------------------------------ bit rot */

/* Flash offset of the data of (ns, id), from the index and its entry. */
static uint32_t data_offset(rig_t *r, uint8_t ns, uint32_t id)
{
	for (uint32_t i = 0; i < r->store.count; i++) {
		rt_records_entry_t *e = &r->store.index[i];
		if (e->ns == ns && e->id == id) {
			uint32_t ate = e->sector * r->store.sector_size + r->store.sector_size -
				       (e->slot + 1u) * RT_RECORDS_ATE_SIZE;
			uint32_t words = r->mem[ate + 6] | r->mem[ate + 7] << 8;
			return e->sector * r->store.sector_size + words * 4u;
		}
	}
	fail_msg("no record %u", (unsigned)id);
	return 0;
}

static uint32_t entry_offset(rig_t *r, uint8_t ns, uint32_t id)
{
	for (uint32_t i = 0; i < r->store.count; i++) {
		rt_records_entry_t *e = &r->store.index[i];
		if (e->ns == ns && e->id == id) {
			return e->sector * r->store.sector_size + r->store.sector_size -
			       (e->slot + 1u) * RT_RECORDS_ATE_SIZE;
		}
	}
	fail_msg("no record %u", (unsigned)id);
	return 0;
}

static void test_bit_rot_in_data_is_not_returned(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	for (uint32_t id = 1; id <= 3; id++) {
		put(r, 0, id, 200, id);
	}
	/* Rot after mount: the read catches it. */
	sim_flash_flip_bit(&r->sim, data_offset(r, 0, 2) + 77, 3);
	uint8_t buf[300];
	size_t len;
	assert_int_equal(rt_records_read(&r->store, 0, 2, buf, sizeof(buf), &len),
			 RT_RECORDS_ECORRUPT);
	expect(r, 0, 1, 200, 1);
	expect(r, 0, 3, 200, 3);
	/* At mount: kept out of reads and iteration, and counted. */
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	assert_int_equal(rt_records_read(&r->store, 0, 2, buf, sizeof(buf), &len),
			 RT_RECORDS_ECORRUPT);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.corrupt, 1);
	rt_records_iter_t it;
	rt_records_iter_init(&it, 0);
	uint32_t id, seen = 0;
	while (rt_records_iter_next(&r->store, &it, &id, &len) == RT_RECORDS_OK) {
		assert_int_not_equal(id, 2);
		seen++;
	}
	assert_int_equal(seen, 2);
	/* Saving the id again gives a good record. */
	put(r, 0, 2, 50, 9);
	expect(r, 0, 2, 50, 9);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, 0, 2, 50, 9);
	free(r);
}

static void test_bit_rot_in_entry_is_not_returned(void **state)
{
	rig_t *r = rig_new(4, 1, INDEX_CAP);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	put(r, 0, 1, 64, 1);
	put(r, 0, 2, 64, 2);
	put(r, 0, 3, 64, 3);
	sim_flash_flip_bit(&r->sim, entry_offset(r, 0, 2) + 5, 0); /* its length */
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect_absent(r, 0, 2);
	expect(r, 0, 1, 64, 1);
	expect(r, 0, 3, 64, 3); /* entries after the damaged one are still found */
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	assert_int_equal(st.damaged, 1);
	put(r, 0, 4, 64, 4);
	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	expect(r, 0, 4, 64, 4);
	free(r);
}

/* ------------------------------------------------------------------------------ power cuts */

/*
 * A fixed sequence of saves, replaces, deletes and clears over a small store, with records large
 * enough that it goes through garbage collection many times. The model is the expected content:
 * for each key, the version of its value (0: absent).
 */
#define KEYS 10
static const struct {
	uint8_t ns;
	uint32_t id;
} keys[KEYS] = {
	{0, 0}, {0, 1}, {0, 2}, {0, 0xFFFFFFFFu}, {0, 1000}, {1, 1}, {1, 2}, {1, 3}, {2, 7}, {2, 8},
};

enum op_kind { OP_WRITE, OP_DELETE, OP_CLEAR };

typedef struct op {
	enum op_kind kind;
	uint8_t key;   /* OP_WRITE, OP_DELETE; namespace for OP_CLEAR */
	uint16_t len;
	uint32_t version;
} op_t;

typedef struct model {
	uint32_t version[KEYS];
	uint16_t len[KEYS];
} model_t;

#define MAX_OPS 200

typedef struct script {
	op_t ops[MAX_OPS];
	size_t count;
	model_t before[MAX_OPS], after[MAX_OPS];
} script_t;

static rt_records_err_t run_op(rig_t *r, const op_t *op)
{
	static uint8_t buf[20000];
	switch (op->kind) {
	case OP_WRITE:
		fill(buf, op->len, keys[op->key].ns * 1000003u + keys[op->key].id, op->version);
		return rt_records_write(&r->store, keys[op->key].ns, keys[op->key].id, buf, op->len);
	case OP_DELETE:
		return rt_records_delete(&r->store, keys[op->key].ns, keys[op->key].id);
	case OP_CLEAR:
		return rt_records_clear(&r->store, op->key);
	}
	return RT_RECORDS_EINVAL;
}

static void apply(model_t *m, const op_t *op)
{
	switch (op->kind) {
	case OP_WRITE:
		m->version[op->key] = op->version;
		m->len[op->key] = op->len;
		break;
	case OP_DELETE:
		m->version[op->key] = 0;
		break;
	case OP_CLEAR:
		for (int k = 0; k < KEYS; k++) {
			if (keys[k].ns == op->key) {
				m->version[k] = 0;
			}
		}
		break;
	}
}

/* The store holds exactly the model: every key, and nothing else in any namespace. */
static bool holds(rig_t *r, const model_t *m)
{
	static uint8_t want[20000], got[20000];
	uint32_t present = 0;
	for (int k = 0; k < KEYS; k++) {
		size_t n = 0;
		rt_records_err_t err =
			rt_records_read(&r->store, keys[k].ns, keys[k].id, got, sizeof(got), &n);
		if (m->version[k] == 0) {
			if (err != RT_RECORDS_ENOTFOUND) {
				return false;
			}
			continue;
		}
		present++;
		fill(want, m->len[k], keys[k].ns * 1000003u + keys[k].id, m->version[k]);
		if (err != RT_RECORDS_OK || n != m->len[k] || memcmp(got, want, n) != 0) {
			return false;
		}
	}
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	return st.records == present && st.corrupt == 0;
}

/* A deterministic sequence whose live data stays under about 70% of the store. */
static void make_script(script_t *sc, uint32_t capacity, const uint16_t *lens, size_t nlens,
			size_t count)
{
	model_t m;
	memset(&m, 0, sizeof(m));
	uint32_t x = 0xC0FFEEu;
	sc->count = 0;
	for (size_t i = 0; i < count; i++) {
		x = x * 1103515245u + 12345u;
		uint32_t r = x >> 8;
		op_t op = {.kind = OP_WRITE, .key = (uint8_t)(r % KEYS),
			   .len = lens[(r / KEYS) % nlens], .version = (uint32_t)i + 1u};
		uint32_t live = 0; /* a replaced value counts until the new one is in */
		for (int k = 0; k < KEYS; k++) {
			live += m.version[k] != 0 ? rt_records_footprint(m.len[k]) : 0;
		}
		if (i % 17 == 16) {
			op = (op_t){.kind = OP_CLEAR, .key = (uint8_t)(1 + (i / 17) % 2)};
		} else if ((r >> 12) % 5 == 0 || live + rt_records_footprint(op.len) > capacity * 7 / 10) {
			/* a delete (of a record that exists, or not: that must not write) */
			op.kind = OP_DELETE;
		} else if ((r >> 12) % 7 == 1 && m.version[op.key] != 0) {
			/* the same value again */
			op.len = m.len[op.key];
			op.version = m.version[op.key];
		}
		sc->before[i] = m;
		if (!(op.kind == OP_DELETE && m.version[op.key] == 0)) {
			apply(&m, &op);
		}
		sc->after[i] = m;
		sc->ops[sc->count++] = op;
	}
}

typedef struct snapshot {
	sim_flash_t sim;
	uint8_t *mem;
	rt_records_t store;
	rt_records_entry_t index[INDEX_CAP];
} snapshot_t;

static void save(snapshot_t *s, const rig_t *r, size_t bytes)
{
	s->sim = r->sim;
	memcpy(s->mem, r->mem, bytes);
	s->store = r->store;
	memcpy(s->index, r->index, sizeof(s->index));
}

static void restore(rig_t *r, const snapshot_t *s, size_t bytes)
{
	uint8_t *mem = r->sim.mem;
	r->sim = s->sim;
	r->sim.mem = mem;
	r->sim.flash.ctx = &r->sim;
	memcpy(r->mem, s->mem, bytes);
	r->store = s->store;
	r->store.flash = &r->sim.flash;
	r->store.index = r->index;
	memcpy(r->index, s->index, sizeof(s->index));
}

static void check_recovered(rig_t *r, const script_t *sc, size_t k, uint64_t n, const char *when)
{
	rt_records_err_t err = rig_mount(r);
	if (err != RT_RECORDS_OK) {
		fail_msg("%s: op %zu cut at its operation %llu: mount: %s", when, k,
			 (unsigned long long)n, rt_records_strerror(err));
	}
	if (!holds(r, &sc->before[k]) && !holds(r, &sc->after[k])) {
		fail_msg("%s: op %zu (kind %d key %u) cut at its operation %llu: the store holds neither "
			 "the state before the call nor the state after it",
			 when, k, sc->ops[k].kind, sc->ops[k].key, (unsigned long long)n);
	}
	if (r->sim.violations != 0) {
		fail_msg("%s: op %zu cut at %llu: a non-erased word was programmed", when, k,
			 (unsigned long long)n);
	}
}

/*
 * For every flash operation of the sequence: cut the power there, remount, check. Running the
 * sequence from the start for every cut point gives exactly the same flash contents as restoring
 * a snapshot taken before the interrupted call (flash, store and simulator are deterministic), so
 * the snapshot is used: the cost is one call per cut point instead of the whole prefix.
 *
 * Then, from each cut state, every cut during the mount-time recovery (a cut while recovering
 * from a cut), and finally one write and read-back to show the store still works.
 */
static void power_cut_sweep(uint32_t pages, uint32_t pages_per_sector, const uint16_t *lens,
			    size_t nlens, size_t count, uint32_t min_gc)
{
	rig_t *r = rig_new(pages, pages_per_sector, INDEX_CAP);
	size_t bytes = (size_t)pages * PAGE;
	script_t *sc = calloc(1, sizeof(*sc));
	snapshot_t *before_op = calloc(1, sizeof(*before_op));
	snapshot_t *cut_state = calloc(1, sizeof(*cut_state));
	before_op->mem = malloc(bytes);
	cut_state->mem = malloc(bytes);
	assert_true(sc && before_op && cut_state && before_op->mem && cut_state->mem);

	assert_int_equal(rig_mount(r), RT_RECORDS_OK);
	rt_records_stats_t st;
	rt_records_stats(&r->store, &st);
	make_script(sc, st.total, lens, nlens, count);

	uint64_t cuts = 0, recovery_cuts = 0, total_ops = 0;
	static uint8_t probe[600], back[600];
	for (size_t k = 0; k < sc->count; k++) {
		save(before_op, r, bytes);
		/* The call without a cut: its result, and how many flash operations it makes. */
		uint64_t start = r->sim.ops;
		rt_records_err_t want = run_op(r, &sc->ops[k]);
		uint64_t ops_k = r->sim.ops - start;
		total_ops += ops_k;
		bool absent_delete = sc->ops[k].kind == OP_DELETE &&
				     sc->before[k].version[sc->ops[k].key] == 0;
		assert_int_equal(want, absent_delete ? RT_RECORDS_ENOTFOUND : RT_RECORDS_OK);
		if (!holds(r, &sc->after[k])) {
			fail_msg("op %zu without a cut: wrong content", k);
		}

		for (uint64_t n = 1; n <= ops_k; n++) {
			restore(r, before_op, bytes);
			sim_flash_cut_after(&r->sim, n, (uint32_t)(k * 7919u + n));
			(void)run_op(r, &sc->ops[k]);
			assert_true(sim_flash_is_cut(&r->sim));
			cuts++;
			sim_flash_power_on(&r->sim);
			save(cut_state, r, bytes);

			/* Cuts during recovery, until a mount needs no more operations than that. */
			for (uint64_t m = 1;; m++) {
				restore(r, cut_state, bytes);
				sim_flash_cut_after(&r->sim, m, (uint32_t)(n * 31u + m));
				rt_records_err_t err = rig_mount(r);
				if (!sim_flash_is_cut(&r->sim)) {
					assert_int_equal(err, RT_RECORDS_OK);
					break;
				}
				recovery_cuts++;
				sim_flash_power_on(&r->sim);
				check_recovered(r, sc, k, n, "cut in recovery");
			}
			sim_flash_power_on(&r->sim);
			restore(r, cut_state, bytes);
			check_recovered(r, sc, k, n, "cut");

			/* And it keeps working. */
			fill(probe, sizeof(probe), 4242, (uint32_t)n);
			assert_int_equal(rt_records_write(&r->store, 2, 4242, probe, sizeof(probe)),
					 RT_RECORDS_OK);
			size_t len;
			assert_int_equal(rt_records_read(&r->store, 2, 4242, back, sizeof(back), &len),
					 RT_RECORDS_OK);
			assert_memory_equal(back, probe, sizeof(probe));
			assert_int_equal(rig_mount(r), RT_RECORDS_OK);
			assert_int_equal(rt_records_read(&r->store, 2, 4242, back, sizeof(back), &len),
					 RT_RECORDS_OK);
			assert_memory_equal(back, probe, sizeof(probe));
		}
		/* On to the next call from the uncut state. */
		restore(r, before_op, bytes);
		assert_int_equal(run_op(r, &sc->ops[k]), want);
	}
	rt_records_stats(&r->store, &st);
	print_message("power cuts: %llu cut points over %zu calls, %llu cuts during recovery, "
		      "%u garbage collections\n",
		      (unsigned long long)cuts, sc->count, (unsigned long long)recovery_cuts,
		      (unsigned)st.gc_runs);
	assert_int_equal(cuts, total_ops);
	assert_true(st.gc_runs >= min_gc);
	assert_true(recovery_cuts > 0);
	free(before_op->mem);
	free(cut_state->mem);
	free(before_op);
	free(cut_state);
	free(sc);
	free(r);
}

static void test_power_cut_at_every_operation(void **state)
{
	static const uint16_t lens[] = {0, 3, 100, 480, 777, 1000, 1500, 2100};
	power_cut_sweep(4, 1, lens, sizeof(lens) / sizeof(lens[0]), 90, 8);
}

static void test_power_cut_at_every_operation_12kb_sectors(void **state)
{
	/* The device's geometry: sectors of four pages, records up to 12 kB. */
	static const uint16_t lens[] = {12288, 40, 3000, 700};
	power_cut_sweep(12, 4, lens, sizeof(lens) / sizeof(lens[0]), 40, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_flash_rules),
		cmocka_unit_test(test_sim_flash_power_cut),
		cmocka_unit_test(test_sim_flash_file),
		cmocka_unit_test(test_mount_erased_area),
		cmocka_unit_test(test_save_read_replace_delete),
		cmocka_unit_test(test_same_value_is_not_rewritten),
		cmocka_unit_test(test_extreme_ids_and_id_order),
		cmocka_unit_test(test_iteration_while_changing),
		cmocka_unit_test(test_namespaces_are_isolated),
		cmocka_unit_test(test_stats_add_up),
		cmocka_unit_test(test_full_store_then_gc_reclaims),
		cmocka_unit_test(test_index_capacity),
		cmocka_unit_test(test_record_of_12_kb),
		cmocka_unit_test(test_many_reboots_same_content),
		cmocka_unit_test(test_wear_rotates_over_sectors),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_index_entry_size),
		cmocka_unit_test(test_foreign_area_is_left_alone),
		cmocka_unit_test(test_bit_rot_in_data_is_not_returned),
		cmocka_unit_test(test_bit_rot_in_entry_is_not_returned),
		cmocka_unit_test(test_power_cut_at_every_operation),
		cmocka_unit_test(test_power_cut_at_every_operation_12kb_sectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

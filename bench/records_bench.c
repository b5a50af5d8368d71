/*
 * records-bench: the record store (rt_records) on the simulated flash, for bench/records.sh.
 *
 *   records-bench MODE N
 *
 * Instruction modes (run under callgrind; the per-operation cost is
 * (count(MODE, N) - count(MODE, 0)) / N, so the set-up both runs share cancels out):
 *   write1k  N writes of a 1 kB record (20 ids in turn, new content each time) into a store that
 *            already holds those 20 records: replaces, garbage collection included
 *   read1k   N reads of a 1 kB record out of 20 (data CRC checked on each)
 *   mount100 N mounts of a store holding 100 records of 100 bytes (index rebuilt, every record's
 *            data CRC checked)
 * The area is the device's shape: 16 pages of 4 KB in sectors of 4 pages (the sectors the 12 kB
 * records need), 4-byte words. The simulated flash costs a little (a memcpy per operation), as
 * the device's driver would.
 *
 *   records-bench sizes 0   prints the flash and RAM figures, one "name: value unit" a line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_records.h"
#include "sim_flash.h"

#define PAGE 4096u
#define PAGES 16u
#define PAGES_PER_SECTOR 4u
#define INDEX_CAP 1024u

static uint8_t mem[PAGES * PAGE];
static sim_flash_t sim;
static rt_records_entry_t index_entries[INDEX_CAP];
static rt_records_t store;
static rt_records_config_t config;

static void fill(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

static void check(rt_records_err_t err, const char *what)
{
	if (err != RT_RECORDS_OK) {
		fprintf(stderr, "records-bench: %s: %s\n", what, rt_records_strerror(err));
		exit(1);
	}
}

static void setup(void)
{
	if (!sim_flash_init(&sim, mem, PAGE, PAGES)) {
		fprintf(stderr, "records-bench: bad geometry\n");
		exit(1);
	}
	config = (rt_records_config_t){.flash = &sim.flash,
				       .pages_per_sector = PAGES_PER_SECTOR,
				       .index = index_entries,
				       .index_capacity = INDEX_CAP};
	check(rt_records_mount(&store, &config), "mount");
}

static void prefill(uint32_t records, size_t len)
{
	static uint8_t buf[1024];
	for (uint32_t id = 0; id < records; id++) {
		fill(buf, len, id);
		check(rt_records_write(&store, RT_RECORDS_NS_APP, id, buf, len), "prefill");
	}
}

/* Records of len bytes that fit in an empty area of this geometry. */
static uint32_t fit(size_t len)
{
	static uint8_t buf[1024];
	setup();
	uint32_t n = 0;
	for (;; n++) {
		fill(buf, len, n);
		rt_records_err_t err = rt_records_write(&store, RT_RECORDS_NS_APP, n, buf, len);
		if (err == RT_RECORDS_ENOSPC || err == RT_RECORDS_EINDEX_FULL) {
			return n;
		}
		check(err, "fill");
	}
}

static void sizes(void)
{
	uint32_t area = PAGES * PAGE;
	printf("record_100B_flash_bytes: %u bytes\n", (unsigned)rt_records_footprint(100));
	printf("record_1kB_flash_bytes: %u bytes\n", (unsigned)rt_records_footprint(1024));
	printf("record_100B_entry_overhead: %.1f %%\n",
	       100.0 * (rt_records_footprint(100) - 100) / 100.0);
	printf("record_1kB_entry_overhead: %.1f %%\n",
	       100.0 * (rt_records_footprint(1024) - 1024) / 1024.0);
	/* Everything counted: sector headers, reserves, the spare sector, sector-end waste. */
	uint32_t n100 = fit(100), n1k = fit(1024);
	printf("records_100B_per_64KB_area: %u records\n", (unsigned)n100);
	printf("records_1kB_per_64KB_area: %u records\n", (unsigned)n1k);
	printf("area_bytes_per_100B_record: %u bytes\n", (unsigned)(area / n100));
	printf("area_bytes_per_1kB_record: %u bytes\n", (unsigned)(area / n1k));
	rt_records_stats_t st;
	rt_records_stats(&store, &st);
	printf("store_total_of_64KB_area: %u bytes\n", (unsigned)st.total);
	printf("max_record_16KB_sectors: %u bytes\n", (unsigned)st.max_record);

	/* Flash work of a 1 kB replace, amortised over garbage collection. */
	setup();
	prefill(20, 1024);
	uint64_t words = sim.word_programs, erases = sim.page_erases;
	static uint8_t buf[1024];
	uint32_t writes = 2000;
	for (uint32_t i = 0; i < writes; i++) {
		fill(buf, sizeof(buf), 1000u + i);
		check(rt_records_write(&store, RT_RECORDS_NS_APP, i % 20u, buf, sizeof(buf)), "write");
	}
	rt_records_stats(&store, &st);
	printf("flash_words_per_1kB_write: %.1f words\n",
	       (double)(sim.word_programs - words) / writes);
	printf("page_erases_per_1kB_write: %.3f pages\n", (double)(sim.page_erases - erases) / writes);
	printf("gc_runs_per_1000_1kB_writes: %.1f sectors\n", 1000.0 * st.gc_runs / writes);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: records-bench write1k|read1k|mount100|sizes N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = strtol(argv[2], NULL, 10);
	static uint8_t buf[1024];
	if (strcmp(mode, "sizes") == 0) {
		sizes();
	} else if (strcmp(mode, "write1k") == 0) {
		setup();
		prefill(20, 1024);
		fill(buf, sizeof(buf), 1000u);
		for (long i = 0; i < n; i++) {
			buf[i % 1024] ^= 0x5A; /* new content every time: no write is skipped */
			check(rt_records_write(&store, RT_RECORDS_NS_APP, (uint32_t)(i % 20), buf,
					       sizeof(buf)),
			      "write");
		}
	} else if (strcmp(mode, "read1k") == 0) {
		setup();
		prefill(20, 1024);
		for (long i = 0; i < n; i++) {
			size_t len;
			check(rt_records_read(&store, RT_RECORDS_NS_APP, (uint32_t)(i % 20), buf,
					      sizeof(buf), &len),
			      "read");
		}
	} else if (strcmp(mode, "mount100") == 0) {
		setup();
		prefill(100, 100);
		for (long i = 0; i < n; i++) {
			check(rt_records_mount(&store, &config), "mount");
		}
	} else {
		fprintf(stderr, "records-bench: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}

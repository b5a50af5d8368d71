/*
 * host_memory.c: what a fleet may need and what the machine has. See host_memory.h.
 */
#include "host_memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"

/*
 * A device's fixed part and how much host memory a byte of app heap takes, per engine, measured
 * with idle devices running a small app (bench/fleet-memory.sh: the resident size of 1,000 and
 * 2,000 devices, less the JS heaps' own count). Duktape keeps its built-ins in each heap, as
 * blocks of the C library's allocator (each with its header); JerryScript's built-ins are in
 * the binary and its heap is one area per device that the kernel maps as it is touched.
 */
#define DUKTAPE_FIXED_BYTES (300u * 1024u)
#define JERRYSCRIPT_FIXED_BYTES (64u * 1024u)
/* An app's value on Duktape on a 64-bit host takes 2.4 times the device's bytes
 * (eng_duk_mem.c, ENG_DUK_SIZE_FACTOR_PERCENT), in blocks a quarter larger again with their
 * headers. */
#define DUKTAPE_HEAP_FACTOR_PERCENT 300u

/* A "Key: N kB" line of /proc/meminfo, in bytes; UINT64_MAX when absent. */
static uint64_t meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (f == NULL) {
		return UINT64_MAX;
	}
	char line[128];
	uint64_t value = UINT64_MAX;
	size_t n = strlen(key);
	while (fgets(line, sizeof(line), f) != NULL) {
		uint64_t kb;
		if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%" SCNu64, &kb) == 1) {
			value = kb * 1024u;
			break;
		}
	}
	fclose(f);
	return value;
}

/* One number in a cgroup v2 file ("max": UINT64_MAX). */
static uint64_t cgroup_value(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		return UINT64_MAX;
	}
	uint64_t v = UINT64_MAX;
	if (fscanf(f, "%" SCNu64, &v) != 1) {
		v = UINT64_MAX;
	}
	fclose(f);
	return v;
}

uint64_t host_memory_available(const char **source)
{
	uint64_t best = meminfo("MemAvailable");
	*source = "available memory";
	uint64_t max = cgroup_value("/sys/fs/cgroup/memory.max");
	uint64_t current = cgroup_value("/sys/fs/cgroup/memory.current");
	if (max != UINT64_MAX && current != UINT64_MAX) {
		uint64_t room = max > current ? max - current : 0;
		if (room < best) {
			best = room;
			*source = "the cgroup's memory.max";
		}
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < best) {
		best = (uint64_t)rl.rlim_cur;
		*source = "the address-space limit (ulimit -v)";
	}
	return best;
}

uint64_t host_memory_estimate(const world_t *world)
{
	bool duktape = eng_id() == ENG_ID_DUKTAPE;
	uint64_t total = 0;
	for (uint32_t i = 0; i < world->device_count; i++) {
		uint64_t heap = world->devices[i].rt.engine_config.heap_size;
		total += duktape ? DUKTAPE_FIXED_BYTES + heap * DUKTAPE_HEAP_FACTOR_PERCENT / 100u
				 : JERRYSCRIPT_FIXED_BYTES + heap;
	}
	return total;
}

/* Bytes as "812 MB" or "2.8 GB". */
static void human(char *out, size_t cap, uint64_t bytes)
{
	double mb = (double)bytes / (1024.0 * 1024.0);
	if (mb >= 1024.0) {
		snprintf(out, cap, "%.1f GB", mb / 1024.0);
	} else {
		snprintf(out, cap, "%.0f MB", mb < 1.0 ? 1.0 : mb);
	}
}

int host_memory_check(const world_t *world, uint64_t limit, char *out, size_t cap)
{
	const char *source = "--memory-limit";
	uint64_t room = limit != 0 ? limit : host_memory_available(&source);
	uint64_t need = host_memory_estimate(world);
	if (need <= room) {
		return 0;
	}
	char need_text[32], room_text[32];
	human(need_text, sizeof(need_text), need);
	human(room_text, sizeof(room_text), room);
	uint32_t n = world->device_count;
	snprintf(out, cap,
		 "this world may need %s (%" PRIu32 " devices at up to %" PRIu64 " KB each with %s) and "
		 "%s is %s: run fewer devices, or give them smaller heaps (--heap, a device's \"heap\")",
		 need_text, n, need / n / 1024u, eng_name(), source, room_text);
	return -1;
}

uint64_t host_memory_peak_rss(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024u : 0;
}

uint64_t host_memory_js_heaps(world_t *world)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < world->device_count; i++) {
		world_device_t *d = &world->devices[i];
		if (d->rt.engine == NULL) {
			continue;
		}
		world_select(world, d);
		total += eng_heap_host_bytes();
	}
	world_select(world, NULL);
	return total;
}

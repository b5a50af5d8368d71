/*
 * The OS side of the simulated world on Zephyr (world_zephyr.h), and the few HAL functions the
 * world leaves to its port: the execution-time clock and the end of the run on a fault outside
 * the device's guarded code. The lock (hal_lock_zephyr.c), CRC-32 (rt_crc32_zephyr.c) and
 * cryptography (hal_crypto_zephyr.c) are the device's own.
 */
#include "world_zephyr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "hal_clock.h"
#include "host_link.h"
#include "rt_package.h"
#include "world.h"

/* Kernel uptime (ms) when the world's time began. */
static int64_t world_origin_ms = -1;

void world_zephyr_sleep_until(uint64_t at_ms)
{
	if (world_origin_ms < 0) {
		world_origin_ms = k_uptime_get();
	}
	int64_t until = world_origin_ms + (int64_t)at_ms;

	if (k_uptime_get() < until) {
		(void)k_sleep(K_TIMEOUT_ABS_MS(until));
	}
}

bool world_zephyr_counts_instructions(void)
{
	return IS_ENABLED(CONFIG_QEMU_TARGET) && IS_ENABLED(CONFIG_SCHED_THREAD_USAGE_ALL);
}

uint64_t world_zephyr_busy_instructions(void)
{
#if defined(CONFIG_QEMU_TARGET) && defined(CONFIG_SCHED_THREAD_USAGE_ALL)
	k_thread_runtime_stats_t stats;

	if (k_thread_runtime_stats_all_get(&stats) != 0) {
		return 0;
	}
	/* QEMU's -icount shift=0 runs one instruction a nanosecond of virtual time; the cycle
	 * counter ticks at the system clock. */
	return stats.total_cycles * (1000000000ull / CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC);
#else
	return 0;
#endif
}

bool world_zephyr_stack(size_t *used, size_t *size)
{
#if defined(CONFIG_INIT_STACKS) && defined(CONFIG_THREAD_STACK_INFO)
	size_t unused;

	if (k_thread_stack_space_get(k_current_get(), &unused) != 0) {
		return false;
	}
	*size = k_current_get()->stack_info.size;
	*used = *size - unused;
	return true;
#else
	ARG_UNUSED(used);
	ARG_UNUSED(size);
	return false;
#endif
}

uint64_t hal_clock_real_ms(void)
{
	return (uint64_t)k_uptime_get();
}

/* A fault while no device code was guarded: the run ends, as the simulator's process does. */
void world_port_fatal(const char *reason)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "[beacon fatal] %s\n", reason);

	(void)host_link_write(host_link_stderr(), line, n > 0 ? (size_t)n : 0);
	host_link_exit(70);
}

int world_zephyr_install(const uint8_t *package, size_t len, const uint8_t **installed,
			 size_t *installed_len, char *msg, size_t msg_cap)
{
	/* The engine reads the bytecode in place and JerryScript snapshots must be aligned. */
	uint8_t *copy = aligned_alloc(8, (len + 7u) & ~(size_t)7u);

	if (copy == NULL) {
		snprintf(msg, msg_cap, "no memory for a package of %u bytes", (unsigned)len);
		return -1;
	}
	memcpy(copy, package, len);
	*installed = copy;
	*installed_len = len;
	return 0;
}

/*
 * world_zephyr.h: the firmware's side of the simulated world on a board without a beacon's parts
 * (CONFIG_BEACON_SIMULATED_WORLD): what world_main_zephyr.c asks of Zephyr.
 */
#ifndef WORLD_ZEPHYR_H
#define WORLD_ZEPHYR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sleep until the kernel's clock reaches world time at_ms (ms since the world began, which is
 * when this was first called). */
void world_zephyr_sleep_until(uint64_t at_ms);

/* Whether the board counts instructions (QEMU with -icount: one instruction a nanosecond), and the
 * instructions the CPU has executed outside the idle thread since boot. */
bool world_zephyr_counts_instructions(void);
uint64_t world_zephyr_busy_instructions(void);

/* The JavaScript thread's deepest stack use so far and its size; false when the kernel does not
 * keep the figure (CONFIG_INIT_STACKS and CONFIG_THREAD_STACK_INFO). */
bool world_zephyr_stack(size_t *used, size_t *size);

/* Put a package into the device's app store and give back where it is installed (in flash, as the
 * engine reads it). Returns 0, or -1 with why in msg. */
int world_zephyr_install(const uint8_t *package, size_t len, const uint8_t **installed,
			 size_t *installed_len, char *msg, size_t msg_cap);

#endif /* WORLD_ZEPHYR_H */

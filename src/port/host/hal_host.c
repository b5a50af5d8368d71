/*
 * The part of the simulator's HAL that needs the host's operating system: the real clock, and the
 * end of the process on a fatal error outside any simulated device. Everything a device
 * sees of its hardware and time is the world's (src/world/world_hal.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hal_clock.h"
#include "world.h"

uint64_t hal_clock_real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A fault outside any simulated device's code (the package tool): the process ends. */
void world_port_fatal(const char *reason)
{
	fflush(stdout);
	fprintf(stderr, "[beacon fatal] %s\n", reason);
	exit(70);
}

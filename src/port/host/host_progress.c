/*
 * host_progress.c: the progress line of long runs. See host_progress.h.
 */
#include "host_progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host_io.h"

/* On a terminal nothing is shown for runs shorter than this; the figures change at most this
 * often. */
#define FIRST_MS 1000u
#define EVERY_MS 250u
/* The clock is read once every so many steps of the world (a step is often a microsecond). */
#define STEPS_PER_CLOCK 64u

void host_progress_init(host_progress_t *p, int fd, uint64_t real_start_ms)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->tty = fd < 0 && isatty(STDERR_FILENO);
	p->start_ms = real_start_ms;
	/* A caller reading fd decides itself when to show anything: it gets the first figures at
	 * once. */
	p->next_ms = fd >= 0 ? real_start_ms : real_start_ms + FIRST_MS;
}

bool host_progress_on(const host_progress_t *p)
{
	return p->fd >= 0 || p->tty;
}

/* Device time as "2d 03:04:05" or "03:04:05". */
static void clock_text(char *out, size_t cap, uint64_t ms)
{
	uint64_t s = ms / 1000u;
	if (s >= 86400u) {
		snprintf(out, cap, "%llud %02llu:%02llu:%02llu", (unsigned long long)(s / 86400u),
			 (unsigned long long)(s / 3600u % 24u), (unsigned long long)(s / 60u % 60u),
			 (unsigned long long)(s % 60u));
	} else {
		snprintf(out, cap, "%02llu:%02llu:%02llu", (unsigned long long)(s / 3600u),
			 (unsigned long long)(s / 60u % 60u), (unsigned long long)(s % 60u));
	}
}

void host_progress_step(host_progress_t *p, world_t *world)
{
	if (++p->tick < STEPS_PER_CLOCK && p->next_ms != p->start_ms) {
		return;
	}
	p->tick = 0;
	uint64_t now = host_real_ms();
	if (now < p->next_ms) {
		return;
	}
	p->next_ms = now + EVERY_MS;
	uint64_t real = now - p->start_ms;
	uint32_t running = world_devices_alive(world);
	if (p->fd >= 0) {
		dprintf(p->fd, "progress %llu %llu %u %u\n", (unsigned long long)world->now,
			(unsigned long long)real, (unsigned)running, (unsigned)world->device_count);
		return;
	}
	char at[32];
	clock_text(at, sizeof(at), world->now);
	double speed = real ? (double)world->now / (double)real : 0.0;
	fflush(stdout);
	/* Whole from ×10 up, two significant digits below: the words of `beacon run`'s line and the
	 * studio's readout (bindings-ts/src/world/progress.ts, speedText). */
	fprintf(stderr, speed >= 10.0 ? "\r\033[Kdevice time %s, %.0f× real time, %u of %u device%s alive"
				      : "\r\033[Kdevice time %s, %.2g× real time, %u of %u device%s alive",
		at, speed, (unsigned)running, (unsigned)world->device_count,
		world->device_count == 1 ? "" : "s");
	fflush(stderr);
	p->shown = true;
}

void host_progress_clear(host_progress_t *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

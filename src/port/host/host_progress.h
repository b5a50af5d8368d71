/*
 * host_progress.h: a long run shows how far it is. In a terminal, a run that has taken more than
 * a second keeps one line on stderr up to date: the device time reached, the speed against real
 * time and the devices whose app is alive; it is wiped before any other message and at the end,
 * so nothing is left of it in a log. Given a file descriptor instead (beacon-sim --progress-fd,
 * what `beacon run` uses, its stderr being a pipe), the same figures go there as lines of
 * "progress DEVICE_MS REAL_MS ALIVE DEVICES", the first at the first step of the world, for the
 * caller to show when it sees fit.
 */
#ifndef HOST_PROGRESS_H
#define HOST_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "world.h"

typedef struct {
	int fd;            /* where machine lines go, -1: none */
	bool tty;          /* draw the line on stderr */
	bool shown;        /* a line is on the terminal now */
	uint32_t tick;     /* calls since the clock was last read */
	uint64_t start_ms; /* real time at the start of the run */
	uint64_t next_ms;  /* real time of the next update */
} host_progress_t;

/* Show progress on stderr when it is a terminal (and fd is -1), or as lines on fd. */
void host_progress_init(host_progress_t *p, int fd, uint64_t real_start_ms);
bool host_progress_on(const host_progress_t *p);
/* The world's time has moved on: update the figures when their time has come (cheap otherwise). */
void host_progress_step(host_progress_t *p, world_t *world);
/* Before another message on stderr, and at the end: take the line away. */
void host_progress_clear(host_progress_t *p);

#endif /* HOST_PROGRESS_H */

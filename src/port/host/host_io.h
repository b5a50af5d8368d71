/*
 * host_io.h: where the host simulator's world writes: app output on stdout (one line per print,
 * "[device] " before it when the world has several devices), the runtime's messages on stderr,
 * the trace to a file, the --verbose summary on stderr; and, in real-time mode, the sleep.
 */
#ifndef HOST_IO_H
#define HOST_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "host_progress.h"
#include "world.h"

typedef struct {
	FILE *trace;   /* NULL: no trace */
	FILE *energy;  /* --energy's records, NULL: none */
	bool realtime;
	uint64_t real_start_ms;
	world_t *world;            /* the world the outputs belong to (for the progress line) */
	host_progress_t progress;  /* the progress of a long run (host_progress.h) */
} host_io_t;

/* Fill io with the host's outputs (host must outlive the world). progress_fd: where progress
 * lines go (-1: a line on stderr when it is a terminal; -2: none). */
void host_io_setup(host_io_t *host, world_io_t *io, bool verbose, int progress_fd);
uint64_t host_real_ms(void);

#endif /* HOST_IO_H */

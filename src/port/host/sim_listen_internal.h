/*
 * sim_listen_internal.h: what the files of `beacon-sim --listen` share (sim_listen.h): the
 * listening device, and the functions that cross between them.
 *
 *   sim_listen.c        options, the device's flash and app store, installs and status (the
 *                       beacon SMP group), start and end
 *   sim_listen_serve.c  the transports (UDP, the pseudo-terminal's serial framing), the control
 *                       channel, and the world stepped against the wall clock between requests
 */
#ifndef SIM_LISTEN_INTERNAL_H
#define SIM_LISTEN_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_smp.h"
#include "sim_flash.h"
#include "world.h"

/* Each slot of the device's app store: as large as the simulator's package limit needs (the
 * device's are 64 KB; Duktape's bytecode is larger than JerryScript's). */
#define SLOT_PAGES 128u
#define SLOT_PAGE_SIZE 4096u
#define MAX_PACKET 2048u
/* A serial line is one client; UDP clients are told apart by address and port. */
#define SERIAL_CLIENT 0x5e71a1u

typedef struct {
	world_t *world;
	/* The device's app store (rt_app_store.h): two slots on one simulated flash, kept in
	 * DIR/<device>.apps.flash. The device runs its app where the store holds it: world_install
	 * keeps a pointer into the installed slot, which no upload touches. */
	sim_flash_t apps;
	uint8_t *apps_mem;
	rt_flash_window_t slots[2];
	rt_app_store_t store;
	const char *flash_dir;
	FILE *trace;
	int pty;              /* master side, or -1 */
	unsigned long baud;   /* simulated serial line rate, 0: none */
	bool virtual_time;
	uint64_t real_start;
} listen_t;

/* Set by SIGINT, SIGTERM or the control channel's quit: the device ends at the next turn. */
extern volatile sig_atomic_t sim_listen_stop;

/* Milliseconds of wall-clock time since the device started. */
uint64_t sim_listen_real_now(const listen_t *l);
/* Keep the world's clock up with the wall clock before device code runs outside a step, so the
 * app's timers count from now, not from the last time something was due. */
void sim_listen_catch_up(listen_t *l);
/* Serve SMP on udp (a bound socket, or -1) and on the pseudo-terminal, and control lines on
 * `control` (a descriptor, or -1), stepping the world between them, until asked to stop
 * (sim_listen_serve.c). */
void sim_listen_serve(listen_t *l, rt_smp_server_t *server, int udp, int control);

#endif /* SIM_LISTEN_INTERNAL_H */

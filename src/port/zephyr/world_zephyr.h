/*
 * world_zephyr.h: the firmware's side of the simulated world on a board without a beacon's parts
 * (CONFIG_BEACON_SIMULATED_WORLD): what world_main_zephyr.c asks of Zephyr.
 */
#ifndef WORLD_ZEPHYR_H
#define WORLD_ZEPHYR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* Run the world until world time `until` (ms; WORLD_FOREVER: no end), paced by the kernel's clock:
 * world time 0 is the kernel's uptime at the first call, and the JavaScript thread sleeps until
 * the kernel reaches the world's next moment, or until an upload wakes it (its install is then
 * carried out: port_zephyr_smp_poll). Without listen the run ends, as the simulator's, when
 * nothing more can happen; with it, only at `until`. */
world_end_t world_zephyr_run(world_t *world, uint64_t until, bool listen);

/* Put the board's BLE radio under the world's device 0 (world_air_use_radio): its advertising
 * sets and scanner go on the board's air too (BabbleSim's, between nrf52_bsim firmwares), with
 * the scenario device's address and name. Before world_zephyr_uploads (Bluetooth is not enabled
 * yet). False on a board without Bluetooth. */
bool world_zephyr_use_radio(world_t *world);
/* Wake the world's thread from a driver's (after it posted to device 0: a fix, a reception). */
void world_zephyr_wake(void);
/* Put the world's GNSS receiver on the board's UART (world_gnss_zephyr.c), where the firmware
 * reads it through Zephyr's GNSS subsystem; nothing on a board without one. */
#if defined(CONFIG_BEACON_GNSS_RECEIVER_UART)
void world_zephyr_use_gnss_receiver(world_t *world);
#else
static inline void world_zephyr_use_gnss_receiver(world_t *world)
{
	(void)world;
}
#endif
/* Receptions of the radio that reached the app but not the trace (its queue was full). */
uint32_t world_zephyr_untraced_receptions(void);

/* Serve uploads into the world's device 0 (nothing without CONFIG_MCUMGR): the upload server on
 * the app store, an install switching the device to the new package, and, when `advertise`, the
 * upload service's advertisement (a client finds the device by it; without it only a client
 * that already knows the address connects). */
void world_zephyr_uploads(world_t *world, bool advertise);

/* Whether the board counts instructions (QEMU with -icount: one instruction a nanosecond), and the
 * instructions the CPU has executed outside the idle thread since boot. */
bool world_zephyr_counts_instructions(void);
uint64_t world_zephyr_busy_instructions(void);

/* The JavaScript thread's deepest stack use so far and its size; false when the kernel does not
 * keep the figure (CONFIG_INIT_STACKS and CONFIG_THREAD_STACK_INFO). */
bool world_zephyr_stack(size_t *used, size_t *size);

/* Put a package into the device's app store (checked, staged, switched: rt_app_store.h) and give
 * back where it is installed (in flash, as the engine reads it). Returns 0, or -1 with why in msg:
 * a refused package's message is the simulator's for the same bytes. */
int world_zephyr_install(const uint8_t *package, size_t len, const uint8_t **installed,
			 size_t *installed_len, char *msg, size_t msg_cap);
/* The world's device 0 takes apps deployed from the cloud (world_deploy_use_store) into the
 * board's app store: the same install and app switch as an upload's. 0, or -1 with why. */
int world_zephyr_take_deployments(world_t *world, char *msg, size_t msg_cap);
/* The packages a scenario deploys through the loopback cloud (--deploy, numbered from 0 in the
 * order given, as beacon-sim's), read from the host, with the deployments taken into the board's
 * app store. 0, or -1 with why ("PATH: reason"). */
int world_zephyr_load_deploys(world_t *world, const char *const *paths, int count, char *msg,
			      size_t msg_cap);
/* The app the store holds, as at a boot with no upload; -1 with why in msg when there is none. */
int world_zephyr_boot_package(const uint8_t **package, size_t *len, char *msg, size_t msg_cap);

/* The power-cut test of the app switch: end the process, as a cut would, just before the store's
 * flash operation number n (from 1: page erases and write blocks programmed, in order); exit
 * status WORLD_ZEPHYR_CUT_STATUS, after a line on report (a host_link file). */
#define WORLD_ZEPHYR_CUT_STATUS 75
void world_zephyr_cut_after(uint64_t n, long report);
/* The store's flash operations so far, as the cut counts them. */
uint64_t world_zephyr_store_flash_ops(void);
/* The device's resets by cause ("watchdog 2, app 1"), for the run's summary. */
void world_zephyr_reset_causes(const world_device_t *d, char *out, size_t cap);


#endif /* WORLD_ZEPHYR_H */

/*
 * smp_zephyr.h: the upload server (src/runtime/smp/rt_smp.h) behind Zephyr's MCUmgr transports
 * (smp_zephyr.c): the SMP Bluetooth service and the UART, as the board has them.
 *
 * Requests are answered on MCUmgr's work queue; the one thing that must happen on the JavaScript
 * thread, switching to an installed package, is handed to it: the request waits while that
 * thread, woken with app->wake, calls port_zephyr_smp_poll() at its next turn.
 */
#ifndef SMP_ZEPHYR_H
#define SMP_ZEPHYR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_app_store.h"
#include "rt_cloud_deploy.h"

typedef struct {
	/* On the JavaScript thread: run the package the store has just installed (a fresh engine
	 * with it). 0, or -1 with why in msg. */
	int (*switch_to)(void *ctx, const uint8_t *package, size_t len, char *msg, size_t msg_cap);
	/* The app's state as the status command names it ("running", "stopped", "failed"...). */
	const char *(*state)(void *ctx);
	/* Make the JavaScript thread come round to port_zephyr_smp_poll() (from any thread). */
	void (*wake)(void *ctx);
	void *ctx;
} smp_zephyr_app_t;

/* Register the server's command groups with MCUmgr (0 OS: echo and parameters; 8 file: the
 * upload; 77 beacon: status and install). No-op without CONFIG_MCUMGR. */
void port_zephyr_smp_init(rt_app_store_t *store, const smp_zephyr_app_t *app);

/* On the JavaScript thread: carry out the install a request is waiting for, if any. Returns
 * true when the app was switched. */
bool port_zephyr_smp_poll(void);

/* What the cloud sync takes deployments with (rt_cloud_deploy.h), after port_zephyr_smp_init: the
 * store's staging slot, the upload's install, and the upload's switch to the new app once the
 * JavaScript thread's turn ends (port_zephyr_smp_poll). NULL without a store. */
const rt_cloud_deploy_target_t *port_zephyr_smp_deploy_target(void);

#endif /* SMP_ZEPHYR_H */

/*
 * world_deploy.c: see world_deploy.h.
 */
#include "world_deploy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_console.h"
#include "rt_app_store.h"
#include "rt_cloud_deploy.h"
#include "rt_flash_window.h"
#include "rt_loop.h"
#include "rt_smp.h"
#include "sim_flash.h"

/* Each slot: 512 KB, what the simulator's package limit needs (sim_listen's slots). */
#define SLOT_PAGES 128u
#define SLOT_PAGE_SIZE 4096u

struct world_deploy {
	world_device_t *device;
	sim_flash_t flash;
	uint8_t *mem;
	rt_flash_window_t slots[2];
	rt_app_store_t own;     /* the simulator's store, in mem */
	rt_app_store_t *store;  /* the device's: own, or the board's (world_deploy_use_store) */
	rt_cloud_deploy_target_t target;
};

/* The SMP upload's install (rt_app_store_install, as sim_listen's), then the new app from the
 * top when this turn of the device's loop ends (the sync that staged it is still on the stack). */
static int install(void *ctx, uint32_t len, char *msg, size_t cap)
{
	world_deploy_t *wd = ctx;
	rt_package_t pkg;
	if (rt_app_store_install(wd->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		return -1;
	}
	const uint8_t *package;
	size_t n;
	if (!rt_app_store_installed(wd->store, &package, &n)) {
		snprintf(msg, cap, "installed, but the store has no app");
		return -1;
	}
	wd->device->package = package;
	wd->device->package_len = n;
	rt_smp_installed_msg(&pkg, msg, cap);
	hal_log(HAL_LOG_INFO, "%s (deployed from the cloud)", msg);
	hal_console_app_event(HAL_APP_RESTARTING, "deployed from the cloud");
	rt_loop_request_exit(RT_RUN_RESTART);
	return 0;
}

static bool running(void *ctx, const uint8_t **package, size_t *len)
{
	world_deploy_t *wd = ctx;
	*package = wd->device->package;
	*len = wd->device->package_len;
	return *package != NULL;
}

int world_deploy_enable(world_t *world, uint32_t index, char *why, size_t cap)
{
	world_device_t *d = &world->devices[index];
	world_deploy_t *wd = calloc(1, sizeof(*wd));
	uint8_t *mem = malloc((size_t)2u * SLOT_PAGES * SLOT_PAGE_SIZE);
	if (wd == NULL || mem == NULL || !sim_flash_init(&wd->flash, mem, SLOT_PAGE_SIZE, 2u * SLOT_PAGES) ||
	    rt_flash_window_init(&wd->slots[0], &wd->flash.flash, 0, SLOT_PAGES) != 0 ||
	    rt_flash_window_init(&wd->slots[1], &wd->flash.flash, SLOT_PAGES, SLOT_PAGES) != 0) {
		free(wd);
		free(mem);
		snprintf(why, cap, "out of memory for the app store");
		return -1;
	}
	wd->mem = mem;
	wd->device = d;
	rt_app_store_config_t config = {{{&wd->slots[0].flash, mem},
					 {&wd->slots[1].flash, mem + (size_t)SLOT_PAGES * SLOT_PAGE_SIZE}}};
	char msg[200];
	/* A fresh flash: the package given is installed, and runs where the store holds it, so
	 * that it is the app before the next one (kept for a roll back). */
	wd->store = &wd->own;
	rt_app_store_mount(wd->store, &config, msg, sizeof(msg));
	rt_package_t pkg;
	const uint8_t *installed;
	size_t n;
	if (d->package != NULL &&
	    rt_app_store_install_buffer(wd->store, d->package, d->package_len, &pkg, msg, sizeof(msg)) == RT_APP_STORE_OK &&
	    rt_app_store_installed(wd->store, &installed, &n)) {
		d->package = installed;
		d->package_len = n;
	}
	wd->target = (rt_cloud_deploy_target_t){wd->store, install, running, wd, NULL};
	d->deploy = wd;
	world_deploy_attach(d);
	return 0;
}

int world_deploy_use_store(world_t *world, uint32_t index, rt_app_store_t *store)
{
	world_deploy_t *wd = calloc(1, sizeof(*wd));
	if (wd == NULL || store == NULL) {
		free(wd);
		return -1;
	}
	wd->device = &world->devices[index];
	wd->store = store;
	wd->target = (rt_cloud_deploy_target_t){store, install, running, wd, NULL};
	wd->device->deploy = wd;
	world_deploy_attach(wd->device);
	return 0;
}

void world_deploy_attach(world_device_t *d)
{
	if (d->deploy != NULL) {
		d->rt.cloud_deploy.target = &d->deploy->target;
	}
}

bool world_deploy_roll_back(world_device_t *d, const char *why)
{
	world_deploy_t *wd = d->deploy;
	const uint8_t *installed;
	size_t n;
	/* Only the store's app has one before it (the package given runs from the store too). */
	if (wd == NULL || !rt_app_store_installed(wd->store, &installed, &n) || installed != d->package) {
		return false;
	}
	char msg[200];
	if (rt_app_store_roll_back(wd->store, msg, sizeof(msg)) != RT_APP_STORE_OK ||
	    !rt_app_store_installed(wd->store, &d->package, &d->package_len)) {
		return false;
	}
	/* The rolled-back bytes stay where they are until the next download erases them. */
	rt_cloud_deploy_rolled_back(&d->rt.cloud_deploy, installed, n, why);
	return true;
}

void world_deploy_free(world_device_t *d)
{
	if (d->deploy != NULL) {
		free(d->deploy->mem);
		free(d->deploy);
		d->deploy = NULL;
	}
}

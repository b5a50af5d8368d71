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
#include <zephyr/logging/log.h>

#include <zephyr/storage/flash_map.h>

#include "app_store_zephyr.h"
#include "ble_radio_zephyr.h"
#include "port_zephyr.h"
#include "smp_zephyr.h"
#include "hal_clock.h"
#include "hal_flash_zephyr.h"
#include "host_link.h"
#include "rt_package.h"
#include "world.h"
#include "world_cloud_deploy.h"
#include "world_deploy.h"

/* The port's log module (on a device, hal_console_zephyr.c registers it). */
LOG_MODULE_REGISTER(beacon, CONFIG_BEACON_LOG_LEVEL);

/* Kernel uptime (ms) when the world's time began, and what wakes the JavaScript thread early:
 * an upload waiting for its install. */
static int64_t world_origin_ms = -1;
static K_SEM_DEFINE(wake_sem, 0, 1);

static uint64_t world_now(void)
{
	if (world_origin_ms < 0) {
		world_origin_ms = k_uptime_get();
	}
	return (uint64_t)(k_uptime_get() - world_origin_ms);
}

static void wake(void *ctx)
{
	ARG_UNUSED(ctx);
	k_sem_give(&wake_sem);
}

void world_zephyr_wake(void)
{
	k_sem_give(&wake_sem);
}

static void trace_heard(world_t *world);

world_end_t world_zephyr_run(world_t *world, uint64_t until, bool listen)
{
	for (;;) {
		uint64_t now = world_now();

		/* What the radio heard since (world_zephyr_use_radio) is the device's to take now. */
		trace_heard(world);
		world_wake_posted(world);

		if (now > until) {
			now = until;
		}
		/* What was due by now, each at its own world time: outputs do not depend on how
		 * late the kernel got here. */
		world_end_t end = world_run_until(world, now);

		if (port_zephyr_smp_poll()) {
			continue; /* a new app: its first turn now */
		}
		if (now >= until) {
			/* An idle world's time has not moved with the kernel's: it passes to until. */
			return end == WORLD_END_IDLE ? world_idle_until(world, until) : WORLD_END_TIME_UP;
		}
		if (end == WORLD_END_STOPPED && !listen) {
			return end; /* no app runs any more, as on the simulator */
		}
		if (end == WORLD_END_IDLE && !listen && until == WORLD_FOREVER) {
			return end; /* nothing more can happen, as on the simulator */
		}
		/* Idle with a time given (--for): the run lasts it, as beacon-sim's, waking only for
		 * an upload. (The world's next deadline may be an advertisement no device hears,
		 * which it does not run: sleeping to it would not move the kernel's clock.) */
		uint64_t next = end == WORLD_END_IDLE ? until : world_next_deadline(world);

		if (next > until) {
			next = until;
		}
		k_timeout_t timeout = next == WORLD_FOREVER
					      ? K_FOREVER
					      : K_TIMEOUT_ABS_MS(world_origin_ms + (int64_t)next);
		(void)k_sem_take(&wake_sem, timeout);
	}
}

/* ------------------------------------------------------------------ the radio */

#if defined(CONFIG_BT)
/* Copies of what the radio received, for the trace: handed from the Bluetooth RX thread to the
 * world's (the trace writer is the world's alone). A reception that finds the queue full is
 * still the app's; only its trace record is lost, and counted. */
K_MSGQ_DEFINE(heard, sizeof(rt_ble_rx_t), 32, 4);
static atomic_t heard_untraced;

static void radio_received(const rt_ble_rx_t *rx)
{
	if (k_msgq_put(&heard, rx, K_NO_WAIT) != 0) {
		atomic_inc(&heard_untraced);
	}
	k_sem_give(&wake_sem);
}
#endif

/* The radio's receptions since the last turn, into the trace, before the device takes them. */
static void trace_heard(world_t *world)
{
#if defined(CONFIG_BT)
	rt_ble_rx_t rx;

	while (k_msgq_get(&heard, &rx, K_NO_WAIT) == 0) {
		world_air_radio_received(world, &world->devices[0], &rx);
	}
#else
	ARG_UNUSED(world);
#endif
}

uint32_t world_zephyr_untraced_receptions(void)
{
#if defined(CONFIG_BT)
	return (uint32_t)atomic_get(&heard_untraced);
#else
	return 0;
#endif
}

#if defined(CONFIG_BT)

static const world_radio_t board_radio = {
	.adv_start = ble_radio_adv_start,
	.adv_update = ble_radio_adv_update,
	.adv_stop = ble_radio_adv_stop,
	.scan_start = ble_radio_scan_start,
	.scan_stop = ble_radio_scan_stop,
};
#endif

bool world_zephyr_use_radio(world_t *world)
{
#if defined(CONFIG_BT)
	world_device_t *d = &world->devices[0];
	uint8_t addr[HAL_BLE_ADDR_LEN];

	/* The address and scan response of the scenario's device, so that scan records on other
	 * firmwares name it as the simulator's do. */
	world_air_device_address(d->identity, addr);
	if (!ble_radio_set_identity(addr)) {
		return false;
	}
	ble_radio_set_response_name(d->name);
	ble_radio_on_receive(radio_received);
	world_air_use_radio(world, &board_radio);
	return true;
#else
	ARG_UNUSED(world);
	return false;
#endif
}

/* ------------------------------------------------------------------ uploads */

static world_t *upload_world;

static int switch_to(void *ctx, const uint8_t *package, size_t len, char *msg, size_t msg_cap)
{
	ARG_UNUSED(ctx);
	upload_world->now = world_now() > upload_world->now ? world_now() : upload_world->now;
	return world_install(upload_world, 0, package, len, msg, msg_cap);
}

static const char *app_state(void *ctx)
{
	ARG_UNUSED(ctx);
	return world_app_state_name(upload_world, 0);
}

static rt_app_store_t *store(char *msg, size_t msg_cap);

void world_zephyr_uploads(world_t *world, bool advertise)
{
	char msg[160];
	rt_app_store_t *s = store(msg, sizeof(msg));

	upload_world = world;
	if (s == NULL) {
		return;
	}
	const smp_zephyr_app_t app = {.switch_to = switch_to, .state = app_state, .wake = wake};

	port_zephyr_smp_init(s, &app);
	if (!advertise) {
		return;
	}
	/* The service's name is the device's public id: the world's device is the one asked. */
	world_select(world, &world->devices[0]);
	port_zephyr_upload_service_start();
	world_select(world, NULL);
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
/* Not on a native board: its threads run on the host's stacks. */
#if defined(CONFIG_INIT_STACKS) && defined(CONFIG_THREAD_STACK_INFO) && !defined(CONFIG_ARCH_POSIX)
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

/* ------------------------------------------------------------------ the app store */

/* Power-cut injection for the test of the app switch: the process ends, as a device whose power
 * is cut, just before the flash operation number cut_after (counted from 1 over both slots: each
 * page erase, each write block programmed). */
static uint64_t cut_after;
static uint64_t flash_ops;
static long cut_report = -1; /* where the cut is reported: the run's stderr */

typedef struct {
	hal_flash_t flash;
	const hal_flash_t *inner;
} cut_flash_t;

static cut_flash_t cut_slots[2];

static void count_op(void)
{
	if (++flash_ops >= cut_after && cut_after != 0) {
		char line[96];
		int n = snprintf(line, sizeof(line), "[beacon info] power cut before flash operation %llu\n",
				 (unsigned long long)flash_ops);

		(void)host_link_write(cut_report, line, n > 0 ? (size_t)n : 0);
		host_link_exit(WORLD_ZEPHYR_CUT_STATUS);
	}
}

static int cut_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	const cut_flash_t *c = ctx;

	return hal_flash_read(c->inner, offset, dst, len);
}

/* One write block at a time, each counted: the cut can fall between any two words of a write. */
static int cut_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	const cut_flash_t *c = ctx;
	const uint8_t *bytes = src;
	uint32_t block = c->inner->write_block;

	if (cut_after == 0) {
		/* Nothing to cut: counted, and programmed in one call (the nRF flash driver fits each
		 * call between radio events, so a call per word would cost a radio slot per word). */
		flash_ops += len / block;
		return hal_flash_program(c->inner, offset, src, len);
	}
	for (size_t done = 0; done < len; done += block) {
		count_op();
		int rc = hal_flash_program(c->inner, offset + (uint32_t)done, bytes + done, block);

		if (rc != HAL_FLASH_OK) {
			return rc;
		}
	}
	return HAL_FLASH_OK;
}

static int cut_erase(void *ctx, uint32_t page)
{
	const cut_flash_t *c = ctx;

	count_op();
	return hal_flash_erase(c->inner, page);
}

static const hal_flash_ops_t cut_ops = {cut_read, cut_program, cut_erase};

static const hal_flash_t *cut_wrap(const hal_flash_t *flash)
{
	static unsigned used;
	cut_flash_t *c = &cut_slots[used++ % 2];

	c->inner = flash;
	c->flash = *flash;
	c->flash.ops = &cut_ops;
	c->flash.ctx = c;
	return &c->flash;
}

void world_zephyr_cut_after(uint64_t n, long report)
{
	cut_after = n;
	cut_report = report;
}

uint64_t world_zephyr_store_flash_ops(void)
{
	return flash_ops;
}

static rt_app_store_t *store(char *msg, size_t msg_cap)
{
	return port_zephyr_app_store(cut_wrap, msg, msg_cap);
}

int world_zephyr_install(const uint8_t *package, size_t len, const uint8_t **installed,
			 size_t *installed_len, char *msg, size_t msg_cap)
{
	rt_app_store_t *s = store(msg, msg_cap);

	if (s == NULL) {
		return -1;
	}
	rt_package_t pkg;

	if (rt_app_store_install_buffer(s, package, len, &pkg, msg, msg_cap) != RT_APP_STORE_OK) {
		return -1;
	}
	return rt_app_store_installed(s, installed, installed_len) ? 0 : -1;
}

int world_zephyr_take_deployments(world_t *world, char *msg, size_t msg_cap)
{
	rt_app_store_t *s = store(msg, msg_cap);

	if (s == NULL || world_deploy_use_store(world, 0, s) != 0) {
		if (s != NULL) {
			snprintf(msg, msg_cap, "out of memory for deployments");
		}
		return -1;
	}
	return 0;
}

int world_zephyr_load_deploys(world_t *world, const char *const *paths, int count, char *msg,
			      size_t msg_cap)
{
	char why[160];

	for (int i = 0; i < count; i++) {
		size_t len;
		unsigned char *bytes = host_link_read_file(paths[i], &len);
		int k = bytes != NULL ? world_cloud_deploy_package(world, bytes, len, why, sizeof(why))
				      : -1;

		if (bytes == NULL) {
			snprintf(why, sizeof(why), "cannot read it");
		}
		free(bytes);
		if (k < 0) {
			snprintf(msg, msg_cap, "%s: %s", paths[i], why);
			return -1;
		}
	}
	return world_zephyr_take_deployments(world, msg, msg_cap);
}

int world_zephyr_boot_package(const uint8_t **package, size_t *len, char *msg, size_t msg_cap)
{
	rt_app_store_t *s = store(msg, msg_cap);

	if (s == NULL) {
		return -1;
	}
	if (rt_app_store_installed(s, package, len)) {
		return 0;
	}
	if (msg[0] == '\0') {
		snprintf(msg, msg_cap, "no app installed");
	}
	return -1;
}


void world_zephyr_reset_causes(const world_device_t *d, char *out, size_t cap)
{
	out[0] = '\0';
	for (int c = 0; c < RT_RESET_CAUSE_COUNT; c++) {
		if (d->resets_by_cause[c]) {
			size_t used = strlen(out);

			snprintf(out + used, cap - used, "%s%s %u", used ? ", " : "",
				 rt_reset_cause_name((rt_reset_cause_t)c),
				 (unsigned)d->resets_by_cause[c]);
		}
	}
}

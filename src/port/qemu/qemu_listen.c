/* The SMP server on UART0 of the emulated device: see qemu_listen.h. */
#include "qemu_listen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_clock.h"
#include "qemu_flash.h"
#include "qemu_uart.h"
#include "rt_app_store.h"
#include "rt_package.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"

/* The largest request taken (header included): what the parameters command tells clients, so
 * `beacon upload` sizes its chunks to it. 512 bytes, as the JerryScript image has little more
 * than that to spare in the device's 128 KB (docs/budget.md); Zephyr's own SMP transport
 * buffers are smaller still (CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE, 384 by default). */
#define MAX_REQUEST 512u
/* Answers are short (upload offsets, status, a refusal's message): 256 bytes, framed in 512. */
#define MAX_ANSWER 256u
#define MAX_FRAMES 512u
/* A serial line has one client. */
#define SERIAL_CLIENT 1u

typedef struct {
	world_t *world;
	rt_app_store_t *store;
} listen_t;

static void info(const char *what, const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "[beacon info] %s%s\n", what, msg);
	fflush(stderr);
}

static int install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	listen_t *l = ctx;
	(void)st; /* the store's staging slot */
	rt_package_t pkg;
	if (rt_app_store_install(l->store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		info("refused: ", msg);
		return -1;
	}
	/* Installed: the device runs it where the store holds it. */
	const uint8_t *slot;
	size_t slot_len;
	(void)rt_app_store_installed(l->store, &slot, &slot_len);
	char why[160];
	if (world_install(l->world, 0, slot, slot_len, why, sizeof(why)) != 0) {
		snprintf(msg, cap, "installed, but %s", why);
		info("", msg);
		return -1;
	}
	rt_smp_installed_msg(&pkg, msg, cap);
	info("", msg);
	return 0;
}

static void status(void *ctx, rt_smp_app_status_t *out)
{
	listen_t *l = ctx;
	const uint8_t *slot;
	size_t len;
	if (!rt_app_store_installed(l->store, &slot, &len)) {
		slot = NULL;
		len = 0;
	}
	rt_smp_status_of(out, slot, len, world_app_state_name(l->world, 0));
}

void qemu_listen(world_t *world, const char *name, const uint8_t *slot, size_t slot_len)
{
	static listen_t l;
	static rt_smp_server_t server;
	static rt_smp_serial_dec_t dec;
	static uint8_t request[MAX_REQUEST + 2], answer[MAX_ANSWER], frames[MAX_FRAMES];
	l.world = world;
	l.store = qemu_app_store();
	if (l.store == NULL) {
		fprintf(stderr, "beacon-qemu: the app store cannot be used\n");
		exit(70);
	}
	rt_smp_staging_t staging;
	rt_app_store_smp_staging(l.store, &staging);
	rt_smp_config_t cfg = {
		.staging = &staging,
		.install = install,
		.status = status,
		.app_ctx = &l,
		.buf_size = MAX_REQUEST,
		.buf_count = 1,
		.idle_ms = 30000,
	};
	rt_smp_init(&server, &cfg);
	rt_smp_serial_dec_init(&dec, request, sizeof(request), NULL, NULL);
	qemu_uart_init();
	printf("ready\n");
	fflush(stdout);
	if (slot != NULL) {
		char why[200];
		if (world_install(world, 0, slot, slot_len, why, sizeof(why)) != 0) {
			fflush(stdout);
			fprintf(stderr, "beacon-qemu: %s: %s\n", name, why);
		}
	}

	/* The world's clock starts now: device time 0 is when the device begins to serve. */
	uint64_t start = hal_clock_real_ms();
	for (;;) {
		uint64_t now = hal_clock_real_ms() - start;
		world_run_until(world, now);
		if (world->now < now) {
			world->now = now;
		}
		uint8_t bytes[64];
		size_t n = qemu_uart_read(bytes, sizeof(bytes));
		for (size_t i = 0; i < n; i++) {
			const uint8_t *pkt;
			size_t len;
			if (rt_smp_serial_feed(&dec, bytes[i], &pkt, &len) != RT_SMP_SERIAL_PACKET) {
				continue;
			}
			size_t m = rt_smp_handle(&server, SERIAL_CLIENT, (uint32_t)now,
						 pkt, len, answer, sizeof(answer));
			size_t k = m > 0 ? rt_smp_serial_encode(answer, m, frames, sizeof(frames)) : 0;
			if (k > 0) {
				qemu_uart_write(frames, k);
			}
		}
	}
}

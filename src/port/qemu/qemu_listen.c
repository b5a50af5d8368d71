/* The SMP server on UART0 of the emulated device: see qemu_listen.h. */
#include "qemu_listen.h"

#include <stdio.h>
#include <string.h>

#include "hal_clock.h"
#include "qemu_flash.h"
#include "qemu_uart.h"
#include "rt_package.h"
#include "rt_signature.h"
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
	uint32_t staged_total;
} listen_t;

static int st_begin(void *ctx, uint32_t total)
{
	listen_t *l = ctx;
	const hal_flash_t *f = qemu_staging_flash();
	uint32_t pages = (total + f->page_size - 1u) / f->page_size;
	for (uint32_t p = 0; p < pages; p++) {
		if (hal_flash_erase(f, p) != HAL_FLASH_OK) {
			return -1;
		}
	}
	l->staged_total = total;
	return 0;
}

/* Chunks arrive in order but of any length; the flash takes 4-byte blocks programmed once, so
 * a chunk's unaligned tail is held back and written with the next chunk (or at the end). */
static uint8_t tail[4];
static uint32_t tail_len;

static int st_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	listen_t *l = ctx;
	const hal_flash_t *f = qemu_staging_flash();
	if (off > l->staged_total || len > l->staged_total - off) {
		return -1;
	}
	if (off == 0) {
		tail_len = 0;
	}
	uint32_t at = off - tail_len;
	while (len > 0) {
		if (tail_len == 0 && len >= 4) {
			size_t whole = len & ~(size_t)3u;
			if (hal_flash_program(f, at, data, whole) != HAL_FLASH_OK) {
				return -1;
			}
			at += (uint32_t)whole;
			data += whole;
			len -= whole;
			continue;
		}
		tail[tail_len++] = *data++;
		len--;
		if (tail_len == 4) {
			if (hal_flash_program(f, at, tail, 4) != HAL_FLASH_OK) {
				return -1;
			}
			at += 4;
			tail_len = 0;
		}
	}
	/* The package's last bytes: pad the block with the erased value, as the slot does. */
	if (tail_len > 0 && at + tail_len == l->staged_total) {
		uint8_t block[4] = {0xFF, 0xFF, 0xFF, 0xFF};
		memcpy(block, tail, tail_len);
		if (hal_flash_program(f, at, block, 4) != HAL_FLASH_OK) {
			return -1;
		}
		tail_len = 0;
	}
	return 0;
}

static int st_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	listen_t *l = ctx;
	if (off > l->staged_total || len > l->staged_total - off) {
		return -1;
	}
	memcpy(data, qemu_staging_base() + off, len);
	return 0;
}

static void info(const char *what, const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "[beacon info] %s%s\n", what, msg);
	fflush(stderr);
}

static int install(void *ctx, const rt_smp_staging_t *st, uint32_t len, char *msg, size_t cap)
{
	listen_t *l = ctx;
	(void)st; /* memory-mapped: verified where it lies */
	const uint8_t *staged = qemu_staging_base();
	rt_package_t pkg;
	if (rt_package_check(staged, len, &pkg, msg, cap) != RT_PACKAGE_OK ||
	    rt_signature_check(staged, &pkg, msg, cap) != RT_SIGNATURE_OK) {
		info("refused: ", msg);
		return -1;
	}
	/* Verified: only now does the app slot change. */
	if (qemu_app_slot_install(staged, len, msg, cap) != 0) {
		info("refused: ", msg);
		return -1;
	}
	const uint8_t *slot;
	size_t slot_len;
	if (qemu_app_slot_get(&slot, &slot_len) != 0) {
		snprintf(msg, cap, "app slot: the package did not read back");
		return -1;
	}
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
	if (qemu_app_slot_get(&slot, &len) != 0) {
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
	rt_smp_staging_t staging = {st_begin, st_write, st_read,
				    hal_flash_size(qemu_staging_flash()) - 4u, &l};
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

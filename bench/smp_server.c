/*
 * beacon-bench-smp: the SMP server's work per upload chunk, for instruction counts under
 * callgrind. Run once per mode; the per-chunk cost is (count(mode) - count(loop)) / N.
 *
 *   beacon-bench-smp MODE N
 *
 *   loop     builds N upload requests (933 bytes of data each, as beacon upload sends for a
 *            1024-byte device buffer), frames each for the serial line as the client would, and
 *            does nothing with them;
 *   upload   also hands each to rt_smp_handle (header, CBOR parse, checks, a memcpy into RAM
 *            staging, the answer);
 *   serial   also feeds the frames byte by byte to rt_smp_serial_feed before rt_smp_handle,
 *            and frames the answer: the device's whole work per chunk over a UART.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cbor.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"

#define CHUNK 933u
#define MAX_CHUNKS 1000u

static uint8_t staging[CHUNK * MAX_CHUNKS];
static uint32_t staged_total;

static int st_begin(void *ctx, uint32_t total)
{
	(void)ctx;
	staged_total = total;
	return 0;
}

static int st_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	(void)ctx;
	if (off > staged_total || len > staged_total - off) {
		return -1;
	}
	memcpy(staging + off, data, len);
	return 0;
}

static int st_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	(void)ctx;
	memcpy(data, staging + off, len);
	return 0;
}

static size_t request(uint8_t *out, uint32_t off, uint32_t total, const uint8_t *data)
{
	static const uint8_t sha[32] = {1};
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, out + RT_SMP_HDR_SIZE, 1100);
	rt_cbor_enc_map(&e, off == 0 ? 5 : 3);
	rt_cbor_enc_str(&e, "off");
	rt_cbor_enc_uint(&e, off);
	rt_cbor_enc_str(&e, "data");
	rt_cbor_enc_bytes(&e, data, CHUNK);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, RT_SMP_STAGING_NAME);
	if (off == 0) {
		rt_cbor_enc_str(&e, "len");
		rt_cbor_enc_uint(&e, total);
		rt_cbor_enc_str(&e, "sha");
		rt_cbor_enc_bytes(&e, sha, sizeof(sha));
	}
	rt_smp_hdr_t h = {RT_SMP_VERSION_2, RT_SMP_OP_WRITE, 0, (uint16_t)e.len, RT_SMP_GROUP_FS, (uint8_t)off,
			  RT_SMP_FS_FILE};
	rt_smp_hdr_encode(&h, out);
	return RT_SMP_HDR_SIZE + e.len;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: beacon-bench-smp loop|upload|serial N\n");
		return 2;
	}
	const char *mode = argv[1];
	unsigned long n = strtoul(argv[2], NULL, 10);
	if (n == 0 || n > MAX_CHUNKS || (strcmp(mode, "loop") && strcmp(mode, "upload") && strcmp(mode, "serial"))) {
		fprintf(stderr, "beacon-bench-smp: bad mode or N (1 to %u)\n", MAX_CHUNKS);
		return 2;
	}
	static uint8_t data[CHUNK], req[1200], rsp[256], frames[2000], rx[1300], out[600];
	for (size_t i = 0; i < sizeof(data); i++) {
		data[i] = (uint8_t)(i * 31);
	}
	rt_smp_staging_t st = {st_begin, st_write, st_read, sizeof(staging), NULL, NULL, NULL, NULL};
	rt_smp_config_t cfg = {&st, NULL, NULL, NULL, 1024, 2, 30000};
	static rt_smp_server_t server;
	rt_smp_init(&server, &cfg);
	rt_smp_serial_dec_t dec;
	rt_smp_serial_dec_init(&dec, rx, sizeof(rx), NULL, NULL);

	uint32_t total = (uint32_t)(n * CHUNK);
	uint32_t acked = 0;
	unsigned long sink = 0;
	for (uint32_t off = 0; off < total; off += CHUNK) {
		size_t len = request(req, off, total, data);
		size_t k = rt_smp_serial_encode(req, len, frames, sizeof(frames));
		if (mode[0] == 'l') {
			sink += req[len - 1] + frames[k - 2];
			continue;
		}
		const uint8_t *pkt = req;
		size_t pkt_len = len;
		if (mode[0] == 's') {
			int got = 0;
			for (size_t i = 0; i < k; i++) {
				if (rt_smp_serial_feed(&dec, frames[i], &pkt, &pkt_len) == RT_SMP_SERIAL_PACKET) {
					got++;
				}
			}
			if (got != 1) {
				fprintf(stderr, "beacon-bench-smp: framing lost a packet\n");
				return 1;
			}
		}
		size_t m = rt_smp_handle(&server, 1, 0, pkt, pkt_len, rsp, sizeof(rsp));
		if (mode[0] == 's') {
			sink += rt_smp_serial_encode(rsp, m, out, sizeof(out));
		}
		acked = server.off;
		sink += m;
	}
	if (mode[0] != 'l' && acked != total) {
		fprintf(stderr, "beacon-bench-smp: upload stopped at %lu of %lu\n", (unsigned long)acked, (unsigned long)total);
		return 1;
	}
	printf("%lu\n", sink);
	return 0;
}

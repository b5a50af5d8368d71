/*
 * rt_smp_serial.h: SMP over a serial line or console, framed as Zephyr's MCUmgr serial transport
 * does (doc/services/device_mgmt/smp_transport.rst), so that the device's UART, the emulated
 * image's UART and the host's pseudo-terminal all speak what mcumgr clients expect.
 *
 * A packet is sent as lines of at most 127 bytes: a start marker (0x06 0x09 for the first line
 * of a packet, 0x04 0x14 for the lines that continue it), base64 text, and '\n'. Decoded and
 * joined, the lines give: the length (big-endian 16 bits) of what follows, the SMP packet, and
 * the CRC-16/XMODEM (polynomial 0x1021, initial 0, big-endian) of the packet. The encoder
 * splits exactly as Zephyr's mcumgr_serial_tx_pkt does (93 raw bytes in the first line, 90 in
 * the others, the CRC never split from the last packet bytes), so its output is byte for byte
 * what a Zephyr device sends.
 *
 * The decoder is fed one byte at a time. Lines that do not start with a marker are console text
 * (a shell, log output): their bytes are passed through to the text callback, if any, and never
 * disturb a packet being received. A frame that cannot be right (bad base64, a continuation with
 * no packet started, more bytes than the length said, a wrong CRC, a line longer than 127 bytes,
 * a packet larger than the caller's buffer) drops the packet being received, as Zephyr does: the
 * serial protocol has no way to answer a packet whose header it cannot trust; the client's
 * timeout resends. A '\r' before the '\n' is ignored, for terminals that add one.
 */
#ifndef RT_SMP_SERIAL_H
#define RT_SMP_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_SMP_SERIAL_MAX_FRAME 127u
/* Base64 characters a line may carry: the frame less the marker and the newline. */
#define RT_SMP_SERIAL_MAX_BODY (RT_SMP_SERIAL_MAX_FRAME - 3u)

typedef enum {
	RT_SMP_SERIAL_NONE = 0,      /* nothing complete yet */
	RT_SMP_SERIAL_PACKET = 1,    /* a whole packet: see rt_smp_serial_feed() */
	RT_SMP_SERIAL_BAD_BASE64 = -1,
	RT_SMP_SERIAL_BAD_SEQUENCE = -2, /* a continuation line with no packet started */
	RT_SMP_SERIAL_BAD_LENGTH = -3,   /* the length field is too small, or exceeded */
	RT_SMP_SERIAL_BAD_CRC = -4,
	RT_SMP_SERIAL_TOO_LONG = -5,     /* a line longer than RT_SMP_SERIAL_MAX_FRAME */
	RT_SMP_SERIAL_TOO_BIG = -6,      /* a packet larger than the decoder's buffer */
} rt_smp_serial_result_t;

typedef void (*rt_smp_serial_text_fn)(void *ctx, uint8_t byte);

typedef enum {
	RT_SMP_SERIAL_LINE_START = 0,
	RT_SMP_SERIAL_MARKER,   /* one marker byte seen at the start of a line */
	RT_SMP_SERIAL_FRAME,    /* in a frame's base64 */
	RT_SMP_SERIAL_TEXT,     /* in a console line */
	RT_SMP_SERIAL_DISCARD,  /* in a bad frame, until its newline */
} rt_smp_serial_state_t;

typedef struct {
	uint8_t *buf;     /* the caller's: decoded packet and CRC */
	size_t cap;
	size_t len;       /* decoded bytes of the packet so far (CRC included) */
	size_t expect;    /* from the length field; 0 when no packet is being received */
	rt_smp_serial_state_t state;
	uint8_t marker;   /* the first marker byte of this line */
	bool continuation;
	uint8_t line[RT_SMP_SERIAL_MAX_BODY];
	size_t line_len;
	rt_smp_serial_text_fn text;
	void *text_ctx;
} rt_smp_serial_dec_t;

/* buf receives the packet; cap bytes (the largest packet accepted is cap - 2). text may be NULL
 * (console text is then ignored). */
void rt_smp_serial_dec_init(rt_smp_serial_dec_t *d, uint8_t *buf, size_t cap,
			    rt_smp_serial_text_fn text, void *text_ctx);

/* Feed one received byte. On RT_SMP_SERIAL_PACKET, *pkt and *pkt_len give the SMP packet (in the
 * decoder's buffer, valid until the next call); a negative result says why a packet was
 * dropped. */
rt_smp_serial_result_t rt_smp_serial_feed(rt_smp_serial_dec_t *d, uint8_t byte,
					  const uint8_t **pkt, size_t *pkt_len);

/* Frame a packet. Writes into out (when it is not NULL) and returns the number of bytes the
 * frames take; 0 when len is 0 or the frames do not fit in cap (nothing useful is written then).
 * With out NULL it only counts. */
size_t rt_smp_serial_encode(const uint8_t *pkt, size_t len, uint8_t *out, size_t cap);

/* CRC-16/XMODEM (polynomial 0x1021, initial value crc, no reflection, no final xor). */
uint16_t rt_smp_crc16(uint16_t crc, const uint8_t *data, size_t len);

const char *rt_smp_serial_strerror(rt_smp_serial_result_t r);

#endif /* RT_SMP_SERIAL_H */

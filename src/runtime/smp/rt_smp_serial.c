/*
 * rt_smp_serial.c: see rt_smp_serial.h.
 */
#include "rt_smp_serial.h"

#include <string.h>

#define MARK_PKT_1 0x06u
#define MARK_PKT_2 0x09u
#define MARK_FRAG_1 0x04u
#define MARK_FRAG_2 0x14u

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* A nibble table: a third of the bitwise loop's work for 32 bytes of flash. */
static const uint16_t CRC16_NIBBLE[16] = {0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
					  0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef};

uint16_t rt_smp_crc16(uint16_t crc, const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		crc = (uint16_t)(crc << 4) ^ CRC16_NIBBLE[(crc >> 12) ^ (data[i] >> 4)];
		crc = (uint16_t)(crc << 4) ^ CRC16_NIBBLE[(crc >> 12) ^ (data[i] & 0x0fu)];
	}
	return crc;
}

void rt_smp_serial_dec_init(rt_smp_serial_dec_t *d, uint8_t *buf, size_t cap,
			    rt_smp_serial_text_fn text, void *text_ctx)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->cap = buf ? cap : 0;
	d->text = text;
	d->text_ctx = text_ctx;
}

static void emit_text(rt_smp_serial_dec_t *d, uint8_t byte)
{
	if (d->text) {
		d->text(d->text_ctx, byte);
	}
}

static int b64_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z') {
		return c - 'A';
	}
	if (c >= 'a' && c <= 'z') {
		return c - 'a' + 26;
	}
	if (c >= '0' && c <= '9') {
		return c - '0' + 52;
	}
	if (c == '+') {
		return 62;
	}
	if (c == '/') {
		return 63;
	}
	return -1;
}

/* Decode one line's base64 (padding allowed only in its last group); -1 when it is not valid. */
static int b64_decode(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t o = 0;
	if (n % 4 != 0) {
		return -1;
	}
	for (size_t i = 0; i < n; i += 4) {
		bool last = i + 4 == n;
		int v[4];
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			uint8_t c = in[i + (size_t)k];
			if (c == '=' && last && k >= 2) {
				pad++;
				v[k] = 0;
				continue;
			}
			if (pad > 0) {
				return -1; /* data after padding */
			}
			v[k] = b64_value(c);
			if (v[k] < 0) {
				return -1;
			}
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		out[o++] = (uint8_t)(w >> 16);
		if (pad < 2) {
			out[o++] = (uint8_t)(w >> 8);
		}
		if (pad < 1) {
			out[o++] = (uint8_t)w;
		}
	}
	return (int)o;
}

static rt_smp_serial_result_t drop(rt_smp_serial_dec_t *d, rt_smp_serial_result_t why)
{
	d->len = 0;
	d->expect = 0;
	return why;
}

static rt_smp_serial_result_t end_of_frame(rt_smp_serial_dec_t *d, const uint8_t **pkt, size_t *pkt_len)
{
	uint8_t raw[RT_SMP_SERIAL_MAX_BODY / 4 * 3];
	const uint8_t *p = raw;

	if (d->continuation && d->expect == 0) {
		return drop(d, RT_SMP_SERIAL_BAD_SEQUENCE);
	}
	if (!d->continuation) {
		/* A new packet: whatever was half received is abandoned. */
		d->len = 0;
		d->expect = 0;
	}
	int n = b64_decode(d->line, d->line_len, raw);
	if (n < 0) {
		return drop(d, RT_SMP_SERIAL_BAD_BASE64);
	}
	if (!d->continuation) {
		if (n < 2) {
			return drop(d, RT_SMP_SERIAL_BAD_LENGTH);
		}
		size_t expect = (size_t)raw[0] << 8 | raw[1];
		if (expect <= 2) {
			return drop(d, RT_SMP_SERIAL_BAD_LENGTH); /* no packet before the CRC */
		}
		if (expect > d->cap) {
			return drop(d, RT_SMP_SERIAL_TOO_BIG);
		}
		d->expect = expect;
		p += 2;
		n -= 2;
	}
	if ((size_t)n > d->expect - d->len) {
		return drop(d, RT_SMP_SERIAL_BAD_LENGTH);
	}
	memcpy(d->buf + d->len, p, (size_t)n);
	d->len += (size_t)n;
	if (d->len < d->expect) {
		return RT_SMP_SERIAL_NONE;
	}
	/* The CRC over the packet and its own big-endian CRC is 0 when they agree. */
	if (rt_smp_crc16(0, d->buf, d->len) != 0) {
		return drop(d, RT_SMP_SERIAL_BAD_CRC);
	}
	*pkt = d->buf;
	*pkt_len = d->len - 2;
	d->len = 0;
	d->expect = 0;
	return RT_SMP_SERIAL_PACKET;
}

rt_smp_serial_result_t rt_smp_serial_feed(rt_smp_serial_dec_t *d, uint8_t byte,
					  const uint8_t **pkt, size_t *pkt_len)
{
	switch (d->state) {
	case RT_SMP_SERIAL_LINE_START:
		if (byte == MARK_PKT_1 || byte == MARK_FRAG_1) {
			d->marker = byte;
			d->state = RT_SMP_SERIAL_MARKER;
			return RT_SMP_SERIAL_NONE;
		}
		emit_text(d, byte);
		d->state = byte == '\n' ? RT_SMP_SERIAL_LINE_START : RT_SMP_SERIAL_TEXT;
		return RT_SMP_SERIAL_NONE;
	case RT_SMP_SERIAL_MARKER:
		if ((d->marker == MARK_PKT_1 && byte == MARK_PKT_2) ||
		    (d->marker == MARK_FRAG_1 && byte == MARK_FRAG_2)) {
			d->continuation = d->marker == MARK_FRAG_1;
			d->line_len = 0;
			d->state = RT_SMP_SERIAL_FRAME;
			return RT_SMP_SERIAL_NONE;
		}
		/* Not a marker after all: both bytes are console text. */
		emit_text(d, d->marker);
		emit_text(d, byte);
		d->state = byte == '\n' ? RT_SMP_SERIAL_LINE_START : RT_SMP_SERIAL_TEXT;
		return RT_SMP_SERIAL_NONE;
	case RT_SMP_SERIAL_TEXT:
		emit_text(d, byte);
		if (byte == '\n') {
			d->state = RT_SMP_SERIAL_LINE_START;
		}
		return RT_SMP_SERIAL_NONE;
	case RT_SMP_SERIAL_FRAME:
		if (byte == '\n') {
			d->state = RT_SMP_SERIAL_LINE_START;
			return end_of_frame(d, pkt, pkt_len);
		}
		if (byte == '\r') {
			return RT_SMP_SERIAL_NONE;
		}
		if (d->line_len == sizeof(d->line)) {
			d->state = RT_SMP_SERIAL_DISCARD;
			return drop(d, RT_SMP_SERIAL_TOO_LONG);
		}
		d->line[d->line_len++] = byte;
		return RT_SMP_SERIAL_NONE;
	default: /* RT_SMP_SERIAL_DISCARD */
		if (byte == '\n') {
			d->state = RT_SMP_SERIAL_LINE_START;
		}
		return RT_SMP_SERIAL_NONE;
	}
}

/* Output with a running count; writes only while the bytes fit. */
typedef struct {
	uint8_t *out;
	size_t cap;
	size_t n;
} sink_t;

static void sink_put(sink_t *s, const uint8_t *b, size_t n)
{
	if (s->out && s->n + n <= s->cap) {
		memcpy(s->out + s->n, b, n);
	}
	s->n += n;
}

/* Base64 of one group of 1 to 3 bytes: always 4 characters, padded. */
static void sink_group(sink_t *s, const uint8_t *raw, size_t n)
{
	uint8_t g[4];
	uint32_t w = (uint32_t)raw[0] << 16 | (n > 1 ? (uint32_t)raw[1] << 8 : 0u) | (n > 2 ? raw[2] : 0u);
	g[0] = (uint8_t)B64[(w >> 18) & 63u];
	g[1] = (uint8_t)B64[(w >> 12) & 63u];
	g[2] = n > 1 ? (uint8_t)B64[(w >> 6) & 63u] : (uint8_t)'=';
	g[3] = n > 2 ? (uint8_t)B64[w & 63u] : (uint8_t)'=';
	sink_put(s, g, 4);
}

size_t rt_smp_serial_encode(const uint8_t *pkt, size_t len, uint8_t *out, size_t cap)
{
	/* Raw bytes a line carries: base64 turns 3 into 4, and the marker and '\n' take 3. */
	size_t max_input = RT_SMP_SERIAL_MAX_BODY / 4 * 3;
	sink_t s = {out, out ? cap : 0, 0};
	uint16_t crc;
	size_t off = 0;
	bool first = true;
	uint8_t raw[3];

	if (!pkt || len == 0 || len > 0xffffu - 2u) {
		return 0;
	}
	crc = rt_smp_crc16(0, pkt, len);
	while (off < len) {
		static const uint8_t mark_pkt[2] = {MARK_PKT_1, MARK_PKT_2};
		static const uint8_t mark_frag[2] = {MARK_FRAG_1, MARK_FRAG_2};
		bool last = false;
		sink_put(&s, first ? mark_pkt : mark_frag, 2);
		if (first) {
			/* The length field and the first packet byte make the first group; from then on
			 * every line, this one too, has one group less for the packet (as Zephyr's
			 * encoder: 93 raw bytes in the first line, 90 in the others). */
			raw[0] = (uint8_t)((len + 2) >> 8);
			raw[1] = (uint8_t)(len + 2);
			raw[2] = pkt[0];
			sink_group(&s, raw, 3);
			off = 1;
			max_input -= 3;
		}
		size_t left = len - off;
		size_t take = left < max_input ? left : max_input;
		/* The CRC goes whole into the line with the last packet bytes: when it would not fit,
		 * a byte is held back for one more line. */
		if (max_input >= left && max_input - left <= 1) {
			take -= 1;
		} else if (max_input >= left + 2) {
			last = true;
		}
		while (take >= 3) {
			sink_group(&s, pkt + off, 3);
			off += 3;
			take -= 3;
		}
		if (last) {
			uint8_t tail[4];
			size_t rest = len - off;
			memcpy(tail, pkt + off, rest); /* 0 to 2 bytes */
			tail[rest] = (uint8_t)(crc >> 8);
			tail[rest + 1] = (uint8_t)crc;
			off = len;
			if (rest + 2 <= 3) {
				sink_group(&s, tail, rest + 2);
			} else {
				sink_group(&s, tail, 3);
				sink_group(&s, tail + 3, 1);
			}
		}
		static const uint8_t nl = '\n';
		sink_put(&s, &nl, 1);
		first = false;
	}
	if (out && s.n > cap) {
		return 0;
	}
	return s.n;
}

const char *rt_smp_serial_strerror(rt_smp_serial_result_t r)
{
	switch (r) {
	case RT_SMP_SERIAL_NONE:
		return "no packet yet";
	case RT_SMP_SERIAL_PACKET:
		return "packet";
	case RT_SMP_SERIAL_BAD_BASE64:
		return "frame dropped: bad base64";
	case RT_SMP_SERIAL_BAD_SEQUENCE:
		return "frame dropped: continuation without a first frame";
	case RT_SMP_SERIAL_BAD_LENGTH:
		return "packet dropped: length field does not match the frames";
	case RT_SMP_SERIAL_BAD_CRC:
		return "packet dropped: CRC16 mismatch";
	case RT_SMP_SERIAL_TOO_LONG:
		return "packet dropped: frame longer than 127 bytes";
	case RT_SMP_SERIAL_TOO_BIG:
		return "packet dropped: larger than the receive buffer";
	}
	return "unknown serial framing result";
}

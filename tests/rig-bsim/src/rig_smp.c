/* The rig's SMP client: see rig_smp.h. */
#include "rig_smp.h"

#include <errno.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "rig_link.h"
#include "rt_cbor.h"

#define PACKET_MAX 2048
#define STAGING_NAME "/app/staged.bapp"

static uint8_t seq;

static void decode(const uint8_t *pkt, size_t len, rig_answer_t *a)
{
	memset(a, 0, sizeof(*a));
	a->rc = a->err_group = a->err_rc = a->off = a->buf_size = -1;
	if (len < 8) {
		return;
	}
	a->op = pkt[0] & 7u;
	a->group = pkt[5];
	a->cmd = pkt[7];
	rt_cbor_dec_t d;
	rt_cbor_item_t it;

	rt_cbor_dec_init(&d, pkt + 8, len - 8);
	if (rt_cbor_next(&d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP) {
		return;
	}
	for (uint64_t i = 0; i < it.u; i++) {
		const char *key;
		size_t key_len;

		if (rt_cbor_read_text(&d, &key, &key_len) != RT_CBOR_OK) {
			return;
		}
		int64_t v;
		const char *text;
		size_t text_len;
		rt_cbor_item_t inner;

#define KEY(k) (key_len == sizeof(k) - 1 && memcmp(key, k, key_len) == 0)
		if (KEY("rc") && rt_cbor_read_int(&d, &v) == RT_CBOR_OK) {
			a->rc = v;
		} else if (KEY("off") && rt_cbor_read_int(&d, &v) == RT_CBOR_OK) {
			a->off = v;
		} else if (KEY("buf_size") && rt_cbor_read_int(&d, &v) == RT_CBOR_OK) {
			a->buf_size = v;
		} else if ((KEY("msg") || KEY("state")) &&
			   rt_cbor_read_text(&d, &text, &text_len) == RT_CBOR_OK) {
			char *dst = KEY("msg") ? a->msg : a->state;
			size_t cap = KEY("msg") ? sizeof(a->msg) : sizeof(a->state);
			size_t n = text_len < cap - 1 ? text_len : cap - 1;

			memcpy(dst, text, n);
			dst[n] = '\0';
		} else if (KEY("err") && rt_cbor_next(&d, &inner) == RT_CBOR_OK &&
			   inner.type == RT_CBOR_MAP) {
			for (uint64_t j = 0; j < inner.u; j++) {
				const char *k2;
				size_t k2_len;

				if (rt_cbor_read_text(&d, &k2, &k2_len) != RT_CBOR_OK ||
				    rt_cbor_read_int(&d, &v) != RT_CBOR_OK) {
					return;
				}
				if (k2_len == 5 && memcmp(k2, "group", 5) == 0) {
					a->err_group = v;
				} else if (k2_len == 2 && memcmp(k2, "rc", 2) == 0) {
					a->err_rc = v;
				}
			}
		} else if (rt_cbor_skip(&d) != RT_CBOR_OK) {
			return;
		}
#undef KEY
	}
}

int rig_smp_send_raw(const uint8_t *packet, size_t len)
{
	return rig_link_send(packet, len);
}

int rig_smp_wait_any(rig_answer_t *answer, uint32_t timeout_ms)
{
	static uint8_t pkt[PACKET_MAX];
	int n = rig_link_receive(pkt, sizeof(pkt), timeout_ms);

	if (n <= 0) {
		return n == 0 ? -ETIMEDOUT : n;
	}
	decode(pkt, (size_t)n, answer);
	return 0;
}

int rig_smp_request(uint8_t version, uint8_t op, uint16_t group, uint8_t cmd,
		    const uint8_t *body, size_t body_len, rig_answer_t *answer, uint32_t timeout_ms)
{
	static uint8_t pkt[PACKET_MAX];

	if (body_len + 8 > sizeof(pkt)) {
		return -EMSGSIZE;
	}
	uint8_t my_seq = seq++;

	pkt[0] = (uint8_t)((version & 3u) << 3 | (op & 7u));
	pkt[1] = 0;
	pkt[2] = (uint8_t)(body_len >> 8);
	pkt[3] = (uint8_t)body_len;
	pkt[4] = (uint8_t)(group >> 8);
	pkt[5] = (uint8_t)group;
	pkt[6] = my_seq;
	pkt[7] = cmd;
	memcpy(pkt + 8, body, body_len);
	int err = rig_link_send(pkt, body_len + 8);

	if (err != 0) {
		return err;
	}
	static uint8_t rsp[PACKET_MAX];
	int64_t until = k_uptime_get() + timeout_ms;

	for (;;) {
		int64_t left = until - k_uptime_get();
		int n = left > 0 ? rig_link_receive(rsp, sizeof(rsp), (uint32_t)left) : 0;

		if (n <= 0) {
			return n == 0 ? -ETIMEDOUT : n;
		}
		if (n >= 8 && rsp[6] == my_seq) {
			decode(rsp, (size_t)n, answer);
			return 0;
		}
		/* An answer to an earlier request that timed out: not this one's. */
	}
}

int64_t rig_smp_buf_size(void)
{
	uint8_t body[8];
	rt_cbor_enc_t e;
	rig_answer_t a;

	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, 0);
	int err = rig_smp_request(1, 0, 0, 6, body, e.len, &a, 5000);

	return err != 0 ? err : a.buf_size;
}

int64_t rig_smp_upload(const uint8_t *package, size_t len, const uint8_t *sha, size_t sha_len,
		       size_t chunk, size_t stop_after, rig_answer_t *answer)
{
	return rig_smp_upload_from(package, len, sha, sha_len, chunk, stop_after, answer, 0);
}

int rig_smp_chunk(size_t off, const uint8_t *data, size_t n, size_t len, const uint8_t *sha,
		  size_t sha_len, rig_answer_t *answer)
{
	static uint8_t body[PACKET_MAX];
	bool first = sha != NULL;
	rt_cbor_enc_t e;

	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, first ? 5 : 3);
	rt_cbor_enc_str(&e, "off");
	rt_cbor_enc_uint(&e, off);
	rt_cbor_enc_str(&e, "data");
	rt_cbor_enc_bytes(&e, data, n);
	rt_cbor_enc_str(&e, "name");
	rt_cbor_enc_str(&e, STAGING_NAME);
	if (first) {
		rt_cbor_enc_str(&e, "len");
		rt_cbor_enc_uint(&e, len);
		rt_cbor_enc_str(&e, "sha");
		rt_cbor_enc_bytes(&e, sha, sha_len);
	}
	if (!rt_cbor_enc_ok(&e)) {
		return -EMSGSIZE;
	}
	return rig_smp_request(1, 2, 8, 0, body, e.len, answer, 10000);
}

int64_t rig_smp_upload_from(const uint8_t *package, size_t len, const uint8_t *sha,
			    size_t sha_len, size_t chunk, size_t stop_after, rig_answer_t *answer,
			    size_t from)
{
	size_t off = from;
	bool first = from == 0;

	for (;;) {
		size_t n = len - off < chunk ? len - off : chunk;
		int err = rig_smp_chunk(off, package + off, n, len, first ? sha : NULL, sha_len,
					answer);

		if (err != 0) {
			return err;
		}
		if (answer->off < 0) {
			return -EPROTO; /* refused: answer says why */
		}
		off = (size_t)answer->off;
		first = false;
		if (off >= len || (stop_after > 0 && off >= stop_after)) {
			return (int64_t)off;
		}
	}
}

int rig_smp_install(rig_answer_t *answer)
{
	uint8_t body[4];
	rt_cbor_enc_t e;

	rt_cbor_enc_init(&e, body, sizeof(body));
	rt_cbor_enc_map(&e, 0);
	return rig_smp_request(1, 2, 77, 1, body, e.len, answer, 30000);
}

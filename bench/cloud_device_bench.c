/*
 * Size on the wire of an upload batch built by the device (rt_cloud_proto.c): n events of
 * 200-byte CBOR payloads enqueued a second apart, as in docs/cloud-protocol.md §6, with the MQTT
 * framing of its PUBLISH (QoS 1, a 32-digit device id). Prints "name: value unit" lines.
 */
#include <stdio.h>
#include <string.h>

#include "rt_cloud_proto.h"

/* An MQTT PUBLISH at QoS 1: fixed header, remaining length, topic, packet id, payload. */
static size_t publish_size(size_t topic_len, size_t payload_len)
{
	size_t remaining = 2 + topic_len + 2 + payload_len;
	size_t len_bytes = remaining < 128 ? 1 : remaining < 16384 ? 2 : remaining < 2097152 ? 3 : 4;
	return 1 + len_bytes + remaining;
}

int main(void)
{
	static uint8_t payload[200];
	/* A text string of 200 bytes in all (2-byte head). */
	payload[0] = 0x78;
	payload[1] = 198;
	memset(payload + 2, 'x', 198);
	static uint8_t frame[RT_CLOUD_BATCH_BYTES];
	static rt_cloud_batch_t b;
	const size_t topic_len = strlen("b/5eac0b1d00004d0cbeac051a00000001/u");
	size_t counts[] = {1, 10, 32};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		size_t n = counts[k];
		rt_cloud_batch_init(&b, 0x2a7f19c3);
		for (size_t i = 0; i < n; i++) {
			rt_cloud_event_t ev = {.seq = (uint32_t)(1 + i), .flags = RT_CLOUD_EVENT_VOLATILE,
					       .ts = 1767225600000 + (int64_t)i * 1000, .type_len = 4,
					       .payload = payload, .payload_len = sizeof(payload)};
			memcpy(ev.type, "temp", 5);
			if (!rt_cloud_batch_add(&b, &ev)) {
				fprintf(stderr, "batch full at %zu\n", i);
				return 1;
			}
		}
		rt_cbor_enc_t e;
		rt_cbor_enc_init(&e, frame, sizeof(frame));
		rt_cloud_batch_encode_head(&b, &e);
		for (uint32_t i = 0; i < b.count; i++) {
			rt_cloud_batch_encode_event(&b, i, payload, sizeof(payload), &e);
		}
		size_t wire = publish_size(topic_len, e.len);
		printf("batch%zu_cbor_bytes_per_event: %.1f bytes\n", n, (double)e.len / (double)n);
		printf("batch%zu_upload_publish_bytes_per_event: %.1f bytes\n", n, (double)wire / (double)n);
		printf("batch%zu_upload_publish_over_payload: %.3f ratio\n", n,
		       (double)wire / (double)(n * sizeof(payload)));
	}
	return 0;
}

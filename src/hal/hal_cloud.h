/*
 * hal_cloud.h: the network under a cloud sync: an MQTT 3.1.1 session with the device's cloud
 * (docs/cloud-protocol.md §1).
 *
 * The runtime's portable sync (rt_cloud_session.h) builds and reads every payload and decides
 * what to publish when; a transport only moves PUBLISH packets, all QoS 1. Its five calls are the
 * shape both MQTT clients the project uses already have: Zephyr's MQTT library (mqtt_connect,
 * mqtt_subscribe, mqtt_publish, then zsock_poll + mqtt_input feeding the event callback, and
 * mqtt_disconnect) and libmosquitto (mosquitto_connect, mosquitto_subscribe_multiple,
 * mosquitto_publish, mosquitto_loop feeding the message callback, mosquitto_disconnect). The
 * transport keeps the connection's credentials: the client id and user name are the device's
 * public id, the password its secret (provisioned on the device, an option in the simulator).
 *
 * Every call blocks at most timeout_ms. A transport is used by one sync at a time.
 */
#ifndef HAL_CLOUD_H
#define HAL_CLOUD_H

#include <stddef.h>
#include <stdint.h>

/* Results: 0 or one of these. */
#define HAL_CLOUD_OK 0
#define HAL_CLOUD_ENONET (-1)    /* no network, or no cloud configured */
#define HAL_CLOUD_EAUTH (-2)     /* CONNACK refused the credentials, or SUBACK a topic */
#define HAL_CLOUD_ECONN (-3)     /* the connection failed or was lost */
#define HAL_CLOUD_ETIMEDOUT (-4) /* no answer in time */
#define HAL_CLOUD_EPROTO (-5)    /* the cloud sent something the device cannot decode */
#define HAL_CLOUD_ETLS (-6)      /* the TLS handshake failed: the cloud's certificate not signed by
				  * the device's CA, or not for the cloud's name */

/* A PUBLISH that arrived: topic (NUL-terminated) and payload. */
typedef void (*hal_cloud_receive_fn)(void *ctx, const char *topic, const uint8_t *payload,
				     size_t len);

typedef struct hal_cloud_transport {
	void *ctx;
	/* CONNECT as the device (clean session, keep alive 60 s) and wait for CONNACK. */
	int (*connect)(void *ctx, const char *device_id, uint32_t timeout_ms);
	/* One SUBSCRIBE of every topic at QoS 1; wait for SUBACK (a refused topic: EAUTH). */
	int (*subscribe)(void *ctx, const char *const *topics, size_t count, uint32_t timeout_ms);
	/* PUBLISH at QoS 1. Returns once the packet is sent; its PUBACK is awaited by flush. The
	 * payload is the caller's again when this returns: a transport sends it or copies it first
	 * and keeps no pointer to it (the runtime builds the next batch in the same buffer; a batch
	 * is sent again only by a later exchange, encoded again from flash). Zephyr's mqtt_publish
	 * writes it to the socket before returning, mosquitto_publish copies it, the world's
	 * loopback answers it at once. */
	int (*publish)(void *ctx, const char *topic, const uint8_t *payload, size_t len);
	/* Wait up to timeout_ms for traffic and hand each PUBLISH that arrives to fn. Returns the
	 * number handed over (0 when the time passed with none), or an error. */
	int (*poll)(void *ctx, uint32_t timeout_ms, hal_cloud_receive_fn fn, void *fn_ctx);
	/* Wait until every PUBLISH sent has its PUBACK. */
	int (*flush)(void *ctx, uint32_t timeout_ms);
	/* DISCONNECT and close; safe after a failure. */
	void (*disconnect)(void *ctx);
} hal_cloud_transport_t;

/* The selected device's transport; NULL when the device has no way to the cloud. */
const hal_cloud_transport_t *hal_cloud_transport(void);

/* 32 bits that differ from one call to the next and between devices (the event queue's stream
 * id): the device's random generator; the simulator's, seeded per device for repeatable runs. */
uint32_t hal_cloud_entropy(void);

#endif /* HAL_CLOUD_H */

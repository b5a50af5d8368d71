/*
 * hal_cloud.h on Zephyr: the sync's MQTT 3.1.1 session through Zephyr's MQTT library over TLS
 * sockets (on the nRF9160, the modem's offloaded TLS: the CA certificate is provisioned in the
 * modem under CONFIG_BEACON_CLOUD_SEC_TAG). Thin on purpose: the protocol is portable C
 * (rt_cloud_session.c); this file only moves PUBLISH packets.
 *
 * Boards without an IP network (the nRF52840) have no MQTT library: hal_cloud_transport() is
 * NULL there and a sync ends with "no network".
 *
 * The broker and the device's secret (its MQTT password, issued by `beacon cloud device add`)
 * come from CONFIG_BEACON_CLOUD_HOST, _PORT and _SECRET; a production line would write the secret
 * to the modem's credential store instead. A test board with a network (nrf52_bsim, on the host's
 * sockets) takes them from its run options instead (world_cloud_zephyr.c) and syncs the world's
 * device through this same client.
 */
#include <string.h>

#include <zephyr/kernel.h>

#include "hal_cloud.h"
#include "hal_cloud_zephyr.h"
#include "hal_device.h"

#if !defined(CONFIG_BEACON_SIMULATED_WORLD)
uint32_t hal_cloud_entropy(void)
{
	uint32_t v;

	hal_device_random(&v, sizeof(v));
	return v;
}
#endif

#if defined(CONFIG_MQTT_LIB)

#include <zephyr/net/mqtt.h>
#include <zephyr/net/socket.h>

#include "rt_cloud_proto.h"

static struct mqtt_client client;
static struct sockaddr_storage broker;
static hal_cloud_zephyr_config_t config = {
	.host = CONFIG_BEACON_CLOUD_HOST,
	.port = CONFIG_BEACON_CLOUD_PORT,
	.secret = CONFIG_BEACON_CLOUD_SECRET,
	.sec_tag = CONFIG_BEACON_CLOUD_SEC_TAG,
	.tls = true,
};

void hal_cloud_zephyr_configure(const hal_cloud_zephyr_config_t *c)
{
	config = *c;
}

/* The connection's socket: the TLS one, or the plain one of a loopback test cloud. */
static int client_socket(void)
{
#if defined(CONFIG_MQTT_LIB_TLS)
	if (client.transport.type == MQTT_TRANSPORT_SECURE) {
		return client.transport.tls.sock;
	}
#endif
	return client.transport.tcp.sock;
}
static uint8_t rx_buf[1024];
static uint8_t tx_buf[1024];
/* One incoming PUBLISH payload: a message frame is at most 32 kB. */
static uint8_t payload_buf[RT_CLOUD_FRAME_MAX];
static char client_id[65];
static struct mqtt_utf8 user_name, password;

static struct {
	bool connack, suback, connected;
	int connack_rc;
	int suback_rc;
	uint16_t next_id;
	uint32_t unacked;      /* QoS 1 PUBLISHes without PUBACK */
	hal_cloud_receive_fn fn;
	void *fn_ctx;
	int delivered;
	int error;
} link;

static void on_event(struct mqtt_client *c, const struct mqtt_evt *evt)
{
	switch (evt->type) {
	case MQTT_EVT_CONNACK:
		link.connack = true;
		link.connack_rc = evt->result;
		link.connected = evt->result == 0;
		break;
	case MQTT_EVT_DISCONNECT:
		link.connected = false;
		link.error = HAL_CLOUD_ECONN;
		break;
	case MQTT_EVT_SUBACK: {
		link.suback = true;
		link.suback_rc = evt->result;
		const struct mqtt_binstr *codes = &evt->param.suback.return_codes;
		for (uint32_t i = 0; i < codes->len; i++) {
			if (codes->data[i] == MQTT_SUBACK_FAILURE) {
				link.suback_rc = -EACCES;
			}
		}
		break;
	}
	case MQTT_EVT_PUBACK:
		if (link.unacked > 0) {
			link.unacked--;
		}
		break;
	case MQTT_EVT_PUBLISH: {
		const struct mqtt_publish_param *p = &evt->param.publish;
		uint32_t len = p->message.payload.len;
		char topic[RT_CLOUD_TOPIC_MAX];
		uint32_t tl = p->message.topic.topic.size;
		if (len > sizeof(payload_buf) || tl >= sizeof(topic)) {
			link.error = HAL_CLOUD_EPROTO;
			return;
		}
		memcpy(topic, p->message.topic.topic.utf8, tl);
		topic[tl] = '\0';
		if (mqtt_readall_publish_payload(c, payload_buf, len) != 0) {
			link.error = HAL_CLOUD_ECONN;
			return;
		}
		if (p->message.topic.qos == MQTT_QOS_1_AT_LEAST_ONCE) {
			const struct mqtt_puback_param ack = {.message_id = p->message_id};
			mqtt_publish_qos1_ack(c, &ack);
		}
		if (link.fn != NULL) {
			link.fn(link.fn_ctx, topic, payload_buf, len);
			link.delivered++;
		}
		break;
	}
	default:
		break;
	}
}

/* Feed mqtt_input until done() or the time runs out. */
static int pump(uint32_t timeout_ms, bool (*done)(void))
{
	int64_t end = k_uptime_get() + timeout_ms;
	while (!done()) {
		if (link.error != 0) {
			return link.error;
		}
		int64_t left = end - k_uptime_get();
		if (left <= 0) {
			return HAL_CLOUD_ETIMEDOUT;
		}
		struct zsock_pollfd fd = {.fd = client_socket(), .events = ZSOCK_POLLIN};
		int keep = mqtt_keepalive_time_left(&client);
		int wait = keep >= 0 && keep < left ? keep : (int)left;
		int rc = zsock_poll(&fd, 1, wait);
		if (rc < 0) {
			return HAL_CLOUD_ECONN;
		}
		if (rc > 0 && mqtt_input(&client) != 0) {
			return HAL_CLOUD_ECONN;
		}
		/* Keep-alive once the session is up: mqtt_live() sends PINGREQ when due, says
		 * -EAGAIN when it is not, and refuses before CONNACK (the session is not up). */
		if (link.connected) {
			int live = mqtt_live(&client);

			if (live != 0 && live != -EAGAIN) {
				return HAL_CLOUD_ECONN;
			}
		}
	}
	return link.error;
}

static bool connack_seen(void) { return link.connack; }
static bool suback_seen(void) { return link.suback; }
static bool all_acked(void) { return link.unacked == 0; }
static bool got_some(void) { return link.delivered > 0; }

static int resolve(void)
{
	struct zsock_addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
	struct zsock_addrinfo *res = NULL;
	if (zsock_getaddrinfo(config.host, NULL, &hints, &res) != 0 || res == NULL) {
		return HAL_CLOUD_ENONET;
	}
	struct sockaddr_in *in = (struct sockaddr_in *)&broker;
	memcpy(in, res->ai_addr, sizeof(*in));
	in->sin_port = htons(config.port);
	zsock_freeaddrinfo(res);
	return 0;
}

static int z_connect(void *ctx, const char *device_id, uint32_t timeout_ms)
{
	static sec_tag_t tags[1];
	memset(&link, 0, sizeof(link));
	link.next_id = 1;
	int rc = resolve();
	if (rc != 0) {
		return rc;
	}
	strncpy(client_id, device_id, sizeof(client_id) - 1);
	mqtt_client_init(&client);
	client.broker = &broker;
	client.evt_cb = on_event;
	client.client_id.utf8 = (const uint8_t *)client_id;
	client.client_id.size = strlen(client_id);
	user_name = client.client_id;
	password.utf8 = (const uint8_t *)config.secret;
	password.size = strlen(config.secret);
	client.user_name = &user_name;
	client.password = &password;
	client.protocol_version = MQTT_VERSION_3_1_1;
	client.clean_session = 1;
	client.keepalive = 60;
	client.rx_buf = rx_buf;
	client.rx_buf_size = sizeof(rx_buf);
	client.tx_buf = tx_buf;
	client.tx_buf_size = sizeof(tx_buf);
	client.transport.type = MQTT_TRANSPORT_NON_SECURE;
#if defined(CONFIG_MQTT_LIB_TLS)
	if (config.tls) {
		tags[0] = config.sec_tag;
		client.transport.type = MQTT_TRANSPORT_SECURE;
		client.transport.tls.config.peer_verify = TLS_PEER_VERIFY_REQUIRED;
		client.transport.tls.config.sec_tag_list = tags;
		client.transport.tls.config.sec_tag_count = ARRAY_SIZE(tags);
		client.transport.tls.config.hostname = config.host;
	}
#endif
	rc = mqtt_connect(&client);
	if (rc != 0) {
		/* Refused or unreachable: the network's answer. A handshake that failed (the
		 * certificate not signed by the provisioned CA, or not for this host): the TLS
		 * layer's ECONNABORTED. */
		return rc == -ECONNABORTED && config.tls ? HAL_CLOUD_ETLS : HAL_CLOUD_ECONN;
	}
	rc = pump(timeout_ms, connack_seen);
	/* A refused CONNACK: the library closes the connection at once, so the disconnect event
	 * comes with it; the refusal is the answer. */
	if (link.connack && link.connack_rc != 0) {
		mqtt_abort(&client);
		return HAL_CLOUD_EAUTH;
	}
	return rc;
}

static int z_subscribe(void *ctx, const char *const *topics, size_t count, uint32_t timeout_ms)
{
	struct mqtt_topic list[3]; /* a, m, and c when the device takes deployments */
	if (count > ARRAY_SIZE(list)) {
		return HAL_CLOUD_EPROTO;
	}
	for (size_t i = 0; i < count; i++) {
		list[i].topic.utf8 = (const uint8_t *)topics[i];
		list[i].topic.size = strlen(topics[i]);
		list[i].qos = MQTT_QOS_1_AT_LEAST_ONCE;
	}
	const struct mqtt_subscription_list sub = {
		.list = list, .list_count = (uint16_t)count, .message_id = link.next_id++};
	if (mqtt_subscribe(&client, &sub) != 0) {
		return HAL_CLOUD_ECONN;
	}
	int rc = pump(timeout_ms, suback_seen);
	return rc == 0 && link.suback_rc != 0 ? HAL_CLOUD_EAUTH : rc;
}

static int z_publish(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	struct mqtt_publish_param p = {0};
	p.message.topic.topic.utf8 = (const uint8_t *)topic;
	p.message.topic.topic.size = strlen(topic);
	p.message.topic.qos = MQTT_QOS_1_AT_LEAST_ONCE;
	p.message.payload.data = (uint8_t *)payload;
	p.message.payload.len = len;
	p.message_id = link.next_id++;
	if (link.next_id == 0) {
		link.next_id = 1;
	}
	if (mqtt_publish(&client, &p) != 0) {
		return HAL_CLOUD_ECONN;
	}
	link.unacked++;
	return 0;
}

static int z_poll(void *ctx, uint32_t timeout_ms, hal_cloud_receive_fn fn, void *fn_ctx)
{
	link.fn = fn;
	link.fn_ctx = fn_ctx;
	link.delivered = 0;
	int rc = pump(timeout_ms, got_some);
	link.fn = NULL;
	if (rc == HAL_CLOUD_ETIMEDOUT) {
		return 0;
	}
	return rc != 0 ? rc : link.delivered;
}

static int z_flush(void *ctx, uint32_t timeout_ms)
{
	return pump(timeout_ms, all_acked);
}

static void z_disconnect(void *ctx)
{
	if (link.connected) {
		mqtt_disconnect(&client);
	} else {
		mqtt_abort(&client);
	}
	link.connected = false;
}

static const hal_cloud_transport_t transport = {
	.connect = z_connect,
	.subscribe = z_subscribe,
	.publish = z_publish,
	.poll = z_poll,
	.flush = z_flush,
	.disconnect = z_disconnect,
};

const hal_cloud_transport_t *hal_cloud_zephyr_transport(void)
{
	return &transport;
}

#if !defined(CONFIG_BEACON_SIMULATED_WORLD)
const hal_cloud_transport_t *hal_cloud_transport(void)
{
	return &transport;
}
#endif

#elif !defined(CONFIG_BEACON_SIMULATED_WORLD) /* !CONFIG_MQTT_LIB */

const hal_cloud_transport_t *hal_cloud_transport(void)
{
	return NULL;
}

#endif

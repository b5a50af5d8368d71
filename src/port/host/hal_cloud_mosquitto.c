/*
 * hal_cloud_mosquitto.c: see hal_cloud_mosquitto.h. libmosquitto is the MQTT client Debian ships
 * and the reference broker's own library: its connect/subscribe/publish calls and the callbacks
 * that mosquitto_loop() runs map one to one on hal_cloud.h. One connection at a time (a sync is
 * one device's; the world runs devices one after another).
 */
#include "hal_cloud_mosquitto.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BEACON_HAVE_MOSQUITTO

#include <mosquitto.h>

typedef struct packet {
	struct packet *next;
	char *topic;
	size_t len;
	uint8_t payload[];
} packet_t;

typedef struct {
	char host[256];
	int port;
	char secret[256];
	struct mosquitto *m;
	bool connack, suback, connected, lost;
	int connack_rc;
	bool suback_refused;
	int unacked;
	packet_t *head, *tail;
} link_t;

static link_t link_;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void on_connect(struct mosquitto *m, void *ctx, int rc)
{
	(void)m;
	link_t *l = ctx;
	l->connack = true;
	l->connack_rc = rc;
	l->connected = rc == 0;
}

static void on_disconnect(struct mosquitto *m, void *ctx, int rc)
{
	(void)m;
	(void)rc;
	link_t *l = ctx;
	l->connected = false;
	l->lost = true;
}

static void on_subscribe(struct mosquitto *m, void *ctx, int mid, int count, const int *granted)
{
	(void)m;
	(void)mid;
	link_t *l = ctx;
	l->suback = true;
	for (int i = 0; i < count; i++) {
		if (granted[i] == 0x80) {
			l->suback_refused = true;
		}
	}
}

static void on_publish(struct mosquitto *m, void *ctx, int mid)
{
	(void)m;
	(void)mid;
	link_t *l = ctx;
	if (l->unacked > 0) {
		l->unacked--;
	}
}

static void on_message(struct mosquitto *m, void *ctx, const struct mosquitto_message *msg)
{
	(void)m;
	link_t *l = ctx;
	packet_t *p = malloc(sizeof(*p) + (size_t)msg->payloadlen);
	if (p == NULL) {
		l->lost = true;
		return;
	}
	p->topic = strdup(msg->topic);
	if (p->topic == NULL) {
		free(p);
		l->lost = true;
		return;
	}
	p->next = NULL;
	p->len = (size_t)msg->payloadlen;
	memcpy(p->payload, msg->payload, p->len);
	if (l->tail) {
		l->tail->next = p;
	} else {
		l->head = p;
	}
	l->tail = p;
}

/* Run the client until done() or the time passes. */
static int pump(link_t *l, uint32_t timeout_ms, bool (*done)(const link_t *))
{
	uint64_t end = now_ms() + timeout_ms;
	while (!done(l)) {
		if (l->lost) {
			return HAL_CLOUD_ECONN;
		}
		uint64_t now = now_ms();
		if (now >= end) {
			return HAL_CLOUD_ETIMEDOUT;
		}
		uint64_t left = end - now;
		int rc = mosquitto_loop(l->m, left > 100 ? 100 : (int)left, 1);
		if (rc != MOSQ_ERR_SUCCESS && !done(l)) {
			/* A refused CONNECT ends the loop with an error after its callback ran. */
			return HAL_CLOUD_ECONN;
		}
	}
	return 0;
}

static bool connack_seen(const link_t *l) { return l->connack; }
static bool suback_seen(const link_t *l) { return l->suback; }
static bool all_acked(const link_t *l) { return l->unacked == 0; }
static bool has_packets(const link_t *l) { return l->head != NULL; }

static void drop_packets(link_t *l)
{
	while (l->head) {
		packet_t *p = l->head;
		l->head = p->next;
		free(p->topic);
		free(p);
	}
	l->tail = NULL;
}

static void m_disconnect(void *ctx)
{
	link_t *l = ctx;
	if (l->m == NULL) {
		return;
	}
	if (l->connected) {
		mosquitto_disconnect(l->m);
		mosquitto_loop(l->m, 10, 1);
	}
	mosquitto_destroy(l->m);
	l->m = NULL;
	l->connected = false;
	drop_packets(l);
}

static int m_connect(void *ctx, const char *device_id, uint32_t timeout_ms)
{
	link_t *l = ctx;
	m_disconnect(l);
	l->connack = l->suback = l->connected = l->lost = l->suback_refused = false;
	l->unacked = 0;
	l->m = mosquitto_new(device_id, true, l);
	if (l->m == NULL) {
		return HAL_CLOUD_ECONN;
	}
	mosquitto_int_option(l->m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
	mosquitto_username_pw_set(l->m, device_id, l->secret);
	mosquitto_connect_callback_set(l->m, on_connect);
	mosquitto_disconnect_callback_set(l->m, on_disconnect);
	mosquitto_subscribe_callback_set(l->m, on_subscribe);
	mosquitto_publish_callback_set(l->m, on_publish);
	mosquitto_message_callback_set(l->m, on_message);
	if (mosquitto_connect(l->m, l->host, l->port, 60) != MOSQ_ERR_SUCCESS) {
		m_disconnect(l);
		return HAL_CLOUD_ECONN;
	}
	int rc = pump(l, timeout_ms, connack_seen);
	if (rc == 0 && l->connack_rc != 0) {
		return HAL_CLOUD_EAUTH;
	}
	return rc;
}

static int m_subscribe(void *ctx, const char *const *topics, size_t count, uint32_t timeout_ms)
{
	link_t *l = ctx;
	if (mosquitto_subscribe_multiple(l->m, NULL, (int)count, (char *const *const)topics, 1, 0,
					 NULL) != MOSQ_ERR_SUCCESS) {
		return HAL_CLOUD_ECONN;
	}
	int rc = pump(l, timeout_ms, suback_seen);
	return rc == 0 && l->suback_refused ? HAL_CLOUD_EAUTH : rc;
}

static int m_publish(void *ctx, const char *topic, const uint8_t *payload, size_t len)
{
	link_t *l = ctx;
	if (l->lost || mosquitto_publish(l->m, NULL, topic, (int)len, payload, 1, false) !=
			       MOSQ_ERR_SUCCESS) {
		return HAL_CLOUD_ECONN;
	}
	l->unacked++;
	return 0;
}

static int m_poll(void *ctx, uint32_t timeout_ms, hal_cloud_receive_fn fn, void *fn_ctx)
{
	link_t *l = ctx;
	int rc = pump(l, timeout_ms, has_packets);
	if (rc == HAL_CLOUD_ETIMEDOUT) {
		return 0;
	}
	if (rc != 0) {
		return rc;
	}
	int n = 0;
	packet_t *p = l->head;
	l->head = l->tail = NULL;
	while (p) {
		packet_t *next = p->next;
		fn(fn_ctx, p->topic, p->payload, p->len);
		free(p->topic);
		free(p);
		p = next;
		n++;
	}
	return n;
}

static int m_flush(void *ctx, uint32_t timeout_ms)
{
	return pump(ctx, timeout_ms, all_acked);
}

static hal_cloud_transport_t transport = {
	.ctx = &link_,
	.connect = m_connect,
	.subscribe = m_subscribe,
	.publish = m_publish,
	.poll = m_poll,
	.flush = m_flush,
	.disconnect = m_disconnect,
};

const hal_cloud_transport_t *hal_cloud_mosquitto(const char *url, const char *secret, char *err,
						 size_t err_cap)
{
	link_t *l = &link_;
	int port = 0;
	char extra = 0;
	if (strncmp(url, "mqtt://", 7) != 0 ||
	    sscanf(url + 7, "%255[^:/]:%d%c", l->host, &port, &extra) != 2 || port <= 0 ||
	    port > 65535) {
		snprintf(err, err_cap, "--cloud takes mqtt://HOST:PORT (got '%s')", url);
		return NULL;
	}
	l->port = port;
	snprintf(l->secret, sizeof(l->secret), "%s", secret != NULL ? secret : "");
	mosquitto_lib_init();
	return &transport;
}

#else

const hal_cloud_transport_t *hal_cloud_mosquitto(const char *url, const char *secret, char *err,
						 size_t err_cap)
{
	(void)url;
	(void)secret;
	snprintf(err, err_cap, "this simulator was built without libmosquitto (apt-get install libmosquitto-dev)");
	return NULL;
}

#endif

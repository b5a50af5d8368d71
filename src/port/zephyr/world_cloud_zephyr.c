/*
 * world_cloud_zephyr.c: see world_cloud_zephyr.h. The CA certificate is read from the host and
 * added to Zephyr's TLS credentials under the tag the client asks for, as a device's provisioning
 * would put it (in the modem's store on the nRF9160); everything from there on is the device's
 * path: the client, the MQTT library, Zephyr's TLS sockets, the board's socket provider.
 */
#include "world_cloud_zephyr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/net/tls_credentials.h>
#include <zephyr/random/random.h>

#include "hal_cloud_zephyr.h"
#include "host_link.h"
#include "world_cloud.h"
#include "world_zephyr.h"

/* The test board's tag for the cloud's CA (any tag would do: one cloud per run). */
#define CLOUD_CA_TAG 1
#define CA_MAX 4096

static char host[64];
static char ca_pem[CA_MAX + 1];

/* mqtt[s]://HOST:PORT into host, port and whether TLS. */
static int parse_url(const char *url, bool *tls, uint16_t *port)
{
	const char *rest;

	if (strncmp(url, "mqtts://", 8) == 0) {
		*tls = true;
		rest = url + 8;
	} else if (strncmp(url, "mqtt://", 7) == 0) {
		*tls = false;
		rest = url + 7;
	} else {
		return -1;
	}
	const char *colon = strrchr(rest, ':');
	size_t len = colon != NULL ? (size_t)(colon - rest) : strlen(rest);

	if (len == 0 || len >= sizeof(host)) {
		return -1;
	}
	memcpy(host, rest, len);
	host[len] = '\0';
	if (colon == NULL) {
		*port = *tls ? 8883 : 1883;
		return 0;
	}
	char *end;
	unsigned long p = strtoul(colon + 1, &end, 10);

	if (*end != '\0' && *end != '/') {
		return -1;
	}
	*port = (uint16_t)p;
	return p >= 1 && p <= 65535 ? 0 : -1;
}

static int load_ca(const char *path, char *err, size_t err_cap)
{
	long f = host_link_open(path, false);

	if (f < 0) {
		snprintf(err, err_cap, "--cloud-ca: cannot read %s", path);
		return -1;
	}
	long n = host_link_read(f, ca_pem, CA_MAX + 1);

	host_link_close(f);
	if (n <= 0 || n > CA_MAX || strstr(ca_pem, "-----BEGIN CERTIFICATE-----") == NULL) {
		snprintf(err, err_cap, "--cloud-ca: %s is not a PEM certificate of at most %d bytes",
			 path, CA_MAX);
		return -1;
	}
	ca_pem[n] = '\0';
	(void)tls_credential_delete(CLOUD_CA_TAG, TLS_CREDENTIAL_CA_CERTIFICATE);
	/* PEM is parsed with its terminating NUL. */
	if (tls_credential_add(CLOUD_CA_TAG, TLS_CREDENTIAL_CA_CERTIFICATE, ca_pem,
			       (size_t)n + 1) != 0) {
		snprintf(err, err_cap, "--cloud-ca: the TLS credential store is full");
		return -1;
	}
	return 0;
}

int world_cloud_zephyr_use(world_t *world, const char *url, const char *secret,
			   const char *ca_pem_path, char *err, size_t err_cap)
{
	hal_cloud_zephyr_config_t c = {.secret = secret != NULL ? secret : "", .sec_tag = CLOUD_CA_TAG};

	if (parse_url(url, &c.tls, &c.port) != 0) {
		snprintf(err, err_cap, "--cloud takes loopback, none, mqtt://HOST:PORT or "
				       "mqtts://HOST:PORT");
		return -1;
	}
	c.host = host;
	if (c.tls) {
		if (ca_pem_path == NULL) {
			snprintf(err, err_cap, "--cloud mqtts:// needs --cloud-ca, the PEM file of the "
					       "CA that signs the cloud's certificate");
			return -1;
		}
		if (load_ca(ca_pem_path, err, err_cap) != 0) {
			return -1;
		}
	}
	hal_cloud_zephyr_configure(&c);
	/* A new stream id for every run whose flash starts erased (world_cloud.h), as on the
	 * simulator: the host's random generator. (The simulated nRF52's is seeded the same way on
	 * every run, so two runs would take one stream, and the cloud would take the second run's
	 * events for the first's.) */
	uint64_t seed = 0;
	long f = host_link_open("/dev/urandom", false);

	if (f < 0 || host_link_read(f, &seed, sizeof(seed)) != (long)sizeof(seed)) {
		sys_rand_get(&seed, sizeof(seed));
	}
	if (f >= 0) {
		host_link_close(f);
	}
	world_cloud_use(world, hal_cloud_zephyr_transport(), seed);
	/* With a real cloud the device takes the apps deployed to it, as the simulator's does. */
	return world_zephyr_take_deployments(world, err, err_cap);
}

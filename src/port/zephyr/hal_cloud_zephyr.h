/*
 * hal_cloud_zephyr.h: the firmware's cloud client (hal_cloud_zephyr.c) beyond hal_cloud.h: where
 * it connects. A device takes it from Kconfig (CONFIG_BEACON_CLOUD_*); a test board with a
 * network from its run options (world_cloud_zephyr.c).
 */
#ifndef HAL_CLOUD_ZEPHYR_H
#define HAL_CLOUD_ZEPHYR_H

#include <stdbool.h>
#include <stdint.h>

#include "hal_cloud.h"

typedef struct {
	const char *host;   /* the broker's name (and the name its certificate must carry) */
	uint16_t port;
	const char *secret; /* the device's MQTT password */
	int sec_tag;        /* the TLS credential with the CA that signs the cloud's certificate */
	bool tls;           /* false: plain TCP (a loopback test cloud only) */
} hal_cloud_zephyr_config_t;

/* The strings must outlive every sync. */
void hal_cloud_zephyr_configure(const hal_cloud_zephyr_config_t *config);

/* The client as a transport (what hal_cloud_transport() is on a device). */
const hal_cloud_transport_t *hal_cloud_zephyr_transport(void);

#endif /* HAL_CLOUD_ZEPHYR_H */

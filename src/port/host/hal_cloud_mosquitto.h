/*
 * hal_cloud_mosquitto.h: a hal_cloud transport over libmosquitto (Debian's libmosquitto-dev),
 * for simulated devices syncing with a real broker (beacon-sim --cloud mqtt://HOST:PORT).
 */
#ifndef HAL_CLOUD_MOSQUITTO_H
#define HAL_CLOUD_MOSQUITTO_H

#include <stddef.h>

#include "hal_cloud.h"

/*
 * A transport to the broker at url (mqtt://HOST:PORT; plain TCP, so loopback or a test network
 * only: the cloud refuses plain TCP elsewhere). Every device logs in with its public id and
 * secret (the cloud's per-device password). NULL with a reason when the URL is not one or the
 * simulator was built without libmosquitto.
 */
const hal_cloud_transport_t *hal_cloud_mosquitto(const char *url, const char *secret, char *err,
						 size_t err_cap);

#endif /* HAL_CLOUD_MOSQUITTO_H */

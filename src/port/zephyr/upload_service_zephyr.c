/*
 * The upload service on the air (port_zephyr.h): a connectable advertisement that names the SMP
 * service, so that a phone or `beacon upload` finds the device and connects to MCUmgr's SMP
 * characteristic (smp_zephyr.c serves it).
 *
 * It has an advertising set of its own, beside the app's (hal_ble_zephyr.c gives the app
 * CONFIG_BEACON_BLE_ADVERTISERS sets; the controller has one more, CONFIG_BT_EXT_ADV_MAX_ADV_SET),
 * so the app's advertisers go on unchanged while the service is offered and while a client is
 * connected. The service is offered always, every CONFIG_BEACON_UPLOAD_ADV_INTERVAL_MS: a legacy
 * connectable PDU (ADV_IND) with the flags and the SMP service's 128-bit UUID, and the device's
 * name, "beacon-" and the first six hex digits of its public id, in the scan response. While a
 * client is connected it is offered again for a second one, up to CONFIG_BT_MAX_CONN; the upload
 * server keeps the staging slot for one client at a time (rt_smp.h).
 */
#include "port_zephyr.h"

#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if defined(CONFIG_BT_PERIPHERAL) && defined(CONFIG_MCUMGR_TRANSPORT_BT)

#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/bluetooth/conn.h>
#include <zephyr/bluetooth/uuid.h>

#include "hal_device.h"

static struct bt_le_ext_adv *service_set;
static char name[16];
static struct k_work restart_work;

/* MCUmgr's SMP service, 8D53DC1D-1DB7-4CD3-868B-8A527460AA84 (smp_bt.c; Zephyr 3.7 exports no
 * name for it): what clients filter their scans on. */
static const struct bt_data ad[] = {
	BT_DATA_BYTES(BT_DATA_FLAGS, (BT_LE_AD_GENERAL | BT_LE_AD_NO_BREDR)),
	BT_DATA_BYTES(BT_DATA_UUID128_ALL,
		      BT_UUID_128_ENCODE(0x8d53dc1d, 0x1db7, 0x4cd3, 0x868b, 0x8a527460aa84)),
};

static void offer(void)
{
	int err = bt_le_ext_adv_start(service_set, BT_LE_EXT_ADV_START_DEFAULT);

	if (err != 0 && err != -EALREADY) {
		/* Every connection object is in use: offered again when one is freed. */
		LOG_DBG("upload service not offered now (%d)", err);
	}
}

static void restart(struct k_work *work)
{
	ARG_UNUSED(work);
	offer();
}

/* A connection ends the connectable advertisement; offer it again for another client. */
static void connected(struct bt_conn *conn, uint8_t err)
{
	ARG_UNUSED(conn);
	ARG_UNUSED(err);
	k_work_submit(&restart_work);
}

static void recycled(void)
{
	k_work_submit(&restart_work);
}

BT_CONN_CB_DEFINE(upload_conn_callbacks) = {
	.connected = connected,
	.recycled = recycled,
};

void port_zephyr_upload_service_start(void)
{
	int err = bt_enable(NULL);

	if (err != 0 && err != -EALREADY) {
		LOG_ERR("upload service: Bluetooth did not start (%d)", err);
		return;
	}
	uint8_t id[8];
	size_t n = hal_device_public_id(id, sizeof(id));

	snprintf(name, sizeof(name), "beacon-%02x%02x%02x", n > 0 ? id[0] : 0, n > 1 ? id[1] : 0,
		 n > 2 ? id[2] : 0);
	(void)bt_set_name(name);
	const struct bt_data sd[] = {
		BT_DATA(BT_DATA_NAME_COMPLETE, name, strlen(name)),
	};
	uint32_t units = CONFIG_BEACON_UPLOAD_ADV_INTERVAL_MS * 8u / 5u;
	struct bt_le_adv_param param =
		BT_LE_ADV_PARAM_INIT(BT_LE_ADV_OPT_CONNECTABLE | BT_LE_ADV_OPT_USE_IDENTITY, units,
				     units, NULL);

	k_work_init(&restart_work, restart);
	err = bt_le_ext_adv_create(&param, NULL, &service_set);
	if (err == 0) {
		err = bt_le_ext_adv_set_data(service_set, ad, ARRAY_SIZE(ad), sd, ARRAY_SIZE(sd));
	}
	if (err != 0) {
		LOG_ERR("upload service: advertising set not made (%d)", err);
		return;
	}
	offer();
	LOG_INF("upload service: offered as %s every %u ms", name,
		(unsigned)CONFIG_BEACON_UPLOAD_ADV_INTERVAL_MS);
}

#else /* no Bluetooth peripheral or no SMP over it */

void port_zephyr_upload_service_start(void)
{
}

#endif

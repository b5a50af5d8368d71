/* The rig's link to a beacon's upload service: see rig_link.h. */
#include "rig_link.h"

#include <errno.h>
#include <string.h>

#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/bluetooth/conn.h>
#include <zephyr/bluetooth/gatt.h>
#include <zephyr/bluetooth/uuid.h>
#include <zephyr/kernel.h>

/* MCUmgr's SMP service and characteristic (Zephyr's smp_bt.c). */
#define SMP_SVC_UUID BT_UUID_128_ENCODE(0x8d53dc1d, 0x1db7, 0x4cd3, 0x868b, 0x8a527460aa84)
#define SMP_CHR_UUID BT_UUID_128_ENCODE(0xda2e7828, 0xfbce, 0x4e01, 0xae9e, 0x261174997c48)
static const struct bt_uuid_128 smp_chr_uuid = BT_UUID_INIT_128(SMP_CHR_UUID);
static const uint8_t smp_svc_uuid[16] = {SMP_SVC_UUID};

#define RX_MAX 2048

static struct bt_conn *conn;
static bt_addr_le_t found_addr;
static bool found;
static K_SEM_DEFINE(found_sem, 0, 1);
static K_SEM_DEFINE(connected_sem, 0, 1);
static K_SEM_DEFINE(disconnected_sem, 0, 1);
static K_SEM_DEFINE(step_sem, 0, 1);
static int connect_err;
static uint16_t chr_handle;
static struct bt_gatt_discover_params discover_params;
static struct bt_gatt_subscribe_params subscribe_params;
static struct bt_gatt_exchange_params mtu_params;

/* Answers: bytes of notifications, a whole SMP packet at a time. */
static uint8_t rx[RX_MAX];
static size_t rx_len;
static K_MUTEX_DEFINE(rx_lock);
static K_SEM_DEFINE(rx_sem, 0, 1);

static bool has_smp_uuid(struct bt_data *data, void *user)
{
	bool *hit = user;

	if (data->type == BT_DATA_UUID128_ALL || data->type == BT_DATA_UUID128_SOME) {
		for (size_t i = 0; i + 16 <= data->data_len; i += 16) {
			if (memcmp(&data->data[i], smp_svc_uuid, 16) == 0) {
				*hit = true;
				return false;
			}
		}
	}
	return true;
}

static void device_found(const bt_addr_le_t *addr, int8_t rssi, uint8_t type,
			 struct net_buf_simple *ad)
{
	bool hit = false;

	if (found || type != BT_GAP_ADV_TYPE_ADV_IND) {
		return;
	}
	bt_data_parse(ad, has_smp_uuid, &hit);
	if (hit) {
		found = true;
		bt_addr_le_copy(&found_addr, addr);
		k_sem_give(&found_sem);
	}
}

static void on_connected(struct bt_conn *c, uint8_t err)
{
	connect_err = err;
	if (err != 0) {
		bt_conn_unref(conn);
		conn = NULL;
	}
	k_sem_give(&connected_sem);
}

static void on_disconnected(struct bt_conn *c, uint8_t reason)
{
	if (c == conn) {
		bt_conn_unref(conn);
		conn = NULL;
	}
	k_sem_give(&disconnected_sem);
	k_sem_give(&rx_sem); /* a waiting receive sees the link gone */
}

BT_CONN_CB_DEFINE(rig_conn_callbacks) = {
	.connected = on_connected,
	.disconnected = on_disconnected,
};

static void mtu_done(struct bt_conn *c, uint8_t err, struct bt_gatt_exchange_params *params)
{
	k_sem_give(&step_sem);
}

static uint8_t discovered(struct bt_conn *c, const struct bt_gatt_attr *attr,
			  struct bt_gatt_discover_params *params)
{
	if (attr == NULL) {
		k_sem_give(&step_sem);
		return BT_GATT_ITER_STOP;
	}
	const struct bt_gatt_chrc *chrc = attr->user_data;

	chr_handle = chrc->value_handle;
	k_sem_give(&step_sem);
	return BT_GATT_ITER_STOP;
}

static void subscribed(struct bt_conn *c, uint8_t err, struct bt_gatt_subscribe_params *params)
{
	k_sem_give(&step_sem);
}

static uint8_t notified(struct bt_conn *c, struct bt_gatt_subscribe_params *params,
			const void *data, uint16_t length)
{
	if (data == NULL) {
		return BT_GATT_ITER_STOP;
	}
	k_mutex_lock(&rx_lock, K_FOREVER);
	if (rx_len + length <= sizeof(rx)) {
		memcpy(rx + rx_len, data, length);
		rx_len += length;
	}
	k_mutex_unlock(&rx_lock);
	k_sem_give(&rx_sem);
	return BT_GATT_ITER_CONTINUE;
}

int rig_link_open(const rig_link_params_t *p)
{
	int err = bt_enable(NULL);

	if (err != 0 && err != -EALREADY) {
		return err;
	}
	found = false;
	struct bt_le_scan_param scan = {
		.type = BT_LE_SCAN_TYPE_PASSIVE,
		.options = BT_LE_SCAN_OPT_NONE,
		.interval = BT_GAP_SCAN_FAST_INTERVAL,
		.window = BT_GAP_SCAN_FAST_WINDOW,
	};

	err = bt_le_scan_start(&scan, device_found);
	if (err != 0) {
		return err;
	}
	err = k_sem_take(&found_sem, K_MSEC(p->scan_timeout_ms));
	bt_le_scan_stop();
	if (err != 0) {
		return -ENODEV;
	}
	struct bt_le_conn_param param = {
		.interval_min = p->interval_units,
		.interval_max = p->interval_units,
		.latency = 0,
		.timeout = 400, /* 4 s supervision timeout */
	};

	k_sem_reset(&connected_sem);
	err = bt_conn_le_create(&found_addr, BT_CONN_LE_CREATE_CONN, &param, &conn);
	if (err != 0) {
		return err;
	}
	if (k_sem_take(&connected_sem, K_SECONDS(10)) != 0 || connect_err != 0) {
		return -ECONNREFUSED;
	}
	if (!p->default_mtu) {
		/* The larger link-layer packets first, then the ATT MTU. */
		(void)bt_conn_le_data_len_update(conn, BT_LE_DATA_LEN_PARAM_MAX);
		mtu_params.func = mtu_done;
		k_sem_reset(&step_sem);
		if (bt_gatt_exchange_mtu(conn, &mtu_params) == 0) {
			(void)k_sem_take(&step_sem, K_SECONDS(5));
		}
	}
	chr_handle = 0;
	discover_params.uuid = &smp_chr_uuid.uuid;
	discover_params.func = discovered;
	discover_params.start_handle = BT_ATT_FIRST_ATTRIBUTE_HANDLE;
	discover_params.end_handle = BT_ATT_LAST_ATTRIBUTE_HANDLE;
	discover_params.type = BT_GATT_DISCOVER_CHARACTERISTIC;
	k_sem_reset(&step_sem);
	err = bt_gatt_discover(conn, &discover_params);
	if (err != 0) {
		return err;
	}
	if (k_sem_take(&step_sem, K_SECONDS(10)) != 0) {
		return -ETIMEDOUT;
	}
	if (chr_handle == 0) {
		return -ENOENT;
	}
	/* The stack finds the characteristic's CCC descriptor itself (BT_GATT_AUTO_DISCOVER_CCC). */
	static struct bt_gatt_discover_params ccc_discover;

	subscribe_params.notify = notified;
	subscribe_params.subscribe = subscribed;
	subscribe_params.value = BT_GATT_CCC_NOTIFY;
	subscribe_params.value_handle = chr_handle;
	subscribe_params.ccc_handle = 0;
	subscribe_params.end_handle = BT_ATT_LAST_ATTRIBUTE_HANDLE;
	subscribe_params.disc_params = &ccc_discover;
	k_sem_reset(&step_sem);
	err = bt_gatt_subscribe(conn, &subscribe_params);
	if (err != 0 && err != -EALREADY) {
		return err;
	}
	/* Answers are notifications: nothing may be asked before the beacon has the subscription. */
	if (err == 0 && k_sem_take(&step_sem, K_SECONDS(10)) != 0) {
		return -ETIMEDOUT;
	}
	rx_len = 0;
	return 0;
}

uint16_t rig_link_mtu(void)
{
	return conn != NULL ? bt_gatt_get_mtu(conn) : 0;
}

uint16_t rig_link_interval(void)
{
	struct bt_conn_info info;

	return conn != NULL && bt_conn_get_info(conn, &info) == 0 ? info.le.interval : 0;
}

bool rig_link_up(void)
{
	return conn != NULL;
}

int rig_link_send(const uint8_t *packet, size_t len)
{
	size_t piece = rig_link_mtu() > 3 ? rig_link_mtu() - 3u : 20u;

	for (size_t off = 0; off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;
		int err;

		if (conn == NULL) {
			return -ENOTCONN;
		}
		/* Without response, as MCUmgr's clients write; the stack holds the writes that wait
		 * for a packet buffer. */
		while ((err = bt_gatt_write_without_response(conn, chr_handle, packet + off, n,
							      false)) == -ENOMEM) {
			k_sleep(K_MSEC(5));
		}
		if (err != 0) {
			return err;
		}
	}
	return 0;
}

int rig_link_receive(uint8_t *buf, size_t cap, uint32_t timeout_ms)
{
	int64_t until = k_uptime_get() + timeout_ms;

	for (;;) {
		k_mutex_lock(&rx_lock, K_FOREVER);
		if (rx_len >= 8) {
			size_t need = 8u + ((size_t)rx[2] << 8 | rx[3]);

			if (rx_len >= need) {
				size_t n = need <= cap ? need : cap;

				memcpy(buf, rx, n);
				memmove(rx, rx + need, rx_len - need);
				rx_len -= need;
				k_mutex_unlock(&rx_lock);
				return (int)n;
			}
		}
		k_mutex_unlock(&rx_lock);
		if (conn == NULL) {
			return -ENOTCONN;
		}
		int64_t left = until - k_uptime_get();

		if (left <= 0 || k_sem_take(&rx_sem, K_MSEC(left)) != 0) {
			return 0;
		}
	}
}

void rig_link_close(void)
{
	if (conn == NULL) {
		return;
	}
	k_sem_reset(&disconnected_sem);
	if (bt_conn_disconnect(conn, BT_HCI_ERR_REMOTE_USER_TERM_CONN) == 0) {
		(void)k_sem_take(&disconnected_sem, K_SECONDS(5));
	}
}

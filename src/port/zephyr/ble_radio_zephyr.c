/*
 * ble_radio_zephyr.c: the BLE radio on Zephyr's Bluetooth host (ble_radio_zephyr.h): what
 * hal_ble_zephyr.c gives the runtime on a device, and what the simulated world's devices
 * advertise and scan with on a test board with a radio (world_zephyr.c, --air radio).
 *
 * Kept thin: the runtime encodes every packet, so this file only cuts the AD bytes into the
 * struct bt_data entries Zephyr's API takes, drives one advertising set per runtime advertiser,
 * and posts what the scanner receives. APIs as declared in include/zephyr/bluetooth/bluetooth.h,
 * gap.h and hci_vs.h (checked against the Zephyr tree):
 *   bt_le_ext_adv_create(param, cb, &adv), bt_le_ext_adv_update_param(adv, param),
 *   bt_le_ext_adv_set_data(adv, ad, ad_len, sd, sd_len), bt_le_ext_adv_start(adv, start_param),
 *   bt_le_ext_adv_stop(adv), bt_le_ext_adv_get_index(adv), bt_le_scan_start(param, NULL) with
 *   bt_le_scan_cb_register() for bt_le_scan_recv_info reports, bt_le_scan_stop(),
 *   bt_id_create(addr, NULL) before bt_enable() for a given identity address.
 *
 * Advertising sets are created without BT_LE_ADV_OPT_EXT_ADV, so they send legacy scannable
 * PDUs (ADV_SCAN_IND) on 37/38/39, with the device name (CONFIG_BT_DEVICE_NAME) as the scan
 * response. Transmit power per set goes through the Zephyr controller's vendor command
 * BT_HCI_OP_VS_WRITE_TX_POWER_LEVEL (CONFIG_BT_CTLR_TX_PWR_DYNAMIC_CONTROL); the controller may
 * pick the nearest level it supports.
 *
 * Limits of the standard HCI that the simulator does not have (docs/firmware.md): advertising
 * reports do not say on which channel a packet came, and scanning cannot be restricted to some
 * channels. The port reports the lowest channel the app asked for and listens on all three.
 */
#include "ble_radio_zephyr.h"

#include <errno.h>
#include <string.h>

#include <zephyr/kernel.h>

#include "rt_ble.h"
#include "rt_device.h"

#if defined(CONFIG_BT)

#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/bluetooth/gap.h>
#include <zephyr/bluetooth/hci.h>
#include <zephyr/bluetooth/hci_vs.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/version.h>
/* Zephyr 4.0 moved the network buffers' header; the firmware is built on 3.7 LTS. */
#if KERNEL_VERSION_NUMBER >= 0x040000
#include <zephyr/net_buf.h>
#else
#include <zephyr/net/buf.h>
#endif
#include <zephyr/sys/byteorder.h>

LOG_MODULE_REGISTER(beacon_ble, LOG_LEVEL_INF);

static struct bt_le_ext_adv *sets[CONFIG_BEACON_BLE_ADVERTISERS];
static bool running[CONFIG_BEACON_BLE_ADVERTISERS];
static bool enabled;
static bool scanning;
static hal_ble_scan_t scan_params;
/* Where receptions go: the device that started the scan (rt_device() on the JavaScript thread;
 * the Bluetooth RX thread that reports them has no selected device of its own). */
static struct rt_device *scan_target;
static void (*received_hook)(const rt_ble_rx_t *rx);
static const char *response_name;

void ble_radio_on_receive(void (*hook)(const rt_ble_rx_t *rx))
{
	received_hook = hook;
}

void ble_radio_set_response_name(const char *name)
{
	response_name = name;
}

bool ble_radio_set_identity(const uint8_t addr[HAL_BLE_ADDR_LEN])
{
	bt_addr_le_t id = {.type = BT_ADDR_LE_RANDOM};

	if (enabled) {
		return false;
	}
	for (int i = 0; i < HAL_BLE_ADDR_LEN; i++) {
		id.a.val[i] = addr[HAL_BLE_ADDR_LEN - 1 - i];
	}
	int err = bt_id_create(&id, NULL);

	if (err < 0) {
		LOG_ERR("identity address not set (%d)", err);
		return false;
	}
	return true;
}

static void post(const rt_ble_rx_t *rx)
{
	if (scan_target == NULL) {
		return;
	}
	rt_ble_post_scan(scan_target, rx);
	if (received_hook != NULL) {
		received_hook(rx);
	}
}

/* 0.625 ms units of the HCI, within the range advertising and scanning accept. */
static uint32_t units(uint32_t ms, uint32_t min, uint32_t max)
{
	uint32_t u = ms * 8u / 5u;
	return u < min ? min : u > max ? max : u;
}

static bool ensure_enabled(void)
{
	if (!enabled) {
		int err = bt_enable(NULL);
		if (err && err != -EALREADY) {
			LOG_ERR("bt_enable failed (%d)", err);
			return false;
		}
		enabled = true;
	}
	return true;
}

/* AD bytes as Zephyr's entries; the entries point into ad, which must outlive the call. */
static size_t split(const uint8_t *ad, size_t len, struct bt_data *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i + 1 < len && n < cap;) {
		uint8_t l = ad[i];
		if (l == 0 || i + 1 + l > len) {
			break;
		}
		out[n].type = ad[i + 1];
		out[n].data_len = (uint8_t)(l - 1);
		out[n].data = &ad[i + 2];
		n++;
		i += 1u + l;
	}
	return n;
}

/* ---------------------------------------------------------------------- scan requests */

static void scanned(struct bt_le_ext_adv *adv, struct bt_le_ext_adv_scanned_info *info)
{
	ARG_UNUSED(adv);
	if (!scanning || !scan_params.scan_requests) {
		return;
	}
	rt_ble_rx_t rx;
	memset(&rx, 0, sizeof(rx));
	for (int i = 0; i < HAL_BLE_ADDR_LEN; i++) {
		rx.addr[i] = info->addr->a.val[HAL_BLE_ADDR_LEN - 1 - i];
	}
	rx.rssi = 0; /* a scan request report carries no RSSI through this callback */
	rx.channel = 37;
	rx.kind = RT_BLE_RX_SCAN_REQUEST;
	post(&rx);
}

static const struct bt_le_ext_adv_cb adv_callbacks = {
	.scanned = scanned,
};

/* ---------------------------------------------------------------------- advertising */

uint32_t ble_radio_adv_sets(void)
{
	return CONFIG_BEACON_BLE_ADVERTISERS;
}

static void set_power(struct bt_le_ext_adv *adv, int8_t dbm)
{
	struct net_buf *buf = bt_hci_cmd_create(BT_HCI_OP_VS_WRITE_TX_POWER_LEVEL,
						sizeof(struct bt_hci_cp_vs_write_tx_power_level));
	if (buf == NULL) {
		return;
	}
	struct bt_hci_cp_vs_write_tx_power_level *cp = net_buf_add(buf, sizeof(*cp));
	cp->handle_type = BT_HCI_VS_LL_HANDLE_TYPE_ADV;
	cp->handle = sys_cpu_to_le16(bt_le_ext_adv_get_index(adv));
	cp->tx_power_level = dbm;
	int err = bt_hci_cmd_send_sync(BT_HCI_OP_VS_WRITE_TX_POWER_LEVEL, buf, NULL);
	if (err) {
		LOG_WRN("tx power %d dBm not set (%d)", dbm, err);
	}
}

static int set_data(struct bt_le_ext_adv *adv, const uint8_t *ad, size_t len)
{
	struct bt_data entries[HAL_BLE_AD_MAX / 2];
	size_t n = split(ad, len, entries, ARRAY_SIZE(entries));
	const char *name = response_name != NULL ? response_name : bt_get_name();
	struct bt_data sd[] = {
		BT_DATA(BT_DATA_NAME_COMPLETE, name, strlen(name)),
	};
	return bt_le_ext_adv_set_data(adv, entries, n, sd, ARRAY_SIZE(sd));
}

bool ble_radio_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms, int8_t power_dbm)
{
	if (set >= CONFIG_BEACON_BLE_ADVERTISERS || !ensure_enabled()) {
		return false;
	}
	uint32_t u = units(interval_ms, BT_GAP_ADV_FAST_INT_MIN_1, 0x4000);
	struct bt_le_adv_param param =
		BT_LE_ADV_PARAM_INIT(BT_LE_ADV_OPT_SCANNABLE | BT_LE_ADV_OPT_NOTIFY_SCAN_REQ |
					     BT_LE_ADV_OPT_USE_IDENTITY,
				     u, u, NULL);
	int err;
	if (sets[set] == NULL) {
		err = bt_le_ext_adv_create(&param, &adv_callbacks, &sets[set]);
		if (err) {
			LOG_ERR("advertising set %u not created (%d)", (unsigned)set, err);
			sets[set] = NULL;
			return false;
		}
	} else {
		if (running[set]) {
			bt_le_ext_adv_stop(sets[set]);
			running[set] = false;
		}
		err = bt_le_ext_adv_update_param(sets[set], &param);
		if (err) {
			LOG_ERR("advertising set %u not updated (%d)", (unsigned)set, err);
			return false;
		}
	}
	err = set_data(sets[set], ad, len);
	if (err) {
		LOG_ERR("advertising data refused (%d)", err);
		return false;
	}
	set_power(sets[set], power_dbm);
	err = bt_le_ext_adv_start(sets[set], BT_LE_EXT_ADV_START_DEFAULT);
	if (err) {
		LOG_ERR("advertising set %u not started (%d)", (unsigned)set, err);
		return false;
	}
	running[set] = true;
	return true;
}

bool ble_radio_adv_update(uint32_t set, const uint8_t *ad, size_t len)
{
	if (set >= CONFIG_BEACON_BLE_ADVERTISERS || sets[set] == NULL) {
		return false;
	}
	/* A running set takes the new data from its next advertising event. */
	return set_data(sets[set], ad, len) == 0;
}

void ble_radio_adv_stop(uint32_t set)
{
	if (set < CONFIG_BEACON_BLE_ADVERTISERS && sets[set] != NULL && running[set]) {
		bt_le_ext_adv_stop(sets[set]);
		running[set] = false;
	}
}

/* ---------------------------------------------------------------------- scanning */

static uint8_t report_channel(void)
{
	for (uint8_t c = 0; c < 3; c++) {
		if (scan_params.channels & (1u << c)) {
			return (uint8_t)(37 + c);
		}
	}
	return 37;
}

/* From the Bluetooth RX thread: copy the report and post it to the JS loop. */
static void recv(const struct bt_le_scan_recv_info *info, struct net_buf_simple *buf)
{
	if (!scanning) {
		return;
	}
	rt_ble_rx_t rx;
	memset(&rx, 0, sizeof(rx));
	for (int i = 0; i < HAL_BLE_ADDR_LEN; i++) {
		rx.addr[i] = info->addr->a.val[HAL_BLE_ADDR_LEN - 1 - i];
	}
	rx.rssi = info->rssi;
	rx.channel = report_channel();
	if (info->adv_props & BT_GAP_ADV_PROP_SCAN_RESPONSE) {
		rx.kind |= RT_BLE_RX_SCAN_RESPONSE;
	}
	if (info->adv_props & BT_GAP_ADV_PROP_CONNECTABLE) {
		rx.kind |= RT_BLE_RX_CONNECTABLE;
	}
	rx.len = (uint8_t)MIN(buf->len, HAL_BLE_AD_MAX);
	memcpy(rx.data, buf->data, rx.len);
	post(&rx);
}

static struct bt_le_scan_cb scan_callbacks = {
	.recv = recv,
};

bool ble_radio_scan_start(const hal_ble_scan_t *params)
{
	static bool registered;
	if (!ensure_enabled()) {
		return false;
	}
	if (!registered) {
		bt_le_scan_cb_register(&scan_callbacks);
		registered = true;
	}
	if (scanning) {
		bt_le_scan_stop();
		scanning = false;
	}
	scan_params = *params;
	scan_target = rt_device();
	struct bt_le_scan_param param = {
		.type = params->passive ? BT_LE_SCAN_TYPE_PASSIVE : BT_LE_SCAN_TYPE_ACTIVE,
		/* The runtime deduplicates per session itself (the controller's filter would also
		 * drop a sender's changed packets). */
		.options = BT_LE_SCAN_OPT_NONE,
		.interval = (uint16_t)units(params->interval_ms, 0x0004, 0x4000),
		.window = (uint16_t)units(params->window_ms, 0x0004, 0x4000),
	};
	int err = bt_le_scan_start(&param, NULL);
	if (err) {
		LOG_ERR("scan not started (%d)", err);
		return false;
	}
	scanning = true;
	return true;
}

void ble_radio_scan_stop(void)
{
	if (scanning) {
		scanning = false;
		bt_le_scan_stop();
	}
}

void ble_radio_address(uint8_t addr[HAL_BLE_ADDR_LEN])
{
	bt_addr_le_t ids[CONFIG_BT_ID_MAX];
	size_t count = ARRAY_SIZE(ids);
	memset(addr, 0, HAL_BLE_ADDR_LEN);
	if (!ensure_enabled()) {
		return;
	}
	bt_id_get(ids, &count);
	if (count > 0) {
		for (int i = 0; i < HAL_BLE_ADDR_LEN; i++) {
			addr[i] = ids[0].a.val[HAL_BLE_ADDR_LEN - 1 - i];
		}
	}
}

#endif /* CONFIG_BT */

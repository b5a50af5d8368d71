/* The rig as a scanner: see rig_scan.h. */
#include "rig_scan.h"

#include <errno.h>
#include <stdio.h>

#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/kernel.h>

#include "host_link.h"

static long scan_out;
static int64_t scan_start;
static int heard;

static void device_found(const bt_addr_le_t *addr, int8_t rssi, uint8_t type,
			 struct net_buf_simple *ad)
{
	char line[96 + 2 * 31];
	int n = snprintf(line, sizeof(line),
			 "{\"t\":%lld,\"addr\":\"%02X:%02X:%02X:%02X:%02X:%02X\",\"type\":%u,"
			 "\"rssi\":%d,\"data\":\"",
			 (long long)(k_uptime_get() - scan_start), addr->a.val[5], addr->a.val[4],
			 addr->a.val[3], addr->a.val[2], addr->a.val[1], addr->a.val[0],
			 (unsigned)type, rssi);

	for (uint16_t i = 0; i < ad->len && n + 6 < (int)sizeof(line); i++) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%02x", ad->data[i]);
	}
	n += snprintf(line + n, sizeof(line) - (size_t)n, "\"}\n");
	(void)host_link_write(scan_out, line, (size_t)n);
	heard++;
}

int rig_scan(uint32_t ms, long out)
{
	int err = bt_enable(NULL);

	if (err != 0 && err != -EALREADY) {
		return err;
	}
	struct bt_le_scan_param param = {
		.type = BT_LE_SCAN_TYPE_PASSIVE,
		.options = BT_LE_SCAN_OPT_NONE,
		.interval = 0x0060, /* 60 ms, all of it listening */
		.window = 0x0060,
	};

	scan_out = out;
	heard = 0;
	scan_start = k_uptime_get();
	err = bt_le_scan_start(&param, device_found);
	if (err != 0) {
		return err;
	}
	k_sleep(K_MSEC(ms));
	bt_le_scan_stop();
	return heard;
}

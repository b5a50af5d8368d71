/*
 * hal_reset_zephyr.c: resets with a cause, the reboot-loop guard's record, and the watchdog of
 * the JavaScript thread (docs/faults.md).
 *
 * The reset record (src/runtime/core/rt_reset.h) lives in no-init RAM, which a warm reset
 * (sys_reboot, the watchdog) leaves as it was; after power-on it holds garbage, which the record's
 * check value refuses. A fault records its cause with the uptime it happened at, then reboots; the
 * next boot hands the record to the runtime, which tells the app's error handler, or keeps the app
 * stopped when the guard says so.
 */
#include <stdbool.h>
#include <stdint.h>

#include <zephyr/devicetree.h>
#include <zephyr/drivers/hwinfo.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/logging/log_ctrl.h>
#include <zephyr/sys/reboot.h>
#include <zephyr/task_wdt/task_wdt.h>

#include "port_zephyr.h"
#include "rt_reset.h"

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

static rt_reset_record_t reset_record __noinit;
static int watchdog_channel = -1;

rt_reset_record_t *port_zephyr_reset_boot(void)
{
	uint32_t cause = 0;

	if (hwinfo_get_reset_cause(&cause) == 0) {
		(void)hwinfo_clear_reset_cause();
	}
	if (cause & (RESET_POR | RESET_BROWNOUT)) {
		/* Power came on: whatever the no-init RAM holds is not a record. */
		reset_record.magic = 0;
	}
	rt_reset_record_check(&reset_record);
	if ((cause & RESET_WATCHDOG) && reset_record.cause != RT_RESET_WATCHDOG) {
		/* The hardware watchdog fired without the task watchdog's callback getting to run
		 * (the kernel itself hung): the uptime is unknown, so it counts toward the guard. */
		(void)rt_reset_record_fault(&reset_record, RT_RESET_WATCHDOG,
					    "the hardware watchdog expired", 0);
	}
	return &reset_record;
}

void port_zephyr_reset_fault(rt_reset_cause_t cause, const char *detail)
{
	bool stopped = rt_reset_record_fault(&reset_record, cause, detail, (uint64_t)k_uptime_get());

	LOG_ERR("device reset (%s): %s%s", rt_reset_cause_name(cause), detail,
		stopped ? "; the reboot-loop guard stops the app" : "");
	/* Synchronous log from here on, so the reason reaches the console before the reset. */
	LOG_PANIC();
	sys_reboot(SYS_REBOOT_WARM);
}

static void watchdog_expired(int channel_id, void *user_data)
{
	(void)channel_id;
	(void)user_data;
	port_zephyr_reset_fault(RT_RESET_WATCHDOG, "a driver call did not return");
}

void port_zephyr_watchdog_init(void)
{
	const struct device *hw = NULL;

#if DT_NODE_HAS_STATUS(DT_ALIAS(watchdog0), okay)
	hw = DEVICE_DT_GET(DT_ALIAS(watchdog0));
	if (!device_is_ready(hw)) {
		hw = NULL;
	}
#endif
	if (task_wdt_init(hw) != 0 && task_wdt_init(NULL) != 0) {
		LOG_WRN("no task watchdog: a hung driver call will not reset the device");
		return;
	}
	watchdog_channel = task_wdt_add(CONFIG_BEACON_WATCHDOG_MS, watchdog_expired, NULL);
	if (watchdog_channel < 0) {
		LOG_WRN("no task watchdog channel (%d)", watchdog_channel);
	}
}

void port_zephyr_watchdog_feed(void)
{
	if (watchdog_channel >= 0) {
		(void)task_wdt_feed(watchdog_channel);
	}
}

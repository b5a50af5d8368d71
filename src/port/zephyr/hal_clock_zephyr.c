/*
 * hal_clock on Zephyr.
 *
 * Both monotonic clocks are the kernel's uptime: the device has no virtual time. The JavaScript
 * loop sleeps on a semaphore that drivers, other threads and ISRs give to wake it, with the next
 * timer deadline as the timeout. UTC is an offset from uptime that a time source sets through
 * hal_clock_set_utc_ms() (port_zephyr.h).
 */
#include "hal_clock.h"
#include "port_zephyr.h"

#include <stdbool.h>
#include <stdint.h>

#include <zephyr/irq.h>
#include <zephyr/kernel.h>

/* A binary semaphore: any number of wake-ups before the loop sleeps again count as one, and the
 * loop drains its whole event queue after each wait, so none is lost. */
static K_SEM_DEFINE(wake_sem, 0, 1);

/* No single sleep is longer than this. It keeps far deadlines clear of tick-conversion overflow;
 * a long wait simply takes a few rounds. */
#define MAX_SLEEP_MS (24LL * 60 * 60 * 1000)

/* UTC minus uptime, valid once a time source has set it. 64-bit values are not written
 * atomically on Cortex-M, hence the lock around both fields. */
static int64_t utc_offset_ms;
static bool utc_known;

uint64_t hal_clock_ms(void)
{
	return (uint64_t)k_uptime_get();
}

uint64_t hal_clock_real_ms(void)
{
	return (uint64_t)k_uptime_get();
}

bool hal_clock_utc_ms(int64_t *utc_ms)
{
	unsigned int key = irq_lock();
	bool known = utc_known;
	int64_t offset = utc_offset_ms;

	irq_unlock(key);
	if (!known) {
		return false;
	}
	*utc_ms = k_uptime_get() + offset;
	return true;
}

void hal_clock_set_utc_ms(int64_t utc_ms)
{
	int64_t offset = utc_ms - k_uptime_get();
	unsigned int key = irq_lock();

	utc_offset_ms = offset;
	utc_known = true;
	irq_unlock(key);
	hal_clock_wake();
}

bool hal_clock_wait_until(uint64_t deadline_ms, bool idle)
{
	/* idle does not matter here: on a device something outside (a button, a radio packet, the
	 * modem) can always bring work, so the wait never ends the run. */
	(void)idle;
	for (;;) {
		k_timeout_t timeout;

		if (deadline_ms == HAL_CLOCK_FOREVER) {
			timeout = K_FOREVER;
		} else {
			uint64_t now = hal_clock_ms();

			if (now >= deadline_ms) {
				return true;
			}
			uint64_t until = deadline_ms - now > (uint64_t)MAX_SLEEP_MS
						 ? now + (uint64_t)MAX_SLEEP_MS
						 : deadline_ms;
#if defined(CONFIG_TIMEOUT_64BIT)
			/* Absolute: the time spent between reading the clock and sleeping does not
			 * push the wake-up later. */
			timeout = K_TIMEOUT_ABS_MS((int64_t)until);
#else
			timeout = K_MSEC((int32_t)(until - now));
#endif
		}
		/* The JavaScript thread is alive and about to wait: feed its watchdog, and wake at
		 * least every half period to feed it again (hal_reset_zephyr.c). */
		port_zephyr_watchdog_feed();
		if (K_TIMEOUT_EQ(timeout, K_FOREVER) ||
		    (deadline_ms != HAL_CLOCK_FOREVER &&
		     deadline_ms - hal_clock_ms() > (uint64_t)(CONFIG_BEACON_WATCHDOG_MS / 2))) {
			timeout = K_MSEC(CONFIG_BEACON_WATCHDOG_MS / 2);
		}
		if (k_sem_take(&wake_sem, timeout) == 0) {
			return true;
		}
		/* Timed out: either the deadline has come (checked above on the next round) or this
		 * was one round of a sleep longer than MAX_SLEEP_MS. */
	}
}

void hal_clock_wake(void)
{
	k_sem_give(&wake_sem);
}

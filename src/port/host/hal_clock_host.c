/* The simulator's clock: virtual by default, so a day of device time runs in moments. */
#include <time.h>

#include "hal_clock.h"
#include "sim.h"

static bool realtime;
static bool synced = true;
static int64_t utc_at_boot;
static uint64_t virtual_ms;
static uint64_t real_start_ms;

static uint64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void sim_clock_configure(bool real, bool utc_synced, int64_t utc_at_boot_ms)
{
	realtime = real;
	synced = utc_synced;
	utc_at_boot = utc_at_boot_ms;
	virtual_ms = 0;
	real_start_ms = monotonic_ms();
}

uint64_t sim_clock_elapsed_ms(void)
{
	return hal_clock_ms();
}

uint64_t hal_clock_ms(void)
{
	return realtime ? monotonic_ms() - real_start_ms : virtual_ms;
}

uint64_t hal_clock_real_ms(void)
{
	return monotonic_ms();
}

bool hal_clock_utc_ms(int64_t *utc_ms)
{
	if (!synced) {
		return false;
	}
	*utc_ms = utc_at_boot + (int64_t)hal_clock_ms();
	return true;
}

bool hal_clock_wait_until(uint64_t deadline_ms, bool idle)
{
	/* The simulated world has no input of its own yet: when the app has nothing scheduled,
	 * nothing can ever happen again, so the run ends now rather than sleep to its limit. */
	if (idle) {
		return false;
	}
	if (!realtime) {
		if (deadline_ms > virtual_ms) {
			virtual_ms = deadline_ms;
		}
		return true;
	}
	uint64_t now = hal_clock_ms();
	if (deadline_ms > now) {
		uint64_t wait = deadline_ms - now;
		struct timespec ts = {(time_t)(wait / 1000u), (long)(wait % 1000u) * 1000000L};
		nanosleep(&ts, NULL);
	}
	return true;
}

void hal_clock_wake(void)
{
	/* Single-threaded simulator: events are posted from the loop itself. */
}

/*
 * hal_clock.h: device time.
 *
 * Monotonic time drives timers; UTC is known only once synced (LTE or GNSS on the device,
 * the simulator's start time on the host). The host port runs a virtual clock that jumps to the
 * next deadline, so hours of device time pass in milliseconds.
 */
#ifndef HAL_CLOCK_H
#define HAL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define HAL_CLOCK_FOREVER UINT64_MAX

/* Milliseconds since boot (virtual on the host). */
uint64_t hal_clock_ms(void);
/* Real monotonic milliseconds, for the engine's execution-time limit. */
uint64_t hal_clock_real_ms(void);
/* UTC milliseconds since 1970; false while the clock is not synced. */
bool hal_clock_utc_ms(int64_t *utc_ms);

/*
 * Sleep until deadline (ms since boot; HAL_CLOCK_FOREVER for none) or until hal_clock_wake() is
 * called from any thread. idle is true when the runtime has nothing scheduled itself, so only
 * input from outside (a button, a packet, the simulator's script) can give it work. Returns false
 * when idle and nothing outside can ever wake the device (only the host simulator, at the end of
 * its script, says so): the run is over.
 */
bool hal_clock_wait_until(uint64_t deadline_ms, bool idle);
void hal_clock_wake(void);

#endif /* HAL_CLOCK_H */

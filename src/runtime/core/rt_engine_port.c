/* The hooks the engine layer calls back into: time, randomness and fatal errors, served by the HAL. */
#include "engine.h"
#include "hal_clock.h"
#include "hal_console.h"
#include "hal_device.h"
#include "rt_device.h"

double eng_port_utc_now_ms(void)
{
	int64_t utc;
	if (hal_clock_utc_ms(&utc)) {
		return (double)utc;
	}
	/* Not synced: say so once, and count from the epoch so that time still moves forward. */
	rt_device_t *dev = rt_device();
	if (dev != NULL && !dev->utc_warned && !dev->engine_starting) {
		dev->utc_warned = true;
		hal_log(HAL_LOG_WARN, "ESR0005 Time is not valid: UTC is not synced yet");
	}
	return (double)hal_clock_ms();
}

void eng_port_random(void *buf, size_t len)
{
	hal_device_random(buf, len);
}

void eng_port_fatal(const char *message)
{
	/* The device resets (the simulator resets the simulated device), with the message as the
	 * cause its reset record keeps. */
	hal_device_fatal(message);
}

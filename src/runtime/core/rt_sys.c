/* sys: identity, firmware version and uptime of the device. */

#include "api_types.h"
#include "hal_clock.h"
#include "hal_device.h"
#include "rt_api_version.h"
#include "rt_hex.h"

eng_value_t rt_sys_getPublicId(void)
{
	uint8_t id[32];
	size_t n = hal_device_public_id(id, sizeof(id));
	char hex[2 * sizeof(id) + 1];
	rt_hex_encode(id, n, hex);
	return eng_string(hex, 2 * n);
}

eng_value_t rt_sys_getUptime(void)
{
	return eng_number((double)(hal_clock_ms() / 1000u));
}

eng_value_t rt_sys_isTimeSynced(void)
{
	int64_t utc;
	return eng_boolean(hal_clock_utc_ms(&utc));
}

eng_value_t rt_sys_getFirmware(void)
{
	/* The firmware presents itself as the API version the app was built for. */
	uint32_t v = rt_api_version();
	eng_value_t array = eng_array(3);
	for (uint32_t i = 0; i < 3; i++) {
		eng_value_t part = eng_number((v >> (16 - 8 * i)) & 0xffu);
		eng_set_index(array, i, part);
		eng_release(part);
	}
	return array;
}

eng_value_t rt_sys_getHardware(void)
{
	return eng_string_z(hal_device_hardware());
}

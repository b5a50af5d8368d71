#include "rt_device.h"

#include <string.h>

#include "api_types.h"
#include "rt_api_version.h"
#include "rt_config.h"

static rt_device_t *selected;

void rt_device_init(rt_device_t *device, uint32_t index)
{
	memset(device, 0, sizeof(*device));
	device->index = index;
	device->engine_config.heap_size = RT_JS_HEAP_BYTES;
	device->engine_config.exec_budget = CONFIG_BEACON_EXEC_BUDGET;
	device->api_bit = -1;
}

void rt_device_select(rt_device_t *device)
{
	selected = device;
	eng_select(device != NULL ? device->engine : NULL);
}

rt_device_t *rt_device(void)
{
	return selected;
}

/* ------------------------------------------------------------------ API version */

uint32_t rt_api_version(void)
{
	return selected != NULL ? selected->api_version : 0;
}

int rt_api_version_bit(void)
{
	return selected != NULL ? selected->api_bit : -1;
}

int rt_api_version_bit_of(uint32_t packed)
{
	for (int i = 0; i < API_VERSION_COUNT; i++) {
		if (api_versions[i] == packed) {
			return i;
		}
	}
	return -1;
}

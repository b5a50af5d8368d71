#include "rt_features.h"

#include <stdint.h>
#include <string.h>

#include "hal_device.h"

static const struct {
	const char *name;
	uint32_t needs;
} optional[] = {
	{"location", HAL_FEATURE_GNSS},
};

bool rt_features_namespace_present(const char *name)
{
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		if (strcmp(optional[i].name, name) == 0) {
			return (hal_device_features() & optional[i].needs) != 0;
		}
	}
	return true;
}

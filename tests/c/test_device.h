/*
 * test_device.h: a device with an engine instance and the API of one version installed, for
 * tests that call the glue and the services without an app package.
 */
#ifndef TEST_DEVICE_H
#define TEST_DEVICE_H

#include "api_types.h"
#include "engine.h"
#include "glue_core.h"
#include "rt_device.h"
#include "rt_handle.h"

static rt_device_t test_device;

/* Bring up the test device with API version bit `bit` and a heap of heap_size bytes; opens an
 * engine scope. Returns 0 or -1. */
static inline int test_device_up(int bit, size_t heap_size)
{
	rt_device_init(&test_device, 0);
	test_device.api_bit = bit;
	test_device.api_version = api_versions[bit];
	test_device.engine_config.heap_size = heap_size;
	test_device.engine_config.exec_budget = 0;
	rt_device_select(&test_device);
	test_device.engine = eng_create(&test_device.engine_config);
	if (test_device.engine == NULL) {
		return -1;
	}
	eng_scope_enter();
	return glue_install();
}

static inline void test_device_down(void)
{
	rt_handle_reset();
	eng_scope_leave();
	eng_destroy(test_device.engine);
	test_device.engine = NULL;
}

#endif /* TEST_DEVICE_H */

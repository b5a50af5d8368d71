/*
 * Random seeds for the port (port_zephyr.h): the chip's random number generator through Zephyr's
 * entropy driver, where the build has one (the nRF52840's RNG). Upstream Zephyr has no entropy
 * driver for the nRF9160, whose generator is the CryptoCell 310 that nRF Connect SDK drives: there
 * the seed is a hash of what differs between devices and boots (the device id, the cycle counter
 * at the first call, the uptime at each call), which keeps two devices and two boots apart but
 * is no secret. The boot log says so.
 */
#include "port_zephyr.h"

#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

#if defined(CONFIG_ENTROPY_HAS_DRIVER)
#include <zephyr/random/random.h>
#else
#include <zephyr/drivers/hwinfo.h>
#endif

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

#if !defined(CONFIG_ENTROPY_HAS_DRIVER)
/* FNV-1a over bytes, then a SplitMix64 finaliser: well spread from few varying bits. */
static uint64_t mix(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++) {
		h = (h ^ p[i]) * 0x100000001b3ull;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}
#endif

uint64_t port_zephyr_entropy(void)
{
#if defined(CONFIG_ENTROPY_HAS_DRIVER)
	uint64_t v;

	if (sys_csrand_get(&v, sizeof(v)) == 0) {
		return v;
	}
	sys_rand_get(&v, sizeof(v));
	return v;
#else
	static uint64_t state;
	static bool warned;

	if (!warned) {
		uint8_t id[16];
		ssize_t n = hwinfo_get_device_id(id, sizeof(id));
		uint32_t cycles = k_cycle_get_32();

		warned = true;
		state = mix(0xcbf29ce484222325ull, id, n > 0 ? (size_t)n : 0);
		state = mix(state, &cycles, sizeof(cycles));
		LOG_WRN("no hardware entropy source in this build: random seeds come from the device "
			"id and the boot's timing (docs/firmware.md)");
	}
	int64_t now = k_uptime_ticks();
	uint32_t cycles = k_cycle_get_32();

	state = mix(state, &now, sizeof(now));
	state = mix(state, &cycles, sizeof(cycles));
	return state;
#endif
}

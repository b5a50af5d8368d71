/*
 * hal_device_random on Zephyr: the hardware's entropy, which seeds Math.random once per engine
 * instance (16 bytes at each app start).
 *
 * sys_csrand_get() is Zephyr's cryptographically secure source: with the default
 * CONFIG_HARDWARE_DEVICE_CS_GENERATOR it reads the entropy driver directly (the nRF52840's RNG
 * peripheral through entropy_nrf5, or the Bluetooth controller's entropy source when the
 * SoftDevice Controller owns the RNG; on the nRF9160's non-secure side TF-M's PSA RNG). It needs
 * CONFIG_ENTROPY_GENERATOR=y, from which CONFIG_CSPRNG_ENABLED follows.
 *
 * Without an entropy driver (upstream Zephyr has none for the nRF9160, whose generator is the
 * CryptoCell 310 that nRF Connect SDK drives) the bytes are mixed from the chip's device id and
 * the cycle counter at the time of the call: different per device and, through the boot's timing,
 * usually per boot, but predictable. The log says so once, at the first call. The cloud's session
 * ids (hal_cloud_zephyr.c) come from here too.
 */
#include "hal_device.h"
#include "port_zephyr.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <zephyr/drivers/hwinfo.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/random/random.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

/* splitmix64's output function: spreads the few changing bits of the fallback over all 64. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fallback_fill(uint8_t *out, size_t len)
{
	static uint64_t calls;
	uint8_t id[16] = {0};
	uint64_t key = 0x5eac0b1d00000000ull ^ ++calls;
	ssize_t id_len = hwinfo_get_device_id(id, sizeof(id));

	for (ssize_t i = 0; i < id_len; i++) {
		key = (key ^ id[i]) * 0x100000001b3ull;
	}
	key = mix64(key ^ k_cycle_get_32() ^ (uint64_t)k_uptime_get() << 32);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t x = mix64(key += 0x9e3779b97f4a7c15ull);
		for (size_t j = 0; j < 8 && i + j < len; j++) {
			out[i + j] = (uint8_t)(x >> (8 * j));
		}
	}
}

void hal_device_random(void *buf, size_t len)
{
	static bool reported;
#if defined(CONFIG_CSPRNG_ENABLED)
	int err = sys_csrand_get(buf, len);
	if (err == 0) {
		return;
	}
	if (!reported) {
		LOG_WRN("entropy source failed (%d): random seeds come from the device id and time", err);
		reported = true;
	}
#else
	if (!reported) {
		LOG_WRN("no hardware entropy source in this build: random seeds (Math.random, the "
			"cloud's session ids) come from the device id and the boot's timing "
			"(docs/firmware.md)");
		reported = true;
	}
#endif
	fallback_fill(buf, len);
}

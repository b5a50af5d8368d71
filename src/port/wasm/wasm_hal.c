/*
 * The part of the HAL that the host port takes from its operating system and libraries, for the
 * WebAssembly build that `beacon studio` runs in a browser page.
 *
 * zlib and Mbed TLS are not part of Debian's emscripten (its ports are fetched from the network
 * at build time, which the build must not need), so CRC-32 is computed here, SHA-256 in
 * wasm_sha256.c (deployments name and check packages by it), and signatures are not verified: the
 * page trusts no signing key, and rt_signature only asks for cryptography when a key is trusted.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <emscripten.h>

#include "hal_crypto.h"
#include "hal_lock.h"
#include "rt_package.h"
#include "world.h"

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's crc32() computes it. */
uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
	static uint32_t table[256];
	static bool ready;
	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++) {
				c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			}
			table[i] = c;
		}
		ready = true;
	}
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc = table[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
	}
	return ~crc;
}

hal_crypto_result_t hal_crypto_ecdsa_p256_verify(const uint8_t public_key[65],
						 const uint8_t hash[32],
						 const uint8_t signature[64])
{
	(void)public_key;
	(void)hash;
	(void)signature;
	return HAL_CRYPTO_UNSUPPORTED;
}

/* The page runs the world on one thread: nothing to exclude. */
hal_lock_key_t hal_lock(void)
{
	return 0;
}

void hal_unlock(hal_lock_key_t key)
{
	(void)key;
}

EM_JS(void, studio_js_fatal, (const char *reason), {
	if (Module.onFatal) Module.onFatal(UTF8ToString(reason));
});

/* A fault outside any simulated device's code: the module cannot go on. */
void world_port_fatal(const char *reason)
{
	studio_js_fatal(reason);
	abort();
}

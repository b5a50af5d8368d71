/* hal_crypto on the host: libsodium (Debian libsodium-dev). */
#include "hal_crypto.h"

#include <stdbool.h>

#include <sodium.h>

static bool ready(void)
{
	/* sodium_init() is safe to call again; it returns 1 when already initialised. */
	return sodium_init() >= 0;
}

hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	if (!ready()) {
		return HAL_CRYPTO_FAILED;
	}
	crypto_hash_sha256_state state;
	if (crypto_hash_sha256_init(&state) != 0) {
		return HAL_CRYPTO_FAILED;
	}
	for (size_t i = 0; i < count; i++) {
		if (crypto_hash_sha256_update(&state, chunks[i].data, chunks[i].len) != 0) {
			return HAL_CRYPTO_FAILED;
		}
	}
	return crypto_hash_sha256_final(&state, digest) == 0 ? HAL_CRYPTO_OK : HAL_CRYPTO_FAILED;
}

hal_crypto_result_t hal_crypto_ed25519_verify(const uint8_t public_key[32], const uint8_t *message,
					      size_t len, const uint8_t signature[64])
{
	if (!ready()) {
		return HAL_CRYPTO_FAILED;
	}
	return crypto_sign_ed25519_verify_detached(signature, message, len, public_key) == 0
		       ? HAL_CRYPTO_OK
		       : HAL_CRYPTO_MISMATCH;
}

/*
 * hal_crypto.h: the cryptography package signatures need, from a well-kept library of the
 * platform: libsodium on the host, the PSA Crypto API on the device.
 */
#ifndef HAL_CRYPTO_H
#define HAL_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	HAL_CRYPTO_OK = 0,
	HAL_CRYPTO_MISMATCH,    /* computed, and the signature does not verify */
	HAL_CRYPTO_UNSUPPORTED, /* this build has no implementation of the algorithm */
	HAL_CRYPTO_FAILED,      /* the library failed (out of memory, not initialised) */
} hal_crypto_result_t;

/* A piece of a message that lies in several places (a package's header and its bytecode). */
typedef struct {
	const uint8_t *data;
	size_t len;
} hal_crypto_chunk_t;

/* SHA-256 of the chunks one after the other. */
hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32]);

/* Verify an Ed25519 signature (RFC 8032, pure Ed25519) of message with public_key. */
hal_crypto_result_t hal_crypto_ed25519_verify(const uint8_t public_key[32], const uint8_t *message,
					      size_t len, const uint8_t signature[64]);

#endif /* HAL_CRYPTO_H */

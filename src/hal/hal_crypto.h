/*
 * hal_crypto.h: the cryptography package signatures need (rt_signature.h), from a well-kept
 * library of the platform: the PSA Crypto API of Mbed TLS, on the host (Debian's libmbedtls-dev)
 * and on the device (Zephyr's Mbed TLS module, or nRF Connect SDK's nrf_security, which runs it
 * on the CryptoCell 310). One implementation serves both: src/port/psa/hal_crypto_psa.c.
 */
#ifndef HAL_CRYPTO_H
#define HAL_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	HAL_CRYPTO_OK = 0,
	HAL_CRYPTO_MISMATCH,    /* computed, and the signature does not verify */
	HAL_CRYPTO_BAD_KEY,     /* the public key is not a point of the curve */
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

/* Verify an ECDSA signature on P-256 (secp256r1; FIPS 186-4) of a SHA-256 hash. public_key is
 * SEC1's uncompressed point (0x04 || X || Y), signature is r || s (32 bytes each, big-endian). */
hal_crypto_result_t hal_crypto_ecdsa_p256_verify(const uint8_t public_key[65],
						 const uint8_t hash[32],
						 const uint8_t signature[64]);

#endif /* HAL_CRYPTO_H */

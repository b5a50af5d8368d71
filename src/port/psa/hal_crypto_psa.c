/*
 * hal_crypto through the PSA Crypto API (psa/crypto.h), the one verifier of package signatures
 * on the host and the device:
 *
 *   - host: Debian's libmbedtls-dev (Mbed TLS 2.28, whose PSA core is built in: MBEDTLS_PSA_CRYPTO_C);
 *   - Zephyr: the workspace's Mbed TLS module (3.6) with CONFIG_MBEDTLS_PSA_CRYPTO_C, or nRF
 *     Connect SDK's nrf_security, whose PSA drivers run ECDSA on the CryptoCell 310. The Zephyr
 *     port compiles this file from hal_crypto_zephyr.c when its Kconfig asks for ECDSA P-256.
 *
 * Only calls both Mbed TLS generations have are used (psa_hash_*, psa_import_key,
 * psa_verify_hash, psa_destroy_key), so the host's tests exercise the device's code path.
 */
#include "hal_crypto.h"

#include <stdbool.h>

#include <psa/crypto.h>

static bool psa_ready(void)
{
	/* psa_crypto_init() may be called again; it returns PSA_SUCCESS once initialised. */
	return psa_crypto_init() == PSA_SUCCESS;
}

hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	if (!psa_ready()) {
		return HAL_CRYPTO_FAILED;
	}
	psa_hash_operation_t op = PSA_HASH_OPERATION_INIT;
	if (psa_hash_setup(&op, PSA_ALG_SHA_256) != PSA_SUCCESS) {
		return HAL_CRYPTO_FAILED;
	}
	for (size_t i = 0; i < count; i++) {
		if (psa_hash_update(&op, chunks[i].data, chunks[i].len) != PSA_SUCCESS) {
			psa_hash_abort(&op);
			return HAL_CRYPTO_FAILED;
		}
	}
	size_t len = 0;
	psa_status_t st = psa_hash_finish(&op, digest, 32, &len);
	return st == PSA_SUCCESS && len == 32 ? HAL_CRYPTO_OK : HAL_CRYPTO_FAILED;
}

hal_crypto_result_t hal_crypto_ecdsa_p256_verify(const uint8_t public_key[65],
						 const uint8_t hash[32],
						 const uint8_t signature[64])
{
	if (public_key[0] != 0x04) {
		return HAL_CRYPTO_BAD_KEY; /* not an uncompressed point (libraries differ in the error) */
	}
	if (!psa_ready()) {
		return HAL_CRYPTO_FAILED;
	}
	psa_key_attributes_t attributes = PSA_KEY_ATTRIBUTES_INIT;
	psa_set_key_type(&attributes, PSA_KEY_TYPE_ECC_PUBLIC_KEY(PSA_ECC_FAMILY_SECP_R1));
	psa_set_key_bits(&attributes, 256);
	psa_set_key_usage_flags(&attributes, PSA_KEY_USAGE_VERIFY_HASH);
	psa_set_key_algorithm(&attributes, PSA_ALG_ECDSA(PSA_ALG_SHA_256));
	psa_set_key_lifetime(&attributes, PSA_KEY_LIFETIME_VOLATILE);
	psa_key_id_t key;
	/* Importing checks the point: on the curve, coordinates below the prime. */
	psa_status_t st = psa_import_key(&attributes, public_key, 65, &key);
	psa_reset_key_attributes(&attributes);
	if (st != PSA_SUCCESS) {
		return st == PSA_ERROR_INVALID_ARGUMENT ? HAL_CRYPTO_BAD_KEY : HAL_CRYPTO_FAILED;
	}
	st = psa_verify_hash(key, PSA_ALG_ECDSA(PSA_ALG_SHA_256), hash, 32, signature, 64);
	psa_destroy_key(key);
	if (st == PSA_SUCCESS) {
		return HAL_CRYPTO_OK;
	}
	return st == PSA_ERROR_INVALID_SIGNATURE ? HAL_CRYPTO_MISMATCH : HAL_CRYPTO_FAILED;
}

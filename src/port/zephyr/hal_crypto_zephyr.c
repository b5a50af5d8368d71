/*
 * hal_crypto on Zephyr: the PSA Crypto API, through the one verifier the host builds too
 * (src/port/psa/hal_crypto_psa.c: SHA-256 and ECDSA P-256 verification). The Zephyr build takes
 * this port's own files, so that file is compiled here, where the Kconfig says PSA provides
 * what it calls.
 *
 * The PSA provider is upstream Zephyr's Mbed TLS module (prj.conf: CONFIG_MBEDTLS_PSA_CRYPTO_C
 * with the PSA_WANT symbols below, the curve computed by Mbed TLS's p256-m driver), or in an nRF
 * Connect SDK workspace nrf_security, whose drivers run ECDSA P-256 on the CryptoCell 310 of the
 * nRF52840 and nRF9160 with the same PSA_WANT symbols. Needed:
 *
 *   CONFIG_PSA_WANT_ALG_SHA_256=y
 *   CONFIG_PSA_WANT_ALG_ECDSA=y
 *   CONFIG_PSA_WANT_ECC_SECP_R1_256=y
 *   CONFIG_PSA_WANT_KEY_TYPE_ECC_PUBLIC_KEY=y
 *
 * Without them this file compiles to functions that report HAL_CRYPTO_UNSUPPORTED: the runtime
 * then refuses signed-only installs with a message saying so ("built without ECDSA P-256"), and
 * runs packages normally when no key is trusted. SHA-256 alone can still come from Mbed TLS
 * (CONFIG_MBEDTLS_SHA256 without PSA, boards/mps2_an521_cpu0.conf).
 */
#include "hal_crypto.h"

#include <zephyr/kernel.h>

#if defined(CONFIG_PSA_CRYPTO_CLIENT) && defined(CONFIG_PSA_WANT_ALG_SHA_256) &&                \
	defined(CONFIG_PSA_WANT_ALG_ECDSA) && defined(CONFIG_PSA_WANT_ECC_SECP_R1_256) &&         \
	defined(CONFIG_PSA_WANT_KEY_TYPE_ECC_PUBLIC_KEY)

#include "../psa/hal_crypto_psa.c"

#else

#if defined(CONFIG_MBEDTLS_SHA256) && !defined(CONFIG_PSA_CRYPTO_CLIENT)
/* A board without a secure random source (PSA's initialisation needs one: mps2/an521 under QEMU)
 * still hashes with Mbed TLS's own SHA-256, which draws no random numbers: the hash that names a
 * package the cloud deploys, and checks the bytes fetched. */
#include <mbedtls/sha256.h>

hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	mbedtls_sha256_context ctx;
	int rc;

	mbedtls_sha256_init(&ctx);
	rc = mbedtls_sha256_starts(&ctx, 0);
	for (size_t i = 0; rc == 0 && i < count; i++) {
		rc = mbedtls_sha256_update(&ctx, chunks[i].data, chunks[i].len);
	}
	if (rc == 0) {
		rc = mbedtls_sha256_finish(&ctx, digest);
	}
	mbedtls_sha256_free(&ctx);
	return rc == 0 ? HAL_CRYPTO_OK : HAL_CRYPTO_FAILED;
}
#else
hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	ARG_UNUSED(chunks);
	ARG_UNUSED(count);
	ARG_UNUSED(digest);
	return HAL_CRYPTO_UNSUPPORTED;
}
#endif

hal_crypto_result_t hal_crypto_ecdsa_p256_verify(const uint8_t public_key[65],
						 const uint8_t hash[32],
						 const uint8_t signature[64])
{
	ARG_UNUSED(public_key);
	ARG_UNUSED(hash);
	ARG_UNUSED(signature);
	return HAL_CRYPTO_UNSUPPORTED;
}

#endif

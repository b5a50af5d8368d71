/*
 * hal_crypto on Zephyr: the PSA Crypto API.
 *
 * Ed25519 verification (PSA_ALG_PURE_EDDSA on PSA_ECC_FAMILY_TWISTED_EDWARDS, 255 bits) is not
 * in upstream Zephyr's Mbed TLS / TF-PSA-Crypto, which implement no EdDSA. The nRF Connect SDK
 * has it: nrf_security with the Oberon PSA core, verified by the nrf_cc3xx (CryptoCell 310 of the
 * nRF52840 and nRF9160) or nrf_oberon driver. A firmware that trusts signing keys needs in its
 * prj.conf:
 *
 *   CONFIG_NRF_SECURITY=y
 *   CONFIG_PSA_WANT_ALG_SHA_256=y
 *   CONFIG_PSA_WANT_ALG_PURE_EDDSA=y
 *   CONFIG_PSA_WANT_ECC_TWISTED_EDWARDS_255=y
 *   CONFIG_PSA_WANT_KEY_TYPE_ECC_PUBLIC_KEY=y
 *
 * Without them this file compiles to functions that report HAL_CRYPTO_UNSUPPORTED: the runtime
 * then refuses signed-only installs with a message saying so, and runs packages normally when
 * no key is trusted (the default).
 */
#include "hal_crypto.h"

#include <zephyr/kernel.h>

#if defined(CONFIG_PSA_WANT_ALG_SHA_256) || \
	(defined(CONFIG_PSA_WANT_ALG_PURE_EDDSA) && defined(CONFIG_PSA_WANT_ECC_TWISTED_EDWARDS_255))
#include <psa/crypto.h>

static bool psa_ready(void)
{
	/* psa_crypto_init() may be called again; it returns PSA_SUCCESS once initialised. */
	return psa_crypto_init() == PSA_SUCCESS;
}
#endif

hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
#if defined(CONFIG_PSA_WANT_ALG_SHA_256)
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
#else
	ARG_UNUSED(chunks);
	ARG_UNUSED(count);
	ARG_UNUSED(digest);
	return HAL_CRYPTO_UNSUPPORTED;
#endif
}

hal_crypto_result_t hal_crypto_ed25519_verify(const uint8_t public_key[32], const uint8_t *message,
					      size_t len, const uint8_t signature[64])
{
#if defined(CONFIG_PSA_WANT_ALG_PURE_EDDSA) && defined(CONFIG_PSA_WANT_ECC_TWISTED_EDWARDS_255)
	if (!psa_ready()) {
		return HAL_CRYPTO_FAILED;
	}
	psa_key_attributes_t attributes = PSA_KEY_ATTRIBUTES_INIT;
	psa_set_key_type(&attributes, PSA_KEY_TYPE_ECC_PUBLIC_KEY(PSA_ECC_FAMILY_TWISTED_EDWARDS));
	psa_set_key_bits(&attributes, 255);
	psa_set_key_usage_flags(&attributes, PSA_KEY_USAGE_VERIFY_MESSAGE);
	psa_set_key_algorithm(&attributes, PSA_ALG_PURE_EDDSA);
	psa_set_key_lifetime(&attributes, PSA_KEY_LIFETIME_VOLATILE);
	psa_key_id_t key;
	if (psa_import_key(&attributes, public_key, 32, &key) != PSA_SUCCESS) {
		psa_reset_key_attributes(&attributes);
		return HAL_CRYPTO_MISMATCH; /* not a point on the curve: no signature verifies */
	}
	psa_status_t st = psa_verify_message(key, PSA_ALG_PURE_EDDSA, message, len, signature, 64);
	psa_destroy_key(key);
	psa_reset_key_attributes(&attributes);
	if (st == PSA_SUCCESS) {
		return HAL_CRYPTO_OK;
	}
	return st == PSA_ERROR_INVALID_SIGNATURE ? HAL_CRYPTO_MISMATCH : HAL_CRYPTO_FAILED;
#else
	ARG_UNUSED(public_key);
	ARG_UNUSED(message);
	ARG_UNUSED(len);
	ARG_UNUSED(signature);
	return HAL_CRYPTO_UNSUPPORTED;
#endif
}

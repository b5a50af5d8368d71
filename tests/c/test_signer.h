/*
 * test_signer.h: signing packages as `beacon build --sign` does (rt_package.h, algorithm 2), for
 * the C tests and benchmarks: ECDSA P-256 with SHA-256 through Mbed TLS's PSA Crypto API, the
 * library the host and the device verify with. Deterministic ECDSA (RFC 6979), so a key and a
 * package give the same signature on every run.
 */
#ifndef TEST_SIGNER_H
#define TEST_SIGNER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <psa/crypto.h>

#include "rt_package.h"
#include "rt_signature.h"

typedef struct {
	psa_key_id_t key;
	uint8_t pub[RT_SIGNATURE_KEY_SIZE]; /* 0x04 || X || Y, what rt_signature_trust() takes */
} test_signer_t;

static inline psa_key_attributes_t test_signer_attributes(void)
{
	psa_key_attributes_t a = PSA_KEY_ATTRIBUTES_INIT;
	psa_set_key_type(&a, PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_SECP_R1));
	psa_set_key_bits(&a, 256);
	psa_set_key_usage_flags(&a, PSA_KEY_USAGE_SIGN_HASH);
	psa_set_key_algorithm(&a, PSA_ALG_DETERMINISTIC_ECDSA(PSA_ALG_SHA_256));
	return a;
}

static inline int test_signer_finish(test_signer_t *s)
{
	size_t n = 0;
	return psa_export_public_key(s->key, s->pub, sizeof(s->pub), &n) == PSA_SUCCESS &&
			       n == sizeof(s->pub)
		       ? 0
		       : -1;
}

/* A new random key. Returns 0 or -1. */
static inline int test_signer_new(test_signer_t *s)
{
	if (psa_crypto_init() != PSA_SUCCESS) {
		return -1;
	}
	psa_key_attributes_t a = test_signer_attributes();
	if (psa_generate_key(&a, &s->key) != PSA_SUCCESS) {
		return -1;
	}
	return test_signer_finish(s);
}

/* The key whose private scalar is d (32 bytes, big-endian). Returns 0 or -1. */
static inline int test_signer_from_scalar(test_signer_t *s, const uint8_t d[32])
{
	if (psa_crypto_init() != PSA_SUCCESS) {
		return -1;
	}
	psa_key_attributes_t a = test_signer_attributes();
	if (psa_import_key(&a, d, 32, &s->key) != PSA_SUCCESS) {
		return -1;
	}
	return test_signer_finish(s);
}

static inline void test_signer_free(test_signer_t *s)
{
	psa_destroy_key(s->key);
}

static inline void test_signer_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static inline void test_signer_fix_crc(uint8_t *pkg, size_t len)
{
	uint32_t crc = rt_crc32(0, pkg, RT_PACKAGE_SIGNED_HEADER_BYTES);
	crc = rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
	test_signer_put32(pkg + 36, crc);
}

/* The unsigned package `plain` signed with s as rt_package.h describes: flag bit 0, the block
 * after the bytecode, the CRC made again. Returns a malloc'ed package of *len bytes, or NULL. */
static inline uint8_t *test_signer_sign(const test_signer_t *s, const uint8_t *plain,
					size_t plain_len, size_t *len)
{
	*len = plain_len + RT_PACKAGE_SIG_SIZE;
	uint8_t *pkg = malloc(*len);
	if (pkg == NULL) {
		return NULL;
	}
	memcpy(pkg, plain, plain_len);
	uint32_t flags = (uint32_t)pkg[32] | (uint32_t)pkg[33] << 8 | (uint32_t)pkg[34] << 16 |
			 (uint32_t)pkg[35] << 24;
	test_signer_put32(pkg + 32, flags | RT_PACKAGE_FLAG_SIGNED);
	uint8_t hash[32];
	size_t hash_len = 0;
	psa_hash_operation_t op = PSA_HASH_OPERATION_INIT;
	uint8_t *sig = pkg + plain_len;
	size_t sig_len = 0;
	if (psa_hash_setup(&op, PSA_ALG_SHA_256) != PSA_SUCCESS ||
	    psa_hash_update(&op, pkg, RT_PACKAGE_SIGNED_HEADER_BYTES) != PSA_SUCCESS ||
	    psa_hash_update(&op, pkg + RT_PACKAGE_HEADER_SIZE, plain_len - RT_PACKAGE_HEADER_SIZE) !=
		    PSA_SUCCESS ||
	    psa_hash_finish(&op, hash, sizeof(hash), &hash_len) != PSA_SUCCESS ||
	    psa_sign_hash(s->key, PSA_ALG_DETERMINISTIC_ECDSA(PSA_ALG_SHA_256), hash, sizeof(hash),
			  sig + RT_PACKAGE_SIG_SIGNATURE_OFFSET, RT_PACKAGE_SIG_SIGNATURE_SIZE,
			  &sig_len) != PSA_SUCCESS ||
	    sig_len != RT_PACKAGE_SIG_SIGNATURE_SIZE) {
		psa_hash_abort(&op);
		free(pkg);
		return NULL;
	}
	memcpy(sig, RT_PACKAGE_SIG_MAGIC, 4);
	sig[4] = RT_PACKAGE_SIG_ALG_ECDSA_P256_SHA256;
	sig[5] = 0;
	sig[6] = (uint8_t)RT_PACKAGE_SIG_SIZE;
	sig[7] = (uint8_t)(RT_PACKAGE_SIG_SIZE >> 8);
	memcpy(sig + RT_PACKAGE_SIG_KEY_OFFSET, s->pub + 1, RT_PACKAGE_SIG_KEY_SIZE);
	test_signer_fix_crc(pkg, *len);
	return pkg;
}

#endif /* TEST_SIGNER_H */

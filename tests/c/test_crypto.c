/*
 * hal_crypto as the host builds it: the PSA Crypto verifier (src/port/psa/hal_crypto_psa.c) on
 * Debian's Mbed TLS, the code the Zephyr port compiles too. Known answers from published vectors:
 *
 *  - SHA-256: FIPS 180-2, Appendix B.1 ("abc") and B.2 (the 448-bit message), and the digest of
 *    the same bytes given in pieces;
 *  - ECDSA P-256 with SHA-256: RFC 6979, Appendix A.2.5 (the key and the signatures of "sample"
 *    and "test"). Every one of its bits flipped, in r, s, the hash or the key, is refused; r or s
 *    of 0 or of the group order n (FIPS 186-4 6.4.2: both must lie in [1, n-1]) are refused; a
 *    key off the curve is refused as a key;
 *  - the typical signed package of signed_package_vector.h (RFC 6979's key, deterministic ECDSA):
 *    signing it again gives the committed signature, and rt_signature_check() accepts it, as
 *    the device's test of the same vector does (tests/zephyr-crypto).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hal_crypto.h"
#include "rt_signature.h"
#include "signed_package_vector.h"
#include "test_signer.h"

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void sha256_of(const char *text, uint8_t digest[32])
{
	hal_crypto_chunk_t c = {(const uint8_t *)text, strlen(text)};
	assert_int_equal(hal_crypto_sha256(&c, 1, digest), HAL_CRYPTO_OK);
}

static void test_sha256_known_answers(void **state)
{
	(void)state;
	uint8_t want[32], got[32];
	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	sha256_of("abc", got);
	assert_memory_equal(got, want, 32);
	static const char b2[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	unhex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", want, 32);
	sha256_of(b2, got);
	assert_memory_equal(got, want, 32);
	/* The same bytes in three pieces, one of them empty: the digest of the whole. */
	hal_crypto_chunk_t pieces[] = {
		{(const uint8_t *)b2, 5}, {(const uint8_t *)b2 + 5, 0}, {(const uint8_t *)b2 + 5, sizeof(b2) - 6}};
	assert_int_equal(hal_crypto_sha256(pieces, 3, got), HAL_CRYPTO_OK);
	assert_memory_equal(got, want, 32);
}

/* RFC 6979 A.2.5: the public key U = xG of x = C9AFA9D8...120F6721, as 0x04 || Ux || Uy. */
static const char rfc6979_key[] = "04"
				  "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
				  "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299";
static const struct {
	const char *message, *r, *s;
} rfc6979_sigs[] = {
	{"sample", "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
	 "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
	{"test", "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
	 "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
};
/* The order n of P-256's base point (FIPS 186-4 D.1.2.3). */
static const char order_n[] = "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551";

typedef struct {
	uint8_t key[65], hash[32], sig[64];
} vector_t;

static vector_t vector(size_t i)
{
	vector_t v;
	unhex(rfc6979_key, v.key, 65);
	sha256_of(rfc6979_sigs[i].message, v.hash);
	unhex(rfc6979_sigs[i].r, v.sig, 32);
	unhex(rfc6979_sigs[i].s, v.sig + 32, 32);
	return v;
}

static void test_rfc6979_signatures_verify(void **state)
{
	(void)state;
	for (size_t i = 0; i < 2; i++) {
		vector_t v = vector(i);
		assert_int_equal(hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig), HAL_CRYPTO_OK);
	}
	/* Each signature is of its own message only. */
	vector_t a = vector(0), b = vector(1);
	assert_int_equal(hal_crypto_ecdsa_p256_verify(a.key, b.hash, a.sig), HAL_CRYPTO_MISMATCH);
	assert_int_equal(hal_crypto_ecdsa_p256_verify(a.key, a.hash, b.sig), HAL_CRYPTO_MISMATCH);
}

static void test_every_flipped_bit_is_refused(void **state)
{
	(void)state;
	vector_t v = vector(0);
	for (size_t bit = 0; bit < 64 * 8; bit++) {
		v.sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig) != HAL_CRYPTO_MISMATCH) {
			fail_msg("signature bit %zu flipped: not refused as a mismatch", bit);
		}
		v.sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t bit = 0; bit < 32 * 8; bit++) {
		v.hash[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig) != HAL_CRYPTO_MISMATCH) {
			fail_msg("hash bit %zu flipped: not refused as a mismatch", bit);
		}
		v.hash[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* A flipped bit of X or Y leaves no point of the curve (or, rarely, another point, whose
	 * signature this is not): never accepted. */
	for (size_t bit = 8; bit < 65 * 8; bit++) {
		v.key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		hal_crypto_result_t r = hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig);
		if (r != HAL_CRYPTO_BAD_KEY && r != HAL_CRYPTO_MISMATCH) {
			fail_msg("key bit %zu flipped: result %d", bit, (int)r);
		}
		v.key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig), HAL_CRYPTO_OK);
}

static void test_out_of_range_signatures_are_refused(void **state)
{
	(void)state;
	vector_t v = vector(0);
	uint8_t n[32], zero[32] = {0};
	unhex(order_n, n, 32);
	const uint8_t *bad[] = {zero, n};
	for (size_t half = 0; half < 2; half++) {
		for (size_t b = 0; b < 2; b++) {
			vector_t w = v;
			memcpy(w.sig + 32 * half, bad[b], 32);
			assert_int_equal(hal_crypto_ecdsa_p256_verify(w.key, w.hash, w.sig), HAL_CRYPTO_MISMATCH);
		}
	}
	/* s replaced by n - s is the other valid signature of the same hash (ECDSA signatures are
	 * malleable): it verifies, which is why the package format names the signer by key and the
	 * CRC, not the signature bytes, identifies a package. */
	vector_t w = v;
	unsigned borrow = 0;
	for (int i = 31; i >= 0; i--) {
		unsigned d = (unsigned)n[i] - v.sig[32 + i] - borrow;
		w.sig[32 + i] = (uint8_t)d;
		borrow = (d >> 8) & 1u;
	}
	assert_int_equal(hal_crypto_ecdsa_p256_verify(w.key, w.hash, w.sig), HAL_CRYPTO_OK);
}

static void test_keys_off_the_curve_are_refused_as_keys(void **state)
{
	(void)state;
	vector_t v = vector(0);
	v.key[64] ^= 0x01; /* Y + 1 or Y - 1: not on the curve */
	assert_int_equal(hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig), HAL_CRYPTO_BAD_KEY);
	v = vector(0);
	v.key[0] = 0x02; /* a compressed point's tag on an uncompressed point's bytes */
	assert_int_equal(hal_crypto_ecdsa_p256_verify(v.key, v.hash, v.sig), HAL_CRYPTO_BAD_KEY);
	uint8_t zeros[65] = {0x04};
	v = vector(0);
	assert_int_equal(hal_crypto_ecdsa_p256_verify(zeros, v.hash, v.sig), HAL_CRYPTO_BAD_KEY);
}

static void test_the_typical_signed_package(void **state)
{
	(void)state;
	static uint8_t pkg[VECTOR_PACKAGE_SIZE];
	vector_package(pkg);
	/* The committed signature is what the recipe gives. */
	test_signer_t signer;
	assert_int_equal(test_signer_from_scalar(&signer, vector_private_key), 0);
	assert_memory_equal(signer.pub, vector_public_key, 65);
	size_t len;
	uint8_t *again = test_signer_sign(&signer, pkg, RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE, &len);
	assert_non_null(again);
	assert_int_equal(len, VECTOR_PACKAGE_SIZE);
	assert_memory_equal(again + RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE, pkg + RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE,
			    RT_PACKAGE_SIG_SIZE);
	free(again);
	test_signer_free(&signer);

	rt_package_t checked = vector_checked(pkg);
	char msg[200] = "";
	rt_signature_forget_all();
	assert_int_equal(rt_signature_trust(vector_public_key), 0);
	assert_int_equal(rt_signature_check(pkg, &checked, msg, sizeof(msg)), RT_SIGNATURE_OK);
	pkg[RT_PACKAGE_HEADER_SIZE + 4000] ^= 0x10;
	assert_int_equal(rt_signature_check(pkg, &checked, msg, sizeof(msg)), RT_SIGNATURE_INVALID);
	rt_signature_forget_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_known_answers),
		cmocka_unit_test(test_rfc6979_signatures_verify),
		cmocka_unit_test(test_every_flipped_bit_is_refused),
		cmocka_unit_test(test_out_of_range_signatures_are_refused),
		cmocka_unit_test(test_keys_off_the_curve_are_refused_as_keys),
		cmocka_unit_test(test_the_typical_signed_package),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* App packages: a good one loads; any damage or a mismatch is refused with a clear reason.
 * Signed packages: the block's layout is checked with the package, the signature against the
 * trusted keys (rt_signature.h); libsodium signs here as `beacon build --sign` does in node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "engine.h"
#include "rt_package.h"
#include "rt_signature.h"

#define API_0_2_6 0x000206u

static const uint8_t code[] = "not really bytecode, but the package does not look inside";

static uint8_t *make(size_t *len)
{
	uint8_t *pkg = rt_package_build(API_0_2_6, code, sizeof(code), 1234, len);
	assert_non_null(pkg);
	return pkg;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* Rewrite a header field and fix the CRC, as a tool for another engine or firmware would. */
static void set_field(uint8_t *pkg, size_t len, size_t offset, uint32_t value)
{
	put32(pkg + offset, value);
	uint32_t crc = rt_crc32(0, pkg, 36);
	crc = rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
	put32(pkg + 36, crc);
}

static void test_good_package_loads(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_OK);
	assert_int_equal(out.api_version, API_0_2_6);
	assert_int_equal(out.bytecode_size, sizeof(code));
	assert_int_equal(out.source_size, 1234);
	assert_memory_equal(out.bytecode, code, sizeof(code));
	free(pkg);
}

static void test_every_bit_flip_is_refused(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	for (size_t bit = 0; bit < len * 8; bit++) {
		pkg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		rt_package_t out;
		char msg[200] = "";
		rt_package_status_t st = rt_package_check(pkg, len, &out, msg, sizeof(msg));
		if (st == RT_PACKAGE_OK) {
			fail_msg("flipping bit %zu was not noticed", bit);
		}
		assert_true(strlen(msg) > 0);
		pkg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	free(pkg);
}

static void test_every_truncation_is_refused(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	for (size_t n = 0; n < len; n++) {
		rt_package_t out;
		char msg[200] = "";
		if (rt_package_check(pkg, n, &out, msg, sizeof(msg)) == RT_PACKAGE_OK) {
			fail_msg("a package cut to %zu of %zu bytes was accepted", n, len);
		}
	}
	free(pkg);
}

static void test_mismatches_say_why(void **state)
{
	static const struct {
		size_t offset;
		uint32_t value;
		rt_package_status_t status;
		const char *says;
	} cases[] = {
		{12, 0x77, RT_PACKAGE_WRONG_ENGINE, "built for an unknown engine"},
		{16, 99999, RT_PACKAGE_WRONG_ENGINE_VERSION, "9.99.99"},
		{20, 0x1234, RT_PACKAGE_WRONG_ENGINE_CONFIG, "configured differently"},
		{8, 0x000301, RT_PACKAGE_UNKNOWN_API, "API 0.3.1"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *pkg = make(&len);
		set_field(pkg, len, cases[i].offset, cases[i].value);
		rt_package_t out;
		char msg[200] = "";
		assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), cases[i].status);
		if (strstr(msg, cases[i].says) == NULL) {
			fail_msg("message '%s' does not say '%s'", msg, cases[i].says);
		}
		free(pkg);
	}
}

static void test_other_engine_is_named(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	uint32_t other = eng_id() == ENG_ID_DUKTAPE ? ENG_ID_JERRYSCRIPT : ENG_ID_DUKTAPE;
	set_field(pkg, len, 12, other);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_WRONG_ENGINE);
	assert_non_null(strstr(msg, other == ENG_ID_DUKTAPE ? "built for Duktape" : "built for JerryScript"));
	free(pkg);
}

static void fix_crc(uint8_t *pkg, size_t len)
{
	uint32_t crc = rt_crc32(0, pkg, 36);
	crc = rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
	put32(pkg + 36, crc);
}

typedef struct {
	uint8_t pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t sk[crypto_sign_SECRETKEYBYTES];
} keypair_t;

static keypair_t new_keys(void)
{
	keypair_t k;
	assert_true(sodium_init() >= 0);
	crypto_sign_keypair(k.pk, k.sk);
	return k;
}

/* A package signed as rt_package.h describes: flag, block, signature of the SHA-256 digest. */
static uint8_t *make_signed(const keypair_t *k, size_t *len)
{
	size_t plain_len;
	uint8_t *plain = make(&plain_len);
	*len = plain_len + RT_PACKAGE_SIG_SIZE;
	uint8_t *pkg = malloc(*len);
	assert_non_null(pkg);
	memcpy(pkg, plain, plain_len);
	free(plain);
	put32(pkg + 32, RT_PACKAGE_FLAG_SIGNED);
	uint8_t digest[32];
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, pkg, RT_PACKAGE_SIGNED_HEADER_BYTES);
	crypto_hash_sha256_update(&st, pkg + RT_PACKAGE_HEADER_SIZE, sizeof(code));
	crypto_hash_sha256_final(&st, digest);
	uint8_t *sig = pkg + plain_len;
	memcpy(sig, RT_PACKAGE_SIG_MAGIC, 4);
	sig[4] = RT_PACKAGE_SIG_ALG_ED25519_SHA256;
	sig[5] = 0;
	sig[6] = RT_PACKAGE_SIG_SIZE;
	sig[7] = 0;
	memcpy(sig + RT_PACKAGE_SIG_KEY_OFFSET, k->pk, RT_PACKAGE_SIG_KEY_SIZE);
	crypto_sign_detached(sig + RT_PACKAGE_SIG_SIGNATURE_OFFSET, NULL, digest, sizeof(digest), k->sk);
	fix_crc(pkg, *len);
	return pkg;
}

/* Both checks, as rt_app_install makes them. */
static bool accepted(const uint8_t *pkg, size_t len, char *msg, size_t cap)
{
	rt_package_t out;
	return rt_package_check(pkg, len, &out, msg, cap) == RT_PACKAGE_OK &&
	       rt_signature_check(pkg, &out, msg, cap) == RT_SIGNATURE_OK;
}

static void test_signed_package_layout(void **state)
{
	keypair_t k = new_keys();
	size_t len;
	uint8_t *pkg = make_signed(&k, &len);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_OK);
	assert_ptr_equal(out.signature, pkg + RT_PACKAGE_HEADER_SIZE + sizeof(code));
	assert_memory_equal(out.signature + RT_PACKAGE_SIG_KEY_OFFSET, k.pk, 32);

	/* A block that is not one, an unknown algorithm, a flag without a block. */
	uint8_t *bad = malloc(len);
	assert_non_null(bad);
	memcpy(bad, pkg, len);
	bad[len - RT_PACKAGE_SIG_SIZE] = 'X';
	fix_crc(bad, len);
	assert_int_equal(rt_package_check(bad, len, &out, msg, sizeof(msg)), RT_PACKAGE_BAD_SIGNATURE_BLOCK);
	assert_non_null(strstr(msg, "no signature block where its header says one is"));
	memcpy(bad, pkg, len);
	bad[len - RT_PACKAGE_SIG_SIZE + 4] = 7;
	fix_crc(bad, len);
	assert_int_equal(rt_package_check(bad, len, &out, msg, sizeof(msg)), RT_PACKAGE_BAD_SIGNATURE_BLOCK);
	assert_non_null(strstr(msg, "algorithm 7"));
	memcpy(bad, pkg, len - RT_PACKAGE_SIG_SIZE);
	fix_crc(bad, len - RT_PACKAGE_SIG_SIZE);
	assert_int_equal(rt_package_check(bad, len - RT_PACKAGE_SIG_SIZE, &out, msg, sizeof(msg)),
			 RT_PACKAGE_TRUNCATED);
	assert_non_null(strstr(msg, "and a 104-byte signature"));
	free(bad);
	free(pkg);
}

static void test_unknown_flags_are_refused(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	set_field(pkg, len, 32, 0x80000000u);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_UNKNOWN_FLAGS);
	assert_non_null(strstr(msg, "flags 80000000"));
	free(pkg);
}

static void test_trust_decides(void **state)
{
	keypair_t k = new_keys(), other = new_keys();
	size_t slen, ulen;
	uint8_t *signed_pkg = make_signed(&k, &slen);
	uint8_t *unsigned_pkg = make(&ulen);
	char msg[200] = "";
	rt_signature_forget_all();
	/* No key trusted: anything intact runs. */
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));
	assert_true(accepted(unsigned_pkg, ulen, msg, sizeof(msg)));

	assert_int_equal(rt_signature_trust(other.pk), 0);
	assert_false(accepted(signed_pkg, slen, msg, sizeof(msg)));
	char id[17];
	snprintf(id, sizeof(id), "%02x%02x%02x%02x%02x%02x%02x%02x", k.pk[0], k.pk[1], k.pk[2], k.pk[3],
		 k.pk[4], k.pk[5], k.pk[6], k.pk[7]);
	assert_non_null(strstr(msg, id));
	assert_non_null(strstr(msg, "does not trust"));
	assert_false(accepted(unsigned_pkg, ulen, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "is not signed"));

	assert_int_equal(rt_signature_trust(k.pk), 0);
	assert_int_equal(rt_signature_trust(k.pk), 0); /* twice is harmless */
	assert_int_equal(rt_signature_trusted_count(), 2);
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));

	/* Changed after signing, the CRC made to match: the signature catches it. */
	for (size_t off = 0; off < slen - RT_PACKAGE_SIG_SIZE + RT_PACKAGE_SIG_SIGNATURE_OFFSET + 64; off++) {
		if ((off >= 36 && off < 40) ||
		    (off >= slen - RT_PACKAGE_SIG_SIZE && off < slen - RT_PACKAGE_SIG_SIZE + 8)) {
			continue; /* the CRC itself; the block's own layout (checked above) */
		}
		if (off >= slen) {
			break;
		}
		signed_pkg[off] ^= 0x01;
		fix_crc(signed_pkg, slen);
		if (accepted(signed_pkg, slen, msg, sizeof(msg))) {
			fail_msg("a change of byte %zu after signing was accepted", off);
		}
		signed_pkg[off] ^= 0x01;
	}
	fix_crc(signed_pkg, slen);
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));

	rt_signature_forget_all();
	assert_int_equal(rt_signature_trusted_count(), 0);
	free(signed_pkg);
	free(unsigned_pkg);
}

static void test_trust_list_is_bounded(void **state)
{
	rt_signature_forget_all();
	uint8_t key[32] = {0};
	for (unsigned i = 0; i < RT_SIGNATURE_MAX_KEYS; i++) {
		key[0] = (uint8_t)i;
		assert_int_equal(rt_signature_trust(key), 0);
	}
	key[0] = 0xff;
	assert_int_equal(rt_signature_trust(key), -1);
	rt_signature_forget_all();
}

static void test_not_a_package(void **state)
{
	uint8_t junk[64];
	memset(junk, 'x', sizeof(junk));
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(junk, sizeof(junk), &out, msg, sizeof(msg)),
			 RT_PACKAGE_BAD_MAGIC);
	assert_int_equal(rt_package_check(junk, 3, &out, msg, sizeof(msg)), RT_PACKAGE_TRUNCATED);
}

static void test_trust_list_from_config(void **state)
{
	static const char key_a[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	static const char key_b[] = "FFEEDDCCBBAA99887766554433221100FFEEDDCCBBAA99887766554433221100";
	char list[200];
	rt_signature_forget_all();
	assert_int_equal(rt_signature_trust_list(""), 0);
	assert_int_equal(rt_signature_trusted_count(), 0);
	snprintf(list, sizeof(list), " %s, %s\n", key_a, key_b);
	assert_int_equal(rt_signature_trust_list(list), 2);
	assert_int_equal(rt_signature_trusted_count(), 2);
	/* One malformed entry (too short, bad digit, too long) trusts nothing of its list. */
	rt_signature_forget_all();
	snprintf(list, sizeof(list), "%s %.62s", key_a, key_b);
	assert_int_equal(rt_signature_trust_list(list), -1);
	snprintf(list, sizeof(list), "%s %.63sg", key_a, key_b);
	assert_int_equal(rt_signature_trust_list(list), -1);
	snprintf(list, sizeof(list), "%s %s0", key_a, key_b);
	assert_int_equal(rt_signature_trust_list(list), -1);
	assert_int_equal(rt_signature_trusted_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_package_loads),
		cmocka_unit_test(test_every_bit_flip_is_refused),
		cmocka_unit_test(test_every_truncation_is_refused),
		cmocka_unit_test(test_mismatches_say_why),
		cmocka_unit_test(test_other_engine_is_named),
		cmocka_unit_test(test_not_a_package),
		cmocka_unit_test(test_signed_package_layout),
		cmocka_unit_test(test_unknown_flags_are_refused),
		cmocka_unit_test(test_trust_decides),
		cmocka_unit_test(test_trust_list_is_bounded),
		cmocka_unit_test(test_trust_list_from_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

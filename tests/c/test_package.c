/* App packages: a good one loads; any damage or a mismatch is refused with a clear reason.
 * Signed packages: the block's layout is checked with the package, the signature against the
 * trusted keys (rt_signature.h); Mbed TLS signs here (test_signer.h) as `beacon build --sign`
 * does in node. Packages signed with the retired Ed25519 block are refused with a message to
 * sign them again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "test_signer.h"

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

static test_signer_t new_keys(void)
{
	test_signer_t k;
	assert_int_equal(test_signer_new(&k), 0);
	return k;
}

/* A package signed as rt_package.h describes: flag, block, ECDSA signature. */
static uint8_t *make_signed(const test_signer_t *k, size_t *len)
{
	size_t plain_len;
	uint8_t *plain = make(&plain_len);
	uint8_t *pkg = test_signer_sign(k, plain, plain_len, len);
	assert_non_null(pkg);
	free(plain);
	return pkg;
}

/* A package signed the retired way (algorithm 1: a 104-byte block, an Ed25519 key and
 * signature), as `beacon build --sign` wrote them before. The key and signature bytes do not
 * matter: the algorithm alone refuses it. */
static uint8_t *make_ed25519_signed(size_t *len)
{
	size_t plain_len;
	uint8_t *plain = make(&plain_len);
	*len = plain_len + RT_PACKAGE_SIG_ED25519_SIZE;
	uint8_t *pkg = malloc(*len);
	assert_non_null(pkg);
	memcpy(pkg, plain, plain_len);
	free(plain);
	put32(pkg + 32, RT_PACKAGE_FLAG_SIGNED | RT_PACKAGE_FLAG_PARITY);
	uint8_t *sig = pkg + plain_len;
	memset(sig, 0xa5, RT_PACKAGE_SIG_ED25519_SIZE);
	memcpy(sig, RT_PACKAGE_SIG_MAGIC, 4);
	sig[4] = RT_PACKAGE_SIG_ALG_ED25519_SHA256;
	sig[5] = 0;
	sig[6] = RT_PACKAGE_SIG_ED25519_SIZE;
	sig[7] = 0;
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
	test_signer_t k = new_keys();
	size_t len;
	uint8_t *pkg = make_signed(&k, &len);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(len, RT_PACKAGE_HEADER_SIZE + sizeof(code) + 136);
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_OK);
	assert_ptr_equal(out.signature, pkg + RT_PACKAGE_HEADER_SIZE + sizeof(code));
	assert_memory_equal(out.signature, "BSIG\x02\x00\x88\x00", 8);
	assert_memory_equal(out.signature + RT_PACKAGE_SIG_KEY_OFFSET, k.pub + 1, 64);

	/* A block that is not one, an unknown algorithm, a size field that disagrees with the
	 * file, a flag without a block. */
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
	memcpy(bad, pkg, len);
	bad[len - RT_PACKAGE_SIG_SIZE + 6] = 200;
	fix_crc(bad, len);
	assert_int_equal(rt_package_check(bad, len, &out, msg, sizeof(msg)), RT_PACKAGE_TRUNCATED);
	assert_non_null(strstr(msg, "and a 200-byte signature"));
	memcpy(bad, pkg, len - 1);
	fix_crc(bad, len - 1);
	assert_int_equal(rt_package_check(bad, len - 1, &out, msg, sizeof(msg)), RT_PACKAGE_TRUNCATED);
	assert_non_null(strstr(msg, "and a 136-byte signature"));
	memcpy(bad, pkg, len - RT_PACKAGE_SIG_SIZE);
	fix_crc(bad, len - RT_PACKAGE_SIG_SIZE);
	assert_int_equal(rt_package_check(bad, len - RT_PACKAGE_SIG_SIZE, &out, msg, sizeof(msg)),
			 RT_PACKAGE_TRUNCATED);
	assert_non_null(strstr(msg, "and a signature"));
	free(bad);
	free(pkg);
	test_signer_free(&k);
}

/* Every cut of a signed package, the block's header included, is refused. */
static void test_every_truncation_of_a_signed_package_is_refused(void **state)
{
	test_signer_t k = new_keys();
	size_t len;
	uint8_t *pkg = make_signed(&k, &len);
	for (size_t n = 0; n < len; n++) {
		rt_package_t out;
		char msg[200] = "";
		if (rt_package_check(pkg, n, &out, msg, sizeof(msg)) == RT_PACKAGE_OK) {
			fail_msg("a signed package cut to %zu of %zu bytes was accepted", n, len);
		}
		assert_true(strlen(msg) > 0);
	}
	free(pkg);
	test_signer_free(&k);
}

/* A package signed with Ed25519 (the block of algorithm 1) is refused, keys trusted or not,
 * with a message that says to sign it again with a P-256 key; its key and signature are not read. */
static void test_ed25519_signed_package_is_refused_with_a_message_to_resign(void **state)
{
	test_signer_t k = new_keys();
	size_t len;
	uint8_t *pkg = make_ed25519_signed(&len);
	rt_package_t out;
	char msg[300] = "";
	rt_signature_forget_all();
	for (int trusting = 0; trusting < 2; trusting++) {
		assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)),
				 RT_PACKAGE_RETIRED_SIGNATURE);
		assert_string_equal(msg, "package is signed with Ed25519, which devices no longer accept: "
					 "re-sign it with a new P-256 key (beacon keygen)");
		assert_true(strlen(msg) < 120); /* whole in an SMP answer (rt_smp.c) */
		assert_int_equal(rt_signature_trust(k.pub), 0);
	}
	rt_signature_forget_all();
	/* Damaged, it is refused for the damage first. */
	pkg[50] ^= 1;
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_BAD_CRC);
	free(pkg);
	test_signer_free(&k);
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
	test_signer_t k = new_keys(), other = new_keys();
	size_t slen, ulen;
	uint8_t *signed_pkg = make_signed(&k, &slen);
	uint8_t *unsigned_pkg = make(&ulen);
	char msg[200] = "";
	rt_signature_forget_all();
	/* No key trusted: anything intact runs. */
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));
	assert_true(accepted(unsigned_pkg, ulen, msg, sizeof(msg)));

	assert_int_equal(rt_signature_trust(other.pub), 0);
	assert_false(accepted(signed_pkg, slen, msg, sizeof(msg)));
	char id[17];
	/* Keys are named by the first 8 bytes of X (the point's bytes 1..8). */
	snprintf(id, sizeof(id), "%02x%02x%02x%02x%02x%02x%02x%02x", k.pub[1], k.pub[2], k.pub[3],
		 k.pub[4], k.pub[5], k.pub[6], k.pub[7], k.pub[8]);
	assert_non_null(strstr(msg, id));
	assert_non_null(strstr(msg, "does not trust"));
	assert_false(accepted(unsigned_pkg, ulen, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "is not signed"));

	assert_int_equal(rt_signature_trust(k.pub), 0);
	assert_int_equal(rt_signature_trust(k.pub), 0); /* twice is harmless */
	assert_int_equal(rt_signature_trusted_count(), 2);
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));

	/* Any bit changed after signing, anywhere in the header, the bytecode or the signature
	 * block, the CRC made to match: refused. Where no other check looks (the bytecode, the
	 * source size, the signature's r and s), the signature is what refuses it; a changed key is
	 * one the device does not trust. */
	size_t block = slen - RT_PACKAGE_SIG_SIZE;
	for (size_t bit = 0; bit < slen * 8; bit++) {
		size_t off = bit / 8;
		if (off >= RT_PACKAGE_SIGNED_HEADER_BYTES && off < RT_PACKAGE_HEADER_SIZE) {
			continue; /* the CRC itself */
		}
		signed_pkg[off] ^= (uint8_t)(1u << (bit % 8));
		fix_crc(signed_pkg, slen);
		if (accepted(signed_pkg, slen, msg, sizeof(msg))) {
			fail_msg("bit %zu changed after signing was accepted", bit);
		}
		bool code_or_sig = (off >= RT_PACKAGE_HEADER_SIZE && off < block) ||
				   (off >= 28 && off < 32) || off >= block + RT_PACKAGE_SIG_SIGNATURE_OFFSET;
		bool key = off >= block + RT_PACKAGE_SIG_KEY_OFFSET && off < block + RT_PACKAGE_SIG_SIGNATURE_OFFSET;
		if (code_or_sig && strstr(msg, "does not verify with key") == NULL) {
			fail_msg("bit %zu: refused with '%s', not by the signature", bit, msg);
		}
		if (key && strstr(msg, "which this device does not trust") == NULL) {
			fail_msg("bit %zu of the key: refused with '%s'", bit, msg);
		}
		signed_pkg[off] ^= (uint8_t)(1u << (bit % 8));
	}
	fix_crc(signed_pkg, slen);
	assert_true(accepted(signed_pkg, slen, msg, sizeof(msg)));

	/* A flipped bit in the bytecode or the signature is the signature's to refuse. */
	signed_pkg[RT_PACKAGE_HEADER_SIZE + 3] ^= 0x40;
	fix_crc(signed_pkg, slen);
	assert_false(accepted(signed_pkg, slen, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "package signature does not verify with key"));
	assert_non_null(strstr(msg, id));
	signed_pkg[RT_PACKAGE_HEADER_SIZE + 3] ^= 0x40;
	signed_pkg[slen - 1] ^= 0x01;
	fix_crc(signed_pkg, slen);
	assert_false(accepted(signed_pkg, slen, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "the package was altered after it was signed"));
	signed_pkg[slen - 1] ^= 0x01;
	fix_crc(signed_pkg, slen);

	/* Signed by another key that put this key's point in the block: refused by the signature. */
	size_t olen;
	uint8_t *forged = make_signed(&other, &olen);
	memcpy(forged + olen - RT_PACKAGE_SIG_SIZE + RT_PACKAGE_SIG_KEY_OFFSET, k.pub + 1, 64);
	fix_crc(forged, olen);
	assert_false(accepted(forged, olen, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "does not verify"));
	free(forged);

	rt_signature_forget_all();
	assert_int_equal(rt_signature_trusted_count(), 0);
	free(signed_pkg);
	free(unsigned_pkg);
	test_signer_free(&k);
	test_signer_free(&other);
}

/* A trusted key that is no point of the curve (a typo in the configuration) verifies nothing,
 * and the message says so. */
static void test_trusted_key_off_the_curve(void **state)
{
	test_signer_t k = new_keys();
	size_t len;
	uint8_t *pkg = make_signed(&k, &len);
	uint8_t bent[RT_SIGNATURE_KEY_SIZE];
	memcpy(bent, k.pub, sizeof(bent));
	bent[64] ^= 0x01; /* Y changed: (X, Y') is not on the curve */
	/* The package names the bent key, so that trust finds it and verification meets it. */
	memcpy(pkg + len - RT_PACKAGE_SIG_SIZE + RT_PACKAGE_SIG_KEY_OFFSET, bent + 1, 64);
	fix_crc(pkg, len);
	char msg[200] = "";
	rt_signature_forget_all();
	assert_int_equal(rt_signature_trust(bent), 0);
	assert_false(accepted(pkg, len, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "is not a P-256 point: nothing verifies with it"));
	rt_signature_forget_all();
	free(pkg);
	test_signer_free(&k);
}

static void test_trust_list_is_bounded(void **state)
{
	rt_signature_forget_all();
	uint8_t key[RT_SIGNATURE_KEY_SIZE] = {0x04};
	for (unsigned i = 0; i < RT_SIGNATURE_MAX_KEYS; i++) {
		key[1] = (uint8_t)i;
		assert_int_equal(rt_signature_trust(key), 0);
	}
	key[1] = 0xff;
	assert_int_equal(rt_signature_trust(key), -1);
	rt_signature_forget_all();
	/* Only uncompressed points (0x04 first) are keys. */
	key[0] = 0x02;
	assert_int_equal(rt_signature_trust(key), -1);
	assert_int_equal(rt_signature_trusted_count(), 0);
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
	/* RFC 6979 A.2.5's P-256 key, and the curve's generator G (FIPS 186-4 D.1.2.3). */
	static const char key_a[] = "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
				    "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299";
	static const char key_b[] = "046B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"
				    "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5";
	static const char ed25519[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	char list[600], msg[300];
	rt_signature_forget_all();
	assert_int_equal(rt_signature_trust_list_msg("", msg, sizeof(msg)), 0);
	assert_int_equal(rt_signature_trusted_count(), 0);
	snprintf(list, sizeof(list), " %s,\n%s\n", key_a, key_b);
	assert_int_equal(rt_signature_trust_list_msg(list, msg, sizeof(msg)), 2);
	assert_int_equal(rt_signature_trusted_count(), 2);
	/* One malformed entry (too short, bad digit, too long, compressed, Ed25519) trusts nothing
	 * of its list, and the message names the entry. */
	char bad[6][300];
	snprintf(bad[0], sizeof(bad[0]), "%s %.128s", key_a, key_b);
	snprintf(bad[1], sizeof(bad[1]), "%s %.129sg", key_a, key_b);
	snprintf(bad[2], sizeof(bad[2]), "%s %s0", key_a, key_b);
	snprintf(bad[3], sizeof(bad[3]), "%s 03%s", key_a, key_b + 2);
	snprintf(bad[4], sizeof(bad[4]), "%s %s", key_a, ed25519);
	snprintf(bad[5], sizeof(bad[5]), "%s,,%s;", key_a, key_b);
	static const char *const says[] = {
		"trusted key 2 has 128 hex digits; a P-256 public key has 130 (04, then X and Y)",
		"trusted key 2: 'g' is not a hex digit",
		"trusted key 2 has 131 hex digits",
		"trusted key 2 does not start with 04",
		"trusted key 2 is an Ed25519 key (64 hex digits), which this firmware no longer takes: "
		"make a P-256 key with beacon keygen",
		"trusted key 2: ';' is not a hex digit",
	};
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++) {
		rt_signature_forget_all();
		assert_int_equal(rt_signature_trust_list_msg(bad[i], msg, sizeof(msg)), -1);
		if (strstr(msg, says[i]) == NULL) {
			fail_msg("list %zu: message '%s' does not say '%s'", i, msg, says[i]);
		}
		assert_int_equal(rt_signature_trusted_count(), 0);
	}
	/* The device's form logs the reason and trusts nothing. */
	assert_int_equal(rt_signature_trust_list(ed25519), -1);
	assert_int_equal(rt_signature_trusted_count(), 0);
	/* More than RT_SIGNATURE_MAX_KEYS distinct keys (syntactically; whether they are on the
	 * curve is the verifier's business). */
	char many[1400] = "";
	for (unsigned i = 0; i <= RT_SIGNATURE_MAX_KEYS; i++) {
		char entry[140];
		snprintf(entry, sizeof(entry), "04%02x%s ", i, key_a + 4);
		strncat(many, entry, sizeof(many) - strlen(many) - 1);
	}
	assert_int_equal(rt_signature_trust_list_msg(many, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "more than 8"));
	assert_int_equal(rt_signature_trusted_count(), 0);
	rt_signature_forget_all();
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
		cmocka_unit_test(test_every_truncation_of_a_signed_package_is_refused),
		cmocka_unit_test(test_ed25519_signed_package_is_refused_with_a_message_to_resign),
		cmocka_unit_test(test_unknown_flags_are_refused),
		cmocka_unit_test(test_trust_decides),
		cmocka_unit_test(test_trusted_key_off_the_curve),
		cmocka_unit_test(test_trust_list_is_bounded),
		cmocka_unit_test(test_trust_list_from_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

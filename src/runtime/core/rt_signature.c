#include "rt_signature.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hal_console.h"
#include "hal_crypto.h"
#include "rt_hex.h"

#define KEY_HEX_DIGITS (2u * RT_SIGNATURE_KEY_SIZE)
/* An Ed25519 key of the retired algorithm 1, as `beacon keygen` printed them. */
#define ED25519_KEY_HEX_DIGITS 64u

/* Trusted keys are held as the SHA-256 of their 65-byte point: 32 bytes each instead of 65, so
 * the table costs the RAM the Ed25519 keys did. A package's block carries the whole key; its
 * digest finds it here (SHA-256's collision resistance makes that the same as comparing keys),
 * and the block's key is then the one the signature is checked with. */
#define DIGEST_SIZE 32u

static uint8_t trusted[RT_SIGNATURE_MAX_KEYS][DIGEST_SIZE];
static size_t trusted_count;

static hal_crypto_result_t digest_of_point(const uint8_t point[RT_SIGNATURE_KEY_SIZE],
					   uint8_t out[DIGEST_SIZE])
{
	const hal_crypto_chunk_t chunk = {point, RT_SIGNATURE_KEY_SIZE};
	return hal_crypto_sha256(&chunk, 1, out);
}

static bool is_trusted(const uint8_t digest[DIGEST_SIZE])
{
	for (size_t i = 0; i < trusted_count; i++) {
		if (memcmp(trusted[i], digest, DIGEST_SIZE) == 0) {
			return true;
		}
	}
	return false;
}

static int trust_digest(const uint8_t digest[DIGEST_SIZE])
{
	if (is_trusted(digest)) {
		return 0;
	}
	if (trusted_count == RT_SIGNATURE_MAX_KEYS) {
		return -1;
	}
	memcpy(trusted[trusted_count++], digest, DIGEST_SIZE);
	return 0;
}

int rt_signature_trust(const uint8_t key[RT_SIGNATURE_KEY_SIZE])
{
	uint8_t digest[DIGEST_SIZE];
	if (key[0] != 0x04) {
		return -1;
	}
	if (digest_of_point(key, digest) != HAL_CRYPTO_OK) {
		return -2;
	}
	return trust_digest(digest);
}

static bool is_separator(char c)
{
	return c == ' ' || c == ',' || c == '\n' || c == '\r' || c == '\t';
}

int rt_signature_trust_list_msg(const char *list, char *msg, size_t msg_cap)
{
	uint8_t keys[RT_SIGNATURE_MAX_KEYS][RT_SIGNATURE_KEY_SIZE];
	size_t count = 0;
	const char *p = list;
	if (msg_cap > 0) {
		msg[0] = '\0';
	}
	/* Parse every entry first: a list with one bad entry trusts none of it. */
	for (;;) {
		while (is_separator(*p)) {
			p++;
		}
		if (*p == '\0') {
			break;
		}
		size_t n = 0;
		while (p[n] != '\0' && !is_separator(p[n])) {
			n++;
		}
		unsigned entry = (unsigned)count + 1u;
		if (count == RT_SIGNATURE_MAX_KEYS) {
			snprintf(msg, msg_cap, "trusted keys: more than %u", RT_SIGNATURE_MAX_KEYS);
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			if (rt_hex_digit(p[i]) < 0) {
				snprintf(msg, msg_cap, "trusted key %u: '%c' is not a hex digit", entry, p[i]);
				return -1;
			}
		}
		if (n == ED25519_KEY_HEX_DIGITS) {
			snprintf(msg, msg_cap,
				 "trusted key %u is an Ed25519 key (64 hex digits), which this firmware no longer "
				 "takes: make a P-256 key with beacon keygen and give its 130 hex digits", entry);
			return -1;
		}
		if (n != KEY_HEX_DIGITS) {
			snprintf(msg, msg_cap,
				 "trusted key %u has %zu hex digits; a P-256 public key has %u (04, then X and Y), "
				 "as beacon keygen prints it", entry, n, KEY_HEX_DIGITS);
			return -1;
		}
		if (p[0] != '0' || p[1] != '4') {
			snprintf(msg, msg_cap,
				 "trusted key %u does not start with 04: give the uncompressed P-256 point, as "
				 "beacon keygen prints it", entry);
			return -1;
		}
		for (size_t i = 0; i < RT_SIGNATURE_KEY_SIZE; i++) {
			keys[count][i] = (uint8_t)(rt_hex_digit(p[2 * i]) << 4 | rt_hex_digit(p[2 * i + 1]));
		}
		p += n;
		count++;
	}
	uint8_t digests[RT_SIGNATURE_MAX_KEYS][DIGEST_SIZE];
	size_t fresh = 0;
	for (size_t i = 0; i < count; i++) {
		if (digest_of_point(keys[i], digests[i]) != HAL_CRYPTO_OK) {
			snprintf(msg, msg_cap, "trusted keys given, but this firmware was built without ECDSA "
					       "P-256 and cannot check signatures");
			return -1;
		}
		bool seen = is_trusted(digests[i]);
		for (size_t j = 0; j < i && !seen; j++) {
			seen = memcmp(digests[j], digests[i], DIGEST_SIZE) == 0;
		}
		fresh += !seen;
	}
	if (trusted_count + fresh > RT_SIGNATURE_MAX_KEYS) {
		snprintf(msg, msg_cap, "trusted keys: more than %u", RT_SIGNATURE_MAX_KEYS);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		(void)trust_digest(digests[i]);
	}
	return (int)count;
}

int rt_signature_trust_list(const char *list)
{
	char msg[200];
	int n = rt_signature_trust_list_msg(list, msg, sizeof(msg));
	if (n < 0) {
		hal_log(HAL_LOG_ERROR, "%s", msg);
	}
	return n;
}

void rt_signature_forget_all(void)
{
	memset(trusted, 0, sizeof(trusted));
	trusted_count = 0;
}

size_t rt_signature_trusted_count(void)
{
	return trusted_count;
}

/* Keys are named by the first 8 bytes of X in hex, as `beacon keygen` and `beacon build` show
 * them. */
static void key_id(const uint8_t *xy, char out[17])
{
	rt_hex_encode(xy, 8, out);
}

rt_signature_status_t rt_signature_check(const uint8_t *package, const rt_package_t *pkg,
					 char *msg, size_t msg_cap)
{
	if (trusted_count == 0) {
		return RT_SIGNATURE_OK;
	}
	if (pkg->signature == NULL) {
		snprintf(msg, msg_cap, "package is not signed; this device runs only packages signed with a "
				       "trusted key (beacon build --sign)");
		return RT_SIGNATURE_UNSIGNED;
	}
	const uint8_t *block_key = pkg->signature + RT_PACKAGE_SIG_KEY_OFFSET;
	char id[17];
	key_id(block_key, id);
	uint8_t key[RT_SIGNATURE_KEY_SIZE];
	key[0] = 0x04;
	memcpy(key + 1, block_key, RT_PACKAGE_SIG_KEY_SIZE);
	uint8_t digest[DIGEST_SIZE];
	hal_crypto_result_t r = digest_of_point(key, digest);
	if (r == HAL_CRYPTO_OK && !is_trusted(digest)) {
		snprintf(msg, msg_cap, "package is signed with key %s, which this device does not trust", id);
		return RT_SIGNATURE_UNTRUSTED_KEY;
	}
	const hal_crypto_chunk_t signed_parts[] = {
		{package, RT_PACKAGE_SIGNED_HEADER_BYTES},
		{pkg->bytecode, pkg->bytecode_size},
	};
	if (r == HAL_CRYPTO_OK) {
		r = hal_crypto_sha256(signed_parts, 2, digest);
	}
	if (r == HAL_CRYPTO_OK) {
		r = hal_crypto_ecdsa_p256_verify(key, digest,
						 pkg->signature + RT_PACKAGE_SIG_SIGNATURE_OFFSET);
	}
	switch (r) {
	case HAL_CRYPTO_OK:
		return RT_SIGNATURE_OK;
	case HAL_CRYPTO_MISMATCH:
		snprintf(msg, msg_cap, "package signature does not verify with key %s: the package was "
				       "altered after it was signed", id);
		return RT_SIGNATURE_INVALID;
	case HAL_CRYPTO_BAD_KEY:
		snprintf(msg, msg_cap, "trusted key %s is not a P-256 point: nothing verifies with it (check "
				       "the trusted keys)", id);
		return RT_SIGNATURE_INVALID;
	case HAL_CRYPTO_UNSUPPORTED:
		snprintf(msg, msg_cap, "this firmware was built without ECDSA P-256 and cannot verify package "
				       "signatures");
		return RT_SIGNATURE_UNAVAILABLE;
	default:
		snprintf(msg, msg_cap, "package signature could not be checked (crypto library failure)");
		return RT_SIGNATURE_UNAVAILABLE;
	}
}

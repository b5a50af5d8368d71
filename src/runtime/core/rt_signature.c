#include "rt_signature.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hal_crypto.h"
#include "rt_hex.h"

static uint8_t trusted[RT_SIGNATURE_MAX_KEYS][RT_PACKAGE_SIG_KEY_SIZE];
static size_t trusted_count;

static bool is_trusted(const uint8_t *key)
{
	for (size_t i = 0; i < trusted_count; i++) {
		if (memcmp(trusted[i], key, RT_PACKAGE_SIG_KEY_SIZE) == 0) {
			return true;
		}
	}
	return false;
}

int rt_signature_trust(const uint8_t key[RT_PACKAGE_SIG_KEY_SIZE])
{
	if (is_trusted(key)) {
		return 0;
	}
	if (trusted_count == RT_SIGNATURE_MAX_KEYS) {
		return -1;
	}
	memcpy(trusted[trusted_count++], key, RT_PACKAGE_SIG_KEY_SIZE);
	return 0;
}

int rt_signature_trust_list(const char *list)
{
	uint8_t keys[RT_SIGNATURE_MAX_KEYS][RT_PACKAGE_SIG_KEY_SIZE];
	size_t count = 0;
	const char *p = list;
	/* Parse every entry first: a list with one bad entry trusts none of it. */
	for (;;) {
		while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t') {
			p++;
		}
		if (*p == '\0') {
			break;
		}
		if (count == RT_SIGNATURE_MAX_KEYS) {
			return -1;
		}
		for (size_t i = 0; i < RT_PACKAGE_SIG_KEY_SIZE; i++) {
			int hi = rt_hex_digit(p[2 * i]);
			int lo = hi < 0 ? -1 : rt_hex_digit(p[2 * i + 1]);
			if (lo < 0) {
				return -1;
			}
			keys[count][i] = (uint8_t)(hi << 4 | lo);
		}
		p += 2 * RT_PACKAGE_SIG_KEY_SIZE;
		if (*p != '\0' && *p != ' ' && *p != ',' && *p != '\n' && *p != '\t') {
			return -1; /* longer than a key */
		}
		count++;
	}
	if (trusted_count + count > RT_SIGNATURE_MAX_KEYS) {
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		rt_signature_trust(keys[i]);
	}
	return (int)count;
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

/* Keys are named by their first 8 bytes in hex, as `beacon keygen` and `beacon build` show them. */
static void key_id(const uint8_t *key, char out[17])
{
	rt_hex_encode(key, 8, out);
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
	const uint8_t *key = pkg->signature + RT_PACKAGE_SIG_KEY_OFFSET;
	char id[17];
	key_id(key, id);
	if (!is_trusted(key)) {
		snprintf(msg, msg_cap, "package is signed with key %s, which this device does not trust", id);
		return RT_SIGNATURE_UNTRUSTED_KEY;
	}
	const hal_crypto_chunk_t signed_parts[] = {
		{package, RT_PACKAGE_SIGNED_HEADER_BYTES},
		{pkg->bytecode, pkg->bytecode_size},
	};
	uint8_t digest[32];
	hal_crypto_result_t r = hal_crypto_sha256(signed_parts, 2, digest);
	if (r == HAL_CRYPTO_OK) {
		r = hal_crypto_ed25519_verify(key, digest, sizeof(digest),
					      pkg->signature + RT_PACKAGE_SIG_SIGNATURE_OFFSET);
	}
	switch (r) {
	case HAL_CRYPTO_OK:
		return RT_SIGNATURE_OK;
	case HAL_CRYPTO_MISMATCH:
		snprintf(msg, msg_cap, "package signature does not verify with key %s: the package was "
				       "altered after it was signed", id);
		return RT_SIGNATURE_INVALID;
	case HAL_CRYPTO_UNSUPPORTED:
		snprintf(msg, msg_cap, "this firmware was built without Ed25519 and cannot verify package "
				       "signatures");
		return RT_SIGNATURE_UNAVAILABLE;
	default:
		snprintf(msg, msg_cap, "package signature could not be checked (crypto library failure)");
		return RT_SIGNATURE_UNAVAILABLE;
	}
}

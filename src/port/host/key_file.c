#include "key_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/base64.h>
#include <psa/crypto.h>

#include "file_util.h"
#include "rt_hex.h"

/* DER of a P-256 SubjectPublicKeyInfo up to the point: SEQUENCE { SEQUENCE { OID id-ecPublicKey
 * (1.2.840.10045.2.1), OID prime256v1 (1.2.840.10045.3.1.7) }, BIT STRING (66 bytes: no unused
 * bits, then the 65-byte uncompressed point) } (RFC 5480). OpenSSL and node write exactly this. */
static const uint8_t p256_spki_prefix[26] = {0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
					     0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
					     0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00};
/* The same for an Ed25519 key (OID 1.3.101.112), the retired algorithm's. */
static const uint8_t ed25519_spki_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
						0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

#define PEM_BEGIN "-----BEGIN PUBLIC KEY-----"
#define PEM_END "-----END PUBLIC KEY-----"
#define RESIGN "make a P-256 key with 'beacon keygen' and sign the packages again with it"

/* Whether the point is one of the curve (PSA's import checks it as the verifier will). */
static bool on_curve(const uint8_t key[65])
{
	if (psa_crypto_init() != PSA_SUCCESS) {
		return true; /* cannot tell here; the verifier says so when it is used */
	}
	psa_key_attributes_t attributes = PSA_KEY_ATTRIBUTES_INIT;
	psa_set_key_type(&attributes, PSA_KEY_TYPE_ECC_PUBLIC_KEY(PSA_ECC_FAMILY_SECP_R1));
	psa_set_key_bits(&attributes, 256);
	psa_set_key_usage_flags(&attributes, PSA_KEY_USAGE_VERIFY_HASH);
	psa_set_key_algorithm(&attributes, PSA_ALG_ECDSA(PSA_ALG_SHA_256));
	psa_key_id_t id;
	psa_status_t st = psa_import_key(&attributes, key, 65, &id);
	psa_reset_key_attributes(&attributes);
	if (st == PSA_SUCCESS) {
		psa_destroy_key(id);
	}
	return st != PSA_ERROR_INVALID_ARGUMENT;
}

/* The key as hex text, the firmware's form: 130 digits, surrounded by white space only. */
static int read_hex(const char *path, const char *text, uint8_t key[65], char *msg, size_t msg_cap)
{
	const char *p = text + strspn(text, " \t\r\n");
	size_t n = 0;
	while (rt_hex_digit(p[n]) >= 0) {
		n++;
	}
	if (p[n + strspn(p + n, " \t\r\n")] != '\0' || (n != 130 && n != 64)) {
		snprintf(msg, msg_cap,
			 "%s is not a PEM public key nor 130 hex digits (make a key with 'beacon keygen')",
			 path);
		return -1;
	}
	if (n == 64) {
		snprintf(msg, msg_cap, "%s holds an Ed25519 key (64 hex digits), which is no longer used: " RESIGN,
			 path);
		return -1;
	}
	for (size_t i = 0; i < 65; i++) {
		key[i] = (uint8_t)(rt_hex_digit(p[2 * i]) << 4 | rt_hex_digit(p[2 * i + 1]));
	}
	if (key[0] != 0x04) {
		snprintf(msg, msg_cap, "%s: the key does not start with 04 (an uncompressed P-256 point)", path);
		return -1;
	}
	return 0;
}

static int read_pem(const char *path, const char *begin, uint8_t key[65], char *msg, size_t msg_cap)
{
	const char *end = strstr(begin, PEM_END);
	if (end == NULL) {
		snprintf(msg, msg_cap, "%s: the PEM block has no end line", path);
		return -1;
	}
	begin += strlen(PEM_BEGIN);
	/* Base64 with its line breaks taken out. Room for any public key one might mistake for ours
	 * (RSA-4096 is 550 bytes of DER), so the message can say what it is not. */
	char b64[1500];
	size_t b64_len = 0;
	for (const char *c = begin; c < end; c++) {
		if (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') {
			continue;
		}
		if (b64_len == sizeof(b64)) {
			snprintf(msg, msg_cap, "%s: the PEM block is too large for a public key", path);
			return -1;
		}
		b64[b64_len++] = *c;
	}
	uint8_t der[1024];
	size_t der_len = 0;
	if (mbedtls_base64_decode(der, sizeof(der), &der_len, (const unsigned char *)b64, b64_len) != 0) {
		snprintf(msg, msg_cap, "%s: the PEM block is damaged or not a public key", path);
		return -1;
	}
	if (der_len == sizeof(ed25519_spki_prefix) + 32 &&
	    memcmp(der, ed25519_spki_prefix, sizeof(ed25519_spki_prefix)) == 0) {
		snprintf(msg, msg_cap,
			 "%s is an Ed25519 key, which packages are no longer signed with: " RESIGN, path);
		return -1;
	}
	if (der_len != sizeof(p256_spki_prefix) + 65 ||
	    memcmp(der, p256_spki_prefix, sizeof(p256_spki_prefix)) != 0 ||
	    der[sizeof(p256_spki_prefix)] != 0x04) {
		snprintf(msg, msg_cap,
			 "%s is not an ECDSA P-256 public key (packages are signed with P-256: 'beacon keygen')",
			 path);
		return -1;
	}
	memcpy(key, der + sizeof(p256_spki_prefix), 65);
	return 0;
}

int key_file_read_p256_public(const char *path, uint8_t key[65], char *msg, size_t msg_cap)
{
	size_t len;
	/* file_read puts a NUL after the contents, so the text is searched as a C string. */
	char *text = (char *)file_read(path, &len);
	if (text == NULL) {
		snprintf(msg, msg_cap, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (strlen(text) != len) {
		snprintf(msg, msg_cap, "%s is not a public key (make one with 'beacon keygen')", path);
		free(text);
		return -1;
	}
	const char *begin = strstr(text, PEM_BEGIN);
	if (begin == NULL && strstr(text, "PRIVATE KEY-----") != NULL) {
		snprintf(msg, msg_cap, "%s is a private key; devices trust the public key (the .pub file)",
			 path);
		free(text);
		return -1;
	}
	int rc = begin != NULL ? read_pem(path, begin, key, msg, msg_cap)
			       : read_hex(path, text, key, msg, msg_cap);
	free(text);
	if (rc == 0 && !on_curve(key)) {
		snprintf(msg, msg_cap, "%s: the key is not a point of the P-256 curve", path);
		rc = -1;
	}
	return rc;
}

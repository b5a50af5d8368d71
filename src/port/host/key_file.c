#include "key_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "file_util.h"

/* DER of an Ed25519 SubjectPublicKeyInfo up to the key: SEQUENCE { SEQUENCE { OID 1.3.101.112 },
 * BIT STRING (33 bytes: no unused bits, then the key) }. */
static const uint8_t ed25519_spki_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
						0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

#define PEM_BEGIN "-----BEGIN PUBLIC KEY-----"
#define PEM_END "-----END PUBLIC KEY-----"

int key_file_read_ed25519_public(const char *path, uint8_t key[32], char *msg, size_t msg_cap)
{
	size_t len;
	/* file_read puts a NUL after the contents, so the text is searched as a C string. */
	char *text = (char *)file_read(path, &len);
	if (text == NULL) {
		snprintf(msg, msg_cap, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}

	int rc = -1;
	char *begin = strstr(text, PEM_BEGIN);
	char *end = begin != NULL ? strstr(begin, PEM_END) : NULL;
	if (begin == NULL || end == NULL) {
		snprintf(msg, msg_cap, "%s is not a PEM public key (make one with 'beacon keygen')", path);
		goto out;
	}
	begin += strlen(PEM_BEGIN);
	/* Room for any public key one might mistake for ours (RSA-4096 is 550 bytes), so the
	 * message can say what it is not. */
	uint8_t der[1024];
	size_t der_len = 0;
	if (sodium_init() < 0 ||
	    sodium_base642bin(der, sizeof(der), begin, (size_t)(end - begin), " \t\r\n", &der_len, NULL,
			      sodium_base64_VARIANT_ORIGINAL) != 0) {
		snprintf(msg, msg_cap, "%s: the PEM block is damaged or not a public key", path);
		goto out;
	}
	if (der_len != sizeof(ed25519_spki_prefix) + 32 ||
	    memcmp(der, ed25519_spki_prefix, sizeof(ed25519_spki_prefix)) != 0) {
		snprintf(msg, msg_cap, "%s is not an Ed25519 public key (packages are signed with Ed25519)", path);
		goto out;
	}
	memcpy(key, der + sizeof(ed25519_spki_prefix), 32);
	rc = 0;
out:
	free(text);
	return rc;
}

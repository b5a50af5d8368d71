/*
 * rt_signature.h: which package signatures the device accepts.
 *
 * With no key trusted (the default) every package that passes rt_package_check() may run, signed
 * or not. Once a key is trusted, a package runs only when it carries a signature block whose
 * key is trusted and whose signature verifies (layout in rt_package.h); otherwise it is refused
 * with a message that says which of these it was.
 *
 * Keys are ECDSA P-256 (secp256r1) public keys, given as SEC1's uncompressed point: the byte 0x04,
 * then X and Y, 32 bytes each, big-endian (65 bytes; 130 hex digits starting "04" in the
 * firmware's CONFIG_BEACON_TRUSTED_KEYS, as `beacon keygen` prints them). The PSA Crypto API
 * imports public keys in this form, and `openssl ec -pubin -text` shows it as "pub:". A key is
 * named in messages by the first 8 bytes of X in hex (`beacon keygen` and `beacon build` show the
 * same id).
 */
#ifndef RT_SIGNATURE_H
#define RT_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_package.h"

#define RT_SIGNATURE_MAX_KEYS 8u
#define RT_SIGNATURE_KEY_SIZE 65u /* 0x04 || X || Y */

typedef enum {
	RT_SIGNATURE_OK = 0,
	RT_SIGNATURE_UNSIGNED,      /* keys are trusted and the package has no signature */
	RT_SIGNATURE_UNTRUSTED_KEY, /* signed with a key that is not trusted */
	RT_SIGNATURE_INVALID,       /* the signature does not verify: altered after signing */
	RT_SIGNATURE_UNAVAILABLE,   /* this build cannot verify signatures */
} rt_signature_status_t;

/* Trust a public key (RT_SIGNATURE_KEY_SIZE bytes, above). Returns 0; -1 when it is not an
 * uncompressed point (its first byte is not 0x04) or RT_SIGNATURE_MAX_KEYS are trusted already;
 * -2 when this build has no SHA-256 (hal_crypto.h), by which trusted keys are held. Trusting a
 * key twice is harmless. Whether the point is on the curve is checked when it verifies a
 * signature (a key that is not refuses every package, saying so). */
int rt_signature_trust(const uint8_t key[RT_SIGNATURE_KEY_SIZE]);
/* Trust every key of a list of hex public keys (130 hex digits each, "04" first) separated by
 * spaces, commas or line breaks, as the firmware's CONFIG_BEACON_TRUSTED_KEYS gives them. Returns
 * how many keys the list holds, or -1, trusting none of them, when an entry is malformed (an
 * Ed25519 key of the package format's algorithm 1 among them) or there are too many; then msg
 * says which entry and why. */
int rt_signature_trust_list_msg(const char *list, char *msg, size_t msg_cap);
/* The same, the reason of a refusal logged as an error (hal_log). */
int rt_signature_trust_list(const char *list);
/* Trust no key any more: unsigned packages run again. */
void rt_signature_forget_all(void);
size_t rt_signature_trusted_count(void);

/* Check a package that rt_package_check() accepted (pkg) against the trusted keys; `package`
 * is the whole checked buffer. On refusal writes a message for the user. */
rt_signature_status_t rt_signature_check(const uint8_t *package, const rt_package_t *pkg,
					 char *msg, size_t msg_cap);

#endif /* RT_SIGNATURE_H */

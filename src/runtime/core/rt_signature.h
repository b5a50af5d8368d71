/*
 * rt_signature.h: which package signatures the device accepts.
 *
 * With no key trusted (the default) every package that passes rt_package_check() may run, signed
 * or not. Once a key is trusted, a package runs only when it carries a signature block whose
 * key is trusted and whose signature verifies (layout in rt_package.h); otherwise it is refused
 * with a message that says which of these it was.
 */
#ifndef RT_SIGNATURE_H
#define RT_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_package.h"

#define RT_SIGNATURE_MAX_KEYS 8u

typedef enum {
	RT_SIGNATURE_OK = 0,
	RT_SIGNATURE_UNSIGNED,      /* keys are trusted and the package has no signature */
	RT_SIGNATURE_UNTRUSTED_KEY, /* signed with a key that is not trusted */
	RT_SIGNATURE_INVALID,       /* the signature does not verify: altered after signing */
	RT_SIGNATURE_UNAVAILABLE,   /* this build cannot verify signatures */
} rt_signature_status_t;

/* Trust a public key (32 bytes, Ed25519). Returns 0, or -1 when RT_SIGNATURE_MAX_KEYS are
 * trusted already. Trusting a key twice is harmless. */
int rt_signature_trust(const uint8_t key[RT_PACKAGE_SIG_KEY_SIZE]);
/* Trust every key of a list of hex public keys (64 hex digits each) separated by spaces or
 * commas, as the firmware's CONFIG_BEACON_TRUSTED_KEYS gives them. Returns how many keys the
 * list holds, or -1, trusting none of them, when an entry is malformed or there are too many. */
int rt_signature_trust_list(const char *list);
/* Trust no key any more: unsigned packages run again. */
void rt_signature_forget_all(void);
size_t rt_signature_trusted_count(void);

/* Check a package that rt_package_check() accepted (pkg) against the trusted keys; `package`
 * is the whole checked buffer. On refusal writes a message for the user. */
rt_signature_status_t rt_signature_check(const uint8_t *package, const rt_package_t *pkg,
					 char *msg, size_t msg_cap);

#endif /* RT_SIGNATURE_H */

/*
 * key_file.h: reading the public keys the simulator trusts (beacon-sim --trust key.pub), as
 * `beacon keygen` writes them: PEM "PUBLIC KEY" (SubjectPublicKeyInfo) holding an ECDSA P-256
 * key, the form OpenSSL also reads and writes (`openssl ec -pubout`). A file holding the key as
 * the firmware's CONFIG_BEACON_TRUSTED_KEYS takes it (130 hex digits, "04" first) is read too.
 */
#ifndef KEY_FILE_H
#define KEY_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Read the P-256 public key in `path` into key as SEC1's uncompressed point (0x04 || X || Y).
 * Returns 0, or -1 with a message in msg (an Ed25519 key of the retired signature format is
 * refused with one that says to make a new key). */
int key_file_read_p256_public(const char *path, uint8_t key[65], char *msg, size_t msg_cap);

#endif /* KEY_FILE_H */

/*
 * key_file.h: reading the public keys the simulator trusts (beacon-sim --trust key.pub), as
 * `beacon keygen` writes them: PEM "PUBLIC KEY" (SubjectPublicKeyInfo) holding an Ed25519 key,
 * the form OpenSSL also reads and writes.
 */
#ifndef KEY_FILE_H
#define KEY_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Read the Ed25519 public key in `path` into key. Returns 0, or -1 with a message in msg. */
int key_file_read_ed25519_public(const char *path, uint8_t key[32], char *msg, size_t msg_cap);

#endif /* KEY_FILE_H */

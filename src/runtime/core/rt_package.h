/*
 * rt_package.h: the app package (.bapp), the unit that is built on a host, uploaded and
 * installed.
 *
 * Layout, all integers little-endian:
 *
 *   off size field
 *     0    4 magic "BAPP"
 *     4    2 format version (RT_PACKAGE_FORMAT)
 *     6    2 header size in bytes (40 for format 1)
 *     8    4 API version: major << 16 | minor << 8 | patch (0.2.6 is 0x000206)
 *    12    4 engine id (ENG_ID_*)
 *    16    4 engine version (major*10000 + minor*100 + patch)
 *    20    4 engine configuration hash (eng_config_hash())
 *    24    4 bytecode size
 *    28    4 ES5 source size (what the bytecode was compiled from; for size reports)
 *    32    4 flags (bit 0: a signature block follows the bytecode; bit 1: built for engine
 *            parity, below; other bits must be 0)
 *    36    4 CRC-32 (IEEE 802.3) of bytes 0..35 and everything after the header
 *    40    . bytecode
 *     .  136 signature block, when flag bit 0 is set:
 *            +0   4 magic "BSIG"
 *            +4   2 algorithm: 2 = ECDSA on P-256 (secp256r1) with SHA-256
 *            +6   2 block size in bytes (136 for algorithm 2)
 *            +8  64 the signer's public key: the P-256 point's X and Y, 32 bytes each, big-endian
 *                   (SEC1's uncompressed point without its leading 0x04)
 *           +72  64 the signature: r and s, 32 bytes each, big-endian (IEEE P1363, the form the
 *                   PSA Crypto API verifies; not DER), of the bytes 0..35 of the package (the
 *                   header without its CRC) followed by the bytecode, hashed with SHA-256
 *
 * Versioning. The format version changes only when the header changes for every package, so that
 * a reader of another format cannot read it at all. What only some packages carry and a reader
 * can recognise and refuse by itself is versioned where it is: a flag bit (a reader refuses a bit
 * it does not know) and the signature block's algorithm id and size (a reader refuses an
 * algorithm it does not know, or no longer accepts). So unsigned packages are format 1, byte for
 * byte as before, and run on every firmware.
 *
 * Signature algorithms:
 *   1  Ed25519 (RFC 8032, pure) of SHA-256(the same bytes), a 104-byte block (+8 the 32-byte key,
 *      +40 the 64-byte signature). Retired: upstream Zephyr's Mbed TLS has no EdDSA, so a firmware
 *      built from it could not verify it. rt_package_check() refuses such a package, trusted
 *      keys or not, with RT_PACKAGE_RETIRED_SIGNATURE and a message to sign it again with a
 *      P-256 key (`beacon keygen`, `beacon build --sign`).
 *   2  ECDSA P-256 with SHA-256, above: what MCUboot signs images with by default, the PSA Crypto
 *      API of upstream Mbed TLS verifies, and the nRF52840's and nRF9160's CryptoCell 310
 *      accelerates. A firmware from before algorithm 2 reads its 136-byte block as damaged
 *      ("header says N bytes of code and a 104-byte signature"): update the firmware.
 *
 * Engine parity (flag bit 1). Since it was set, the firmware's engine layer makes Duktape and
 * JerryScript behave alike and deterministically (src/engine/eng_*_parity.c: a stable sort that
 * is JerryScript's on both, Math.random seeded per device, exact number formatting, Date and
 * Function strings; docs/compiler.md "Two engines, one language"). beacon-pack sets the bit on
 * every package. A package without it, built before, still runs unchanged: its bytecode and header
 * are those of format 1, and the behaviour it gets is the engine layer's, which is the same for
 * every package. A firmware from before does not know the bit and refuses a package that has it
 * ("uses features this firmware does not know (flags 00000002)"), rather than running an app
 * built for stable sorting and seeded random numbers on an engine that has neither; update the
 * firmware (the app itself needs no change).
 *
 * A single CRC over header and body means every single-bit flip, any truncation and any
 * wrong header field is caught before a byte of bytecode reaches the engine.
 *
 * The signature covers the header (its flags included, so the block cannot be stripped unseen)
 * and the bytecode, but not the CRC, which covers the signature in turn. SHA-256 is computed over
 * the two pieces where they lie, so a package is verified in place (in flash), without a copy.
 * Which keys are trusted is the business of rt_signature.h; rt_package_check() checks the block's
 * layout and algorithm only.
 */
#ifndef RT_PACKAGE_H
#define RT_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_crc32.h"

#define RT_PACKAGE_MAGIC "BAPP"
#define RT_PACKAGE_FORMAT 1u
#define RT_PACKAGE_HEADER_SIZE 40u
#define RT_PACKAGE_FLAG_SIGNED 0x1u
#define RT_PACKAGE_FLAG_PARITY 0x2u
#define RT_PACKAGE_KNOWN_FLAGS (RT_PACKAGE_FLAG_SIGNED | RT_PACKAGE_FLAG_PARITY)

#define RT_PACKAGE_SIG_MAGIC "BSIG"
/* The block's own header: magic, algorithm, size. */
#define RT_PACKAGE_SIG_HEADER_SIZE 8u
#define RT_PACKAGE_SIG_ALG_ED25519_SHA256 1u /* retired: refused with a message to re-sign */
#define RT_PACKAGE_SIG_ED25519_SIZE 104u
#define RT_PACKAGE_SIG_ALG_ECDSA_P256_SHA256 2u
#define RT_PACKAGE_SIG_SIZE 136u
#define RT_PACKAGE_SIG_KEY_OFFSET 8u
#define RT_PACKAGE_SIG_KEY_SIZE 64u /* X || Y */
#define RT_PACKAGE_SIG_SIGNATURE_OFFSET 72u
#define RT_PACKAGE_SIG_SIGNATURE_SIZE 64u /* r || s */
/* Bytes of the header the signature covers (all but the CRC). */
#define RT_PACKAGE_SIGNED_HEADER_BYTES 36u

typedef struct {
	uint16_t format;
	uint16_t header_size;
	uint32_t api_version;
	uint32_t engine_id;
	uint32_t engine_version;
	uint32_t engine_config;
	uint32_t bytecode_size;
	uint32_t source_size;
	uint32_t flags;
	uint32_t crc;
	const uint8_t *bytecode;  /* points into the checked buffer */
	const uint8_t *signature; /* the signature block in the buffer, or NULL when unsigned */
} rt_package_t;

typedef enum {
	RT_PACKAGE_OK = 0,
	RT_PACKAGE_TRUNCATED,
	RT_PACKAGE_BAD_MAGIC,
	RT_PACKAGE_BAD_FORMAT,
	RT_PACKAGE_BAD_SIZE,
	RT_PACKAGE_BAD_CRC,
	RT_PACKAGE_WRONG_ENGINE,
	RT_PACKAGE_WRONG_ENGINE_VERSION,
	RT_PACKAGE_WRONG_ENGINE_CONFIG,
	RT_PACKAGE_UNKNOWN_API,
	RT_PACKAGE_UNKNOWN_FLAGS,
	RT_PACKAGE_BAD_SIGNATURE_BLOCK,
	RT_PACKAGE_RETIRED_SIGNATURE, /* signed with Ed25519 (algorithm 1): sign it again */
} rt_package_status_t;

/* Check a whole package: layout, CRC, engine identity and API version. On failure writes a
 * message for the user ("package was built for JerryScript 3.0.0; this firmware runs Duktape
 * 2.7.0") and leaves *out untouched. */
rt_package_status_t rt_package_check(const uint8_t *buf, size_t len, rt_package_t *out,
				     char *msg, size_t msg_cap);

/* Write a package around bytecode for this engine; returns the malloc'ed buffer and its size,
 * or NULL. */
uint8_t *rt_package_build(uint32_t api_version, const uint8_t *bytecode, size_t bytecode_len,
			  size_t source_size, size_t *out_len);

#endif /* RT_PACKAGE_H */

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
 *     .  104 signature block, when flag bit 0 is set:
 *            +0   4 magic "BSIG"
 *            +4   2 algorithm: 1 = Ed25519 (RFC 8032, pure) over a SHA-256 digest
 *            +6   2 block size in bytes (104)
 *            +8  32 the signer's Ed25519 public key
 *           +40  64 the signature of SHA-256(package bytes 0..35 || bytecode)
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
 * and the bytecode, but not the CRC, which covers the signature in turn. It signs a digest, as
 * MCUboot does for Ed25519 images, so a package is verified where it lies, in pieces, without a
 * copy. Which keys are trusted is the business of rt_signature.h; rt_package_check() checks the
 * block's layout only.
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
#define RT_PACKAGE_SIG_ALG_ED25519_SHA256 1u
#define RT_PACKAGE_SIG_SIZE 104u
#define RT_PACKAGE_SIG_KEY_OFFSET 8u
#define RT_PACKAGE_SIG_KEY_SIZE 32u
#define RT_PACKAGE_SIG_SIGNATURE_OFFSET 40u
#define RT_PACKAGE_SIG_SIGNATURE_SIZE 64u
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

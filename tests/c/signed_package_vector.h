/*
 * signed_package_vector.h: a typical signed package, the same on the host and on the device, for
 * the tests and figures of the signature check (tests/c/test_crypto.c, tests/zephyr-crypto).
 *
 * The package is the asset tracker's size: a 40-byte header, 8,513 bytes of "bytecode" from a
 * xorshift32 generator (the bytes do not matter to the signature's cost), and the 136-byte block
 * of rt_package.h, signed with RFC 6979's P-256 key (Appendix A.2.5, x = C9AFA9D8...120F6721)
 * by deterministic ECDSA (RFC 6979) with SHA-256, so the signature below is the only one that
 * recipe gives: test_crypto.c signs the package again and requires these bytes.
 */
#ifndef SIGNED_PACKAGE_VECTOR_H
#define SIGNED_PACKAGE_VECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rt_package.h"

#define VECTOR_CODE_SIZE 8513u
#define VECTOR_PACKAGE_SIZE (RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE + RT_PACKAGE_SIG_SIZE)

/* RFC 6979 A.2.5's key: the private scalar x and the public point U = xG (0x04 || Ux || Uy). */
static const uint8_t vector_private_key[32] = {
	0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
	0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21};
static const uint8_t vector_public_key[65] = {
	0x04, 0x60, 0xfe, 0xd4, 0xba, 0x25, 0x5a, 0x9d, 0x31, 0xc9, 0x61, 0xeb, 0x74, 0xc6, 0x35, 0x6d,
	0x68, 0xc0, 0x49, 0xb8, 0x92, 0x3b, 0x61, 0xfa, 0x6c, 0xe6, 0x69, 0x62, 0x2e, 0x60, 0xf2, 0x9f,
	0xb6, 0x79, 0x03, 0xfe, 0x10, 0x08, 0xb8, 0xbc, 0x99, 0xa4, 0x1a, 0xe9, 0xe9, 0x56, 0x28, 0xbc,
	0x64, 0xf2, 0xf1, 0xb2, 0x0c, 0x2d, 0x7e, 0x9f, 0x51, 0x77, 0xa3, 0xc2, 0x94, 0xd4, 0x46, 0x22,
	0x99};

/* The header: BAPP, format 1, 40 bytes, API 0.2.6, JerryScript 3.0.0 (engine id 2), configuration
 * hash 0, 8,513 bytes of code, 25,539 of source, flags signed | parity; the CRC (bytes 36..39,
 * which the signature does not cover) left 0. */
static const uint8_t vector_header[RT_PACKAGE_HEADER_SIZE] = {
	'B', 'A', 'P', 'P', 1, 0, 40, 0, 0x06, 0x02, 0x00, 0x00, 2, 0, 0, 0,
	0x30, 0x75, 0x00, 0x00, 0, 0, 0, 0, 0x41, 0x21, 0x00, 0x00, 0xc3, 0x63, 0x00, 0x00,
	3, 0, 0, 0, 0, 0, 0, 0};

/* r || s of the signature (OpenSSL verifies it too: node's crypto.verify with dsaEncoding
 * 'ieee-p1363'). */
static const uint8_t vector_signature[64] = {
	0xcd, 0x52, 0xfa, 0x0d, 0x33, 0x49, 0xd8, 0x55, 0x87, 0x0b, 0xbb, 0xb4, 0xe7, 0x8f, 0x8b, 0xb8,
	0xe1, 0x7e, 0xfc, 0x2b, 0x1e, 0xc5, 0xee, 0xbe, 0x14, 0x66, 0xcb, 0xce, 0x26, 0xe9, 0x10, 0xfa,
	0x40, 0x75, 0x9b, 0x8b, 0xbe, 0x3e, 0x3e, 0x97, 0x39, 0xc9, 0xf1, 0xd5, 0x57, 0xfb, 0x47, 0x07,
	0x0b, 0x82, 0x89, 0xeb, 0x70, 0xb4, 0x3e, 0x63, 0xd5, 0x74, 0x3f, 0x85, 0x15, 0x69, 0x81, 0xce};

/* The package into out (VECTOR_PACKAGE_SIZE bytes). */
static inline void vector_package(uint8_t *out)
{
	memcpy(out, vector_header, RT_PACKAGE_HEADER_SIZE);
	uint32_t x = 0x2545f491u;
	for (size_t i = 0; i < VECTOR_CODE_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		out[RT_PACKAGE_HEADER_SIZE + i] = (uint8_t)x;
	}
	uint8_t *block = out + RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE;
	memcpy(block, RT_PACKAGE_SIG_MAGIC, 4);
	block[4] = RT_PACKAGE_SIG_ALG_ECDSA_P256_SHA256;
	block[5] = 0;
	block[6] = (uint8_t)RT_PACKAGE_SIG_SIZE;
	block[7] = (uint8_t)(RT_PACKAGE_SIG_SIZE >> 8);
	memcpy(block + RT_PACKAGE_SIG_KEY_OFFSET, vector_public_key + 1, 64);
	memcpy(block + RT_PACKAGE_SIG_SIGNATURE_OFFSET, vector_signature, 64);
}

/* What rt_package_check() would hand rt_signature_check() for it (the header's engine is not
 * this firmware's, so the check itself is not asked). */
static inline rt_package_t vector_checked(const uint8_t *pkg)
{
	rt_package_t p;
	memset(&p, 0, sizeof(p));
	p.format = 1;
	p.header_size = RT_PACKAGE_HEADER_SIZE;
	p.api_version = 0x000206u;
	p.bytecode_size = VECTOR_CODE_SIZE;
	p.flags = RT_PACKAGE_FLAG_SIGNED | RT_PACKAGE_FLAG_PARITY;
	p.bytecode = pkg + RT_PACKAGE_HEADER_SIZE;
	p.signature = pkg + RT_PACKAGE_HEADER_SIZE + VECTOR_CODE_SIZE;
	return p;
}

#endif /* SIGNED_PACKAGE_VECTOR_H */

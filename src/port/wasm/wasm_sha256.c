/*
 * SHA-256 (FIPS 180-4) for the WebAssembly build of `beacon studio`, which has no Mbed TLS (see
 * wasm_hal.c): the hash the loopback cloud names a deployed package by and the device checks the
 * package it fetched against (world_cloud_deploy.c, rt_cloud_deploy.c), so a deployment runs in
 * the page as it does in beacon-sim. The same digests as Mbed TLS's (the deployment's trace
 * records, which name packages by it, equal beacon-sim's byte for byte).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hal_crypto.h"

static const uint32_t K[64] = {
	0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
	0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
	0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
	0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
	0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
	0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
	0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
	0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

typedef struct {
	uint32_t h[8];
	uint8_t block[64];
	size_t used;    /* bytes in block */
	uint64_t total; /* bytes hashed */
} sha256_t;

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32u - n));
}

static void compress(sha256_t *s, const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++) {
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
		       (uint32_t)p[4 * i + 3];
	}
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

static void update(sha256_t *s, const uint8_t *data, size_t len)
{
	s->total += len;
	while (len > 0) {
		size_t n = 64 - s->used < len ? 64 - s->used : len;
		memcpy(s->block + s->used, data, n);
		s->used += n;
		data += n;
		len -= n;
		if (s->used == 64) {
			compress(s, s->block);
			s->used = 0;
		}
	}
}

hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	sha256_t s = {{0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu,
		       0x1f83d9abu, 0x5be0cd19u},
		      {0},
		      0,
		      0};
	for (size_t i = 0; i < count; i++) {
		if (chunks[i].len > 0) {
			update(&s, chunks[i].data, chunks[i].len);
		}
	}
	uint64_t bits = s.total * 8u;
	uint8_t pad[72] = {0x80};
	size_t padlen = (s.used < 56 ? 56 : 120) - s.used;
	for (int i = 0; i < 8; i++) {
		pad[padlen + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
	}
	update(&s, pad, padlen + 8);
	for (int i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(s.h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(s.h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(s.h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)s.h[i];
	}
	return HAL_CRYPTO_OK;
}

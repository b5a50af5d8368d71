/*
 * eng_random.h: the generator behind Math.random, the same on both engines.
 *
 * xoshiro128** (Blackman and Vigna): 32-bit operations only (cheap on a Cortex-M), 16 bytes of
 * state per engine instance. Each instance is seeded once, when it is created, with 16 bytes from
 * eng_port_random(): the hardware's entropy on a device, the world's seed for that device and
 * boot in the simulator. So a device's sequence differs from every other device's and from its
 * previous boot's, a simulated run repeats exactly, and both engines draw the same numbers from
 * the same seed.
 */
#ifndef ENG_RANDOM_H
#define ENG_RANDOM_H

#include <stdint.h>

typedef struct {
	uint32_t s[4];
} eng_random_t;

/* Seed from 16 bytes (any bytes: an all-zero seed is replaced by a fixed non-zero state). */
void eng_random_seed(eng_random_t *r, const uint8_t seed[16]);
/* A double in [0, 1) with 53 random bits, as Math.random returns. */
double eng_random_double(eng_random_t *r);
/* Seed r from eng_port_random(). */
void eng_random_seed_from_port(eng_random_t *r);

#endif /* ENG_RANDOM_H */

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

/* Seed from 16 bytes (any bytes: they are spread over the state with splitmix64). */
void eng_random_seed(eng_random_t *r, const uint8_t seed[16]);
/* 31 random bits (0 .. ENG_RANDOM_MAX): what JerryScript's Math.random gets from rand(). */
#define ENG_RANDOM_MAX 2147483647u
uint32_t eng_random_u31(eng_random_t *r);
/* Math.random on both engines: JerryScript's formula over rand(), (r / M) * (M - 1) / M with
 * M = ENG_RANDOM_MAX (the C library's RAND_MAX on every target here), so both engines return
 * the same doubles from the same seed: [0, 1), 31 bits. */
double eng_random_math(eng_random_t *r);
/* Seed r from eng_port_random(). */
void eng_random_seed_from_port(eng_random_t *r);

#endif /* ENG_RANDOM_H */

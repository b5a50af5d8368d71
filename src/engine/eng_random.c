#include "eng_random.h"

#include <string.h>

#include "engine.h"

static uint32_t rotl(uint32_t x, int k)
{
	return (x << k) | (x >> (32 - k));
}

static uint32_t next(eng_random_t *r)
{
	uint32_t *s = r->s;
	uint32_t result = rotl(s[1] * 5u, 7) * 9u;
	uint32_t t = s[1] << 9;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 11);
	return result;
}

void eng_random_seed(eng_random_t *r, const uint8_t seed[16])
{
	memcpy(r->s, seed, sizeof(r->s));
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) {
		/* The one state xoshiro cannot leave. */
		r->s[0] = 0x9e3779b9u;
	}
}

double eng_random_double(eng_random_t *r)
{
	uint32_t hi = next(r) >> 5; /* 27 bits */
	uint32_t lo = next(r) >> 6; /* 26 bits */
	return ((double)hi * 67108864.0 + (double)lo) / 9007199254740992.0;
}

void eng_random_seed_from_port(eng_random_t *r)
{
	uint8_t seed[16];

	eng_port_random(seed, sizeof(seed));
	eng_random_seed(r, seed);
}

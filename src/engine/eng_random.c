#include "eng_random.h"


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

/* splitmix64, as the authors of xoshiro advise for filling its state: any 16 bytes, however
 * regular, give a well-mixed state (never the all-zero one xoshiro cannot leave). */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void eng_random_seed(eng_random_t *r, const uint8_t seed[16])
{
	uint64_t a = 0, b = 0;

	for (int i = 7; i >= 0; i--) {
		a = a << 8 | seed[i];
		b = b << 8 | seed[8 + i];
	}
	a ^= splitmix64(&b);
	uint64_t x = splitmix64(&a), y = splitmix64(&a);
	r->s[0] = (uint32_t)x;
	r->s[1] = (uint32_t)(x >> 32);
	r->s[2] = (uint32_t)y;
	r->s[3] = (uint32_t)(y >> 32);
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) {
		r->s[0] = 0x9e3779b9u;
	}
}

uint32_t eng_random_u31(eng_random_t *r)
{
	return next(r) >> 1;
}

double eng_random_math(eng_random_t *r)
{
	const double max = (double)ENG_RANDOM_MAX;
	return (double)eng_random_u31(r) / max * (max - 1.0) / max;
}

void eng_random_seed_from_port(eng_random_t *r)
{
	uint8_t seed[16];

	eng_port_random(seed, sizeof(seed));
	eng_random_seed(r, seed);
}

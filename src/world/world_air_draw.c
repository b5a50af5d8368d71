/*
 * world_air_draw.c: the air's noise (docs/world.md, "The air"). The noise of every reception (and
 * every advDelay) is a keyed draw: a function of the world's seed, the sender, its set, that set's
 * event number, the receiver and the draw's number, not of the order in which receptions are
 * computed; so skipping a receiver changes nothing else (world_air_reach.c skips those out of
 * reach). And the draw is bounded (the uniform draws have 2^53 steps, so Box-Muller never gives
 * more than 8.65 sigma), and so is the distance at which a sender of a given power can be heard.
 */
#include <math.h>

#include "world.h"
#include "world_air.h"
#include "world_air_internal.h"

uint64_t world_air_event_hash(const world_t *w, const world_air_key_t *k)
{
	uint64_t h = world_air_mix(w->seed);
	h = world_air_mix(h ^ k->source);
	h = world_air_mix(h ^ k->set);
	return world_air_mix(h ^ k->event);
}

uint64_t world_air_draw_u64(const world_t *w, const world_air_key_t *k, uint64_t draw)
{
	return world_air_mix(world_air_key_hash(world_air_event_hash(w, k), k->receiver) ^ draw);
}

/* In (0, 1): 2^53 steps of 2^-53, the first at 2^-54, so log() never sees 0. */
static double uniform(uint64_t key_hash, uint64_t draw)
{
	return ((double)(world_air_mix(key_hash ^ draw) >> 11) + 0.5) / 9007199254740992.0;
}

double world_air_gaussian_hashed(uint64_t key_hash, uint32_t draw)
{
	/* Box-Muller, each normal draw from two uniform ones of its own. */
	double u1 = uniform(key_hash, 2ull * draw), u2 = uniform(key_hash, 2ull * draw + 1);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double world_air_gaussian(const world_t *w, const world_air_key_t *k, uint32_t draw)
{
	return world_air_gaussian_hashed(world_air_key_hash(world_air_event_hash(w, k), k->receiver), draw);
}

/* The largest |world_air_gaussian()|: sqrt(-2 ln u1) at the smallest u1, 2^-54, is 8.652; the
 * 1e-9 covers the rounding of log, sqrt and cos. The Gaussian is not truncated: this bound is a
 * property of the generator (a draw beyond 8.65 sigma has probability 1e-17), so it is exact. */
double world_air_noise_max(void)
{
	return WORLD_AIR_SIGMA * (sqrt(-2.0 * log(0.5 / 9007199254740992.0)) + 1e-9);
}

double world_air_reach_m(int8_t power)
{
	/* Heard when round(power - PL(d) + noise) >= sensitivity, so only if PL(d) <= power -
	 * sensitivity + 0.5 + the largest noise: PL0 + 10 n log10(d) gives d. With +8 dBm (the most a
	 * device sends) that is 10.96 km, with 0 dBm 4.37 km, with -4 dBm 2.75 km. The geodesic
	 * distance is at most the 3-D one the path loss takes, so it bounds the ground distance. */
	double db = (double)power - WORLD_AIR_SENSITIVITY + 0.5 + world_air_noise_max() - WORLD_AIR_PL0;
	return pow(10.0, db / (10.0 * WORLD_AIR_EXPONENT)) * (1.0 + 1e-9) + 1e-3;
}

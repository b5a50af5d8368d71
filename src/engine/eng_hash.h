/*
 * eng_hash.h: FNV-1a, for the engine configuration hashes written into app packages. Both
 * backends hash their configuration the same way, so the value is comparable in messages.
 */
#ifndef ENG_HASH_H
#define ENG_HASH_H

#include <stddef.h>
#include <stdint.h>

#define ENG_FNV1A_INIT 2166136261u

static inline uint32_t eng_fnv1a(uint32_t hash, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++) {
		hash ^= p[i];
		hash *= 16777619u;
	}
	return hash;
}

#endif /* ENG_HASH_H */

/*
 * rt_api_version.h: the API version the selected device's app was built for.
 *
 * One firmware runs apps of every version it has glue for; the package says which, and that
 * version decides the surface the app sees (glue), the fields of records (api_types.c), the form
 * of errors (rt_errors.c) and of the error handler's arguments (rt_loop.c).
 */
#ifndef RT_API_VERSION_H
#define RT_API_VERSION_H

#include <stdint.h>

#define RT_API_VERSION(major, minor, patch) ((uint32_t)(major) << 16 | (uint32_t)(minor) << 8 | (uint32_t)(patch))

/* Packed version (major << 16 | minor << 8 | patch) of the running app; 0 before one runs. */
uint32_t rt_api_version(void);
/* Its bit in the generated version masks (api_versions[]), or -1. */
int rt_api_version_bit(void);
/* The bit of a packed version, or -1 when this firmware has no glue for it. */
int rt_api_version_bit_of(uint32_t packed);

#endif /* RT_API_VERSION_H */

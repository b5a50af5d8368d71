/*
 * world_nmea.h: what a GNSS receiver on a UART sends for each fix, NMEA 0183 sentences, for the
 * test boards whose firmware reads its receiver through Zephyr's GNSS subsystem (docs/firmware.md,
 * "Location through Zephyr's GNSS subsystem"): the simulated world is the receiver there, and
 * Zephyr's generic NMEA driver parses what this writes.
 *
 * A fix is two sentences, as the driver needs them: RMC (time, date, position, speed, course)
 * then GGA (position, satellites, HDOP, altitude), each at most 82 characters with its CR LF
 * (NMEA 0183's limit). Their resolution: position 1e-6 minute of arc (under 2 mm), altitude and
 * HDOP 0.01, speed 0.001 knot, course 0.01 degree, time 1 ms. The altitude is the ellipsoid's
 * (hal_gnss_fix_t's), so GGA's geoid separation is 0.
 */
#ifndef WORLD_NMEA_H
#define WORLD_NMEA_H

#include <stddef.h>
#include <stdint.h>

#include "hal_gnss.h"

/* Room for the two sentences of a fix and a NUL. */
#define WORLD_NMEA_FIX_MAX (2 * 82 + 1)

/* Write the sentences of fix into out (NUL-terminated). Returns their length, or 0 when cap is
 * too small (out then holds nothing of use). Values beyond a field's width are clamped to it. */
size_t world_nmea_fix(const hal_gnss_fix_t *fix, char *out, size_t cap);

/* The checksum of a sentence's body: the XOR of its characters between '$' and '*'. */
uint8_t world_nmea_checksum(const char *body, size_t len);

#endif /* WORLD_NMEA_H */

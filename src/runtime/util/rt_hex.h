/*
 * rt_hex.h: hex text, as the API shows bytes (toHex, sys.getPublicId, hex-string arguments) and
 * as keys are written in the firmware configuration. Lowercase out, either case in.
 */
#ifndef RT_HEX_H
#define RT_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit, or -1. */
int rt_hex_digit(char c);
/* One byte as two lowercase digits at out[0..1] (no NUL). */
void rt_hex_byte(uint8_t byte, char *out);
/* n bytes as 2n lowercase digits and a NUL: out must hold 2n + 1 characters. */
void rt_hex_encode(const uint8_t *bytes, size_t n, char *out);

#endif /* RT_HEX_H */

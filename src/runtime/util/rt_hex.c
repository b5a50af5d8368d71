#include "rt_hex.h"

static const char digits[] = "0123456789abcdef";

int rt_hex_digit(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

void rt_hex_byte(uint8_t byte, char *out)
{
	out[0] = digits[byte >> 4];
	out[1] = digits[byte & 0xfu];
}

void rt_hex_encode(const uint8_t *bytes, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		rt_hex_byte(bytes[i], out + 2 * i);
	}
	out[2 * n] = '\0';
}

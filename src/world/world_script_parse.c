/*
 * The world script's lines, tokens and values (world_script.h; docs/world.md has the format):
 * numbers, flags, hex bytes, BLE addresses, percent-encoded text, key=value options.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hex.h"
#include "world_script.h"
#include "world_script_internal.h"

bool world_script_next_line(const char **p, const char *end, line_t *line, bool *too_long)
{
	if (*p >= end) {
		return false;
	}
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	const char *stop = nl ? nl : end;
	size_t n = (size_t)(stop - *p);
	*too_long = n >= sizeof(line->buf);
	if (*too_long) {
		n = sizeof(line->buf) - 1;
	}
	memcpy(line->buf, *p, n);
	line->buf[n] = '\0';
	*p = nl ? nl + 1 : end;
	line->count = 0;
	char *save = NULL;
	for (char *t = strtok_r(line->buf, " \t\r", &save); t != NULL && line->count < MAX_TOKENS;
	     t = strtok_r(NULL, " \t\r", &save)) {
		line->tok[line->count++] = t;
	}
	return true;
}

bool world_script_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		return false;
	}
	*out = v;
	return true;
}

bool world_script_parse_i64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end) {
		return false;
	}
	*out = v;
	return true;
}

bool world_script_parse_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || isnan(v) || isinf(v)) {
		return false;
	}
	*out = v;
	return true;
}

/* A number, or "-" for one the model derives (NAN). */
bool world_script_parse_opt(const char *s, double *out)
{
	if (strcmp(s, "-") == 0) {
		*out = NAN;
		return true;
	}
	return world_script_parse_num(s, out);
}

bool world_script_parse_flag(const char *s, double *out)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0) {
		*out = s[0] == '1';
		return true;
	}
	return false;
}

/* Hex digits into bytes (at most cap); false for odd lengths, bad digits or too many. */
/* Bytes written as hex ("-" for none). */
bool world_script_parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	if (strcmp(s, "-") == 0) {
		*len = 0;
		return true;
	}
	size_t n = strlen(s);
	if (n % 2 || n / 2 > cap) {
		return false;
	}
	for (size_t i = 0; i < n / 2; i++) {
		int hi = rt_hex_digit(s[2 * i]), lo = rt_hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			return false;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return true;
}

bool world_script_parse_addr(const char *s, uint8_t addr[HAL_BLE_ADDR_LEN])
{
	size_t n = 0;
	return world_script_parse_hex(s, addr, HAL_BLE_ADDR_LEN, &n) && n == HAL_BLE_ADDR_LEN;
}

uint32_t world_script_device_count(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	line_t line;
	bool too_long;
	uint32_t n = 0;
	while (world_script_next_line(&p, end, &line, &too_long)) {
		if (line.count > 0 && strcmp(line.tok[0], "device") == 0) {
			n++;
		}
	}
	return n;
}

/* Text of the script is percent-encoded where it may hold spaces (operator names): "%20". */
bool world_script_parse_text(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		if (c == '%') {
			int hi = rt_hex_digit(s[i + 1]);
			int lo = hi < 0 ? -1 : rt_hex_digit(s[i + 2]);
			if (lo < 0) {
				return false;
			}
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (n + 1 >= cap) {
			return false;
		}
		out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

/* key=value of token t: key into key (cap 32), returns the value or NULL. */
const char *world_script_key_value(const char *t, char key[32])
{
	const char *eq = strchr(t, '=');
	if (eq == NULL || (size_t)(eq - t) >= 32) {
		return NULL;
	}
	memcpy(key, t, (size_t)(eq - t));
	key[eq - t] = '\0';
	return eq + 1;
}

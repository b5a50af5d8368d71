/*
 * world_script_internal.h: what the files of the world script's reader share and nothing else
 * uses.
 *
 *   world_script.c        the load: the header, utc, seed, and the statements of devices, scripted
 *                         beacons, GNSS, the modem and UWB
 *   world_script_input.c  the timed inputs ("at <ms> <device> <input>...")
 *   world_script_parse.c  lines, tokens and values
 */
#ifndef WORLD_SCRIPT_INTERNAL_H
#define WORLD_SCRIPT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hal_ble.h"
#include "world.h"
#include "world_script.h"

#define MAX_TOKENS 24
/* Long enough for an NFC write of a full tag in hex (2 * 868 characters). */
#define MAX_LINE 2048

typedef struct {
	char buf[MAX_LINE];
	char *tok[MAX_TOKENS];
	int count;
} line_t;

/* Refuse the statement on line `lineno`: "line N: ..." into err, and return -1 (in a function
 * with err, err_cap and lineno). */
#define FAIL(...)                                                  \
	do {                                                       \
		int at_ = snprintf(err, err_cap, "line %u: ", lineno); \
		if (at_ > 0 && (size_t)at_ < err_cap) {            \
			snprintf(err + at_, err_cap - (size_t)at_, __VA_ARGS__); \
		}                                                  \
		return -1;                                         \
	} while (0)

bool world_script_next_line(const char **p, const char *end, line_t *line, bool *too_long);
bool world_script_parse_i64(const char *s, int64_t *out);
bool world_script_parse_num(const char *s, double *out);
/* A number, or "-" for one the model derives (NAN). */
bool world_script_parse_opt(const char *s, double *out);
bool world_script_parse_flag(const char *s, double *out);
/* Hex digits into bytes (at most cap); false for odd lengths, bad digits or too many. */
/* Bytes written as hex ("-" for none). */
bool world_script_parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len);
bool world_script_parse_addr(const char *s, uint8_t addr[HAL_BLE_ADDR_LEN]);
/* Text of the script is percent-encoded where it may hold spaces (operator names): "%20". */
bool world_script_parse_text(const char *s, char *out, size_t cap);
/* key=value of token t: key into key (cap 32), returns the value or NULL. */
const char *world_script_key_value(const char *t, char key[32]);

/* An "at" statement: one timed input for a device (world_script_input.c). */
int world_script_input_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap);

#endif /* WORLD_SCRIPT_INTERNAL_H */

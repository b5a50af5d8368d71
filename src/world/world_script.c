#include "world_script.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hex.h"
#include "world_inputs.h"

#define MAX_TOKENS 16
#define MAX_LINE 512

typedef struct {
	char buf[MAX_LINE];
	char *tok[MAX_TOKENS];
	int count;
} line_t;

/* Split the next line of text; returns false at the end. */
static bool next_line(const char **p, const char *end, line_t *line, bool *too_long)
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

static bool parse_u64(const char *s, uint64_t *out)
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

static bool parse_num(const char *s, double *out)
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

static bool parse_flag(const char *s, double *out)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0) {
		*out = s[0] == '1';
		return true;
	}
	return false;
}


/* Hex digits into bytes (at most cap); false for odd lengths, bad digits or too many. */
static bool parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
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

static bool parse_addr(const char *s, uint8_t addr[HAL_BLE_ADDR_LEN])
{
	size_t n = 0;
	return parse_hex(s, addr, HAL_BLE_ADDR_LEN, &n) && n == HAL_BLE_ADDR_LEN;
}

uint32_t world_script_device_count(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	line_t line;
	bool too_long;
	uint32_t n = 0;
	while (next_line(&p, end, &line, &too_long)) {
		if (line.count > 0 && strcmp(line.tok[0], "device") == 0) {
			n++;
		}
	}
	return n;
}

#define FAIL(...)                                                  \
	do {                                                       \
		int at_ = snprintf(err, err_cap, "line %u: ", lineno); \
		if (at_ > 0 && (size_t)at_ < err_cap) {            \
			snprintf(err + at_, err_cap - (size_t)at_, __VA_ARGS__); \
		}                                                  \
		return -1;                                         \
	} while (0)

static int device_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	uint64_t index;
	if (l->count < 4 || !parse_u64(l->tok[1], &index)) {
		FAIL("device needs an index, a name and a profile");
	}
	if (index >= w->device_count) {
		FAIL("device %s: devices are numbered from 0 in order", l->tok[1]);
	}
	const world_profile_t *profile = world_profile_find(l->tok[3]);
	if (profile == NULL) {
		FAIL("unknown profile '%s' (ble-beacon, lte-beacon or ai-beacon)", l->tok[3]);
	}
	if (strlen(l->tok[2]) >= WORLD_NAME_MAX) {
		FAIL("device name '%s' is longer than %d characters", l->tok[2], WORLD_NAME_MAX - 1);
	}
	world_device_setup(w, (uint32_t)index, l->tok[2], profile);
	world_device_t *d = &w->devices[index];
	for (int i = 4; i < l->count; i++) {
		char key[32];
		const char *eq = strchr(l->tok[i], '=');
		if (eq == NULL || (size_t)(eq - l->tok[i]) >= sizeof(key)) {
			FAIL("'%s' is not key=value", l->tok[i]);
		}
		memcpy(key, l->tok[i], (size_t)(eq - l->tok[i]));
		key[eq - l->tok[i]] = '\0';
		const char *value = eq + 1;
		double x;
		if (strcmp(key, "position") == 0) {
			double v[3];
			if (sscanf(value, "%lf,%lf,%lf", &v[0], &v[1], &v[2]) != 3 || v[0] < -90 ||
			    v[0] > 90 || v[1] < -180 || v[1] > 180) {
				FAIL("position takes lat,long,alt (degrees, degrees, metres)");
			}
			d->lat = v[0];
			d->lon = v[1];
			d->alt = v[2];
			continue;
		}
		if (strcmp(key, "accel") == 0) {
			double v[3];
			if (sscanf(value, "%lf,%lf,%lf", &v[0], &v[1], &v[2]) != 3) {
				FAIL("accel takes x,y,z in g");
			}
			for (int k = 0; k < 3; k++) {
				d->accel[k] = (float)v[k];
			}
			continue;
		}
		if (!parse_num(value, &x)) {
			FAIL("%s takes a number (got '%s')", key, value);
		}
		if (strcmp(key, "heap") == 0) {
			if (x < 16384 || x > 524288) {
				FAIL("heap must be from 16384 to 524288 bytes");
			}
			d->rt.engine_config.heap_size = (size_t)x;
		} else if (strcmp(key, "imu") == 0) {
			d->has_imu = x != 0;
		} else if (strcmp(key, "synced") == 0) {
			d->utc_synced = x != 0;
		} else if (strcmp(key, "battery") == 0) {
			d->battery_percent = (float)x;
		} else if (strcmp(key, "external") == 0) {
			d->external = x != 0;
		} else if (strcmp(key, "charging") == 0) {
			d->charging = x != 0;
		} else if (strcmp(key, "current") == 0) {
			d->current_ma = (float)x;
		} else if (strcmp(key, "temperature") == 0) {
			d->temp_history[0] = (float)x;
		} else {
			FAIL("unknown device key '%s'", key);
		}
	}
	return 0;
}

/* beacon <name> <lat>,<long>,<alt> <interval ms> <power dBm> <AD hex> [addr=<12 hex>]
 * [response=0|1] [connectable=0|1] */
static int beacon_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	world_beacon_t b;
	memset(&b, 0, sizeof(b));
	double v[3], interval, power;
	size_t len = 0;
	if (l->count < 6) {
		FAIL("beacon needs a name, a position, an interval, a power and the AD bytes in hex");
	}
	if (strlen(l->tok[1]) >= sizeof(b.name)) {
		FAIL("beacon name '%s' is longer than %d characters", l->tok[1], (int)sizeof(b.name) - 1);
	}
	snprintf(b.name, sizeof(b.name), "%s", l->tok[1]);
	if (sscanf(l->tok[2], "%lf,%lf,%lf", &v[0], &v[1], &v[2]) != 3 || v[0] < -90 || v[0] > 90 ||
	    v[1] < -180 || v[1] > 180) {
		FAIL("beacon %s: position takes lat,long,alt (degrees, degrees, metres)", b.name);
	}
	if (!parse_num(l->tok[3], &interval) || interval < 20 || interval > 10485759) {
		FAIL("beacon %s: interval must be from 20 to 10485759 ms", b.name);
	}
	if (!parse_num(l->tok[4], &power) || power < -127 || power > 20) {
		FAIL("beacon %s: power must be from -127 to 20 dBm", b.name);
	}
	if (!parse_hex(l->tok[5], b.set.ad, HAL_BLE_AD_MAX, &len)) {
		FAIL("beacon %s: the packet must be hex of at most %d bytes", b.name, HAL_BLE_AD_MAX);
	}
	b.lat = v[0];
	b.lon = v[1];
	b.alt = v[2];
	b.set.len = (uint8_t)len;
	b.set.interval = (uint32_t)interval;
	b.set.power = (int8_t)power;
	b.response = true;
	/* A beacon's default address: static random, numbered in the order the beacons come. */
	const uint8_t addr[HAL_BLE_ADDR_LEN] = {0xc0, 0xbe, 0xac, 0x00, (uint8_t)(w->beacon_count >> 8),
						(uint8_t)w->beacon_count};
	memcpy(b.addr, addr, sizeof(addr));
	for (int i = 6; i < l->count; i++) {
		const char *t = l->tok[i];
		double x;
		if (strncmp(t, "addr=", 5) == 0 && parse_addr(t + 5, b.addr)) {
			continue;
		}
		if (strncmp(t, "response=", 9) == 0 && parse_flag(t + 9, &x)) {
			b.response = x != 0;
			continue;
		}
		if (strncmp(t, "connectable=", 12) == 0 && parse_flag(t + 12, &x)) {
			b.connectable = x != 0;
			continue;
		}
		FAIL("beacon %s: '%s' is not addr=<12 hex digits>, response=0|1 or connectable=0|1", b.name, t);
	}
	if (world_air_add_beacon(w, &b) != 0) {
		FAIL("out of memory");
	}
	return 0;
}

static int input_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	uint64_t at, index;
	if (l->count < 4 || !parse_u64(l->tok[1], &at) || !parse_u64(l->tok[2], &index)) {
		FAIL("at needs a time in ms, a device index and an input");
	}
	if (index >= w->device_count) {
		FAIL("no device %s", l->tok[2]);
	}
	world_event_t e = {0};
	e.at = at;
	e.device = (uint32_t)index;
	const char *kind = l->tok[3];
	int args = l->count - 4;
	char *const *a = &l->tok[4];
	if (strcmp(kind, "button") == 0) {
		if (args != 2 || (strcmp(a[0], "main") != 0 && strcmp(a[0], "side") != 0) ||
		    (strcmp(a[1], "down") != 0 && strcmp(a[1], "up") != 0)) {
			FAIL("button takes main|side and down|up");
		}
		e.kind = WORLD_IN_BUTTON;
		e.value[0] = strcmp(a[0], "side") == 0;
		e.value[1] = strcmp(a[1], "down") == 0;
	} else if (strcmp(kind, "motion") == 0) {
		if (args != 2 || !parse_flag(a[0], &e.value[0]) || !parse_num(a[1], &e.value[1])) {
			FAIL("motion takes 0|1 and an intensity in g");
		}
		e.kind = WORLD_IN_MOTION;
	} else if (strcmp(kind, "accel") == 0 || strcmp(kind, "gyro") == 0) {
		if (args != 3 || !parse_num(a[0], &e.value[0]) || !parse_num(a[1], &e.value[1]) ||
		    !parse_num(a[2], &e.value[2])) {
			FAIL("%s takes x y z", kind);
		}
		e.kind = kind[0] == 'a' ? WORLD_IN_ACCEL : WORLD_IN_GYRO;
	} else if (strcmp(kind, "imu-event") == 0) {
		if (args < 1 || world_imu_event_by_name(a[0]) < 0 || strlen(a[0]) >= sizeof(e.text)) {
			FAIL("imu-event takes an event name (free-fall, single-tap, double-tap, tilt, step, orientation, wake-up, mlc)");
		}
		if (args != 1 && args != 5) {
			FAIL("imu-event takes a name, or a name and axis sign value intensity");
		}
		for (int i = 1; i < args; i++) {
			if (!parse_num(a[i], &e.value[i - 1])) {
				FAIL("imu-event: '%s' is not a number", a[i]);
			}
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_IMU_EVENT;
	} else if (strcmp(kind, "battery") == 0 || strcmp(kind, "current") == 0 ||
		   strcmp(kind, "temperature") == 0) {
		if (args != 1 || !parse_num(a[0], &e.value[0])) {
			FAIL("%s takes a number", kind);
		}
		e.kind = kind[0] == 'b' ? WORLD_IN_BATTERY : kind[0] == 'c' ? WORLD_IN_CURRENT : WORLD_IN_TEMPERATURE;
	} else if (strcmp(kind, "power") == 0) {
		if (args != 2 || !parse_flag(a[0], &e.value[0]) || !parse_flag(a[1], &e.value[1])) {
			FAIL("power takes external 0|1 and charging 0|1");
		}
		e.kind = WORLD_IN_POWER;
	} else if (strcmp(kind, "power-cut") == 0) {
		if (args != 1 || !parse_num(a[0], &e.value[0]) || e.value[0] < 0 ||
		    e.value[0] != floor(e.value[0])) {
			FAIL("power-cut takes 0 (now) or n: during the n-th flash operation from now");
		}
		e.kind = WORLD_IN_POWER_CUT;
	} else if (strcmp(kind, "move") == 0) {
		if (args != 3 || !parse_num(a[0], &e.value[0]) || !parse_num(a[1], &e.value[1]) ||
		    !parse_num(a[2], &e.value[2]) || e.value[0] < -90 || e.value[0] > 90 ||
		    e.value[1] < -180 || e.value[1] > 180) {
			FAIL("move takes latitude, longitude (degrees) and altitude (m)");
		}
		e.kind = WORLD_IN_MOVE;
	} else if (strcmp(kind, "storage-fault") == 0) {
		if (args != 1 || (strcmp(a[0], "error") != 0 && strcmp(a[0], "timeout") != 0)) {
			FAIL("storage-fault takes error or timeout");
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_STORAGE_FAULT;
	} else if (strcmp(kind, "fault") == 0) {
		if (args != 1 || (strcmp(a[0], "hang") != 0 && strcmp(a[0], "crash") != 0)) {
			FAIL("fault takes hang or crash");
		}
		strcpy(e.text, a[0]);
		e.kind = WORLD_IN_FAULT;
	} else if (strcmp(kind, "time-sync") == 0 || strcmp(kind, "imu-fault") == 0) {
		if (args != 1 || !parse_flag(a[0], &e.value[0])) {
			FAIL("%s takes 0|1", kind);
		}
		e.kind = kind[0] == 't' ? WORLD_IN_TIME_SYNC : WORLD_IN_IMU_FAULT;
	} else if (strcmp(kind, "ble-capture") == 0) {
		/* ble-capture <AD hex> <rssi> <channel> [addr=<hex>] [response=0|1] [connectable=0|1] */
		world_capture_t c;
		memset(&c, 0, sizeof(c));
		size_t len = 0;
		double rssi, channel, x;
		if (args < 3 || !parse_hex(a[0], c.ad, HAL_BLE_AD_MAX, &len) || !parse_num(a[1], &rssi) ||
		    rssi < -127 || rssi > 20 || !parse_num(a[2], &channel) ||
		    (channel != 37 && channel != 38 && channel != 39)) {
			FAIL("ble-capture takes the AD bytes in hex (at most %d), an RSSI from -127 to 20 and a channel 37, 38 or 39",
			     HAL_BLE_AD_MAX);
		}
		c.len = (uint8_t)len;
		c.rssi = (int8_t)rssi;
		c.channel = (uint8_t)channel;
		const uint8_t addr[HAL_BLE_ADDR_LEN] = {0xc0, 0xca, 0xb7, 0x00, 0x00, (uint8_t)w->capture_count};
		memcpy(c.addr, addr, sizeof(addr));
		for (int i = 3; i < args; i++) {
			if (strncmp(a[i], "addr=", 5) == 0 && parse_addr(a[i] + 5, c.addr)) {
				continue;
			}
			if (strncmp(a[i], "response=", 9) == 0 && parse_flag(a[i] + 9, &x)) {
				c.kind = (uint8_t)(x != 0 ? (c.kind | RT_BLE_RX_SCAN_RESPONSE) : (c.kind & ~RT_BLE_RX_SCAN_RESPONSE));
				continue;
			}
			if (strncmp(a[i], "connectable=", 12) == 0 && parse_flag(a[i] + 12, &x)) {
				c.kind = (uint8_t)(x != 0 ? (c.kind | RT_BLE_RX_CONNECTABLE) : (c.kind & ~RT_BLE_RX_CONNECTABLE));
				continue;
			}
			FAIL("ble-capture: '%s' is not addr=<12 hex digits>, response=0|1 or connectable=0|1", a[i]);
		}
		int index = world_air_add_capture(w, &c);
		if (index < 0) {
			FAIL("out of memory");
		}
		e.value[0] = index;
		e.kind = WORLD_IN_BLE_CAPTURE;
	} else {
		FAIL("unknown input '%s'", kind);
	}
	if (world_add_event(w, &e) != 0) {
		FAIL("out of memory");
	}
	return 0;
}

int world_script_load(world_t *w, const char *text, size_t len, char *err, size_t err_cap)
{
	const char *p = text, *end = text + len;
	line_t line;
	bool too_long;
	unsigned lineno = 0;
	bool header = false, utc_none = false;
	while (next_line(&p, end, &line, &too_long)) {
		lineno++;
		if (too_long) {
			FAIL("longer than %d characters", MAX_LINE - 1);
		}
		if (line.count == 0 || line.tok[0][0] == '#') {
			continue;
		}
		const char *word = line.tok[0];
		if (!header) {
			if (strcmp(word, "beacon-world") != 0 || line.count != 2 || strcmp(line.tok[1], "1") != 0) {
				FAIL("a world script starts with 'beacon-world 1'");
			}
			header = true;
			continue;
		}
		if (strcmp(word, "utc") == 0) {
			uint64_t utc;
			if (line.count == 2 && strcmp(line.tok[1], "none") == 0) {
				utc_none = true;
			} else if (line.count == 2 && parse_u64(line.tok[1], &utc)) {
				w->utc_at_start = (int64_t)utc;
			} else {
				FAIL("utc takes milliseconds since 1970 or none");
			}
		} else if (strcmp(word, "device") == 0) {
			if (device_line(w, &line, lineno, err, err_cap) != 0) {
				return -1;
			}
		} else if (strcmp(word, "beacon") == 0) {
			if (beacon_line(w, &line, lineno, err, err_cap) != 0) {
				return -1;
			}
		} else if (strcmp(word, "seed") == 0) {
			uint64_t seed;
			if (line.count != 2 || !parse_u64(line.tok[1], &seed)) {
				FAIL("seed takes a whole number");
			}
			w->air_rng = seed;
		} else if (strcmp(word, "at") == 0) {
			if (input_line(w, &line, lineno, err, err_cap) != 0) {
				return -1;
			}
		} else {
			FAIL("unknown statement '%s'", word);
		}
	}
	if (!header) {
		snprintf(err, err_cap, "empty world script");
		return -1;
	}
	/* No clock source at start: every device waits for a time-sync input. */
	for (uint32_t i = 0; utc_none && i < w->device_count; i++) {
		w->devices[i].utc_synced = false;
	}
	return 0;
}

#include "world_script.h"

#include "world_cloud.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	} else if (strcmp(kind, "cloud-network") == 0) {
		if (args != 1 || !parse_flag(a[0], &e.value[0])) {
			FAIL("cloud-network takes 0|1");
		}
		e.kind = WORLD_IN_CLOUD_NETWORK;
	} else if (strcmp(kind, "cloud-message") == 0) {
		/* Not an input of the device: the loopback cloud holds it from then on. */
		char why[120];
		if (args != 2 || world_cloud_add_message(w, (uint32_t)index, at, a[0], a[1], why,
							 sizeof(why)) != 0) {
			FAIL("cloud-message takes a type and a JSON payload without spaces%s%s",
			     args == 2 ? ": " : "", args == 2 ? why : "");
		}
		return 0;
	} else if (strcmp(kind, "time-sync") == 0 || strcmp(kind, "imu-fault") == 0) {
		if (args != 1 || !parse_flag(a[0], &e.value[0])) {
			FAIL("%s takes 0|1", kind);
		}
		e.kind = kind[0] == 't' ? WORLD_IN_TIME_SYNC : WORLD_IN_IMU_FAULT;
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

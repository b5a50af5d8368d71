#include "world_script.h"

#include "world_cloud.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hex.h"
#include "world_inputs.h"
#include "world_gnss.h"
#include "world_modem.h"
#include "world_nfc.h"

#define MAX_TOKENS 24
/* Long enough for an NFC write of a full tag in hex (2 * 868 characters). */
#define MAX_LINE 2048

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

static bool parse_i64(const char *s, int64_t *out)
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

/* A number, or "-" for one the model derives (NAN). */
static bool parse_opt(const char *s, double *out)
{
	if (strcmp(s, "-") == 0) {
		*out = NAN;
		return true;
	}
	return parse_num(s, out);
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
/* Bytes written as hex ("-" for none). */
static bool parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
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

/* Text of the script is percent-encoded where it may hold spaces (operator names): "%20". */
static bool parse_text(const char *s, char *out, size_t cap)
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
static const char *key_value(const char *t, char key[32])
{
	const char *eq = strchr(t, '=');
	if (eq == NULL || (size_t)(eq - t) >= 32) {
		return NULL;
	}
	memcpy(key, t, (size_t)(eq - t));
	key[eq - t] = '\0';
	return eq + 1;
}

static world_device_t *statement_device(world_t *w, const line_t *l, int64_t *index)
{
	uint64_t i;
	if (l->count < 3 || !parse_u64(l->tok[1], &i) || i >= w->device_count) {
		return NULL;
	}
	*index = (int64_t)i;
	return &w->devices[i];
}

/*
 * gnss <dev> point <t> <lat> <long> <alt> [<speed km/h> <heading deg>]
 * gnss <dev> outage <from> <to>
 * gnss <dev> sky <t> <satellites> <hdop>
 * gnss <dev> receiver [sat=N] [hdop=X] [cold=ms] [warm=ms] [hot=ms] [noise=m] [seed=N]
 */
static int gnss_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	int64_t index;
	world_device_t *d = statement_device(w, l, &index);
	if (d == NULL) {
		FAIL("gnss needs a device index and point, outage, sky or receiver");
	}
	world_gnss_t *g = &d->gnss;
	const char *what = l->tok[2];
	char *const *a = &l->tok[3];
	int args = l->count - 3;
	char msg[160];
	if (strcmp(what, "point") == 0) {
		rt_gnss_point_t p = {0, 0, 0, 0, NAN, NAN};
		if ((args != 4 && args != 6) || !parse_i64(a[0], &p.t_ms) || !parse_num(a[1], &p.lat) ||
		    !parse_num(a[2], &p.lon) || !parse_num(a[3], &p.alt) ||
		    (args == 6 && (!parse_opt(a[4], &p.speed_kmh) || !parse_opt(a[5], &p.head_deg)))) {
			FAIL("gnss point takes a time (ms), latitude, longitude, altitude and optionally speed (km/h) and heading");
		}
		if (world_gnss_add_point(g, &p, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "outage") == 0) {
		int64_t from, to;
		if (args != 2 || !parse_i64(a[0], &from) || !parse_i64(a[1], &to)) {
			FAIL("gnss outage takes from and to (ms)");
		}
		if (world_gnss_add_outage(g, from, to, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "sky") == 0) {
		int64_t t;
		uint64_t sat;
		double hdop;
		if (args != 3 || !parse_i64(a[0], &t) || !parse_u64(a[1], &sat) || sat > 255 ||
		    !parse_num(a[2], &hdop)) {
			FAIL("gnss sky takes a time (ms), satellites (0..255) and HDOP");
		}
		if (world_gnss_add_sky(g, t, (uint8_t)sat, hdop, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "receiver") == 0) {
		for (int i = 0; i < args; i++) {
			char key[32];
			const char *value = key_value(a[i], key);
			double x;
			if (value == NULL || !parse_num(value, &x) || x < 0) {
				FAIL("gnss receiver takes key=value with a number >= 0 (got '%s')", a[i]);
			}
			rt_gnss_track_t *t = &g->track;
			if (strcmp(key, "sat") == 0 && x <= 255) {
				t->sat = (uint8_t)x;
			} else if (strcmp(key, "hdop") == 0 && x > 0) {
				t->hdop = x;
			} else if (strcmp(key, "cold") == 0 && x <= UINT32_MAX) {
				t->ttff_cold_ms = (uint32_t)x;
			} else if (strcmp(key, "warm") == 0 && x <= UINT32_MAX) {
				t->ttff_warm_ms = (uint32_t)x;
			} else if (strcmp(key, "hot") == 0 && x <= UINT32_MAX) {
				t->ttff_hot_ms = (uint32_t)x;
			} else if (strcmp(key, "noise") == 0) {
				t->noise_m = x;
			} else if (strcmp(key, "seed") == 0) {
				t->seed = (uint64_t)x;
			} else {
				FAIL("gnss receiver: '%s' is not sat, hdop (> 0), cold, warm, hot, noise or seed", a[i]);
			}
		}
	} else {
		FAIL("gnss takes point, outage, sky or receiver (got '%s')", what);
	}
	return 0;
}

/* The fields of a cell (modem <dev> status|cell key=value...). */
static int cell_fields(hal_modem_cell_t *c, char *const *a, int args, unsigned lineno, char *err,
		       size_t err_cap)
{
	for (int i = 0; i < args; i++) {
		char key[32];
		const char *value = key_value(a[i], key);
		if (value == NULL) {
			FAIL("'%s' is not key=value", a[i]);
		}
		double x = 0;
		bool is_text = strcmp(key, "name") == 0 || strcmp(key, "tech") == 0 || strcmp(key, "band") == 0;
		if (!is_text && !parse_num(value, &x)) {
			FAIL("%s takes a number (got '%s')", key, value);
		}
		bool ok = true;
		if (strcmp(key, "name") == 0) {
			ok = parse_text(value, c->name, sizeof(c->name));
		} else if (strcmp(key, "tech") == 0) {
			ok = parse_text(value, c->tech, sizeof(c->tech));
		} else if (strcmp(key, "band") == 0) {
			ok = parse_text(value, c->band, sizeof(c->band));
		} else if (strcmp(key, "signal") == 0) {
			c->signal = x;
		} else if (strcmp(key, "rssi") == 0) {
			c->rssi = x;
			c->has_rssi = true;
		} else if (strcmp(key, "rsrp") == 0) {
			c->rsrp = x;
			c->has_rsrp = true;
		} else if (strcmp(key, "rsrq") == 0) {
			c->rsrq = x;
			c->has_rsrq = true;
		} else if (strcmp(key, "mcc") == 0 && x >= 0 && x <= UINT32_MAX) {
			c->mcc = (uint32_t)x;
		} else if (strcmp(key, "mnc") == 0 && x >= 0 && x <= UINT32_MAX) {
			c->mnc = (uint32_t)x;
		} else if (strcmp(key, "lac") == 0 && x >= 0 && x <= UINT32_MAX) {
			c->lac = (uint32_t)x;
		} else if (strcmp(key, "cell") == 0 && x >= 0 && x <= UINT32_MAX) {
			c->cell = (uint32_t)x;
		} else {
			FAIL("unknown cell key '%s' (name, signal, rssi, rsrp, rsrq, mcc, mnc, lac, cell, tech, band)", key);
		}
		if (!ok) {
			FAIL("%s: text too long or badly %%-encoded", key);
		}
	}
	return 0;
}

/*
 * modem <dev> operator <name> <type> <status>    (the first replaces the default list)
 * modem <dev> operators none
 * modem <dev> status none | key=value...          (none: not registered)
 * modem <dev> cell key=value...                   (the first replaces the default list)
 * modem <dev> cells none
 * modem <dev> sim none | iccid=.. imei=.. imsi=..
 * modem <dev> scan <operators|status|cells|info> <ms>
 * Text is %-encoded.
 */
static int modem_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	int64_t index;
	world_device_t *d = statement_device(w, l, &index);
	if (d == NULL) {
		FAIL("modem needs a device index and operator, status, cell, sim or scan");
	}
	world_modem_t *m = &d->modem;
	const char *what = l->tok[2];
	char *const *a = &l->tok[3];
	int args = l->count - 3;
	bool none = args == 1 && strcmp(a[0], "none") == 0;
	if (strcmp(what, "operator") == 0 || strcmp(what, "operators") == 0) {
		if (!m->operators_given) {
			m->operators_given = true;
			m->n_operators = 0;
		}
		if (strcmp(what, "operators") == 0 && none) {
			return 0;
		}
		if (args != 3 || strcmp(what, "operator") != 0) {
			FAIL("modem operator takes a name, a type and a status");
		}
		if (m->n_operators >= HAL_MODEM_MAX_OPERATORS) {
			FAIL("at most %d operators", HAL_MODEM_MAX_OPERATORS);
		}
		hal_modem_operator_t *o = &m->operators[m->n_operators];
		if (!parse_text(a[0], o->name, sizeof(o->name)) || !parse_text(a[1], o->type, sizeof(o->type)) ||
		    !parse_text(a[2], o->status, sizeof(o->status))) {
			FAIL("modem operator: text too long or badly %%-encoded");
		}
		m->n_operators++;
	} else if (strcmp(what, "status") == 0) {
		if (none) {
			m->registered = false;
			return 0;
		}
		m->registered = true;
		return cell_fields(&m->serving, a, args, lineno, err, err_cap);
	} else if (strcmp(what, "cell") == 0 || strcmp(what, "cells") == 0) {
		if (!m->cells_given) {
			m->cells_given = true;
			m->n_cells = 0;
		}
		if (strcmp(what, "cells") == 0 && none) {
			return 0;
		}
		if (strcmp(what, "cell") != 0) {
			FAIL("modem cells takes none");
		}
		if (m->n_cells >= HAL_MODEM_MAX_CELLS) {
			FAIL("at most %d cells", HAL_MODEM_MAX_CELLS);
		}
		hal_modem_cell_t *c = &m->cells[m->n_cells];
		memset(c, 0, sizeof(*c));
		if (cell_fields(c, a, args, lineno, err, err_cap) != 0) {
			return -1;
		}
		m->n_cells++;
	} else if (strcmp(what, "sim") == 0) {
		if (none) {
			m->has_sim = false;
			return 0;
		}
		m->has_sim = true;
		for (int i = 0; i < args; i++) {
			char key[32];
			const char *value = key_value(a[i], key);
			bool ok = value != NULL;
			if (ok && strcmp(key, "iccid") == 0) {
				ok = parse_text(value, m->info.iccid, sizeof(m->info.iccid));
			} else if (ok && strcmp(key, "imei") == 0) {
				ok = parse_text(value, m->info.imei, sizeof(m->info.imei));
			} else if (ok && strcmp(key, "imsi") == 0) {
				ok = parse_text(value, m->info.imsi, sizeof(m->info.imsi));
			} else {
				ok = false;
			}
			if (!ok) {
				FAIL("modem sim takes none or iccid=, imei=, imsi= (got '%s')", a[i]);
			}
		}
	} else if (strcmp(what, "scan") == 0) {
		uint64_t ms;
		int q = args == 2 ? world_modem_query_by_name(a[0]) : -1;
		if (q < 0 || !parse_u64(a[1], &ms) || ms > UINT32_MAX) {
			FAIL("modem scan takes operators, status, cells or info and a duration in ms");
		}
		m->scan_ms[q] = (uint32_t)ms;
	} else {
		FAIL("modem takes operator, operators, status, cell, cells, sim or scan (got '%s')", what);
	}
	return 0;
}

/* uwb interval <ms> | uwb seed <n>: the world's ranging. */
static int uwb_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	uint64_t x;
	if (l->count != 3 || !parse_u64(l->tok[2], &x)) {
		FAIL("uwb takes interval <ms> or seed <n>");
	}
	if (strcmp(l->tok[1], "interval") == 0 && x >= 10 && x <= 3600000) {
		w->uwb_interval_ms = (uint32_t)x;
	} else if (strcmp(l->tok[1], "seed") == 0) {
		w->uwb_model.seed = x;
	} else {
		FAIL("uwb takes interval <ms> (10..3600000) or seed <n>");
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
	} else if (strcmp(kind, "nfc-field") == 0) {
		if (args != 1 || !parse_flag(a[0], &e.value[0])) {
			FAIL("nfc-field takes 1 (a reader enters the field) or 0 (it leaves)");
		}
		e.kind = WORLD_IN_NFC_FIELD;
	} else if (strcmp(kind, "nfc-write") == 0) {
		uint8_t bytes[RT_NDEF_MAX_MESSAGE];
		size_t n = 0;
		if (args != 1 || !parse_hex(a[0], bytes, sizeof(bytes), &n)) {
			FAIL("nfc-write takes the written NDEF message in hex (at most %d bytes)",
			     RT_NDEF_MAX_MESSAGE);
		}
		long at_index = world_nfc_add_write(&w->devices[index].nfc, bytes, n);
		if (at_index < 0) {
			FAIL("out of memory");
		}
		e.value[0] = (double)at_index;
		e.kind = WORLD_IN_NFC_WRITE;
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
			w->seed = seed;
		} else if (strcmp(word, "gnss") == 0) {
			if (gnss_line(w, &line, lineno, err, err_cap) != 0) {
				return -1;
			}
		} else if (strcmp(word, "modem") == 0) {
			if (modem_line(w, &line, lineno, err, err_cap) != 0) {
				return -1;
			}
		} else if (strcmp(word, "uwb") == 0) {
			if (uwb_line(w, &line, lineno, err, err_cap) != 0) {
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
	if (world_gnss_finish(w, err, err_cap) != 0) {
		return -1;
	}
	/* No clock source at start: every device waits for a time-sync input. */
	for (uint32_t i = 0; utc_none && i < w->device_count; i++) {
		w->devices[i].utc_synced = false;
	}
	return 0;
}

/*
 * The world script's reader (world_script.h; docs/world.md has the format): the header, utc and
 * seed, and the statements that make the world: devices, scripted beacons, GNSS tracks and
 * receivers, the modem's network, UWB. Timed inputs are read in world_script_input.c, values in
 * world_script_parse.c.
 */
#include "world_script.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world_gnss.h"
#include "world_inputs.h"
#include "world_modem.h"
#include "world_script_internal.h"

/* start=<ms>: the device is off until then, and a power-on input switches it on. The input is
 * queued with the device's statement, before the script's timed inputs, so that at its
 * millisecond the device boots first and then takes the inputs of it, as at 0. */
static int power_on(world_t *w, world_device_t *d, double ms)
{
	if (!(ms >= 0) || ms != floor(ms) || ms > 9007199254740991.0) {
		return -1;
	}
	d->power_on_at = (uint64_t)ms;
	if (d->power_on_at == 0) {
		return 0;
	}
	world_event_t e = {0};
	e.at = d->power_on_at;
	e.device = d->rt.index;
	e.kind = WORLD_IN_POWER_ON;
	return world_add_event(w, &e);
}

static int device_line(world_t *w, const line_t *l, unsigned lineno, char *err, size_t err_cap)
{
	uint64_t index;
	if (l->count < 4 || !world_script_parse_u64(l->tok[1], &index)) {
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
			world_air_moved(w, d);
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
		if (!world_script_parse_num(value, &x)) {
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
		} else if (strcmp(key, "start") == 0) {
			if (power_on(w, d, x) != 0) {
				FAIL("start takes a whole number of ms from 0 (got '%s')", value);
			}
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
	if (!world_script_parse_num(l->tok[3], &interval) || interval < 20 || interval > 10485759) {
		FAIL("beacon %s: interval must be from 20 to 10485759 ms", b.name);
	}
	if (!world_script_parse_num(l->tok[4], &power) || power < -127 || power > 20) {
		FAIL("beacon %s: power must be from -127 to 20 dBm", b.name);
	}
	if (!world_script_parse_hex(l->tok[5], b.set.ad, HAL_BLE_AD_MAX, &len)) {
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
		if (strncmp(t, "addr=", 5) == 0 && world_script_parse_addr(t + 5, b.addr)) {
			continue;
		}
		if (strncmp(t, "response=", 9) == 0 && world_script_parse_flag(t + 9, &x)) {
			b.response = x != 0;
			continue;
		}
		if (strncmp(t, "connectable=", 12) == 0 && world_script_parse_flag(t + 12, &x)) {
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

static world_device_t *statement_device(world_t *w, const line_t *l, int64_t *index)
{
	uint64_t i;
	if (l->count < 3 || !world_script_parse_u64(l->tok[1], &i) || i >= w->device_count) {
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
		if ((args != 4 && args != 6) || !world_script_parse_i64(a[0], &p.t_ms) || !world_script_parse_num(a[1], &p.lat) ||
		    !world_script_parse_num(a[2], &p.lon) || !world_script_parse_num(a[3], &p.alt) ||
		    (args == 6 && (!world_script_parse_opt(a[4], &p.speed_kmh) || !world_script_parse_opt(a[5], &p.head_deg)))) {
			FAIL("gnss point takes a time (ms), latitude, longitude, altitude and optionally speed (km/h) and heading");
		}
		if (world_gnss_add_point(g, &p, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "outage") == 0) {
		int64_t from, to;
		if (args != 2 || !world_script_parse_i64(a[0], &from) || !world_script_parse_i64(a[1], &to)) {
			FAIL("gnss outage takes from and to (ms)");
		}
		if (world_gnss_add_outage(g, from, to, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "sky") == 0) {
		int64_t t;
		uint64_t sat;
		double hdop;
		if (args != 3 || !world_script_parse_i64(a[0], &t) || !world_script_parse_u64(a[1], &sat) || sat > 255 ||
		    !world_script_parse_num(a[2], &hdop)) {
			FAIL("gnss sky takes a time (ms), satellites (0..255) and HDOP");
		}
		if (world_gnss_add_sky(g, t, (uint8_t)sat, hdop, msg, sizeof(msg)) != 0) {
			FAIL("%s", msg);
		}
	} else if (strcmp(what, "receiver") == 0) {
		for (int i = 0; i < args; i++) {
			char key[32];
			const char *value = world_script_key_value(a[i], key);
			double x;
			if (value == NULL || !world_script_parse_num(value, &x) || x < 0) {
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
		const char *value = world_script_key_value(a[i], key);
		if (value == NULL) {
			FAIL("'%s' is not key=value", a[i]);
		}
		double x = 0;
		bool is_text = strcmp(key, "name") == 0 || strcmp(key, "tech") == 0 || strcmp(key, "band") == 0;
		if (!is_text && !world_script_parse_num(value, &x)) {
			FAIL("%s takes a number (got '%s')", key, value);
		}
		bool ok = true;
		if (strcmp(key, "name") == 0) {
			ok = world_script_parse_text(value, c->name, sizeof(c->name));
		} else if (strcmp(key, "tech") == 0) {
			ok = world_script_parse_text(value, c->tech, sizeof(c->tech));
		} else if (strcmp(key, "band") == 0) {
			ok = world_script_parse_text(value, c->band, sizeof(c->band));
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
		if (!world_script_parse_text(a[0], o->name, sizeof(o->name)) || !world_script_parse_text(a[1], o->type, sizeof(o->type)) ||
		    !world_script_parse_text(a[2], o->status, sizeof(o->status))) {
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
			const char *value = world_script_key_value(a[i], key);
			bool ok = value != NULL;
			if (ok && strcmp(key, "iccid") == 0) {
				ok = world_script_parse_text(value, m->info.iccid, sizeof(m->info.iccid));
			} else if (ok && strcmp(key, "imei") == 0) {
				ok = world_script_parse_text(value, m->info.imei, sizeof(m->info.imei));
			} else if (ok && strcmp(key, "imsi") == 0) {
				ok = world_script_parse_text(value, m->info.imsi, sizeof(m->info.imsi));
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
		if (q < 0 || !world_script_parse_u64(a[1], &ms) || ms > UINT32_MAX) {
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
	if (l->count != 3 || !world_script_parse_u64(l->tok[2], &x)) {
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

/*
 * Playing one device (world_script_load_device): whether the statement on `line` is the played
 * device's (its index then reads "0", the played device's place in this world), another
 * device's (false: left out), or the whole world's. The index is the second word of device,
 * gnss and modem statements and the third of an input (at <ms> <index> ...).
 */
static bool played(line_t *line, uint32_t play, uint32_t devices)
{
	const char *word = line->tok[0];
	int at = strcmp(word, "at") == 0 ? 2
		 : strcmp(word, "device") == 0 || strcmp(word, "gnss") == 0 || strcmp(word, "modem") == 0
			 ? 1
			 : 0;
	uint64_t index;
	if (at == 0 || line->count <= at || !world_script_parse_u64(line->tok[at], &index) ||
	    index >= devices) {
		return true; /* the world's, or malformed: the statement's reader says what is wrong */
	}
	if (index != play) {
		return false;
	}
	static char zero[] = "0";
	line->tok[at] = zero;
	return true;
}

static int load(world_t *w, const char *text, size_t len, int64_t play, char *err, size_t err_cap)
{
	uint32_t devices = play >= 0 ? world_script_device_count(text, len) : w->device_count;
	const char *p = text, *end = text + len;
	line_t line;
	bool too_long;
	unsigned lineno = 0;
	bool header = false, utc_none = false;
	while (world_script_next_line(&p, end, &line, &too_long)) {
		lineno++;
		if (too_long) {
			FAIL("longer than %d characters", MAX_LINE - 1);
		}
		if (line.count == 0 || line.tok[0][0] == '#') {
			continue;
		}
		if (header && play >= 0 && !played(&line, (uint32_t)play, devices)) {
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
			} else if (line.count == 2 && world_script_parse_u64(line.tok[1], &utc)) {
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
			if (line.count != 2 || !world_script_parse_u64(line.tok[1], &seed)) {
				FAIL("seed takes a whole number");
			}
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
			if (world_script_input_line(w, &line, lineno, err, err_cap) != 0) {
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

int world_script_load(world_t *w, const char *text, size_t len, char *err, size_t err_cap)
{
	return load(w, text, len, -1, err, err_cap);
}

int world_script_load_device(world_t *w, const char *text, size_t len, uint32_t play, char *err,
			     size_t err_cap)
{
	uint32_t devices = world_script_device_count(text, len);
	if (w->device_count != 1 || play >= devices) {
		snprintf(err, err_cap, "device %u: the scenario has %u device%s", (unsigned)play,
			 (unsigned)devices, devices == 1 ? "" : "s");
		return -1;
	}
	world_device_identity(w, 0, play);
	return load(w, text, len, play, err, err_cap);
}

/*
 * world_modem.c: the simulated LTE modem and its network (see world_modem.h, docs/world.md).
 */
#include "world_modem.h"

#include <stdio.h>
#include <string.h>

#include "hal_device.h"
#include "rt_modem.h"
#include "world.h"
#include "world_inputs.h"

static const char *const names[HAL_MODEM_QUERY_COUNT] = {"operators", "status", "cells", "info"};

/* Scan durations of an nRF9160 on a good network: an operator scan (AT+COPS=?) lasts about a
 * minute; the serving cell's state and the identifiers are read at once; a neighbour search
 * takes a few seconds. */
static const uint32_t default_scan_ms[HAL_MODEM_QUERY_COUNT] = {60000u, 200u, 5000u, 100u};

static void set_text(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

void world_modem_defaults(world_modem_t *m, uint32_t index)
{
	memset(m, 0, sizeof(*m));
	/* A home network and a roaming one, as a scan in Europe finds them. */
	set_text(m->operators[0].name, sizeof(m->operators[0].name), "Sim Mobile");
	set_text(m->operators[0].type, sizeof(m->operators[0].type), "gsm");
	set_text(m->operators[0].status, sizeof(m->operators[0].status), "curr");
	set_text(m->operators[1].name, sizeof(m->operators[1].name), "Other Net");
	set_text(m->operators[1].type, sizeof(m->operators[1].type), "gsm");
	set_text(m->operators[1].status, sizeof(m->operators[1].status), "avail");
	m->n_operators = 2;
	m->registered = true;
	hal_modem_cell_t *s = &m->serving;
	set_text(s->name, sizeof(s->name), "Sim Mobile");
	s->signal = 4;
	s->has_rssi = s->has_rsrp = s->has_rsrq = true;
	s->rssi = -71;
	s->rsrp = -95;
	s->rsrq = -10;
	s->mcc = 244;
	s->mnc = 91;
	s->lac = 4100;
	s->cell = 1234567;
	set_text(s->tech, sizeof(s->tech), "LTE Cat. M1");
	set_text(s->band, sizeof(s->band), "20");
	m->cells[0] = *s;
	m->cells[0].cell = 1234568;
	m->cells[0].signal = 2;
	m->cells[0].rsrp = -110;
	m->cells[0].rsrq = -14;
	m->cells[0].rssi = -85;
	m->n_cells = 1;
	m->has_sim = true;
	/* Identifiers numbered per device, so two devices of a scenario differ. */
	snprintf(m->info.iccid, sizeof(m->info.iccid), "89358151000%09u", (unsigned)(index + 1));
	snprintf(m->info.imei, sizeof(m->info.imei), "3527530900%05u", (unsigned)(index + 1));
	snprintf(m->info.imsi, sizeof(m->info.imsi), "2449100%08u", (unsigned)(index + 1));
	memcpy(m->scan_ms, default_scan_ms, sizeof(m->scan_ms));
}

int world_modem_query_by_name(const char *name)
{
	for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
		if (strcmp(names[q], name) == 0) {
			return q;
		}
	}
	return -1;
}

const char *world_modem_query_name(int query)
{
	return query >= 0 && query < HAL_MODEM_QUERY_COUNT ? names[query] : "?";
}

static world_device_t *lte_device(void)
{
	world_device_t *d = world_current();
	return d != NULL && (d->features & HAL_FEATURE_LTE) ? d : NULL;
}

static void trace_query(world_t *w, world_device_t *d, int q, const char *what)
{
	if (!world_tracing(w)) {
		return;
	}
	world_trace_begin(&w->json, w, d, "modem");
	world_trace_strz(&w->json, "query", names[q]);
	world_trace_strz(&w->json, "state", what);
	world_trace_end(&w->json, w);
}

bool hal_modem_query(hal_modem_query_t query)
{
	world_device_t *d = lte_device();
	if (d == NULL || (unsigned)query >= HAL_MODEM_QUERY_COUNT || d->modem.airplane) {
		return false;
	}
	world_t *w = d->world;
	world_modem_t *m = &d->modem;
	m->running[query] = true;
	m->generation[query]++;
	world_event_t e = {0};
	e.at = w->now + m->scan_ms[query];
	e.device = d->rt.index;
	e.kind = WORLD_IN_MODEM_DONE;
	e.value[0] = query;
	e.value[1] = m->generation[query];
	if (world_add_event(w, &e) != 0) {
		m->running[query] = false;
		return false;
	}
	trace_query(w, d, query, "start");
	world_energy_modem_search(w, d, m->scan_ms[query]);
	return true;
}

void hal_modem_cancel(hal_modem_query_t query)
{
	world_device_t *d = lte_device();
	if (d == NULL || (unsigned)query >= HAL_MODEM_QUERY_COUNT || !d->modem.running[query]) {
		return;
	}
	d->modem.running[query] = false;
	d->modem.generation[query]++;
	trace_query(d->world, d, query, "cancel");
}

void world_modem_done_event(world_t *w, world_device_t *d, const world_event_t *e)
{
	int q = (int)e->value[0];
	world_modem_t *m = &d->modem;
	if (q < 0 || q >= HAL_MODEM_QUERY_COUNT || !m->running[q] ||
	    (uint32_t)e->value[1] != m->generation[q]) {
		return; /* started again, cancelled or cut by airplane mode */
	}
	m->running[q] = false;
	trace_query(w, d, q, "done");
	rt_modem_post_done(&d->rt, (hal_modem_query_t)q, true);
	world_wake(w, d);
}

size_t hal_modem_operators(hal_modem_operator_t *out, size_t cap)
{
	world_device_t *d = lte_device();
	if (d == NULL) {
		return 0;
	}
	size_t n = d->modem.n_operators < cap ? d->modem.n_operators : cap;
	memcpy(out, d->modem.operators, n * sizeof(*out));
	return n;
}

bool hal_modem_status(hal_modem_cell_t *out)
{
	world_device_t *d = lte_device();
	if (d == NULL || !d->modem.registered || !d->modem.has_sim) {
		return false;
	}
	*out = d->modem.serving;
	return true;
}

size_t hal_modem_cells(hal_modem_cell_t *out, size_t cap)
{
	world_device_t *d = lte_device();
	if (d == NULL || !d->modem.registered) {
		return 0;
	}
	size_t n = d->modem.n_cells < cap ? d->modem.n_cells : cap;
	memcpy(out, d->modem.cells, n * sizeof(*out));
	return n;
}

bool hal_modem_info(hal_modem_info_t *out)
{
	world_device_t *d = lte_device();
	if (d == NULL || !d->modem.has_sim) {
		return false;
	}
	*out = d->modem.info;
	return true;
}

void hal_modem_airplane(bool on)
{
	world_device_t *d = lte_device();
	if (d == NULL || d->modem.airplane == on) {
		return;
	}
	world_modem_t *m = &d->modem;
	m->airplane = on;
	if (on) {
		world_energy_modem_detach(d->world, d);
		for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
			m->running[q] = false;
			m->generation[q]++;
		}
	}
	world_t *w = d->world;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "lte");
		world_trace_bool(&w->json, "on", !on);
		world_trace_end(&w->json, w);
	}
}

void world_modem_reset(world_t *w, world_device_t *d)
{
	(void)w;
	world_modem_t *m = &d->modem;
	for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
		m->running[q] = false;
		m->generation[q]++;
	}
	m->airplane = false;
}

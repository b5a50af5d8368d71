/*
 * world_energy_report.c: what the energy model writes with --energy (docs/world.md, "Energy"):
 * each device's draw by part a period (an "energy" record) and its summary at the end of the run
 * ("energy-summary"), to the trace and to the host's energy output.
 */
#include <stdio.h>

#include "world.h"
#include "world_energy.h"

static void emit(world_t *w, world_json_t *j)
{
	if (w->io.energy != NULL) {
		/* world_trace_end hands the record to the trace; the energy output gets it too. */
		w->io.energy(w->io.ctx, j->buf, j->len);
	}
}

void world_energy_record(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	if (w->energy_period_ms == 0 || w->now <= e->record_at) {
		return;
	}
	double ms = (double)(w->now - e->record_at);
	char parts[512];
	size_t n = 0;
	double sum = 0;
	for (int p = 0; p < WORLD_PART_COUNT && n < sizeof(parts) - 64; p++) {
		double ma = (e->mc[p] - e->record_mc[p]) / ms * 1000.0;
		sum += ma;
		n += (size_t)snprintf(parts + n, sizeof(parts) - n, "%s\"%s\":", p ? "," : "{",
				      world_energy_part_name((world_part_t)p));
		n += world_format_num(parts + n, sizeof(parts) - n, ma);
		e->record_mc[p] = e->mc[p];
	}
	n += (size_t)snprintf(parts + n, sizeof(parts) - n, "}");
	world_json_t *j = &w->json;
	world_trace_begin(j, w, d, "energy");
	world_trace_num(j, "from", (double)e->record_at);
	world_trace_num(j, "avgMa", sum);
	world_trace_raw(j, "ma", parts, n);
	world_trace_num(j, "percent", (double)d->battery_percent);
	world_trace_end(j, w);
	emit(w, j);
	e->record_at = w->now;
}

/* The device's summary: its draw by part and its largest consumers. */
static void summary(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	double span_s = (double)e->powered_ms / 1000.0;
	double total = 0;
	for (int p = 0; p < WORLD_PART_COUNT; p++) {
		total += e->mc[p];
	}
	world_json_t *j = &w->json;
	world_trace_begin(j, w, d, "energy-summary");
	world_trace_strz(j, "profile", d->profile->name);
	world_trace_num(j, "avgMa", span_s > 0 ? total / span_s : 0);
	world_trace_num(j, "mah", total / 3600.0);
	world_trace_num(j, "poweredMs", (double)e->powered_ms);
	world_trace_num(j, "capacityMah", (double)d->profile->capacity_mah);
	world_trace_num(j, "percent", (double)d->battery_percent);
	if (e->fixed) {
		world_trace_num(j, "fixedMa", (double)d->current_ma);
	}
	char buf[1536];
	size_t n = 0;
	for (int p = 0; p < WORLD_PART_COUNT; p++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"%s\":", p ? "," : "{", world_energy_part_name((world_part_t)p));
		n += world_format_num(buf + n, sizeof(buf) - n, e->mc[p] / 3600.0);
	}
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
	world_trace_raw(j, "partsMah", buf, n);
	/* What did it: each advertising set, the scanner, the receiver, the modem, by its charge. */
	n = 0;
	for (int i = 0; i < CONFIG_BEACON_BLE_ADVERTISERS; i++) {
		if (e->adv_mc[i] > 0) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%s{\"part\":\"bleAdv\",\"set\":%d,\"intervalMs\":%u,\"dbm\":%d,\"mah\":",
					      n ? "," : "[", i, (unsigned)e->adv_interval[i], e->adv_power[i]);
			n += world_format_num(buf + n, sizeof(buf) - n, e->adv_mc[i] / 3600.0);
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
		}
	}
	if (e->mc[WORLD_PART_BLE_SCAN] > 0) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      "%s{\"part\":\"bleScan\",\"windowMs\":%u,\"intervalMs\":%u,\"mah\":", n ? "," : "[",
				      (unsigned)e->scan_window, (unsigned)e->scan_interval);
		n += world_format_num(buf + n, sizeof(buf) - n, e->mc[WORLD_PART_BLE_SCAN] / 3600.0);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
	}
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", n ? "]" : "[]");
	world_trace_raw(j, "consumers", buf, n);
	n = (size_t)snprintf(buf, sizeof(buf),
			     "{\"turns\":%llu,\"flashWords\":%llu,\"flashPages\":%llu,\"rangings\":%llu,"
			     "\"syncs\":%u,\"modemQueries\":%u,\"txBytes\":%.0f,\"rxBytes\":%.0f}",
			     (unsigned long long)e->turns, (unsigned long long)e->flash_words,
			     (unsigned long long)e->flash_pages, (unsigned long long)e->rangings, (unsigned)e->syncs,
			     (unsigned)e->queries, e->tx_bytes, e->rx_bytes);
	world_trace_raw(j, "counts", buf, n);
	n = 0;
	const double radio[6] = {e->adv_tx_us, e->adv_tx_uc, e->adv_rx_us, e->scan_rx_us, e->scan_rx_uc, e->scan_tx_us};
	const char *const names[6] = {"advTxUs", "advTxUc", "advRxUs", "scanRxUs", "scanRxUc", "scanTxUs"};
	for (int i = 0; i < 6; i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"%s\":", i ? "," : "{", names[i]);
		n += world_format_num(buf + n, sizeof(buf) - n, radio[i]);
	}
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "}");
	world_trace_raw(j, "radio", buf, n);
	world_trace_end(j, w);
	emit(w, j);
}

void world_energy_finish(world_t *w)
{
	if (w->energy_period_ms == 0) {
		return;
	}
	for (uint32_t i = 0; i < w->device_count; i++) {
		world_device_t *d = &w->devices[i];
		if (d->energy.fig == NULL) {
			continue;
		}
		world_energy_update(w, d);
		world_energy_record(w, d);
		summary(w, d);
	}
}

void world_energy_records(world_t *w, uint32_t period_ms)
{
	w->energy_period_ms = period_ms;
}

/*
 * The BLE radio of a simulated device (hal_ble.h) on the world's air (world_air.c): its
 * advertising sets, its scanner, and the world's list of devices scanning; and on a test board
 * with a real radio under the world (world_air_use_radio), that radio too.
 */
#include <stdlib.h>
#include <string.h>

#include "hal_ble.h"
#include "world.h"
#include "world_air.h"
#include "world_air_internal.h"

/* ------------------------------------------------------------------ scanner list */

static void scanner_add(world_t *w, world_device_t *d)
{
	if (w->scanners == NULL) {
		w->scanners = calloc(w->device_count ? w->device_count : 1, sizeof(uint32_t));
		if (w->scanners == NULL) {
			return;
		}
	}
	world_air_index_scanner(w, d, true);
	for (uint32_t i = 0; i < w->scanner_count; i++) {
		if (w->scanners[i] == d->rt.index) {
			return;
		}
	}
	w->scanners[w->scanner_count++] = d->rt.index;
	/* In index order, so receptions at the same time happen in the same order every run. */
	for (uint32_t i = w->scanner_count - 1; i > 0 && w->scanners[i - 1] > w->scanners[i]; i--) {
		uint32_t t = w->scanners[i];
		w->scanners[i] = w->scanners[i - 1];
		w->scanners[i - 1] = t;
	}
}

static void scanner_remove(world_t *w, world_device_t *d)
{
	world_air_index_scanner(w, d, false);
	for (uint32_t i = 0; i < w->scanner_count; i++) {
		if (w->scanners[i] == d->rt.index) {
			memmove(&w->scanners[i], &w->scanners[i + 1], (w->scanner_count - i - 1) * sizeof(uint32_t));
			w->scanner_count--;
			return;
		}
	}
}

void world_air_device_reset(world_t *w, world_device_t *d)
{
	for (uint32_t s = 0; s < WORLD_AIR_SETS; s++) {
		if (w->radio != NULL && d->adv[s].on) {
			w->radio->adv_stop(s);
		}
		d->adv[s].on = false;
		d->adv[s].gen++;
		d->adv[s].scheduled = false;
	}
	if (d->scan.on) {
		if (w->radio != NULL) {
			w->radio->scan_stop();
		}
		d->scan.on = false;
		scanner_remove(w, d);
	}
}

/* ------------------------------------------------------------------ the HAL */

static world_device_t *dev(void)
{
	return world_current();
}

void world_air_use_radio(world_t *w, const world_radio_t *radio)
{
	w->radio = radio;
}

uint32_t hal_ble_adv_sets(void)
{
	return WORLD_AIR_SETS;
}

static void trace_set(world_t *w, world_device_t *d, const char *ev, uint32_t set)
{
	if (!world_tracing(w)) {
		return;
	}
	world_trace_begin(&w->json, w, d, ev);
	world_trace_num(&w->json, "set", set);
	if (d->adv[set].on) {
		world_trace_num(&w->json, "interval", d->adv[set].interval);
		world_trace_num(&w->json, "power", d->adv[set].power);
		world_air_trace_hex(&w->json, "data", d->adv[set].ad, d->adv[set].len);
	}
	world_trace_end(&w->json, w);
}

bool hal_ble_adv_start(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms, int8_t power_dbm)
{
	world_device_t *d = dev();
	if (d == NULL || set >= WORLD_AIR_SETS || len > HAL_BLE_AD_MAX || interval_ms == 0) {
		return false;
	}
	world_t *w = d->world;
	if (w->radio != NULL && !w->radio->adv_start(set, ad, len, interval_ms, power_dbm)) {
		return false;
	}
	world_adv_set_t *s = &d->adv[set];
	bool restart = !s->on || s->interval != interval_ms;
	memcpy(s->ad, ad, len);
	s->len = (uint8_t)len;
	s->power = power_dbm;
	if (restart) {
		s->on = true;
		s->interval = interval_ms;
		s->gen++;
		s->scheduled = false;
		s->nominal = w->now;
	}
	trace_set(w, d, "ble-adv-start", set);
	world_energy_radio(w, d);
	if (world_air_listening(w)) {
		world_air_wake_set(w, d->rt.index, set, s);
	} else {
		w->air_all_awake = false; /* on, and asleep until someone listens */
	}
	return true;
}

bool hal_ble_adv_update(uint32_t set, const uint8_t *ad, size_t len)
{
	world_device_t *d = dev();
	if (d == NULL || set >= WORLD_AIR_SETS || len > HAL_BLE_AD_MAX || !d->adv[set].on) {
		return false;
	}
	if (d->world->radio != NULL && !d->world->radio->adv_update(set, ad, len)) {
		return false;
	}
	memcpy(d->adv[set].ad, ad, len);
	d->adv[set].len = (uint8_t)len;
	world_energy_radio(d->world, d);
	return true;
}

void hal_ble_adv_stop(uint32_t set)
{
	world_device_t *d = dev();
	if (d == NULL || set >= WORLD_AIR_SETS || !d->adv[set].on) {
		return;
	}
	if (d->world->radio != NULL) {
		d->world->radio->adv_stop(set);
	}
	d->adv[set].on = false;
	d->adv[set].gen++;
	d->adv[set].scheduled = false;
	trace_set(d->world, d, "ble-adv-stop", set);
	world_energy_radio(d->world, d);
}

bool hal_ble_scan_start(const hal_ble_scan_t *params)
{
	world_device_t *d = dev();
	if (d == NULL || params->channels == 0 || params->window_ms == 0 ||
	    params->window_ms > params->interval_ms) {
		return false;
	}
	world_t *w = d->world;
	if (w->radio != NULL && !w->radio->scan_start(params)) {
		return false;
	}
	d->scan.on = true;
	d->scan.p = *params;
	d->scan.start = w->now;
	d->scan.nchan = 0;
	for (uint8_t c = 0; c < 3; c++) {
		if (params->channels & (1u << c)) {
			d->scan.order[d->scan.nchan++] = (uint8_t)(37 + c);
		}
	}
	scanner_add(w, d);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "ble-scan-start");
		world_trace_num(&w->json, "interval", params->interval_ms);
		world_trace_num(&w->json, "window", params->window_ms);
		world_trace_num(&w->json, "channels", params->channels);
		world_trace_bool(&w->json, "passive", params->passive);
		world_trace_end(&w->json, w);
	}
	world_energy_radio(w, d);
	world_air_wake(w);
	return true;
}

void hal_ble_scan_stop(void)
{
	world_device_t *d = dev();
	if (d == NULL || !d->scan.on) {
		return;
	}
	if (d->world->radio != NULL) {
		d->world->radio->scan_stop();
	}
	d->scan.on = false;
	scanner_remove(d->world, d);
	if (world_tracing(d->world)) {
		world_trace_begin(&d->world->json, d->world, d, "ble-scan-stop");
		world_trace_end(&d->world->json, d->world);
	}
	world_energy_radio(d->world, d);
}

void hal_ble_address(uint8_t addr[HAL_BLE_ADDR_LEN])
{
	world_device_t *d = dev();
	world_air_device_address(d != NULL ? d->identity : 0, addr);
}

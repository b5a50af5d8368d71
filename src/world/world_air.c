/*
 * world_air.c: the BLE air of a world and the radio of its simulated devices. See world_air.h
 * and docs/world.md ("The air"). This file: the air's sources, their advertising events and who
 * hears them; the radio HAL of the simulated devices is in world_air_hal.c.
 */
#include "world_air.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_ble.h"
#include "rt_ble.h"
#include "rt_ble_ad.h"
#include "rt_ble_beacon.h"
#include "rt_hex.h"
#include "world.h"
#include "world_inputs.h"
#include "world_air_internal.h"

/* ------------------------------------------------------------------ sources */

/* A source is a device (index < device_count) or a beacon (device_count + its index). */
static world_adv_set_t *source_set(world_t *w, uint32_t source, uint32_t set)
{
	if (source < w->device_count) {
		return set < WORLD_AIR_SETS ? &w->air_sets[(size_t)source * WORLD_AIR_SETS + set] : NULL;
	}
	source -= w->device_count;
	return source < w->beacon_count ? &w->beacons[source].set : NULL;
}

void world_air_device_address(uint32_t index, uint8_t addr[HAL_BLE_ADDR_LEN])
{
	/* Static random addresses have the two top bits set (Core Vol 6 Part B 1.3.2.1). */
	const uint8_t a[HAL_BLE_ADDR_LEN] = {0xc0, 0x5e, 0xac, 0x0b, (uint8_t)(index >> 8), (uint8_t)index};
	memcpy(addr, a, HAL_BLE_ADDR_LEN);
}

bool world_air_listening(const world_t *w)
{
	return w->scanner_count > 0 || world_tracing(w);
}

/* The sender's part of a draw's key: what it is in its scenario, not where it is in this world's
 * arrays (a beacon's index there depends on how many devices the world has). */
static uint64_t source_key(const world_t *w, uint32_t source)
{
	return source < w->device_count ? w->air_spots[source].identity
					: (1ull << 32) + (source - w->device_count);
}

static void schedule(world_t *w, uint32_t source, uint32_t set_index, world_adv_set_t *set)
{
	/* advDelay is a keyed draw too (the set's delay number, no receiver): a set's timing depends
	 * on the seed and the set alone, not on what else the world draws or in which order. */
	world_air_key_t k = {source_key(w, source), set_index, set->delays++, UINT64_MAX};
	uint64_t delay = world_air_draw_u64(w, &k, 0) % (WORLD_AIR_ADV_DELAY_MAX + 1);
	world_event_t *e = world_new_event(w, set->nominal + delay);
	if (e != NULL) {
		e->device = source;
		e->kind = WORLD_IN_AIR_ADV;
		e->value[0] = set_index;
		e->value[1] = set->gen;
	}
	set->scheduled = e != NULL;
	w->air_pending += set->scheduled;
	if (!set->scheduled) {
		w->air_all_awake = false;
	}
}

void world_air_wake_set(world_t *w, uint32_t source, uint32_t set_index, world_adv_set_t *set)
{
	if (!set->on || set->scheduled || !set->interval) {
		return;
	}
	if (set->nominal < w->now) {
		uint64_t behind = w->now - set->nominal;
		set->nominal += (behind + set->interval - 1) / set->interval * set->interval;
	}
	schedule(w, source, set_index, set);
}

void world_air_wake(world_t *w)
{
	/* Sets fall asleep only while no one listens (world_air_event, hal_ble_adv_start): once all
	 * are awake, a scan starting or a run resuming has nothing to walk. */
	if (!world_air_listening(w) || w->air_all_awake) {
		return;
	}
	w->air_all_awake = true;
	for (uint32_t i = 0; i < w->device_count; i++) {
		for (uint32_t s = 0; s < WORLD_AIR_SETS; s++) {
			world_air_wake_set(w, i, s, &w->devices[i].adv[s]);
		}
	}
	for (uint32_t b = 0; b < w->beacon_count; b++) {
		world_air_wake_set(w, w->device_count + b, 0, &w->beacons[b].set);
	}
}

int world_air_add_beacon(world_t *w, const world_beacon_t *beacon)
{
	if (w->beacon_count == w->beacon_cap) {
		uint32_t cap = w->beacon_cap ? w->beacon_cap * 2 : 8;
		world_beacon_t *b = realloc(w->beacons, cap * sizeof(*b));
		if (b == NULL) {
			return -1;
		}
		w->beacons = b;
		w->beacon_cap = cap;
	}
	world_beacon_t *b = &w->beacons[w->beacon_count++];
	*b = *beacon;
	b->set.on = true;
	b->set.scheduled = false;
	w->air_all_awake = false;
	b->set.nominal = 0;
	return 0;
}

int world_air_add_capture(world_t *w, const world_capture_t *capture)
{
	if (w->capture_count == w->capture_cap) {
		uint32_t cap = w->capture_cap ? w->capture_cap * 2 : 8;
		world_capture_t *c = realloc(w->captures, cap * sizeof(*c));
		if (c == NULL) {
			return -1;
		}
		w->captures = c;
		w->capture_cap = cap;
	}
	w->captures[w->capture_count] = *capture;
	return (int)w->capture_count++;
}

void world_air_free(world_t *w)
{
	free(w->beacons);
	free(w->captures);
	free(w->scanners);
	free(w->air_sets);
	free(w->air_spots);
	w->air_sets = NULL;
	w->air_spots = NULL;
	world_air_index_free(w);
	w->beacons = NULL;
	w->captures = NULL;
	w->scanners = NULL;
}

/* ------------------------------------------------------------------ trace */

void world_air_trace_hex(world_json_t *j, const char *key, const uint8_t *bytes, size_t n)
{
	char hex[2 * RT_BLE_AD_EXT_MAX + 1];
	rt_hex_encode(bytes, n, hex);
	world_trace_str(j, key, hex, 2 * n);
}

/* The decoded fields of an advertisement, as a scan record would show them. */
static void trace_fields(world_json_t *j, const uint8_t *ad, size_t len)
{
	rt_ble_ad_t a;
	rt_ble_ad_decode(ad, len, &a);
	rt_ble_parsed_t parsed;
	const char *type = rt_ble_beacon_type_name(rt_ble_beacon_parse(&a, &parsed));
	if (type != NULL) {
		world_trace_strz(j, "type", type);
	}
	if (a.present & RT_BLE_HAS_FLAGS) {
		world_trace_num(j, "flags", a.flags);
	}
	if (a.present & RT_BLE_HAS_TX_POWER) {
		world_trace_num(j, "txPower", a.tx_power);
	}
	if (a.present & RT_BLE_HAS_NAME) {
		world_trace_str(j, "name", (const char *)rt_ble_ad_bytes(&a, a.name), a.name.len);
	}
	if (a.present & RT_BLE_HAS_MANUF) {
		world_air_trace_hex(j, "manufData", rt_ble_ad_bytes(&a, a.manuf), a.manuf.len);
	}
	if (a.uuid_count) {
		char json[RT_BLE_AD_MAX_UUIDS * (RT_BLE_UUID_HEX_MAX + 3) + 3];
		size_t n = 0;
		json[n++] = '[';
		for (uint8_t i = 0; i < a.uuid_count; i++) {
			if (i) {
				json[n++] = ',';
			}
			json[n++] = '"';
			n += rt_ble_ad_uuid_to_hex(&a.uuids[i], json + n);
			json[n++] = '"';
		}
		json[n++] = ']';
		world_trace_raw(j, "serviceUUIDs", json, n);
	}
	if (a.service_data_count) {
		char json[RT_BLE_AD_MAX_SERVICE_DATA * (RT_BLE_UUID_HEX_MAX + 6) + 2 * RT_BLE_AD_EXT_MAX + 4];
		size_t n = 0;
		json[n++] = '{';
		for (uint8_t i = 0; i < a.service_data_count; i++) {
			const rt_ble_service_data_t *e = &a.service_data[i];
			if (i) {
				json[n++] = ',';
			}
			json[n++] = '"';
			n += rt_ble_ad_uuid_to_hex(&e->uuid, json + n);
			json[n++] = '"';
			json[n++] = ':';
			json[n++] = '"';
			rt_hex_encode(rt_ble_ad_bytes(&a, e->data), e->data.len, json + n);
			n += 2u * e->data.len;
			json[n++] = '"';
		}
		json[n++] = '}';
		world_trace_raw(j, "serviceData", json, n);
	}
}

/* ------------------------------------------------------------------ reception */

static const char *source_name(world_t *w, uint32_t source)
{
	return source < w->device_count ? w->devices[source].name
					: w->beacons[source - w->device_count].name;
}

static void source_address(world_t *w, uint32_t source, uint8_t addr[HAL_BLE_ADDR_LEN])
{
	if (source < w->device_count) {
		world_air_device_address(w->devices[source].identity, addr);
	} else {
		memcpy(addr, w->beacons[source - w->device_count].addr, HAL_BLE_ADDR_LEN);
	}
}

/* The channel a scanner listens on at world time t, or 0 outside its windows. */
static uint8_t listening_on(const world_scan_t *s, uint64_t t)
{
	if (!s->on || t < s->start || !s->p.interval_ms) {
		return 0;
	}
	uint64_t elapsed = t - s->start;
	if (elapsed % s->p.interval_ms >= s->p.window_ms) {
		return 0;
	}
	return s->order[(elapsed / s->p.interval_ms) % s->nchan];
}

/* The draws of one reception: the advertisement, the scan request's way back, the scan response. */
enum { DRAW_ADV = 0, DRAW_REQUEST = 1, DRAW_RESPONSE = 2 };

/* key_hash: the reception's (world_air_key_hash). */
static double rssi_at(world_t *w, uint32_t source, uint64_t key_hash, const world_device_t *rx,
		      int8_t power, uint32_t draw)
{
	double loss = world_air_path_loss(w, source, rx);
	return round((double)power - loss + WORLD_AIR_SIGMA * world_air_gaussian_hashed(key_hash, draw));
}

static void trace_reception(world_t *w, world_device_t *rx, const char *from, const rt_ble_rx_t *r,
			    bool lost)
{
	w->air_receptions++;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, rx, "ble-rx");
		world_trace_strz(&w->json, "from", from);
		world_trace_num(&w->json, "ch", r->channel);
		world_trace_num(&w->json, "rssi", r->rssi);
		world_trace_strz(&w->json, "kind", (r->kind & RT_BLE_RX_SCAN_REQUEST)    ? "scan-request"
						    : (r->kind & RT_BLE_RX_SCAN_RESPONSE) ? "scan-response"
											  : "adv");
		world_air_trace_hex(&w->json, "data", r->data, r->len);
		if (lost) {
			world_trace_bool(&w->json, "lost", true);
		}
		world_trace_end(&w->json, w);
	}
}

/*
 * A reception the app cannot take: the device's event queue is full (its callbacks fall behind
 * the air), so the packet is dropped as the firmware drops it. The trace marks each, the device
 * counts them, and the log says so at the first of a boot.
 */
static void lost(world_t *w, world_device_t *rx)
{
	if (rx->rx_lost_since_boot++ == 0 && w->io.log) {
		char line[160];
		snprintf(line, sizeof(line),
			 "BLE receptions lost: the app's event queue (%u events) is full; its scan callback "
			 "cannot keep up with the air",
			 (unsigned)CONFIG_BEACON_EVENT_QUEUE_SIZE);
		w->io.log(w->io.ctx, rx->name, w->device_count > 1, HAL_LOG_WARN, line);
	}
	rx->rx_lost++;
}

static void deliver(world_t *w, world_device_t *rx, const char *from, const rt_ble_rx_t *r)
{
	bool posted = rt_ble_post_scan(&rx->rt, r);
	trace_reception(w, rx, from, r, !posted);
	if (!posted) {
		lost(w, rx);
	}
	world_wake(w, rx);
}

void world_air_radio_received(world_t *w, world_device_t *d, const rt_ble_rx_t *rx)
{
	char from[2 * HAL_BLE_ADDR_LEN + 1];
	rt_hex_encode(rx->addr, HAL_BLE_ADDR_LEN, from);
	trace_reception(w, d, from, rx, false);
}

/* The scan response of a source: its complete local name. */
static size_t scan_response(world_t *w, uint32_t source, uint8_t out[HAL_BLE_AD_MAX])
{
	if (source >= w->device_count && !w->beacons[source - w->device_count].response) {
		return 0;
	}
	const char *name = source_name(w, source);
	rt_ble_ad_t ad;
	rt_ble_ad_init(&ad);
	size_t n = strlen(name);
	if (n > HAL_BLE_AD_MAX - 2) {
		n = HAL_BLE_AD_MAX - 2;
	}
	rt_ble_ad_set_name(&ad, name, n, true);
	size_t len = 0;
	rt_ble_ad_encode(&ad, out, HAL_BLE_AD_MAX, &len, NULL);
	return len;
}

/* event_hash: the hash of the event's key (world_air_event_hash), which its receptions share. */
static void hear(world_t *w, uint32_t source, const world_adv_set_t *set, uint64_t event_hash,
		 world_device_t *rx)
{
	uint8_t ch = listening_on(&rx->scan, w->now);
	if (ch == 0) {
		return;
	}
	uint64_t k = world_air_key_hash(event_hash, rx->identity);
	double rssi = rssi_at(w, source, k, rx, set->power, DRAW_ADV);
	if (rssi < WORLD_AIR_SENSITIVITY) {
		return;
	}
	const char *from = source_name(w, source);
	rt_ble_rx_t r;
	memset(&r, 0, sizeof(r));
	source_address(w, source, r.addr);
	r.rssi = (int8_t)(rssi > 20 ? 20 : rssi);
	r.channel = ch;
	r.kind = source >= w->device_count && w->beacons[source - w->device_count].connectable ? RT_BLE_RX_CONNECTABLE : 0;
	r.len = set->len;
	memcpy(r.data, set->ad, set->len);
	deliver(w, rx, from, &r);
	if (rx->scan.p.passive) {
		return;
	}
	/* An active scanner asks for the scan response on the same channel. */
	uint8_t sr[HAL_BLE_AD_MAX];
	size_t sr_len = scan_response(w, source, sr);
	if (sr_len == 0) {
		return;
	}
	world_energy_scan_request(w, rx, source < w->device_count ? &w->devices[source] : NULL, sr_len, set->power);
	if (source < w->device_count) {
		world_device_t *adv = &w->devices[source];
		if (adv->scan.on && adv->scan.p.scan_requests) {
			rt_ble_rx_t q;
			memset(&q, 0, sizeof(q));
			world_air_device_address(rx->identity, q.addr);
			/* The request is sent at 0 dBm. */
			double back = rssi_at(w, source, k, rx, 0, DRAW_REQUEST);
			q.rssi = (int8_t)(back > 20 ? 20 : back < -127 ? -127 : back);
			q.channel = ch;
			q.kind = RT_BLE_RX_SCAN_REQUEST;
			deliver(w, adv, rx->name, &q);
		}
	}
	double rssi2 = rssi_at(w, source, k, rx, set->power, DRAW_RESPONSE);
	if (rssi2 < WORLD_AIR_SENSITIVITY) {
		return;
	}
	r.rssi = (int8_t)(rssi2 > 20 ? 20 : rssi2);
	r.kind |= RT_BLE_RX_SCAN_RESPONSE;
	r.len = (uint8_t)sr_len;
	memcpy(r.data, sr, sr_len);
	deliver(w, rx, from, &r);
}

void world_air_prefetch(const world_t *w, const world_event_t *e)
{
	uint32_t source = e->device, set_index = (uint32_t)e->value[0];
	if (source < w->device_count && set_index < WORLD_AIR_SETS) {
		const world_adv_set_t *set = &w->air_sets[(size_t)source * WORLD_AIR_SETS + set_index];
		__builtin_prefetch(set, 1);
		__builtin_prefetch((const char *)(set + 1) - 1, 1);
		__builtin_prefetch(&w->air_spots[source]);
		world_air_prefetch_kept(w, source);
	}
}

void world_air_event(world_t *w, const world_event_t *e)
{
	uint32_t source = e->device, set_index = (uint32_t)e->value[0];
	world_adv_set_t *set = source_set(w, source, set_index);
	if (set == NULL || !set->on || set->gen != (uint32_t)e->value[1]) {
		return; /* an event of a set since stopped or reconfigured */
	}
	set->scheduled = false;
	if (!world_air_listening(w)) {
		w->air_all_awake = false;
		return; /* no one hears it: the set sleeps until someone listens (world_air_wake) */
	}
	set->sent++;
	w->air_events++;
	if (world_tracing(w)) {
		world_device_t *d = source < w->device_count ? &w->devices[source] : NULL;
		world_trace_begin(&w->json, w, d, "ble-adv");
		if (d == NULL) {
			world_trace_strz(&w->json, "beacon", source_name(w, source));
		} else {
			world_trace_num(&w->json, "set", set_index);
		}
		world_trace_num(&w->json, "power", set->power);
		world_air_trace_hex(&w->json, "data", set->ad, set->len);
		trace_fields(&w->json, set->ad, set->len);
		world_trace_end(&w->json, w);
	}
	/* Only the scanners within reach of this power: one farther away hears nothing whatever the
	 * noise, and as each reception's noise is its own keyed draw, leaving them out changes
	 * nothing for the others. */
	const uint32_t *near;
	size_t n = world_air_in_reach(w, source, set->power, &near);
	if (n > 0) {
		world_air_key_t k = {source_key(w, source), set_index, set->sent, 0};
		uint64_t event_hash = world_air_event_hash(w, &k);
		for (size_t i = 0; i < n; i++) {
			hear(w, source, set, event_hash, &w->devices[near[i]]);
		}
	}
	/* The next event is advInterval after this one, advDelay included (Core Vol 6 Part B 4.4.2.2:
	 * T_advEvent = advInterval + advDelay), so the delays add up: an advertiser sends one event
	 * every interval + 5 ms on average, as Zephyr's controller does on BabbleSim's air
	 * (bench/ble-air.sh), not one every interval. */
	set->nominal = e->at + set->interval;
	schedule(w, source, set_index, set);
}

void world_air_capture(world_t *w, world_device_t *d, const world_event_t *e)
{
	uint32_t index = (uint32_t)e->value[0];
	if (index >= w->capture_count) {
		return;
	}
	const world_capture_t *c = &w->captures[index];
	bool heard = d->scan.on && (d->scan.p.channels & (1u << (c->channel - 37))) &&
		     !((c->kind & RT_BLE_RX_SCAN_RESPONSE) && d->scan.p.passive);
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "ble-capture");
		world_air_trace_hex(&w->json, "data", c->ad, c->len);
		world_trace_bool(&w->json, "heard", heard);
		world_trace_end(&w->json, w);
	}
	if (!heard) {
		return;
	}
	rt_ble_rx_t r;
	memset(&r, 0, sizeof(r));
	memcpy(r.addr, c->addr, HAL_BLE_ADDR_LEN);
	r.rssi = c->rssi;
	r.channel = c->channel;
	r.kind = c->kind;
	r.len = c->len;
	memcpy(r.data, c->ad, c->len);
	deliver(w, d, "capture", &r);
}

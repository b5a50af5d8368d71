/*
 * world_energy.c: the energy model of the simulated devices (see world_energy.h, docs/world.md,
 * "Energy"). Units: mA for currents, mC for charges (1 mAh = 3.6 C = 3600 mC), world ms for time;
 * mA x us = nC.
 */
#include "world_energy.h"

#include <math.h>
#include <string.h>

#include "hal_device.h"
#include "rt_sensors.h"
#include "world.h"
#include "world_inputs.h"

static const char *const part_names[WORLD_PART_COUNT] = {
	"sleep", "cpu", "bleAdv", "bleScan", "modem", "gnss", "leds", "imu", "nfc", "uwb", "flash",
};

const char *world_energy_part_name(world_part_t part)
{
	return part < WORLD_PART_COUNT ? part_names[part] : "?";
}

/* A legacy advertising PDU on the 1M PHY: preamble 1, access address 4, header 2, AdvA 6, the
 * advertising data, CRC 3 bytes, 8 us a byte (Core Vol 6 Part B 2.1, 2.3). */
#define ADV_OVERHEAD_BYTES 16.0
/* After each advertising packet of a scannable set the radio listens for a scan request, 150 us
 * (T_IFS, Core Vol 6 Part B 4.1.1) after the packet, for as long as Zephyr's controller keeps it
 * open when none comes: 65 us a packet in BabbleSim's phy dump of an advertiser no one scans
 * actively (rxAfterTxUs over txPackets, bindings-ts/test/energyAir.test.ts). */
#define SCAN_REQUEST_LISTEN_US 65.0
/* A SCAN_REQ: preamble, access address, header, ScanA and AdvA, CRC: 22 bytes. */
#define SCAN_REQ_US 176.0
/* advDelay adds 5 ms to each interval on average (0..10 ms, world_air.h). */
#define ADV_DELAY_MEAN_MS 5.0

static double capacity_mc(const world_device_t *d)
{
	return (double)d->profile->capacity_mah * 3600.0;
}

static double tx_ma(const world_energy_figures_t *f, int8_t dbm)
{
	for (int i = 0; i < WORLD_ENERGY_TX_POWERS; i++) {
		if (world_energy_tx_dbm[i] >= dbm) {
			return f->radio_tx_ma[i];
		}
	}
	return f->radio_tx_ma[WORLD_ENERGY_TX_POWERS - 1];
}

/* The TX charge factor at the serving cell's RSRP: the modem sends louder at a weaker signal. */
static double rsrp_factor(const world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	double rsrp = d->modem.serving.has_rsrp ? d->modem.serving.rsrp : world_energy_rsrp_dbm[0];
	for (int i = 0; i < WORLD_ENERGY_RSRP_POINTS; i++) {
		if (rsrp >= world_energy_rsrp_dbm[i]) {
			return f->modem_tx_factor[i];
		}
	}
	return f->modem_tx_factor[WORLD_ENERGY_RSRP_POINTS - 1];
}

static double total_ma(const world_energy_t *e)
{
	double sum = 0;
	for (int p = 0; p < WORLD_PART_COUNT; p++) {
		sum += e->ma[p];
	}
	return sum;
}

/* Put mc into the last minute's buckets, spread evenly over world ms [from, to). */
static void minute_add(world_energy_t *e, uint64_t from, uint64_t to, double mc)
{
	uint64_t last = to > 0 ? (to - 1) / 1000 : 0;
	if (last > e->minute_sec) {
		uint64_t clear = last - e->minute_sec < 60 ? last - e->minute_sec : 60;
		for (uint64_t s = 1; s <= clear; s++) {
			e->minute_mc[(e->minute_sec + s) % 60] = 0;
		}
		e->minute_sec = last;
	}
	if (to <= from) {
		e->minute_mc[e->minute_sec % 60] += mc;
		return;
	}
	double per_ms = mc / (double)(to - from);
	uint64_t start = to - from > 60000 ? to - 60000 : from;
	for (uint64_t s = start / 1000; s <= last; s++) {
		uint64_t a = s * 1000 > start ? s * 1000 : start;
		uint64_t b = (s + 1) * 1000 < to ? (s + 1) * 1000 : to;
		if (b > a && last - s < 60) {
			e->minute_mc[s % 60] += per_ms * (double)(b - a);
		}
	}
}

static void queue_check(world_t *w, world_device_t *d, uint64_t at)
{
	world_event_t ev = {0};
	ev.at = at;
	ev.device = d->rt.index;
	ev.kind = WORLD_IN_ENERGY;
	ev.value[0] = (double)at;
	world_add_event(w, &ev);
}

/* Queue a battery check at the time the battery empties (or fills) at today's current, unless an
 * earlier one is queued (a later prediction is checked when the earlier check comes). Only within
 * the run's time: a run without an end ends when nothing else can happen, and the battery is
 * counted up to then; world_run_until plans again when it is given more time. */
static void plan_check(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL || !e->powered) {
		return;
	}
	double ms;
	if (d->external) {
		double room = capacity_mc(d) - e->battery_mc;
		if (!d->charging || room <= 0 || d->profile->charge_current_ma <= 0) {
			return;
		}
		ms = room / (double)d->profile->charge_current_ma * 1000.0;
	} else {
		double ma = e->fixed ? (double)d->current_ma : total_ma(e);
		if (ma <= 0) {
			return;
		}
		ms = e->battery_mc / ma * 1000.0;
	}
	if (w->until == WORLD_FOREVER || ms > (double)(w->until - w->now)) {
		return;
	}
	uint64_t at = w->now + (uint64_t)ceil(ms);
	if (e->check_at != 0 && e->check_at <= at) {
		return;
	}
	e->check_at = at;
	queue_check(w, d, at);
}

static double modem_ma(const world_t *w, const world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (!(d->features & HAL_FEATURE_LTE) || isnan(f->modem_psm_ma)) {
		return 0;
	}
	return f->modem_psm_ma + (d->energy.rrc_until > w->now ? f->modem_rrc_ma : 0);
}

void world_energy_plan(world_t *w, world_device_t *d)
{
	world_energy_update(w, d);
	plan_check(w, d);
}

void world_energy_update(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL || w->now <= e->since) {
		return;
	}
	uint64_t from = e->since;
	double s = (double)(w->now - from) / 1000.0;
	e->since = w->now;
	double drawn = 0;
	if (e->powered) {
		e->powered_ms += w->now - from;
		/* RRC was released on the way (the network's inactivity timer): the modem's current
		 * drops then, without an event of its own. */
		if (e->rrc_until > from && e->rrc_until <= w->now) {
			double connected = e->fig->modem_rrc_ma * (double)(e->rrc_until - from) / 1000.0;
			e->mc[WORLD_PART_MODEM] += connected;
			if (!e->fixed) {
				drawn += connected;
			}
			e->rrc_until = 0;
			e->ma[WORLD_PART_MODEM] = modem_ma(w, d);
		}
		for (int p = 0; p < WORLD_PART_COUNT; p++) {
			e->mc[p] += e->ma[p] * s;
		}
		for (int i = 0; i < CONFIG_BEACON_BLE_ADVERTISERS; i++) {
			e->adv_mc[i] += e->adv_ma[i] * s;
		}
		double ms = s * 1000.0;
		e->adv_tx_us += e->adv_tx_rate * ms;
		e->adv_rx_us += e->adv_rx_rate * ms;
		e->adv_tx_uc += e->adv_tx_ma_rate * ms / 1000.0;
		e->scan_rx_us += e->scan_rx_rate * ms;
		e->scan_rx_uc += e->scan_rx_rate * ms * e->fig->radio_rx_ma / 1000.0;
		drawn += (e->fixed ? (double)d->current_ma : total_ma(e)) * s;
		minute_add(e, from, w->now, drawn);
	}
	if (d->external) {
		if (d->charging) {
			double room = capacity_mc(d) - e->battery_mc;
			double add = (double)d->profile->charge_current_ma * s;
			e->battery_mc += add < room ? add : room > 0 ? room : 0;
		}
	} else {
		e->battery_mc = drawn < e->battery_mc ? e->battery_mc - drawn : 0;
	}
	d->battery_percent = (float)(e->battery_mc / capacity_mc(d) * 100.0);
	if (w->energy_period_ms != 0 && w->now - e->record_at >= w->energy_period_ms) {
		world_energy_record(w, d);
	}
}

void world_energy_charge(world_t *w, world_device_t *d, world_part_t part, double mc)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL || !e->powered || !(mc > 0)) {
		return;
	}
	world_energy_update(w, d);
	e->mc[part] += mc;
	if (e->fixed) {
		return; /* the scenario's constant current is all the battery sees */
	}
	minute_add(e, w->now, w->now, mc);
	if (!d->external) {
		e->battery_mc = mc < e->battery_mc ? e->battery_mc - mc : 0;
		d->battery_percent = (float)(e->battery_mc / capacity_mc(d) * 100.0);
		if (e->battery_mc <= 0 && e->check_at != w->now) {
			e->check_at = w->now;
			queue_check(w, d, w->now);
		}
	}
}

/* Set part's steady current from now on. */
static void set_ma(world_t *w, world_device_t *d, world_part_t part, double ma)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL || e->ma[part] == ma) {
		return;
	}
	world_energy_update(w, d);
	e->ma[part] = e->powered ? ma : 0;
	plan_check(w, d);
}

void world_energy_init(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	memset(e, 0, sizeof(*e));
	e->ready = true;
	e->fig = world_energy_figures(d->profile->name);
	e->fixed = !isnan(d->current_ma);
	e->since = w->now;
	e->battery_mc = capacity_mc(d) * (double)d->battery_percent / 100.0;
}

void world_energy_power(world_t *w, world_device_t *d, bool on)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL || e->powered == on) {
		return;
	}
	world_energy_update(w, d);
	e->powered = on;
	memset(e->ma, 0, sizeof(e->ma));
	memset(e->adv_ma, 0, sizeof(e->adv_ma));
	e->adv_tx_rate = e->adv_tx_ma_rate = e->adv_rx_rate = e->scan_rx_rate = 0;
	e->rrc_until = 0;
	e->attached = false;
	if (on) {
		e->powered_at = w->now;
		e->ma[WORLD_PART_SLEEP] = e->fig->sleep_ma;
		e->ma[WORLD_PART_IMU] = d->has_imu ? e->fig->imu_ma : 0;
		e->ma[WORLD_PART_MODEM] = modem_ma(w, d);
		if (e->record_at == 0 && w->energy_period_ms != 0) {
			e->record_at = w->now;
		}
	}
	plan_check(w, d);
}

void world_energy_radio(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	const world_energy_figures_t *f = e->fig;
	if (f == NULL) {
		return;
	}
	world_energy_update(w, d);
	double adv = 0, tx_rate = 0, tx_ma_rate = 0, rx_rate = 0;
	for (int i = 0; i < CONFIG_BEACON_BLE_ADVERTISERS; i++) {
		const world_adv_set_t *set = &d->adv[i];
		e->adv_ma[i] = 0;
		if (!set->on || !e->powered) {
			continue;
		}
		e->adv_interval[i] = set->interval;
		e->adv_power[i] = set->power;
		double air_us = (ADV_OVERHEAD_BYTES + set->len) * 8.0;
		double tx = tx_ma(f, set->power);
		/* nC per event: three channels of ramp-up, packet and scan-request listening, and
		 * the event's own start (the crystal, the CPU). */
		double event_nc = 3.0 * ((f->radio_ramp_us + air_us) * tx + SCAN_REQUEST_LISTEN_US * f->radio_rx_ma) +
				  f->radio_event_us * f->radio_event_ma;
		double period_us = ((double)set->interval + ADV_DELAY_MEAN_MS) * 1000.0;
		e->adv_ma[i] = event_nc / period_us;
		adv += e->adv_ma[i];
		tx_rate += 3.0 * air_us / period_us * 1000.0;
		tx_ma_rate += 3.0 * air_us * tx / period_us * 1000.0;
		rx_rate += 3.0 * SCAN_REQUEST_LISTEN_US / period_us * 1000.0;
	}
	e->adv_tx_rate = tx_rate;
	e->adv_rx_rate = rx_rate;
	e->adv_tx_ma_rate = tx_ma_rate;
	double scan = 0;
	e->scan_rx_rate = 0;
	if (d->scan.on && e->powered && d->scan.p.interval_ms > 0) {
		double window = d->scan.p.window_ms, interval = d->scan.p.interval_ms;
		e->scan_window = d->scan.p.window_ms;
		e->scan_interval = d->scan.p.interval_ms;
		/* The receiver during each window, and each window's ramp-up and start. */
		scan = f->radio_rx_ma * window / interval +
		       (f->radio_ramp_us * f->radio_rx_ma + f->radio_event_us * f->radio_event_ma) / (interval * 1000.0);
		e->scan_rx_rate = window / interval * 1000.0;
	}
	set_ma(w, d, WORLD_PART_BLE_ADV, adv);
	set_ma(w, d, WORLD_PART_BLE_SCAN, scan);
}

void world_energy_scan_request(world_t *w, world_device_t *scanner, world_device_t *adv, size_t rsp_len,
				int8_t adv_power)
{
	const world_energy_figures_t *f = scanner->energy.fig;
	if (f != NULL && scanner->energy.powered) {
		/* The request goes out at 0 dBm, after the receiver turned round. */
		double tx = tx_ma(f, 0);
		scanner->energy.scan_tx_us += SCAN_REQ_US;
		world_energy_charge(w, scanner, WORLD_PART_BLE_SCAN, (f->radio_ramp_us + SCAN_REQ_US) * tx / 1e6);
	}
	f = adv != NULL ? adv->energy.fig : NULL;
	if (f != NULL && adv->energy.powered) {
		/* The advertiser hears it (beyond its usual listen) and sends its scan response. */
		double air_us = (ADV_OVERHEAD_BYTES + (double)rsp_len) * 8.0;
		double tx = tx_ma(f, adv_power);
		adv->energy.adv_rx_us += SCAN_REQ_US - SCAN_REQUEST_LISTEN_US;
		adv->energy.adv_tx_us += air_us;
		adv->energy.adv_tx_uc += air_us * tx / 1000.0;
		world_energy_charge(w, adv, WORLD_PART_BLE_ADV,
				    ((SCAN_REQ_US - SCAN_REQUEST_LISTEN_US) * f->radio_rx_ma + (f->radio_ramp_us + air_us) * tx) /
					    1e6);
	}
}

void world_energy_leds(world_t *w, world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f == NULL) {
		return;
	}
	double ma = 0;
	for (uint32_t i = 0; i < d->profile->leds && i < CONFIG_BEACON_MAX_LEDS; i++) {
		const world_led_t *led = &d->leds[i];
		if (led->on) {
			for (int c = 0; c < 3; c++) {
				ma += (double)led->rgb[c] * (double)led->brightness * f->led_channel_ma[c];
			}
		}
	}
	set_ma(w, d, WORLD_PART_LEDS, ma);
}

void world_energy_gnss(world_t *w, world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f == NULL || isnan(f->gnss_tracking_ma)) {
		return;
	}
	const world_gnss_t *g = &d->gnss;
	set_ma(w, d, WORLD_PART_GNSS, !g->on ? 0 : g->fixing ? f->gnss_tracking_ma : f->gnss_acquisition_ma);
}

void world_energy_nfc_field(world_t *w, world_device_t *d, bool present)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f != NULL && !isnan(f->nfc_field_ma)) {
		set_ma(w, d, WORLD_PART_NFC, present ? f->nfc_field_ma : 0);
	}
}

void world_energy_turn(world_t *w, world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f != NULL) {
		d->energy.turns++;
		world_energy_charge(w, d, WORLD_PART_CPU, f->cpu_ma * f->cpu_turn_us / 1e6);
	}
}

void world_energy_flash(world_t *w, world_device_t *d, size_t words, size_t pages)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f != NULL) {
		d->energy.flash_words += words;
		d->energy.flash_pages += pages;
		world_energy_charge(w, d, WORLD_PART_FLASH,
				    ((double)words * f->flash_write_uc_per_word +
				     (double)pages * f->flash_erase_uc_per_page) / 1000.0);
	}
}

void world_energy_ranging(world_t *w, world_device_t *d)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f != NULL && !isnan(f->uwb_ranging_uc)) {
		d->energy.rangings++;
		world_energy_charge(w, d, WORLD_PART_UWB, f->uwb_ranging_uc / 1000.0);
	}
}

void world_energy_modem_data(world_t *w, world_device_t *d, size_t tx, size_t rx)
{
	world_energy_t *e = &d->energy;
	const world_energy_figures_t *f = e->fig;
	if (f == NULL || isnan(f->modem_rrc_ma) || !e->powered) {
		return;
	}
	if (!e->attached) {
		e->attached = true;
		world_energy_charge(w, d, WORLD_PART_MODEM, f->modem_attach_mc);
	}
	e->tx_bytes += (double)tx;
	e->rx_bytes += (double)rx;
	world_energy_charge(w, d, WORLD_PART_MODEM,
			    (double)tx / 1024.0 * f->modem_tx_mc_per_kb * rsrp_factor(d) +
				    (double)rx / 1024.0 * f->modem_rx_mc_per_kb);
	/* RRC stays connected until the network's inactivity timer runs out after the last data
	 * (world_energy_update lowers the current then). */
	world_energy_update(w, d);
	e->rrc_until = w->now + (uint64_t)(f->modem_rrc_inactivity_s * 1000.0);
	set_ma(w, d, WORLD_PART_MODEM, modem_ma(w, d));
}

void world_energy_modem_search(world_t *w, world_device_t *d, uint32_t ms)
{
	const world_energy_figures_t *f = d->energy.fig;
	if (f != NULL && !isnan(f->modem_rrc_ma)) {
		d->energy.queries++;
		/* The modem's receiver scans the bands for the query's time, at about its connected
		 * current. */
		world_energy_charge(w, d, WORLD_PART_MODEM, f->modem_rrc_ma * (double)ms / 1000.0);
	}
}

void world_energy_modem_detach(world_t *w, world_device_t *d)
{
	d->energy.attached = false;
	if (d->energy.rrc_until > w->now) {
		world_energy_update(w, d);
		d->energy.rrc_until = 0;
		set_ma(w, d, WORLD_PART_MODEM, d->energy.fig ? modem_ma(w, d) : 0);
	}
}

void world_energy_set_percent(world_t *w, world_device_t *d, double percent)
{
	world_energy_update(w, d);
	d->energy.battery_mc = capacity_mc(d) * percent / 100.0;
	d->battery_percent = (float)percent;
	plan_check(w, d);
}

void world_energy_set_current(world_t *w, world_device_t *d, double ma)
{
	world_energy_update(w, d);
	d->energy.fixed = !isnan(ma);
	if (d->energy.fixed) {
		d->current_ma = (float)ma;
	}
	plan_check(w, d);
}

double world_energy_avg_ma(world_t *w, world_device_t *d)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL) {
		return isnan(d->current_ma) ? (double)d->profile->idle_current_ma : (double)d->current_ma;
	}
	if (e->fixed) {
		return d->current_ma;
	}
	world_energy_update(w, d);
	if (!e->powered) {
		return 0;
	}
	/* The last full minute, or the time since power-on when shorter ("can take up to a
	 * minute to stabilise"): whole seconds up to now. */
	uint64_t ms = w->now - e->powered_at;
	double span = ms >= 60000 ? 60.0 : ms / 1000 > 0 ? (double)(ms / 1000) : 1.0;
	uint64_t newest = w->now > 0 ? (w->now - 1) / 1000 : 0;
	double mc = 0;
	for (uint64_t k = 0; k < (uint64_t)span; k++) {
		if (newest >= k && e->minute_sec >= newest - k && e->minute_sec - (newest - k) < 60) {
			mc += e->minute_mc[(newest - k) % 60];
		}
	}
	/* Seconds with nothing counted yet carry the steady current. */
	if (e->minute_sec < newest) {
		uint64_t quiet = newest - e->minute_sec;
		mc += total_ma(e) * (double)(quiet < (uint64_t)span ? quiet : (uint64_t)span);
	}
	return mc / span;
}

void world_energy_event(world_t *w, world_device_t *d, const world_event_t *ev)
{
	world_energy_t *e = &d->energy;
	if (e->fig == NULL) {
		return;
	}
	if ((uint64_t)ev->value[0] != e->check_at) {
		return; /* an earlier plan, since replaced */
	}
	e->check_at = 0;
	world_energy_update(w, d);
	if (e->powered && !d->external && e->battery_mc <= 0) {
		world_device_battery_empty(w, d);
		return;
	}
	if (d->external && d->charging && e->battery_mc >= capacity_mc(d)) {
		/* Full: charging stops (the spec's isCharging note), which the listener hears. */
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "battery-full");
			world_trace_end(&w->json, w);
		}
		rt_sensors_post_power(&d->rt);
		world_wake(w, d);
		return;
	}
	plan_check(w, d);
}

/*
 * ble.startScan and ble.stopScan: one scan session at a time, its deduplication, and the packets
 * the radio hears (posted with rt_ble_post_scan from the driver's thread, one loop event each)
 * delivered to the app's callback as scan records.
 */
#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_ble.h"
#include "hal_clock.h"
#include "rt_ble.h"
#include "rt_ble_internal.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"

static rt_ble_state_t *state(void)
{
	return &rt_device()->ble;
}

void rt_ble_scan_end(bool resolve)
{
	rt_ble_state_t *st = state();
	if (!st->scanning) {
		return;
	}
	st->scanning = false;
	st->scan_session++;
	hal_ble_scan_stop();
	rt_alarm_cancel(&st->scan_alarm);
	if (st->scan_callback) {
		eng_ref_free(st->scan_callback);
		st->scan_callback = 0;
	}
	if (st->scan_promise) {
		if (resolve) {
			eng_value_t promise = eng_ref_get(st->scan_promise);
			eng_promise_resolve(promise, eng_undefined());
			eng_release(promise);
		}
		/* Not resolved: the promise stays pending for good, as stopScan(false) says. */
		eng_ref_free(st->scan_promise);
		st->scan_promise = 0;
	}
}

static void scan_time_up(void *context)
{
	(void)context;
	state()->scan_alarm = 0;
	rt_ble_scan_end(true);
	rt_loop_run_jobs();
}

eng_value_t rt_ble_startScan(const rt_ble_startScan_args_t *args)
{
	rt_ble_state_t *st = state();
	hal_ble_scan_t p = {
		.interval_ms = RT_BLE_DEFAULT_SCAN_INTERVAL_MS,
		.window_ms = RT_BLE_DEFAULT_SCAN_WINDOW_MS,
		.channels = HAL_BLE_CH_ALL,
	};
	bool dedup = false;
	if (args->has_options) {
		const rt_ScanOptions_t *o = &args->options;
		if (o->has_interval) {
			p.interval_ms = (uint32_t)ceil(o->interval);
		}
		if (o->has_window) {
			p.window_ms = (uint32_t)ceil(o->window);
		}
		if (o->has_channels && o->channels) {
			p.channels = o->channels & HAL_BLE_CH_ALL;
		}
		p.passive = o->has_passive && o->passive;
		p.scan_requests = o->has_scanRequests && o->scanRequests;
		dedup = o->has_deduplicate && o->deduplicate;
		/* A window as long as the interval or longer listens all the time (the radio takes no
		 * window longer than its interval). */
		if (p.window_ms > p.interval_ms) {
			p.window_ms = p.interval_ms;
		}
	}
	double duration = args->has_duration ? args->duration : RT_BLE_DEFAULT_SCAN_MS;
	/* A new scan ends the one running (its promise resolves) and starts a new session. */
	rt_ble_scan_end(true);
	if (!hal_ble_scan_start(&p)) {
		return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "ble.startScan: the radio could not start scanning");
	}
	st->scanning = true;
	st->dedup = dedup;
	st->dedup_count = 0;
	st->scan_callback = eng_ref_new(args->callback);
	eng_value_t promise = eng_promise_new();
	st->scan_promise = eng_ref_new(promise);
	if (duration > 0) {
		st->scan_alarm = rt_alarm_at(hal_clock_ms() + (uint64_t)ceil(duration), scan_time_up, NULL);
	}
	return promise;
}

eng_value_t rt_ble_stopScan(const rt_ble_stopScan_args_t *args)
{
	rt_ble_scan_end(!args->has_resolvePromise || args->resolvePromise);
	return eng_undefined();
}

typedef struct {
	uint32_t session;
	rt_ble_rx_t rx;
} scan_event_t;

_Static_assert(sizeof(scan_event_t) <= RT_EVENT_PAYLOAD_MAX, "a scan record fits one loop event");

static bool seen(rt_ble_state_t *st, const uint8_t addr[HAL_BLE_ADDR_LEN])
{
	for (uint16_t i = 0; i < st->dedup_count; i++) {
		if (memcmp(st->dedup_addrs[i], addr, HAL_BLE_ADDR_LEN) == 0) {
			return true;
		}
	}
	if (st->dedup_count < CONFIG_BEACON_BLE_DEDUP_ADDRS) {
		memcpy(st->dedup_addrs[st->dedup_count++], addr, HAL_BLE_ADDR_LEN);
	}
	return false;
}

static void on_scan(const rt_event_t *event)
{
	scan_event_t e;
	memcpy(&e, event->payload, sizeof(e));
	rt_ble_state_t *st = state();
	if (!st->scanning || e.session != st->scan_session || !st->scan_callback) {
		return; /* queued before its scan ended */
	}
	if (st->dedup && seen(st, e.rx.addr)) {
		return;
	}
	rt_ble_ad_t ad;
	rt_ble_ad_decode(e.rx.data, e.rx.len, &ad);
	rt_ble_js_fields_t f;
	rt_ble_js_fields_of(&ad, &f);
	rt_ScanRecord_t r = {
		.rssi = e.rx.rssi,
		.channel = e.rx.channel,
		.scanResponse = (e.rx.kind & RT_BLE_RX_SCAN_RESPONSE) != 0,
		.connectable = (e.rx.kind & RT_BLE_RX_CONNECTABLE) != 0,
		.has_name = f.has_name, .name = f.name,
		.has_manufData = f.has_manuf, .manufData = f.manuf,
		.has_serviceData = f.has_sd, .serviceData = f.sd,
		.has_serviceUUIDs = f.has_uuids, .serviceUUIDs = f.uuids,
		.has_txPower = f.has_tx, .txPower = f.tx,
		.has_flags = f.has_flags, .flags = f.flags,
	};
	r.addr.len = HAL_BLE_ADDR_LEN;
	memcpy(r.addr.data, e.rx.addr, HAL_BLE_ADDR_LEN);
	eng_value_t record = api_make_ScanRecord(&r);
	rt_ble_js_fields_release(&f);
	eng_value_t fn = eng_ref_get(st->scan_callback);
	rt_loop_invoke(fn, &record, 1);
	eng_release(fn);
	eng_release(record);
}

bool rt_ble_post_scan(struct rt_device *device, const rt_ble_rx_t *rx)
{
	scan_event_t e;
	memset(&e, 0, sizeof(e));
	e.session = device->ble.scan_session;
	e.rx = *rx;
	if (e.rx.len > HAL_BLE_AD_MAX) {
		e.rx.len = HAL_BLE_AD_MAX;
	}
	return rt_loop_post_to(device, on_scan, &e, sizeof(e));
}

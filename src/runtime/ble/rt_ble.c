/*
 * ble: advertising, scanning, and the beacon packet builders and parser. See rt_ble.h. This file:
 * advertisers (ble.advertise and its handles) and rt_ble_reset; rt_ble_internal.h lists the
 * others.
 *
 * The generated glue has checked and converted every argument before these run. Packets are
 * encoded here (rt_ble_ad, rt_ble_beacon: docs/ble-packets.md), so the radio and the simulated air
 * only ever carry AD bytes, and a packet is refused with a clear error before anything is sent.
 */
#include "rt_ble.h"

#include <math.h>
#include <string.h>

#include "api_types.h"
#include "hal_ble.h"
#include "hal_clock.h"
#include "rt_ble_ad.h"
#include "rt_ble_internal.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_handle.h"
#include "rt_loop.h"

#define KEY_CALLBACK "callback"

static rt_ble_state_t *state(void)
{
	return &rt_device()->ble;
}

/* The handle's record: it lives until the handle object is collected (a running advertiser
 * keeps its handle alive), so a stopped handle can be stopped again. */
static void advertiser_finalize(void *ptr)
{
	struct rt_advertiser *a = ptr;
	memset(a, 0, sizeof(*a));
}

/* Handles of ble.advertise; the engine checks this type before any method runs. */
const eng_native_type_t rt_advertiser_native_type = {"advertiser", advertiser_finalize};

/* A fresh handle to the same object, for methods that chain. */
static eng_value_t same(eng_value_t value)
{
	eng_ref_t ref = eng_ref_new(value);
	eng_value_t copy = eng_ref_get(ref);
	eng_ref_free(ref);
	return copy;
}

/* ------------------------------------------------------------------ advertisers */

static uint32_t sets_in_use(void)
{
	uint32_t n = 0;
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		uint8_t s = state()->advertisers[i].state;
		n += s == RT_ADV_RUNNING || s == RT_ADV_PAUSED;
	}
	return n;
}

static int free_set(void)
{
	uint32_t sets = hal_ble_adv_sets();
	for (uint32_t set = 0; set < sets && set < CONFIG_BEACON_BLE_ADVERTISERS; set++) {
		bool used = false;
		for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
			const struct rt_advertiser *a = &state()->advertisers[i];
			used |= (a->state == RT_ADV_RUNNING || a->state == RT_ADV_PAUSED) && a->set == set;
		}
		if (!used) {
			return (int)set;
		}
	}
	return -1;
}

/* Advertising events since the advertiser's current run began (the first at its start). */
static uint32_t events_before(const struct rt_advertiser *a, uint64_t now)
{
	if (a->state != RT_ADV_RUNNING || !a->interval || a->ad_len == 0 || now < a->since) {
		return 0;
	}
	return (uint32_t)((now - a->since + a->interval - 1) / a->interval);
}

uint32_t rt_ble_adv_count(uint64_t now_ms)
{
	rt_ble_state_t *st = state();
	uint32_t n = st->adv_count_base;
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		const struct rt_advertiser *a = &st->advertisers[i];
		if (a->state == RT_ADV_RUNNING && a->interval && a->ad_len && now_ms >= a->since) {
			n += (uint32_t)((now_ms - a->since) / a->interval) + 1;
		}
	}
	return n;
}

/* Close the current run of PDU counting (before a change of state or interval). */
static void fold(struct rt_advertiser *a)
{
	uint64_t now = hal_clock_ms();
	state()->adv_count_base += events_before(a, now);
	a->since = now;
}

static void radio_start(struct rt_advertiser *a)
{
	if (a->ad_len) {
		hal_ble_adv_start(a->set, a->ad, a->ad_len, a->interval, a->power);
	}
}

static void next_packet(void *context);

static void schedule(struct rt_advertiser *a, uint64_t at)
{
	rt_alarm_cancel(&a->alarm);
	a->alarm = rt_alarm_at(at, next_packet, a);
}

/* A callback advertiser's next advertisement: ask the callback for the packet. */
static void next_packet(void *context)
{
	struct rt_advertiser *a = context;
	a->alarm = 0;
	if (a->state != RT_ADV_RUNNING || !a->handle) {
		return;
	}
	eng_value_t handle = eng_ref_get(a->handle);
	eng_value_t fn = eng_get_internal(handle, KEY_CALLBACK);
	eng_value_t arg = eng_number(a->power);
	eng_watchdog_arm();
	eng_value_t result = eng_call(fn, eng_undefined(), &arg, 1);
	eng_watchdog_disarm();
	eng_release(arg);
	eng_release(fn);
	eng_release(handle);
	/* The callback may have stopped or paused its own advertiser. */
	bool still = a->state == RT_ADV_RUNNING;
	if (eng_is_exception(result)) {
		eng_value_t thrown = eng_exception_value(result);
		rt_loop_report(RT_ERROR_CALLBACK, thrown);
		eng_release(thrown);
	} else if (still) {
		rt_ble_ad_t ad;
		uint8_t bytes[HAL_BLE_AD_MAX];
		uint8_t len = 0;
		eng_value_t e = rt_ble_js_object_to_ad(result, &ad, "ble.advertise");
		if (!eng_is_exception(e)) {
			e = rt_ble_js_encode(&ad, bytes, &len, "ble.advertise");
		}
		if (eng_is_exception(e)) {
			/* A bad packet is reported; the previous one stays in the air. */
			eng_value_t thrown = eng_exception_value(e);
			rt_loop_report(RT_ERROR_CALLBACK, thrown);
			eng_release(thrown);
		} else {
			bool first = a->ad_len == 0;
			memcpy(a->ad, bytes, len);
			a->ad_len = len;
			if (first) {
				a->since = hal_clock_ms();
				radio_start(a);
			} else {
				hal_ble_adv_update(a->set, a->ad, a->ad_len);
			}
		}
		eng_release(result);
	} else {
		eng_release(result);
	}
	rt_loop_run_jobs();
	if (a->state == RT_ADV_RUNNING && !a->alarm) {
		schedule(a, hal_clock_ms() + a->interval);
	}
}

static struct rt_advertiser *free_record(void)
{
	rt_ble_state_t *st = state();
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		if (st->advertisers[i].state == RT_ADV_FREE) {
			return &st->advertisers[i];
		}
	}
	return NULL;
}

static eng_value_t no_advertiser(void)
{
	return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "ble.advertise: no free advertiser (all %d are in use)",
			    CONFIG_BEACON_BLE_ADVERTISERS);
}

eng_value_t rt_ble_advertise(const rt_ble_advertise_args_t *args)
{
	uint8_t bytes[HAL_BLE_AD_MAX];
	uint8_t len = 0;
	if (args->has_data) {
		const rt_BlePacket_t *p = &args->data;
		rt_ble_js_fields_t f = {
			.has_name = p->has_name, .name = p->name,
			.has_manuf = p->has_manufData, .manuf = p->manufData,
			.has_sd = p->has_serviceData, .sd = p->serviceData,
			.has_uuids = p->has_serviceUUIDs, .uuids = p->serviceUUIDs,
			.has_tx = p->has_txPower, .tx = p->txPower,
			.has_flags = p->has_flags, .flags = p->flags,
		};
		rt_ble_ad_t ad;
		eng_value_t e = rt_ble_js_to_ad(&ad, &f, p->manufData.data, p->manufData.len, "ble.advertise");
		if (eng_is_exception(e)) {
			return e;
		}
		e = rt_ble_js_encode(&ad, bytes, &len, "ble.advertise");
		if (eng_is_exception(e)) {
			return e;
		}
	}
	int set = sets_in_use() < CONFIG_BEACON_BLE_ADVERTISERS ? free_set() : -1;
	struct rt_advertiser *a = set >= 0 ? free_record() : NULL;
	if (a == NULL) {
		/* Stopped handles the app dropped may still await collection. */
		eng_gc();
		set = sets_in_use() < CONFIG_BEACON_BLE_ADVERTISERS ? free_set() : -1;
		a = set >= 0 ? free_record() : NULL;
		if (a == NULL) {
			return no_advertiser();
		}
	}
	memset(a, 0, sizeof(*a));
	a->state = RT_ADV_RUNNING;
	a->set = (uint8_t)set;
	a->power = RT_BLE_DEFAULT_POWER;
	a->interval = RT_BLE_DEFAULT_INTERVAL_MS;
	a->since = hal_clock_ms();
	eng_value_t handle = rt_handle_new(API_PROTO_Advertiser, a);
	a->handle = eng_ref_new(handle);
	if (args->has_data) {
		memcpy(a->ad, bytes, len);
		a->ad_len = len;
		radio_start(a);
	} else {
		eng_set_internal(handle, KEY_CALLBACK, args->callback);
		/* The first packet is asked for as soon as the calling code returns. */
		schedule(a, hal_clock_ms());
	}
	return handle;
}

/* Leave the running or paused state: the set goes back to the radio. */
static void leave(struct rt_advertiser *a, rt_adv_state_t next)
{
	fold(a);
	rt_alarm_cancel(&a->alarm);
	hal_ble_adv_stop(a->set);
	a->state = (uint8_t)next;
}

eng_value_t rt_advertiser_stop(struct rt_advertiser *self, eng_value_t this_value)
{
	(void)this_value;
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		leave(self, RT_ADV_STOPPED);
		/* The handle may now be collected; its record is freed then. */
		if (self->handle) {
			eng_ref_free(self->handle);
			self->handle = 0;
		}
	}
	return eng_undefined();
}

eng_value_t rt_advertiser_pause(struct rt_advertiser *self, eng_value_t this_value)
{
	if (self->state == RT_ADV_RUNNING) {
		leave(self, RT_ADV_PAUSED);
	}
	return same(this_value);
}

eng_value_t rt_advertiser_resume(struct rt_advertiser *self, eng_value_t this_value)
{
	if (self->state == RT_ADV_PAUSED) {
		self->state = RT_ADV_RUNNING;
		self->since = hal_clock_ms();
		if (eng_typeof(eng_get_internal(this_value, KEY_CALLBACK)) == ENG_TYPE_FUNCTION) {
			schedule(self, hal_clock_ms());
		} else {
			radio_start(self);
		}
	}
	return same(this_value);
}

eng_value_t rt_advertiser_interval(struct rt_advertiser *self, eng_value_t this_value,
				   const rt_advertiser_interval_args_t *args)
{
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		if (self->state == RT_ADV_RUNNING) {
			fold(self);
		}
		self->interval = (uint32_t)ceil(args->interval);
		if (self->state == RT_ADV_RUNNING) {
			radio_start(self);
			if (self->alarm) {
				schedule(self, hal_clock_ms() + self->interval);
			}
		}
	}
	return same(this_value);
}

eng_value_t rt_advertiser_power(struct rt_advertiser *self, eng_value_t this_value,
				const rt_advertiser_power_args_t *args)
{
	if (self->state == RT_ADV_RUNNING || self->state == RT_ADV_PAUSED) {
		self->power = (int8_t)args->power;
		if (self->state == RT_ADV_RUNNING) {
			radio_start(self);
		}
	}
	return same(this_value);
}

/* ------------------------------------------------------------------ reset */

void rt_ble_reset(void)
{
	rt_ble_state_t *st = state();
	rt_ble_scan_end(false);
	for (size_t i = 0; i < CONFIG_BEACON_BLE_ADV_RECORDS; i++) {
		struct rt_advertiser *a = &st->advertisers[i];
		if (a->state == RT_ADV_RUNNING || a->state == RT_ADV_PAUSED) {
			leave(a, RT_ADV_STOPPED);
		}
		if (a->handle) {
			eng_ref_free(a->handle);
		}
		/* Handle objects still alive are detached when the engine goes: they must not write
		 * into records reused by the next app. */
		memset(a, 0, sizeof(*a));
	}
	st->telemetry_calls = 0;
}

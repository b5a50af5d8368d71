/*
 * modem (lte in 0.0.9): network queries and airplane mode. See rt_modem.h.
 */
#include "rt_modem.h"

#include <string.h>

#include "api_types.h"
#include "hal_device.h"
#include "hal_modem.h"
#include "rt_api_version.h"
#include "rt_device.h"
#include "rt_errors.h"
#include "rt_loop.h"

static rt_modem_state_t *state(void)
{
	return &rt_device()->modem;
}

static const char *const query_names[HAL_MODEM_QUERY_COUNT] = {
	"getOperators", "getStatus", "getCells", "getInfo",
};

/* The namespace as the app knows it: lte in 0.0.9. */
static const char *ns(void)
{
	return rt_api_version() < RT_API_VERSION(0, 1, 0) ? "lte" : "modem";
}

static void settle(hal_modem_query_t q, bool resolve, eng_value_t value)
{
	rt_modem_state_t *st = state();
	if (!st->pending[q]) {
		return;
	}
	eng_value_t promise = eng_ref_get(st->pending[q]);
	eng_ref_free(st->pending[q]);
	st->pending[q] = 0;
	if (resolve) {
		eng_promise_resolve(promise, value);
	} else {
		eng_promise_reject(promise, value);
	}
	eng_release(promise);
}

static void reject_pending(hal_modem_query_t q, rt_esr_t esr, const char *why)
{
	eng_value_t e = rt_error_esr(esr, "%s.%s: %s", ns(), query_names[q], why);
	settle(q, false, e);
	eng_release(e);
}

static eng_value_t rejected(eng_value_t error)
{
	eng_value_t promise = eng_promise_new();
	eng_promise_reject(promise, error);
	eng_release(error);
	return promise;
}

static eng_value_t query(hal_modem_query_t q)
{
	rt_modem_state_t *st = state();
	if (!(hal_device_features() & HAL_FEATURE_LTE)) {
		return rejected(rt_error_esr(RT_ESR0003_UNSUPPORTED, "%s.%s: this hardware has no LTE modem",
					     ns(), query_names[q]));
	}
	if (st->airplane) {
		return rejected(rt_error_esr(RT_ESR0410_AIRPLANE_MODE, "%s.%s", ns(), query_names[q]));
	}
	/* The spec: a repeated call rejects the earlier promise. */
	reject_pending(q, RT_ESR0407_MODEM_FORCED_STOP, "called again before it answered");
	if (!hal_modem_query(q)) {
		return rejected(rt_error_esr(RT_ESR0403_MODEM_COMMAND, "%s.%s: the modem cannot run the query now",
					     ns(), query_names[q]));
	}
	eng_value_t promise = eng_promise_new();
	st->pending[q] = eng_ref_new(promise);
	return promise;
}

/* ------------------------------------------------------------------ answers */

static eng_value_t text(const char *s, size_t cap)
{
	return eng_string(s, strnlen(s, cap));
}

static eng_value_t make_cell(const hal_modem_cell_t *c)
{
	bool levels = rt_api_version() >= RT_API_VERSION(0, 1, 0); /* rssi, rsrp, rsrq: 0.1.5 on */
	rt_NetworkStatus_t v = {
		.name = text(c->name, sizeof(c->name)),
		.signal = c->signal,
		.has_rssi = levels && c->has_rssi,
		.rssi = c->rssi,
		.has_rsrp = levels && c->has_rsrp,
		.rsrp = c->rsrp,
		.has_rsrq = levels && c->has_rsrq,
		.rsrq = c->rsrq,
		.mcc = c->mcc,
		.mnc = c->mnc,
		.lac = c->lac,
		.cell = c->cell,
		.tech = text(c->tech, sizeof(c->tech)),
		.band = text(c->band, sizeof(c->band)),
	};
	eng_value_t result = api_make_NetworkStatus(&v);
	eng_release(v.name);
	eng_release(v.tech);
	eng_release(v.band);
	return result;
}

/* The answer of query q; false (and the error in *out) when the modem had none. */
static bool answer(hal_modem_query_t q, eng_value_t *out)
{
	switch (q) {
	case HAL_MODEM_OPERATORS: {
		hal_modem_operator_t ops[HAL_MODEM_MAX_OPERATORS];
		size_t n = hal_modem_operators(ops, HAL_MODEM_MAX_OPERATORS);
		eng_value_t list = eng_array((uint32_t)n);
		for (size_t i = 0; i < n; i++) {
			rt_ModemOperator_t v = {
				.name = text(ops[i].name, sizeof(ops[i].name)),
				.type = text(ops[i].type, sizeof(ops[i].type)),
				.status = text(ops[i].status, sizeof(ops[i].status)),
			};
			eng_value_t item = api_make_ModemOperator(&v);
			eng_set_index(list, (uint32_t)i, item);
			eng_release(item);
			eng_release(v.name);
			eng_release(v.type);
			eng_release(v.status);
		}
		*out = list;
		return true;
	}
	case HAL_MODEM_STATUS: {
		hal_modem_cell_t cell;
		memset(&cell, 0, sizeof(cell));
		if (!hal_modem_status(&cell)) {
			*out = rt_error_esr(RT_ESR0415_NOT_REGISTERED, "%s.getStatus: not registered to a network",
					    ns());
			return false;
		}
		*out = make_cell(&cell);
		return true;
	}
	case HAL_MODEM_CELLS: {
		hal_modem_cell_t cells[HAL_MODEM_MAX_CELLS];
		memset(cells, 0, sizeof(cells));
		size_t n = hal_modem_cells(cells, HAL_MODEM_MAX_CELLS);
		eng_value_t list = eng_array((uint32_t)n);
		for (size_t i = 0; i < n; i++) {
			eng_value_t item = make_cell(&cells[i]);
			eng_set_index(list, (uint32_t)i, item);
			eng_release(item);
		}
		*out = list;
		return true;
	}
	case HAL_MODEM_INFO: {
		hal_modem_info_t info;
		memset(&info, 0, sizeof(info));
		if (!hal_modem_info(&info)) {
			*out = rt_error_esr(RT_ESR0405_SIM_ERROR, "%s.getInfo: the modem has no SIM", ns());
			return false;
		}
		rt_ModemInfo_t v = {
			.iccid = text(info.iccid, sizeof(info.iccid)),
			.imei = text(info.imei, sizeof(info.imei)),
			.imsi = text(info.imsi, sizeof(info.imsi)),
		};
		eng_value_t result = api_make_ModemInfo(&v);
		eng_release(v.iccid);
		eng_release(v.imei);
		eng_release(v.imsi);
		*out = result;
		return true;
	}
	default:
		*out = rt_error_esr(RT_ESR0001_UNKNOWN, "modem: unknown query");
			return false;
	}
}

typedef struct {
	uint8_t query;
	bool ok;
} done_t;

static void on_done(const rt_event_t *event)
{
	done_t d;
	memcpy(&d, event->payload, sizeof(d));
	if (d.query >= HAL_MODEM_QUERY_COUNT || !state()->pending[d.query]) {
		return; /* replaced, or rejected by airplane mode meanwhile */
	}
	hal_modem_query_t q = (hal_modem_query_t)d.query;
	if (!d.ok) {
		eng_value_t e = rt_error_esr(RT_ESR0401_MODEM_UNKNOWN, "%s.%s: the modem failed the query", ns(),
					     query_names[q]);
		settle(q, false, e);
		eng_release(e);
		return;
	}
	eng_value_t v;
	bool ok = answer(q, &v);
	settle(q, ok, v);
	eng_release(v);
}

void rt_modem_post_done(struct rt_device *device, hal_modem_query_t query, bool ok)
{
	done_t d = {(uint8_t)query, ok};
	rt_loop_post_to(device, on_done, &d, sizeof(d));
}

bool rt_modem_airplane(void)
{
	return state()->airplane;
}

void rt_modem_reset(void)
{
	rt_modem_state_t *st = state();
	for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
		if (st->pending[q]) {
			hal_modem_cancel((hal_modem_query_t)q);
			eng_ref_free(st->pending[q]);
			st->pending[q] = 0;
		}
	}
	if (st->airplane) {
		st->airplane = false;
		hal_modem_airplane(false);
	}
}

/* ------------------------------------------------------------------ API */

eng_value_t rt_modem_getOperators(void)
{
	return query(HAL_MODEM_OPERATORS);
}

eng_value_t rt_modem_getStatus(void)
{
	return query(HAL_MODEM_STATUS);
}

eng_value_t rt_modem_getCells(void)
{
	return query(HAL_MODEM_CELLS);
}

eng_value_t rt_modem_getInfo(void)
{
	return query(HAL_MODEM_INFO);
}

eng_value_t rt_modem_setAirplaneMode(const rt_modem_setAirplaneMode_args_t *args)
{
	rt_modem_state_t *st = state();
	/* 0.2.6 defaults state to true (the glue fills it in); before, it is required. */
	bool on = args->has_state ? args->state : true;
	if (on == st->airplane) {
		return eng_undefined();
	}
	st->airplane = on;
	if (on) {
		for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
			if (st->pending[q]) {
				hal_modem_cancel((hal_modem_query_t)q);
				reject_pending((hal_modem_query_t)q, RT_ESR0410_AIRPLANE_MODE, "turned on while the query ran");
			}
		}
	}
	hal_modem_airplane(on);
	return eng_undefined();
}

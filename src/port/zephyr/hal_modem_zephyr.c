/*
 * hal_modem on Zephyr: the nRF9160's modem through nRF Connect SDK (CONFIG_NRF_MODEM_LIB for AT
 * commands, CONFIG_LTE_LINK_CONTROL for airplane mode, CONFIG_MODEM_INFO for the identifiers).
 * Upstream Zephyr has none of them: without them there is no modem (queries are refused, the
 * runtime rejects their promises, and hal_device_features() has no HAL_FEATURE_LTE).
 *
 * AT commands block for as long as the modem takes (an operator scan: minutes), so each query
 * runs on a work queue of its own and reports its end with rt_modem_post_done(); the answer
 * stays here until the runtime reads it with the getter. Answers are parsed from the modem's
 * documented AT responses (nRF91 AT Commands Reference): +COPS=? for operators, %XMONITOR for
 * the serving cell, +CGSN / %XICCID / +CIMI through modem_info for the identifiers.
 * Neighbouring cells (getCells) need lte_lc_neighbor_cell_measurement() and its asynchronous
 * event; that is not built yet: getCells answers an empty list on the device.
 */
#include "hal_modem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zephyr/kernel.h>

#include "rt_modem.h"

#if defined(CONFIG_NRF_MODEM_LIB) && defined(CONFIG_LTE_LINK_CONTROL) && defined(CONFIG_MODEM_INFO)
#include <modem/lte_lc.h>
#include <modem/modem_info.h>
#include <nrf_modem_at.h>

static struct rt_device *target;
static K_THREAD_STACK_DEFINE(stack, 2048);
static struct k_work_q queue;
static struct k_work work;
static K_MUTEX_DEFINE(lock);
static bool wanted[HAL_MODEM_QUERY_COUNT];
static uint32_t generation[HAL_MODEM_QUERY_COUNT];

static hal_modem_operator_t operators[HAL_MODEM_MAX_OPERATORS];
static size_t n_operators;
static hal_modem_cell_t serving;
static bool has_serving;
static hal_modem_info_t info;
static bool has_info;
static char response[1024];

/* +COPS: (2,"Telia FI","Telia","24491",7),(1,"Elisa","Elisa","24405",7),,(0,1,2,3,4),(0,1,2) */
static bool scan_operators(void)
{
	if (nrf_modem_at_cmd(response, sizeof(response), "AT+COPS=?") != 0) {
		return false;
	}
	static const char *const status[] = {"unknown", "avail", "curr", "forb"};
	n_operators = 0;
	for (const char *p = strchr(response, '('); p != NULL && n_operators < HAL_MODEM_MAX_OPERATORS;
	     p = strchr(p + 1, '(')) {
		int stat, act = 0;
		char name[HAL_MODEM_TEXT_MAX];
		if (sscanf(p, "(%d,\"%31[^\"]\",\"%*[^\"]\",\"%*[^\"]\",%d)", &stat, name, &act) < 2 ||
		    stat < 0 || stat > 3) {
			continue; /* the lists of modes and formats at the end */
		}
		hal_modem_operator_t *o = &operators[n_operators++];
		snprintf(o->name, sizeof(o->name), "%s", name);
		snprintf(o->type, sizeof(o->type), "%s", act == 9 ? "nbiot" : "ltem");
		snprintf(o->status, sizeof(o->status), "%s", status[stat]);
	}
	return true;
}

/* %XMONITOR: 1,"Telia FI","Telia","24491","0A0B",7,20,"01A2B3C4",123,6300,53,24,... */
static bool read_status(void)
{
	has_serving = false;
	if (nrf_modem_at_cmd(response, sizeof(response), "AT%%XMONITOR") != 0) {
		return true; /* answered: not registered */
	}
	int reg, act, band, pci, earfcn, rsrp, snr;
	char name[HAL_MODEM_TEXT_MAX], plmn[8], tac[9], cell[9];
	if (sscanf(response, "%%XMONITOR: %d,\"%31[^\"]\",\"%*[^\"]\",\"%7[^\"]\",\"%8[^\"]\",%d,%d,\"%8[^\"]\",%d,%d,%d,%d",
		   &reg, name, plmn, tac, &act, &band, cell, &pci, &earfcn, &rsrp, &snr) != 11 ||
	    (reg != 1 && reg != 5)) {
		return true;
	}
	memset(&serving, 0, sizeof(serving));
	snprintf(serving.name, sizeof(serving.name), "%s", name);
	unsigned mcc = 0, mnc = 0;
	sscanf(plmn, "%3u%u", &mcc, &mnc);
	serving.mcc = mcc;
	serving.mnc = mnc;
	serving.lac = (uint32_t)strtoul(tac, NULL, 16);
	serving.cell = (uint32_t)strtoul(cell, NULL, 16);
	serving.has_rsrp = true;
	serving.rsrp = rsrp - 140; /* the index of 3GPP TS 36.133 */
	/* Bars as phones show them, from RSRP. */
	serving.signal = serving.rsrp >= -85 ? 5 : serving.rsrp >= -95 ? 4 : serving.rsrp >= -105 ? 3
		       : serving.rsrp >= -115 ? 2 : 1;
	snprintf(serving.tech, sizeof(serving.tech), "%s", act == 9 ? "NB IoT" : "LTE Cat. M1");
	snprintf(serving.band, sizeof(serving.band), "%d", band);
	has_serving = true;
	return true;
}

static bool read_info(void)
{
	has_info = modem_info_string_get(MODEM_INFO_ICCID, info.iccid, sizeof(info.iccid)) > 0 &&
		   modem_info_string_get(MODEM_INFO_IMEI, info.imei, sizeof(info.imei)) > 0 &&
		   modem_info_string_get(MODEM_INFO_IMSI, info.imsi, sizeof(info.imsi)) > 0;
	return true;
}

static void run(struct k_work *w)
{
	(void)w;
	for (int q = 0; q < HAL_MODEM_QUERY_COUNT; q++) {
		k_mutex_lock(&lock, K_FOREVER);
		bool go = wanted[q];
		uint32_t gen = generation[q];
		k_mutex_unlock(&lock);
		if (!go) {
			continue;
		}
		bool ok = q == HAL_MODEM_OPERATORS ? scan_operators()
			: q == HAL_MODEM_STATUS  ? read_status()
			: q == HAL_MODEM_INFO    ? read_info()
						 : true;
		k_mutex_lock(&lock, K_FOREVER);
		/* Cancelled or asked again meanwhile: this answer is not reported. */
		bool report = wanted[q] && gen == generation[q];
		if (report) {
			wanted[q] = false;
		}
		k_mutex_unlock(&lock);
		if (report) {
			rt_modem_post_done(target, (hal_modem_query_t)q, ok);
		}
	}
}

void port_zephyr_modem_init(struct rt_device *device)
{
	target = device;
	k_work_queue_start(&queue, stack, K_THREAD_STACK_SIZEOF(stack), K_LOWEST_APPLICATION_THREAD_PRIO, NULL);
	k_work_init(&work, run);
	(void)modem_info_init();
}

bool hal_modem_query(hal_modem_query_t query)
{
	if ((unsigned)query >= HAL_MODEM_QUERY_COUNT) {
		return false;
	}
	k_mutex_lock(&lock, K_FOREVER);
	wanted[query] = true;
	generation[query]++;
	k_mutex_unlock(&lock);
	k_work_submit_to_queue(&queue, &work);
	return true;
}

void hal_modem_cancel(hal_modem_query_t query)
{
	if ((unsigned)query >= HAL_MODEM_QUERY_COUNT) {
		return;
	}
	k_mutex_lock(&lock, K_FOREVER);
	wanted[query] = false;
	generation[query]++;
	k_mutex_unlock(&lock);
}

size_t hal_modem_operators(hal_modem_operator_t *out, size_t cap)
{
	size_t n = n_operators < cap ? n_operators : cap;
	memcpy(out, operators, n * sizeof(*out));
	return n;
}

bool hal_modem_status(hal_modem_cell_t *out)
{
	if (has_serving) {
		*out = serving;
	}
	return has_serving;
}

size_t hal_modem_cells(hal_modem_cell_t *out, size_t cap)
{
	(void)out;
	(void)cap;
	return 0;
}

bool hal_modem_info(hal_modem_info_t *out)
{
	if (has_info) {
		*out = info;
	}
	return has_info;
}

void hal_modem_airplane(bool on)
{
	/* CFUN=4 (LTE off, GNSS untouched) and back to CFUN=21 (LTE on). */
	(void)lte_lc_func_mode_set(on ? LTE_LC_FUNC_MODE_DEACTIVATE_LTE : LTE_LC_FUNC_MODE_ACTIVATE_LTE);
}

#else /* no modem */

#include <zephyr/logging/log.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

void port_zephyr_modem_init(struct rt_device *device)
{
	(void)device;
#if defined(CONFIG_SOC_SERIES_NRF91X)
	/* The chip has the modem, this build has not: say so once, where a developer looks. */
	LOG_WRN("LTE and GNSS are not in this build (they need nRF Connect SDK's modem library, "
		"docs/firmware.md): modem.* and location.* report no such hardware");
#endif
}

bool hal_modem_query(hal_modem_query_t query)
{
	(void)query;
	return false;
}

void hal_modem_cancel(hal_modem_query_t query)
{
	(void)query;
}

size_t hal_modem_operators(hal_modem_operator_t *out, size_t cap)
{
	(void)out;
	(void)cap;
	return 0;
}

bool hal_modem_status(hal_modem_cell_t *out)
{
	(void)out;
	return false;
}

size_t hal_modem_cells(hal_modem_cell_t *out, size_t cap)
{
	(void)out;
	(void)cap;
	return 0;
}

bool hal_modem_info(hal_modem_info_t *out)
{
	(void)out;
	return false;
}

void hal_modem_airplane(bool on)
{
	(void)on;
}

#endif

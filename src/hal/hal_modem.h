/*
 * hal_modem.h: the LTE modem's diagnostics and airplane mode (modem.*, lte.* in 0.0.9).
 *
 * Queries run in the modem and can take minutes (an operator scan): hal_modem_query() starts one
 * and returns at once; the driver reports the end with rt_modem_post_done() (rt_modem.h), from
 * any thread, and keeps the answer until the runtime reads it with the matching getter. Starting
 * a query that is already running starts it again (the earlier answer is not reported).
 */
#ifndef HAL_MODEM_H
#define HAL_MODEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	HAL_MODEM_OPERATORS = 0, /* AT+COPS=? */
	HAL_MODEM_STATUS,        /* the serving cell and its signal */
	HAL_MODEM_CELLS,         /* neighbouring cells */
	HAL_MODEM_INFO,          /* ICCID, IMEI, IMSI */
	HAL_MODEM_QUERY_COUNT
} hal_modem_query_t;

#define HAL_MODEM_TEXT_MAX 32
#define HAL_MODEM_MAX_OPERATORS 8
#define HAL_MODEM_MAX_CELLS 8

typedef struct {
	char name[HAL_MODEM_TEXT_MAX];
	char type[8];   /* "gsm" as the spec shows it (the modem's access technology) */
	char status[8]; /* "curr", "avail" (and "forb": forbidden) */
} hal_modem_operator_t;

/* The serving cell (getStatus) or a neighbouring one (getCells). */
typedef struct {
	char name[HAL_MODEM_TEXT_MAX]; /* operator */
	double signal;                 /* 0..5 bars */
	bool has_rssi, has_rsrp, has_rsrq;
	double rssi, rsrp, rsrq;       /* dBm, dBm, dB */
	uint32_t mcc, mnc, lac, cell;
	char tech[16];                 /* "GSM", "LTE Cat. M1", "NB IoT" */
	char band[8];
} hal_modem_cell_t;

typedef struct {
	char iccid[24];
	char imei[20];
	char imsi[20];
} hal_modem_info_t;

/* Start a query. false: no modem, or it cannot run one now (the runtime rejects the promise). */
bool hal_modem_query(hal_modem_query_t query);
/* Forget a running query (airplane mode): its end is not reported. */
void hal_modem_cancel(hal_modem_query_t query);

/* The answer of the query that ended last: false / 0 when it had none (no network, no SIM). */
size_t hal_modem_operators(hal_modem_operator_t *out, size_t cap);
bool hal_modem_status(hal_modem_cell_t *out);
size_t hal_modem_cells(hal_modem_cell_t *out, size_t cap);
bool hal_modem_info(hal_modem_info_t *out);

/* Airplane mode: the LTE link off (CFUN=4 on the nRF9160) or on again. */
void hal_modem_airplane(bool on);

#endif /* HAL_MODEM_H */

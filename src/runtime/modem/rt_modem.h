/*
 * rt_modem.h: modem.* (lte.* in 0.0.9): queries answered by hal_modem, airplane mode.
 *
 * One promise per query kind may be pending: calling the same query again rejects the earlier
 * promise (ESR0104 Execution interrupted) and starts it again. Airplane mode rejects every pending
 * promise and every query made while it lasts, shuts the LTE link down and holds syncs until it
 * is turned off (rt_modem_airplane() for the sync service).
 */
#ifndef RT_MODEM_H
#define RT_MODEM_H

#include <stdbool.h>

#include "engine.h"
#include "hal_modem.h"

typedef struct {
	eng_ref_t pending[HAL_MODEM_QUERY_COUNT];
	bool airplane;
} rt_modem_state_t;

struct rt_device;

/* A query ended (ok false: the modem failed it); from the driver, any thread. */
void rt_modem_post_done(struct rt_device *device, hal_modem_query_t query, bool ok);

/* Whether the selected device is in airplane mode: syncs wait while it is. */
bool rt_modem_airplane(void);

/* The app ends: pending promises are let go, airplane mode ends (a new app starts connected). */
void rt_modem_reset(void);

#endif /* RT_MODEM_H */

/*
 * hal_gnss on Zephyr: the nRF9160's GNSS through nrf_modem_gnss (nRF Connect SDK's modem
 * library, CONFIG_NRF_MODEM_LIB). Upstream Zephyr has no modem library: without it there is no
 * receiver (hal_gnss_set() returns false and hal_device_features() has no HAL_FEATURE_GNSS).
 *
 * The receiver runs in continuous navigation (fix interval 1 s): the runtime's rt_location_filter
 * decides when it is on (maxFixWait duty), so the modem's own periodic mode is not used. The
 * modem's handler runs in interrupt context: it only reads the PVT frame and posts the fix to the
 * runtime's queue (rt_location_post_fix is safe from any context).
 */
#include "hal_gnss.h"

#include <zephyr/kernel.h>

#include "rt_location.h"
#include "rt_utc.h"

#if defined(CONFIG_NRF_MODEM_LIB)
#include <modem/lte_lc.h>
#include <nrf_modem_gnss.h>

static struct rt_device *target;
static bool running;

static void on_gnss(int event)
{
	if (event != NRF_MODEM_GNSS_EVT_PVT || target == NULL) {
		return;
	}
	struct nrf_modem_gnss_pvt_data_frame pvt;
	if (nrf_modem_gnss_read(&pvt, sizeof(pvt), NRF_MODEM_GNSS_DATA_PVT) != 0 ||
	    !(pvt.flags & NRF_MODEM_GNSS_PVT_FLAG_FIX_VALID)) {
		return; /* still searching: the runtime's maxFixWait decides how long */
	}
	uint8_t used = 0;
	for (int i = 0; i < NRF_MODEM_GNSS_MAX_SATELLITES; i++) {
		if (pvt.sv[i].sv != 0 && (pvt.sv[i].flags & NRF_MODEM_GNSS_SV_FLAG_USED_IN_FIX)) {
			used++;
		}
	}
	const struct nrf_modem_gnss_datetime *t = &pvt.datetime;
	const rt_utc_parts_t utc = {
		.year = t->year,
		.month = t->month,
		.day = t->day,
		.hour = t->hour,
		.minute = t->minute,
		.ms = (uint16_t)(t->seconds * 1000 + t->ms),
	};
	hal_gnss_fix_t fix = {
		.lat = pvt.latitude,
		.lon = pvt.longitude,
		.utc_ms = rt_utc_join(&utc),
		.alt = pvt.altitude,
		.speed_kmh = pvt.speed * 3.6f,
		.head_deg = pvt.heading,
		.hdop = pvt.hdop,
		.sat = used,
	};
	rt_location_post_fix(target, &fix);
}

void port_zephyr_gnss_init(struct rt_device *device)
{
	target = device;
	/* GNSS needs its functional mode on; LTE stays as it is (airplane mode is the app's). */
	(void)lte_lc_func_mode_set(LTE_LC_FUNC_MODE_ACTIVATE_GNSS);
	(void)nrf_modem_gnss_event_handler_set(on_gnss);
}

bool hal_gnss_set(bool on)
{
	if (on == running) {
		return true;
	}
	if (on) {
		/* Continuous navigation: a fix a second while on. */
		if (nrf_modem_gnss_fix_interval_set(1) != 0 || nrf_modem_gnss_start() != 0) {
			return false;
		}
	} else {
		(void)nrf_modem_gnss_stop();
	}
	running = on;
	return true;
}

#else /* no modem library: no receiver */

void port_zephyr_gnss_init(struct rt_device *device)
{
	(void)device;
}

bool hal_gnss_set(bool on)
{
	return !on;
}

#endif

/*
 * gnss_receiver_zephyr.c: Zephyr's GNSS data callbacks to the runtime's fixes (see
 * gnss_receiver_zephyr.h). The units are gnss.h's: nanodegrees, millimetres, millimetres a
 * second, millidegrees, thousandths of HDOP, and a UTC time of day with a two-digit year (this
 * century's).
 */
#include "gnss_receiver_zephyr.h"

#include <zephyr/drivers/gnss.h>
#include <zephyr/kernel.h>

#include "hal_gnss.h"
#include "rt_location.h"
#include "rt_utc.h"

static struct rt_device *target;
static void (*on_posted)(void);

void gnss_receiver_bind(struct rt_device *device, void (*posted)(void))
{
	on_posted = posted;
	target = device;
}

static void on_gnss_data(const struct device *dev, const struct gnss_data *data)
{
	ARG_UNUSED(dev);
	if (target == NULL || data->info.fix_status == GNSS_FIX_STATUS_NO_FIX) {
		return;
	}
	const struct gnss_time *t = &data->utc;
	const rt_utc_parts_t utc = {
		.year = 2000 + t->century_year,
		.month = t->month,
		.day = t->month_day,
		.hour = t->hour,
		.minute = t->minute,
		.ms = t->millisecond,
	};
	const struct navigation_data *nav = &data->nav_data;
	hal_gnss_fix_t fix = {
		.lat = (double)nav->latitude / 1e9,
		.lon = (double)nav->longitude / 1e9,
		.utc_ms = rt_utc_join(&utc),
		.alt = (float)nav->altitude / 1000.0f,
		.speed_kmh = (float)nav->speed * 0.0036f,
		.head_deg = (float)nav->bearing / 1000.0f,
		.hdop = (float)data->info.hdop / 1000.0f,
		.sat = data->info.satellites_cnt > UINT8_MAX ? UINT8_MAX
							     : (uint8_t)data->info.satellites_cnt,
	};
	rt_location_post_fix(target, &fix);
	if (on_posted != NULL) {
		on_posted();
	}
}

GNSS_DATA_CALLBACK_DEFINE(DEVICE_DT_GET(DT_ALIAS(gnss)), on_gnss_data);

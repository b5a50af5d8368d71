/*
 * rt_utc.c: calendar dates of UTC times (see rt_utc.h). The day arithmetic is Howard Hinnant's
 * days_from_civil and civil_from_days (http://howardhinnant.github.io/date_algorithms.html):
 * exact over the whole int32 year range, with no table and no library time zone.
 */
#include "rt_utc.h"

#define MS_PER_MINUTE 60000
#define MS_PER_DAY 86400000

/* Integer division rounding down (C rounds toward zero). */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t rt_utc_days_from_civil(int32_t year, unsigned month, unsigned day)
{
	int64_t y = (int64_t)year - (month <= 2);
	const int64_t era = floor_div(y, 400);
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void rt_utc_split(int64_t utc_ms, rt_utc_parts_t *out)
{
	int64_t days = floor_div(utc_ms, MS_PER_DAY);
	int64_t in_day = utc_ms - days * MS_PER_DAY;
	int64_t z = days + 719468;
	const int64_t era = floor_div(z, 146097);
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;
	const unsigned month = mp < 10 ? mp + 3 : mp - 9;
	out->year = (int32_t)((int64_t)yoe + era * 400 + (month <= 2));
	out->month = (uint8_t)month;
	out->day = (uint8_t)(doy - (153 * mp + 2) / 5 + 1);
	out->hour = (uint8_t)(in_day / 3600000);
	out->minute = (uint8_t)(in_day / MS_PER_MINUTE % 60);
	out->ms = (uint16_t)(in_day % MS_PER_MINUTE);
}

int64_t rt_utc_join(const rt_utc_parts_t *p)
{
	int64_t days = rt_utc_days_from_civil(p->year, p->month, p->day);
	return days * MS_PER_DAY + ((int64_t)p->hour * 60 + p->minute) * MS_PER_MINUTE + p->ms;
}

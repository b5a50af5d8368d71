/*
 * rt_utc.h: calendar dates of UTC times (proleptic Gregorian, Howard Hinnant's algorithms), for
 * the receivers that speak in dates and times of day: the nRF9160 modem's PVT frame and NMEA 0183
 * sentences (the simulated receiver writes them, Zephyr's GNSS drivers read them).
 */
#ifndef RT_UTC_H
#define RT_UTC_H

#include <stdint.h>

/* A UTC time broken into its calendar parts. */
typedef struct {
	int32_t year;   /* e.g. 2026 */
	uint8_t month;  /* 1..12 */
	uint8_t day;    /* 1..31 */
	uint8_t hour;   /* 0..23 */
	uint8_t minute; /* 0..59 */
	uint16_t ms;    /* milliseconds within the minute, 0..59999 */
} rt_utc_parts_t;

/* Days from 1970-01-01 to year-month-day. */
int64_t rt_utc_days_from_civil(int32_t year, unsigned month, unsigned day);
/* ms since 1970 (negative before) to its parts, and back. */
void rt_utc_split(int64_t utc_ms, rt_utc_parts_t *out);
int64_t rt_utc_join(const rt_utc_parts_t *parts);

#endif /* RT_UTC_H */

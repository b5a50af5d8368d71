/*
 * rt_interval.h: interval strings, shared by toMs/toSec and every interval argument.
 *
 * An interval is a number with an optional unit: "200ms", "30s", "10 secs", "2 min", "1 hour",
 * "1 day", "2 weeks". Units: ms; s, sec, secs; m, min, mins; h, hour, hours; d, day, days;
 * w, week, weeks. At most one space between number and unit. A string without a unit is in the
 * unit of the argument (unit_ms gives its length in ms).
 */
#ifndef RT_INTERVAL_H
#define RT_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>

/* Parse text (not NUL-terminated) into milliseconds. Returns false when it is not an interval. */
bool rt_interval_parse(const char *text, size_t len, double unit_ms, double *out_ms);

#endif /* RT_INTERVAL_H */

/*
 * hal_gnss.h: the satellite receiver (nRF9160's GNSS; the simulated world's track).
 *
 * The runtime decides when the receiver runs (location.startUpdates and its maxFixWait duty) and
 * switches it with hal_gnss_set(). While it is on, the driver reports each fix, about once a
 * second, with rt_location_post_fix() (rt_location.h), and a receiver failure with
 * rt_location_post_error(); both are safe from any thread.
 */
#ifndef HAL_GNSS_H
#define HAL_GNSS_H

#include <stdbool.h>
#include <stdint.h>

/* One fix. Latitude and longitude need doubles (a float holds a longitude to 2 m only); the rest
 * fits floats, which keeps a fix within one event of the runtime's queue. */
typedef struct {
	double lat, lon;  /* degrees, WGS-84 */
	int64_t utc_ms;   /* UTC of the fix, ms since 1970 */
	float alt;        /* m above the ellipsoid */
	float speed_kmh;
	float head_deg;   /* direction of travel, [0, 360) */
	float hdop;
	uint8_t sat;      /* satellites used */
} hal_gnss_fix_t;

/* Switch the receiver on or off. Returns false when the hardware has no receiver (or it refused
 * to start: the runtime then treats the session as failed). */
bool hal_gnss_set(bool on);

#endif /* HAL_GNSS_H */

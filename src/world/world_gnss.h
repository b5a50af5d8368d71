/*
 * world_gnss.h: the GNSS receiver of a simulated device and the track the device follows.
 *
 * A device may have a track (timed points, also from a GPX file; outages; satellites and HDOP
 * over time; times to first fix): its position (world_device_t lat, lon, alt, which the air and
 * UWB ranging read) follows the track as world time passes, and its receiver, while the runtime
 * keeps it on (hal_gnss_set), gets a fix a second from rt_gnss_track once the sky allows one. A
 * device without a track stands where the scenario put it (and moves with `move` inputs); its
 * receiver gets fixes there. The trace records every switch of the receiver (its duty, for energy
 * estimates) and every fix acquired.
 */
#ifndef WORLD_GNSS_H
#define WORLD_GNSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_gnss.h"
#include "rt_gnss_track.h"

struct world;
struct world_device;
struct world_event;

typedef struct {
	/* The scenario's track (grown while the script loads; owned, freed by world_gnss_free). */
	rt_gnss_point_t *points;
	size_t n_points, cap_points;
	rt_gnss_outage_t *outages;
	size_t n_outages, cap_outages;
	rt_gnss_sky_t *sky;
	size_t n_sky, cap_sky;
	/* The receiver's model: the arrays above, sky defaults, TTFF, noise. */
	rt_gnss_track_t track;
	/* Without a track: the one point where the device stands. */
	rt_gnss_point_t here;

	bool on;
	int64_t on_since;      /* world ms */
	int64_t last_fix;      /* the last fix the receiver had (RT_GNSS_NEVER: none) */
	int64_t fix_before_on; /* last_fix when it was switched on */
	bool fixing;           /* it has a fix now (a loss is traced when it ends) */
	uint32_t generation;   /* of the pending fix event; a switch makes older ones stale */
	uint64_t on_total_ms;
	uint32_t starts;
} world_gnss_t;

void world_gnss_init(world_gnss_t *g);
void world_gnss_free(world_gnss_t *g);

/* Script statements (world_script.c). Return 0, or -1 with a message in err. */
int world_gnss_add_point(world_gnss_t *g, const rt_gnss_point_t *p, char *err, size_t cap);
int world_gnss_add_outage(world_gnss_t *g, int64_t from, int64_t to, char *err, size_t cap);
int world_gnss_add_sky(world_gnss_t *g, int64_t t, uint8_t sat, double hdop, char *err, size_t cap);
/* After the script: bind the arrays and check the track (rt_gnss_track_check). */
int world_gnss_finish(struct world *w, char *err, size_t cap);

/* Move every device with a track to where it is at the world's time. */
void world_gnss_follow(struct world *w);
/* The receiver's fix event (WORLD_IN_GNSS_FIX). */
void world_gnss_fix_event(struct world *w, struct world_device *d, const struct world_event *e);
/* A receiver outside the world's devices: a test board's GNSS UART, whose firmware reads the
 * fixes through its own driver (world_zephyr.c: NMEA sentences into Zephyr's GNSS subsystem).
 * Each fix of a device is then handed to the wire instead of posted to the device's runtime; the
 * board's driver posts it (rt_location_post_fix) when it has read it, and the host wakes the
 * device (world_wake_posted). NULL: the world posts. */
typedef void (*world_gnss_wire_t)(struct world_device *d, const hal_gnss_fix_t *fix);
void world_gnss_use_wire(struct world *w, world_gnss_wire_t wire);
/* The device resets: its receiver is off. */
void world_gnss_reset(struct world *w, struct world_device *d);
/* GNSS on-time up to now, ms. */
uint64_t world_gnss_on_ms(const struct world *w, const struct world_device *d);

#endif /* WORLD_GNSS_H */

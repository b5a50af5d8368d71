/*
 * world_gnss.c: the simulated GNSS receiver and tracks (see world_gnss.h, docs/world.md).
 */
#include "world_gnss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_device.h"
#include "hal_gnss.h"
#include "rt_location.h"
#include "world.h"
#include "world_inputs.h"

/* A receiver reports a fix a second (nRF9160 GNSS in continuous mode). */
#define WORLD_GNSS_FIX_PERIOD_MS 1000

void world_gnss_init(world_gnss_t *g)
{
	memset(g, 0, sizeof(*g));
	rt_gnss_track_init(&g->track, NULL, 0);
	g->last_fix = RT_GNSS_NEVER;
	g->fix_before_on = RT_GNSS_NEVER;
}

void world_gnss_free(world_gnss_t *g)
{
	free(g->points);
	free(g->outages);
	free(g->sky);
	g->points = NULL;
	g->outages = NULL;
	g->sky = NULL;
	g->n_points = g->n_outages = g->n_sky = 0;
	g->cap_points = g->cap_outages = g->cap_sky = 0;
}

static int grow(void **array, size_t *cap, size_t n, size_t size)
{
	if (n < *cap) {
		return 0;
	}
	size_t next = *cap ? *cap * 2 : 16;
	void *grown = realloc(*array, next * size);
	if (grown == NULL) {
		return -1;
	}
	*array = grown;
	*cap = next;
	return 0;
}

int world_gnss_add_point(world_gnss_t *g, const rt_gnss_point_t *p, char *err, size_t cap)
{
	if (grow((void **)&g->points, &g->cap_points, g->n_points, sizeof(*p)) != 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	g->points[g->n_points++] = *p;
	return 0;
}

int world_gnss_add_outage(world_gnss_t *g, int64_t from, int64_t to, char *err, size_t cap)
{
	if (grow((void **)&g->outages, &g->cap_outages, g->n_outages, sizeof(*g->outages)) != 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	g->outages[g->n_outages++] = (rt_gnss_outage_t){from, to};
	return 0;
}

int world_gnss_add_sky(world_gnss_t *g, int64_t t, uint8_t sat, double hdop, char *err, size_t cap)
{
	if (grow((void **)&g->sky, &g->cap_sky, g->n_sky, sizeof(*g->sky)) != 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	g->sky[g->n_sky++] = (rt_gnss_sky_t){t, sat, hdop};
	return 0;
}

int world_gnss_finish(world_t *w, char *err, size_t cap)
{
	for (uint32_t i = 0; i < w->device_count; i++) {
		world_device_t *d = &w->devices[i];
		world_gnss_t *g = &d->gnss;
		g->track.points = g->points;
		g->track.n_points = g->n_points;
		g->track.outages = g->outages;
		g->track.n_outages = g->n_outages;
		g->track.sky = g->sky;
		g->track.n_sky = g->n_sky;
		if (g->n_points == 0) {
			if (g->n_outages || g->n_sky) {
				snprintf(err, cap, "device %s: GNSS outages and sky need a track", d->name);
				return -1;
			}
			continue;
		}
		size_t at = 0;
		rt_gnss_track_error_t e = rt_gnss_track_check(&g->track, &at);
		if (e != RT_GNSS_TRACK_OK) {
			snprintf(err, cap, "device %s: GNSS track entry %zu: %s", d->name, at,
				 rt_gnss_track_error_message(e));
			return -1;
		}
		uint32_t *t = realloc(w->gnss_tracked, (w->gnss_tracks + 1) * sizeof(*t));
		if (t == NULL) {
			snprintf(err, cap, "out of memory");
			return -1;
		}
		w->gnss_tracked = t;
		w->gnss_tracked[w->gnss_tracks++] = i;
	}
	world_gnss_follow(w);
	return 0;
}

void world_gnss_follow(world_t *w)
{
	/* The devices with a track only: this runs at every step of the world. */
	for (uint32_t i = 0; i < w->gnss_tracks; i++) {
		world_device_t *d = &w->devices[w->gnss_tracked[i]];
		rt_gnss_pose_t pose;
		rt_gnss_track_pose(&d->gnss.track, (int64_t)w->now, &pose);
		if (pose.lat != d->lat || pose.lon != d->lon || pose.alt != d->alt) {
			d->lat = pose.lat;
			d->lon = pose.lon;
			d->alt = pose.alt;
			world_air_moved(w, d); /* one standing still keeps its cached path losses */
		}
	}
}

/* The model the receiver follows: the track, or the place the device stands. */
static const rt_gnss_track_t *model(world_device_t *d)
{
	world_gnss_t *g = &d->gnss;
	if (g->n_points > 0) {
		return &g->track;
	}
	g->here = (rt_gnss_point_t){0, d->lat, d->lon, d->alt, NAN, NAN};
	g->track.points = &g->here;
	g->track.n_points = 1;
	return &g->track;
}

static void schedule_fix(world_t *w, world_device_t *d, int64_t from)
{
	world_gnss_t *g = &d->gnss;
	int64_t next = rt_gnss_track_next_fix(model(d), g->on_since, g->fix_before_on, from);
	if (next == RT_GNSS_NEVER) {
		return; /* the sky never allows one again: the runtime's maxFixWait decides */
	}
	world_event_t e = {0};
	e.at = (uint64_t)(next < (int64_t)w->now ? (int64_t)w->now : next);
	e.device = d->rt.index;
	e.kind = WORLD_IN_GNSS_FIX;
	e.value[0] = g->generation;
	world_add_event(w, &e);
}

static void trace_switch(world_t *w, world_device_t *d, bool on, uint64_t on_for)
{
	if (!world_tracing(w)) {
		return;
	}
	world_trace_begin(&w->json, w, d, "gnss");
	world_trace_bool(&w->json, "on", on);
	if (!on) {
		world_trace_num(&w->json, "onFor", (double)on_for);
		world_trace_num(&w->json, "onTotal", (double)d->gnss.on_total_ms);
	}
	world_trace_end(&w->json, w);
}

static void switch_off(world_t *w, world_device_t *d)
{
	world_gnss_t *g = &d->gnss;
	if (!g->on) {
		return;
	}
	uint64_t on_for = w->now - (uint64_t)g->on_since;
	g->on = false;
	g->fixing = false;
	g->generation++;
	g->on_total_ms += on_for;
	trace_switch(w, d, false, on_for);
	world_energy_gnss(w, d);
}

bool hal_gnss_set(bool on)
{
	world_device_t *d = world_current();
	if (d == NULL || !(d->features & HAL_FEATURE_GNSS)) {
		return false;
	}
	world_t *w = d->world;
	world_gnss_t *g = &d->gnss;
	if (!on) {
		switch_off(w, d);
		return true;
	}
	if (g->on) {
		return true;
	}
	g->on = true;
	g->on_since = (int64_t)w->now;
	g->fix_before_on = g->last_fix;
	g->fixing = false;
	g->generation++;
	g->starts++;
	trace_switch(w, d, true, 0);
	world_energy_gnss(w, d);
	schedule_fix(w, d, (int64_t)w->now);
	return true;
}

void world_gnss_fix_event(world_t *w, world_device_t *d, const world_event_t *e)
{
	world_gnss_t *g = &d->gnss;
	if (!g->on || (uint32_t)e->value[0] != g->generation) {
		return; /* switched off (or on again) since */
	}
	rt_gnss_fix_t fix;
	if (!rt_gnss_track_fix(model(d), g->on_since, g->fix_before_on, (int64_t)w->now, &fix)) {
		if (g->fixing && world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "gnss-lost");
			world_trace_end(&w->json, w);
		}
		g->fixing = false;
		world_energy_gnss(w, d);
		schedule_fix(w, d, (int64_t)w->now);
		return;
	}
	if (!g->fixing && world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "gnss-fix");
		world_trace_num(&w->json, "lat", fix.lat);
		world_trace_num(&w->json, "long", fix.lon);
		world_trace_num(&w->json, "sat", fix.sat);
		world_trace_num(&w->json, "hdop", fix.hdop);
		world_trace_num(&w->json, "after", (double)(w->now - (uint64_t)g->on_since));
		world_trace_end(&w->json, w);
	}
	g->fixing = true;
	world_energy_gnss(w, d);
	g->last_fix = (int64_t)w->now;
	hal_gnss_fix_t out = {
		.lat = fix.lat,
		.lon = fix.lon,
		.utc_ms = w->utc_at_start + (int64_t)w->now,
		.alt = (float)fix.alt,
		.speed_kmh = (float)fix.speed_kmh,
		.head_deg = (float)fix.head_deg,
		.hdop = (float)fix.hdop,
		.sat = fix.sat,
	};
	if (w->gnss_wire != NULL) {
		w->gnss_wire(d, &out);
	} else {
		rt_location_post_fix(&d->rt, &out);
		world_wake(w, d);
	}
	schedule_fix(w, d, (int64_t)w->now + WORLD_GNSS_FIX_PERIOD_MS);
}

void world_gnss_use_wire(world_t *w, world_gnss_wire_t wire)
{
	w->gnss_wire = wire;
}

void world_gnss_reset(world_t *w, world_device_t *d)
{
	switch_off(w, d);
}

uint64_t world_gnss_on_ms(const world_t *w, const world_device_t *d)
{
	const world_gnss_t *g = &d->gnss;
	return g->on_total_ms + (g->on ? w->now - (uint64_t)g->on_since : 0);
}

/*
 * world_uwb.c: the simulated UWB radios (see world_uwb.h, docs/world.md).
 */
#include "world_uwb.h"

#include <math.h>

#include "hal_device.h"
#include "hal_uwb.h"
#include "rt_uwb.h"
#include "rt_uwb_model.h"
#include "world.h"
#include "world_inputs.h"

static void schedule_round(world_t *w, world_device_t *d)
{
	world_event_t e = {0};
	e.at = w->now + w->uwb_interval_ms;
	e.device = d->rt.index;
	e.kind = WORLD_IN_UWB_ROUND;
	e.value[0] = d->uwb.generation;
	world_add_event(w, &e);
}

static void trace_radio(world_t *w, world_device_t *d)
{
	if (!world_tracing(w)) {
		return;
	}
	world_trace_begin(&w->json, w, d, "uwb");
	world_trace_bool(&w->json, "on", d->uwb.running);
	if (d->uwb.running) {
		world_trace_strz(&w->json, "role",
				 d->uwb.role == RT_UWB_ROLE_INITIATOR ? "initiator" : "responder");
		world_trace_num(&w->json, "mode", d->uwb.mode);
		world_trace_num(&w->json, "panId", d->uwb.pan_id);
	}
	world_trace_end(&w->json, w);
}

bool hal_uwb_start(uint8_t role, uint8_t mode, uint16_t pan_id)
{
	world_device_t *d = world_current();
	if (d == NULL || !(d->features & HAL_FEATURE_UWB)) {
		return false;
	}
	world_t *w = d->world;
	d->uwb.running = true;
	d->uwb.role = role;
	d->uwb.mode = mode;
	d->uwb.pan_id = pan_id;
	d->uwb.generation++;
	trace_radio(w, d);
	if (role == RT_UWB_ROLE_INITIATOR) {
		schedule_round(w, d);
	}
	return true;
}

void hal_uwb_stop(void)
{
	world_device_t *d = world_current();
	if (d == NULL || !d->uwb.running) {
		return;
	}
	d->uwb.running = false;
	d->uwb.generation++;
	trace_radio(d->world, d);
}

static rt_uwb_config_t config_of(const world_uwb_t *u)
{
	/* The radio measures whatever answers; the initiator's window is the runtime's. */
	rt_uwb_config_t c = {
		.role = u->role,
		.mode = u->mode,
		.pan_id = u->pan_id,
		.timeout_ms = 0,
		.min_distance_m = 0,
		.max_distance_m = INFINITY,
	};
	return c;
}

static void public_id_hex(const world_device_t *dev, char out[RT_UWB_ID_MAX])
{
	static const char digits[] = "0123456789abcdef";
	size_t n = 0;
	for (size_t k = 0; k < dev->public_id_len && n + 2 < RT_UWB_ID_MAX; k++) {
		uint8_t b = (uint8_t)dev->public_id[k];
		out[n++] = digits[b >> 4];
		out[n++] = digits[b & 0x0f];
	}
	out[n] = '\0';
}

void world_uwb_round_event(world_t *w, world_device_t *d, const world_event_t *e)
{
	if (!d->uwb.running || (uint32_t)e->value[0] != d->uwb.generation) {
		return;
	}
	rt_uwb_config_t initiator = config_of(&d->uwb);
	rt_uwb_position_t here = {d->lat, d->lon, d->alt};
	for (uint32_t i = 0; i < w->device_count; i++) {
		world_device_t *r = &w->devices[i];
		if (r == d || !r->uwb.running || r->uwb.role != RT_UWB_ROLE_RESPONDER) {
			continue;
		}
		rt_uwb_config_t responder = config_of(&r->uwb);
		rt_uwb_position_t there = {r->lat, r->lon, r->alt};
		rt_uwb_measurement_t m;
		if (!rt_uwb_measure(&w->uwb_model, &initiator, &responder, &here, &there, i,
				    (int64_t)w->now, &m)) {
			continue;
		}
		/* Each side is named by its public id, as sys.getPublicId() gives it there. */
		char id[RT_UWB_ID_MAX];
		char initiator_id[RT_UWB_ID_MAX];
		public_id_hex(r, id);
		public_id_hex(d, initiator_id);
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "uwb-range");
			world_trace_strz(&w->json, "peer", r->name);
			world_trace_num(&w->json, "true", round(m.true_m * 100.0) / 100.0);
			world_trace_num(&w->json, "dist", round(m.dist_m * 100.0) / 100.0);
			world_trace_num(&w->json, "lqi", m.lqi);
			world_trace_end(&w->json, w);
		}
		/* Both radios take part in the exchange. */
		world_energy_ranging(w, d);
		world_energy_ranging(w, r);
		rt_uwb_post_measurement(&d->rt, id, m.dist_m, m.lqi);
		world_wake(w, d);
		/* Two-way ranging leaves the distance on both sides: the responder's callback (if
		 * any) hears the same measurement, naming the initiator. */
		rt_uwb_post_measurement(&r->rt, initiator_id, m.dist_m, m.lqi);
		world_wake(w, r);
	}
	schedule_round(w, d);
}

void world_uwb_reset(world_t *w, world_device_t *d)
{
	(void)w;
	d->uwb.running = false;
	d->uwb.generation++;
}

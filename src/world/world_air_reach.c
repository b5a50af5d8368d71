/*
 * world_air_reach.c: what makes the air cost what is heard (docs/world.md, "The air"):
 *
 *  - the noise of every reception (and every advDelay) is a keyed draw: a function of the world's
 *    seed, the sender, its set, that set's event number, the receiver and the draw's number, not
 *    of the order in which receptions are computed; so skipping a receiver changes nothing else;
 *  - that draw is bounded (the uniform draws have 2^53 steps, so Box-Muller never gives more
 *    than 8.65 sigma), and so is the distance at which a sender of a given power can be heard at
 *    all; an index of the scanning devices by where they are (cells of latitude and longitude)
 *    gives each advertising event the scanners within that distance and no others;
 *  - the path loss between two devices is computed once for as long as neither moves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_geo.h"
#include "world.h"
#include "world_air.h"
#include "world_air_internal.h"

/* ------------------------------------------------------------------ keyed draws */

/* The finaliser of splitmix64: a bijective mix of 64 bits, each output bit depending on every
 * input bit. Chained over the parts of a key it gives an independent-looking uniform word per key
 * (a counter-based generator, as Random123's are), so a draw needs no state and no order. */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t world_air_draw_u64(const world_t *w, const world_air_key_t *k, uint64_t draw)
{
	uint64_t h = mix(w->seed);
	h = mix(h ^ k->source);
	h = mix(h ^ k->set);
	h = mix(h ^ k->event);
	h = mix(h ^ k->receiver);
	return mix(h ^ draw);
}

/* In (0, 1): 2^53 steps of 2^-53, the first at 2^-54, so log() never sees 0. */
static double uniform(const world_t *w, const world_air_key_t *k, uint64_t draw)
{
	return ((double)(world_air_draw_u64(w, k, draw) >> 11) + 0.5) / 9007199254740992.0;
}

double world_air_gaussian(const world_t *w, const world_air_key_t *k, uint32_t draw)
{
	/* Box-Muller, each normal draw from two uniform ones of its own. */
	double u1 = uniform(w, k, 2ull * draw), u2 = uniform(w, k, 2ull * draw + 1);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The largest |world_air_gaussian()|: sqrt(-2 ln u1) at the smallest u1, 2^-54, is 8.652; the
 * 1e-9 covers the rounding of log, sqrt and cos. The Gaussian is not truncated: this bound is a
 * property of the generator (a draw beyond 8.65 sigma has probability 1e-17), so it is exact. */
double world_air_noise_max(void)
{
	return WORLD_AIR_SIGMA * (sqrt(-2.0 * log(0.5 / 9007199254740992.0)) + 1e-9);
}

double world_air_reach_m(int8_t power)
{
	/* Heard when round(power - PL(d) + noise) >= sensitivity, so only if PL(d) <= power -
	 * sensitivity + 0.5 + the largest noise: PL0 + 10 n log10(d) gives d. With +8 dBm (the most a
	 * device sends) that is 10.96 km, with 0 dBm 4.37 km, with -4 dBm 2.75 km. The geodesic
	 * distance is at most the 3-D one the path loss takes, so it bounds the ground distance. */
	double db = (double)power - WORLD_AIR_SENSITIVITY + 0.5 + world_air_noise_max() - WORLD_AIR_PL0;
	return pow(10.0, db / (10.0 * WORLD_AIR_EXPONENT)) * (1.0 + 1e-9) + 1e-3;
}

/* ------------------------------------------------------------------ path loss */

typedef struct world_air_loss {
	uint32_t source, receiver; /* receiver UINT32_MAX: empty */
	uint32_t source_gen, receiver_gen;
	double loss;
} loss_entry_t;

#define LOSS_CAP_MIN 1024u
#define LOSS_CAP_MAX (1u << 20) /* 24 MB: a million pairs that do not move */

static void source_place(const world_t *w, uint32_t source, double *lat, double *lon, double *alt,
			 uint32_t *gen)
{
	if (source < w->device_count) {
		const world_air_spot_t *d = &w->air_spots[source];
		*lat = d->lat, *lon = d->lon, *alt = d->alt, *gen = d->gen;
	} else {
		const world_beacon_t *b = &w->beacons[source - w->device_count];
		*lat = b->lat, *lon = b->lon, *alt = b->alt, *gen = 0; /* beacons stand still */
	}
}

static double compute_loss(double lat, double lon, double alt, const world_air_spot_t *rx)
{
	double ground = rt_geo_distance(lat, lon, rx->lat, rx->lon);
	double dz = alt - rx->alt;
	double d = sqrt(ground * ground + dz * dz);
	if (d < 0.1) {
		d = 0.1; /* the antennas of two devices side by side */
	}
	return WORLD_AIR_PL0 + 10.0 * WORLD_AIR_EXPONENT * log10(d);
}

static bool loss_table(world_air_index_t *x, uint32_t cap)
{
	loss_entry_t *t = malloc((size_t)cap * sizeof(*t));
	if (t == NULL) {
		return false;
	}
	for (uint32_t i = 0; i < cap; i++) {
		t[i].receiver = UINT32_MAX;
	}
	free(x->loss);
	x->loss = t;
	x->loss_cap = cap;
	x->loss_evictions = 0;
	return true;
}

double world_air_path_loss(world_t *w, uint32_t source, const world_device_t *device)
{
	double lat, lon, alt;
	uint32_t gen;
	source_place(w, source, &lat, &lon, &alt, &gen);
	const world_air_spot_t *rx = &w->air_spots[device->rt.index];
	world_air_index_t *x = &w->air_index;
	/* A direct-mapped cache of pairs by position generation: a pair that does not move is
	 * computed once; one that moves has a new generation and is computed again. When pairs keep
	 * pushing each other out, the table doubles (up to LOSS_CAP_MAX). */
	if (x->loss == NULL && !loss_table(x, LOSS_CAP_MIN)) {
		return compute_loss(lat, lon, alt, rx);
	}
	uint32_t receiver = device->rt.index;
	loss_entry_t *e = &x->loss[mix(((uint64_t)source << 32) | receiver) & (x->loss_cap - 1)];
	if (e->source == source && e->receiver == receiver && e->source_gen == gen &&
	    e->receiver_gen == rx->gen) {
		return e->loss;
	}
	double loss = compute_loss(lat, lon, alt, rx);
	if (e->receiver != UINT32_MAX && (e->source != source || e->receiver != receiver) &&
	    ++x->loss_evictions > x->loss_cap && x->loss_cap < LOSS_CAP_MAX) {
		if (!loss_table(x, x->loss_cap * 2)) {
			return loss;
		}
		e = &x->loss[mix(((uint64_t)source << 32) | receiver) & (x->loss_cap - 1)];
	}
	*e = (loss_entry_t){source, receiver, gen, rx->gen, loss};
	return loss;
}

/* ------------------------------------------------------------------ the index of scanners */

/* Cells of the index: WORLD_AIR_CELL_M metres north-south, and as much east-west at the latitude
 * of the first scanner (an equirectangular grid: cells are whole degrees of latitude and
 * longitude scaled, so a cell is where a point is, with no projection to get wrong). */
#define WORLD_AIR_CELL_M 4000.0
/* Metres per degree of latitude at least (the meridian's radius of curvature is smallest at the
 * equator, 6,335,439 m) and of longitude at the equator (the semi-major axis, the radius of a
 * parallel being N cos(lat) with N >= a). */
#define M_PER_DEG_LAT_MIN 110574.27
#define M_PER_DEG_LON_EQ (RT_GEO_WGS84_A * 3.14159265358979323846 / 180.0)

typedef struct world_air_cell {
	uint64_t key;
	bool used;
	uint32_t count, cap;
	uint32_t *devices;
} cell_t;

static int32_t cell_of(double deg, double size)
{
	return (int32_t)floor(deg / size);
}

static uint64_t cell_key(int32_t cx, int32_t cy)
{
	return ((uint64_t)(uint32_t)cx << 32) | (uint32_t)cy;
}

static cell_t *cell_find(world_air_index_t *x, uint64_t key, bool make)
{
	if (x->cell_cap == 0 || (make && 2 * (x->cell_count + 1) > x->cell_cap)) {
		if (!make) {
			return NULL;
		}
		uint32_t cap = x->cell_cap ? 2 * x->cell_cap : 64;
		cell_t *t = calloc(cap, sizeof(*t));
		if (t == NULL) {
			return NULL;
		}
		for (uint32_t i = 0; i < x->cell_cap; i++) {
			if (x->cells[i].used) {
				uint32_t j = (uint32_t)mix(x->cells[i].key) & (cap - 1);
				while (t[j].used) {
					j = (j + 1) & (cap - 1);
				}
				t[j] = x->cells[i];
			}
		}
		free(x->cells);
		x->cells = t;
		x->cell_cap = cap;
	}
	for (uint32_t j = (uint32_t)mix(key) & (x->cell_cap - 1);; j = (j + 1) & (x->cell_cap - 1)) {
		cell_t *c = &x->cells[j];
		if (c->used && c->key == key) {
			return c;
		}
		if (!c->used) {
			if (!make) {
				return NULL;
			}
			c->used = true;
			c->key = key;
			x->cell_count++;
			return c;
		}
	}
}

/* Append to a list of device indices that grows by doubling from `first` (false: no memory). */
static bool list_push(uint32_t **list, uint32_t *count, uint32_t *cap, uint32_t first, uint32_t device)
{
	if (*count == *cap) {
		uint32_t grown = *cap ? 2 * *cap : first;
		uint32_t *p = realloc(*list, grown * sizeof(*p));
		if (p == NULL) {
			return false;
		}
		*list = p;
		*cap = grown;
	}
	(*list)[(*count)++] = device;
	return true;
}

static bool cell_push(cell_t *c, uint32_t device)
{
	return list_push(&c->devices, &c->count, &c->cap, 4, device);
}

static void index_add(world_t *w, world_device_t *d)
{
	world_air_index_t *x = &w->air_index;
	if (x->cell_lat == 0) {
		double ref = fabs(d->lat) < 70 ? d->lat : 70; /* cells stay under 12 km wide */
		x->cell_lat = WORLD_AIR_CELL_M / M_PER_DEG_LAT_MIN;
		x->cell_lon = WORLD_AIR_CELL_M / (M_PER_DEG_LON_EQ * cos(ref * 3.14159265358979323846 / 180.0));
	}
	int32_t cx = cell_of(d->lon, x->cell_lon), cy = cell_of(d->lat, x->cell_lat);
	cell_t *c = cell_find(x, cell_key(cx, cy), true);
	if (c == NULL || !cell_push(c, d->rt.index)) {
		/* Out of memory: the device is heard through the list of scanners (every query then
		 * walks it), never lost. */
		x->unplaced++;
		d->air_place = (world_air_place_t){.indexed = false, .unplaced = true};
		return;
	}
	d->air_place = (world_air_place_t){.indexed = true, .cx = cx, .cy = cy};
}

static void index_remove(world_t *w, world_device_t *d)
{
	world_air_index_t *x = &w->air_index;
	if (d->air_place.unplaced) {
		x->unplaced--;
	}
	if (d->air_place.indexed) {
		cell_t *c = cell_find(x, cell_key(d->air_place.cx, d->air_place.cy), false);
		for (uint32_t i = 0; c != NULL && i < c->count; i++) {
			if (c->devices[i] == d->rt.index) {
				c->devices[i] = c->devices[--c->count];
				break;
			}
		}
	}
	d->air_place = (world_air_place_t){0};
}

void world_air_index_scanner(world_t *w, world_device_t *d, bool scanning)
{
	index_remove(w, d);
	if (scanning) {
		index_add(w, d);
	}
}

void world_air_moved(world_t *w, world_device_t *d)
{
	world_air_spot_t *spot = &w->air_spots[d->rt.index];
	spot->lat = d->lat;
	spot->lon = d->lon;
	spot->alt = d->alt;
	spot->gen++; /* its cached path losses are stale */
	if (!d->air_place.indexed) {
		return;
	}
	world_air_index_t *x = &w->air_index;
	if (cell_of(d->lon, x->cell_lon) != d->air_place.cx || cell_of(d->lat, x->cell_lat) != d->air_place.cy) {
		index_remove(w, d);
		index_add(w, d);
	}
}

/* ------------------------------------------------------------------ who can hear */

static bool found_push(world_air_index_t *x, uint32_t device)
{
	return list_push(&x->found, &x->found_count, &x->found_cap, 64, device);
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The box of latitudes and longitudes within reach_m of (lat, lon), over-estimated: a path of
 * length r changes the latitude by at most r / M_min and, staying within that band of latitudes,
 * the longitude by at most r / (a cos(the band's highest |latitude|)). */
typedef struct {
	double lat, lon, dlat, dlon; /* dlon >= 360: any longitude */
} box_t;

static box_t box_around(double lat, double lon, double reach_m)
{
	box_t b = {lat, lon, reach_m / M_PER_DEG_LAT_MIN * (1 + 1e-9), 360};
	double top = fabs(lat) + b.dlat;
	if (top < 89.9) {
		b.dlon = reach_m / (M_PER_DEG_LON_EQ * cos(top * 3.14159265358979323846 / 180.0)) * (1 + 1e-9);
	}
	return b;
}

static bool in_box(const box_t *b, const world_air_spot_t *d)
{
	if (fabs(d->lat - b->lat) > b->dlat) {
		return false;
	}
	double dlon = fabs(d->lon - b->lon); /* longitudes are in [-180, 180]: the shorter way round */
	return b->dlon >= 180 || (dlon > 180 ? 360 - dlon : dlon) <= b->dlon;
}

/* Every scanner in the box, by walking the list of scanners. */
static void walk_scanners(world_t *w, uint32_t source, const box_t *b)
{
	world_air_index_t *x = &w->air_index;
	for (uint32_t i = 0; i < w->scanner_count; i++) {
		uint32_t s = w->scanners[i];
		if (s != source && (b == NULL || in_box(b, &w->air_spots[s])) && !found_push(x, s)) {
			return;
		}
	}
}

size_t world_air_in_reach(world_t *w, uint32_t source, int8_t power, const uint32_t **out)
{
	world_air_index_t *x = &w->air_index;
	x->found_count = 0;
	*out = x->found;
	if (w->scanner_count == 0) {
		return 0;
	}
	if (w->air_exhaustive) {
		walk_scanners(w, source, NULL); /* the tests' reference: every scanner, as before */
		*out = x->found;
		return x->found_count;
	}
	double lat, lon, alt;
	uint32_t gen;
	source_place(w, source, &lat, &lon, &alt, &gen);
	/* The reach of each power once per world: pow() per event would cost more than the box. */
	if (!x->reach_made) {
		for (int p = INT8_MIN; p <= INT8_MAX; p++) {
			x->reach[p - INT8_MIN] = world_air_reach_m((int8_t)p);
		}
		x->reach_made = true;
	}
	box_t b = box_around(lat, lon, x->reach[power - INT8_MIN]);
	double cells = 0;
	int32_t cx0 = 0, cx1 = 0, cy0 = 0, cy1 = 0;
	if (x->cell_lat != 0 && b.dlon < 180 && lon - b.dlon > -180 && lon + b.dlon < 180) {
		cx0 = cell_of(lon - b.dlon, x->cell_lon), cx1 = cell_of(lon + b.dlon, x->cell_lon);
		cy0 = cell_of(lat - b.dlat, x->cell_lat), cy1 = cell_of(lat + b.dlat, x->cell_lat);
		cells = ((double)cx1 - cx0 + 1) * ((double)cy1 - cy0 + 1);
	}
	/* The cells, unless the box has more of them than there are scanners (a few scanners, a
	 * sender near a pole or the antimeridian, or a scanner the index could not place): then the
	 * list. Either way the box is checked, and what it lets through is sorted by device, the order
	 * in which receptions at one instant have always been made. */
	if (cells == 0 || x->unplaced > 0 || cells > 2.0 * w->scanner_count + 8) {
		walk_scanners(w, source, &b);
	} else {
		for (int32_t cy = cy0; cy <= cy1; cy++) {
			for (int32_t cx = cx0; cx <= cx1; cx++) {
				cell_t *c = cell_find(x, cell_key(cx, cy), false);
				for (uint32_t i = 0; c != NULL && i < c->count; i++) {
					uint32_t s = c->devices[i];
					if (s != source && in_box(&b, &w->air_spots[s])) {
						found_push(x, s);
					}
				}
			}
		}
		if (x->found_count > 1) { /* (qsort of no list at all is undefined) */
			qsort(x->found, x->found_count, sizeof(uint32_t), by_index);
		}
	}
	*out = x->found;
	return x->found_count;
}

void world_air_index_free(world_t *w)
{
	world_air_index_t *x = &w->air_index;
	for (uint32_t i = 0; i < x->cell_cap; i++) {
		free(x->cells[i].devices);
	}
	free(x->cells);
	free(x->loss);
	free(x->found);
	memset(x, 0, sizeof(*x));
}

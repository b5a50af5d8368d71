/*
 * world_air_reach.c: what makes the air cost what is heard (docs/world.md, "The air"):
 *
 *  - the noise of every reception is a keyed draw, bounded (world_air_draw.c), and so is the
 *    distance at which a sender of a given power can be heard at all; an index of the scanning
 *    devices by where they are (cells of latitude and longitude) gives each advertising event the
 *    scanners within that distance and no others;
 *  - the path loss between two devices is computed once for as long as neither moves;
 *  - and who can hear a device changes only when a scanner starts, stops or moves, or the device
 *    moves or changes its power: what its last event found in reach is kept until then.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_geo.h"
#include "world.h"
#include "world_air.h"
#include "world_air_internal.h"

/* ------------------------------------------------------------------ path loss */

typedef struct world_air_loss {
	uint32_t source, receiver; /* receiver UINT32_MAX: empty */
	uint32_t source_gen, receiver_gen;
	double loss;
} loss_entry_t;

#define LOSS_CAP_MIN 1024u
#define LOSS_CAP_MAX (1u << 20) /* 24 MB: half a million pairs */

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

static uint32_t loss_slot(const world_air_index_t *x, uint32_t source, uint32_t receiver)
{
	return (uint32_t)world_air_mix(((uint64_t)source << 32) | receiver) & (x->loss_cap - 1);
}

/* A table of cap entries holding the old one's pairs (none when `keep` is false). */
static bool loss_table(world_air_index_t *x, uint32_t cap, bool keep)
{
	loss_entry_t *t = malloc((size_t)cap * sizeof(*t));
	if (t == NULL) {
		return false;
	}
	for (uint32_t i = 0; i < cap; i++) {
		t[i].receiver = UINT32_MAX;
	}
	loss_entry_t *old = x->loss;
	uint32_t old_cap = x->loss_cap;
	x->loss = t;
	x->loss_cap = cap;
	x->loss_count = 0;
	for (uint32_t i = 0; keep && i < old_cap; i++) {
		if (old[i].receiver != UINT32_MAX) {
			uint32_t j = loss_slot(x, old[i].source, old[i].receiver);
			while (t[j].receiver != UINT32_MAX) {
				j = (j + 1) & (cap - 1);
			}
			t[j] = old[i];
			x->loss_count++;
		}
	}
	free(old);
	return true;
}

static double table_loss(world_t *w, uint32_t source, const world_device_t *device)
{
	double lat, lon, alt;
	uint32_t gen;
	source_place(w, source, &lat, &lon, &alt, &gen);
	const world_air_spot_t *rx = &w->air_spots[device->rt.index];
	world_air_index_t *x = &w->air_index;
	/* A hash table of pairs (open addressing, at most half full): a pair that does not move is
	 * computed once; one that moves is computed again in its entry. The table grows with the
	 * pairs the air has met, so that it stays as small as they are (each lookup one line of
	 * memory that is mostly in the cache); at LOSS_CAP_MAX it starts over empty. */
	if (x->loss == NULL && !loss_table(x, LOSS_CAP_MIN, false)) {
		return compute_loss(lat, lon, alt, rx);
	}
	uint32_t receiver = device->rt.index;
	uint32_t i = loss_slot(x, source, receiver);
	while (x->loss[i].receiver != UINT32_MAX &&
	       (x->loss[i].source != source || x->loss[i].receiver != receiver)) {
		i = (i + 1) & (x->loss_cap - 1);
	}
	loss_entry_t *e = &x->loss[i];
	if (e->receiver != UINT32_MAX && e->source_gen == gen && e->receiver_gen == rx->gen) {
		return e->loss;
	}
	double loss = compute_loss(lat, lon, alt, rx);
	if (e->receiver == UINT32_MAX) {
		if (2 * (x->loss_count + 1) > x->loss_cap) {
			bool grow = x->loss_cap < LOSS_CAP_MAX;
			if (!loss_table(x, grow ? 2 * x->loss_cap : x->loss_cap, grow)) {
				return loss;
			}
			for (i = loss_slot(x, source, receiver); x->loss[i].receiver != UINT32_MAX;) {
				i = (i + 1) & (x->loss_cap - 1);
			}
			e = &x->loss[i];
		}
		x->loss_count++;
	}
	*e = (loss_entry_t){source, receiver, gen, rx->gen, loss};
	return loss;
}

/* ------------------------------------------------------------------ what a sender last found */

/*
 * Each device keeps what its last advertising event found in reach, when that was a few
 * scanners, and the path losses to them once asked for; valid while the index's version (bumped
 * when a scanner starts, stops or moves), the device's position and its power are what they were.
 * So a fleet that stands still looks for its listeners once, not at every event (the cells around
 * a sender, the box, the sort), and an event reads them, losses and all, from one record that the
 * scheduler has already asked the memory for (world_air_prefetch).
 */
#define KEPT_MAX 3

typedef struct world_air_kept {
	uint64_t version; /* the index's version when found (0: nothing kept) */
	uint32_t gen;     /* the device's position generation then */
	int8_t power;
	uint8_t count;    /* scanners[0 .. count) */
	uint8_t known;    /* bit i: loss[i] is the path loss to scanners[i] */
	uint32_t scanners[KEPT_MAX];
	double loss[KEPT_MAX];
} kept_t;

/* Device source's record, if it is still right for its position (any power), else NULL. */
static kept_t *kept_valid(world_t *w, uint32_t source)
{
	world_air_index_t *x = &w->air_index;
	if (x->kept == NULL || source >= w->device_count) {
		return NULL;
	}
	kept_t *k = &x->kept[source];
	return k->version == x->version && k->gen == w->air_spots[source].gen ? k : NULL;
}

/* Keep what the index found for device source at power (x->found). */
static void keep(world_t *w, uint32_t source, int8_t power)
{
	world_air_index_t *x = &w->air_index;
	if (source >= w->device_count) {
		return; /* a scripted beacon: few, and asked for as before */
	}
	if (x->kept == NULL) {
		x->kept = calloc(w->device_count, sizeof(*x->kept));
		if (x->kept == NULL) {
			return;
		}
		x->version++; /* never 0, which calloc's records have */
	}
	kept_t *k = &x->kept[source];
	k->version = 0;
	if (x->found_count > KEPT_MAX || x->found_short) {
		return; /* many listeners: each event looks again (the looking is not what costs then) */
	}
	k->gen = w->air_spots[source].gen;
	k->power = power;
	k->count = (uint8_t)x->found_count;
	k->known = 0;
	for (uint32_t i = 0; i < x->found_count; i++) {
		k->scanners[i] = x->found[i];
	}
	k->version = x->version;
}

void world_air_prefetch_kept(const world_t *w, uint32_t source)
{
	if (w->air_index.kept != NULL && source < w->device_count) {
		const kept_t *k = &w->air_index.kept[source];
		__builtin_prefetch(k);
		__builtin_prefetch((const char *)(k + 1) - 1);
	}
}

double world_air_path_loss(world_t *w, uint32_t source, const world_device_t *device)
{
	kept_t *k = kept_valid(w, source);
	for (uint32_t i = 0; k != NULL && i < k->count; i++) {
		if (k->scanners[i] == device->rt.index) {
			if (!(k->known & (1u << i))) {
				k->loss[i] = table_loss(w, source, device);
				k->known |= (uint8_t)(1u << i);
			}
			return k->loss[i];
		}
	}
	return table_loss(w, source, device);
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
	/* At most a quarter full: most lookups are of cells with no scanner (the cells around a
	 * sender), and those end at the first empty entry. */
	if (x->cell_cap == 0 || (make && 4 * (x->cell_count + 1) > x->cell_cap)) {
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
				uint32_t j = (uint32_t)world_air_mix(x->cells[i].key) & (cap - 1);
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
	for (uint32_t j = (uint32_t)world_air_mix(key) & (x->cell_cap - 1);; j = (j + 1) & (x->cell_cap - 1)) {
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
	w->air_index.version++;
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
	world_air_index_t *x = &w->air_index;
	if (d->air_place.indexed || d->air_place.unplaced) {
		x->version++; /* a scanner moved: who hears whom may have changed */
	}
	if (!d->air_place.indexed) {
		return;
	}
	if (cell_of(d->lon, x->cell_lon) != d->air_place.cx || cell_of(d->lat, x->cell_lat) != d->air_place.cy) {
		index_remove(w, d);
		index_add(w, d);
	}
}

/* ------------------------------------------------------------------ who can hear */

static bool found_push(world_air_index_t *x, uint32_t device)
{
	if (!list_push(&x->found, &x->found_count, &x->found_cap, 64, device)) {
		x->found_short = true; /* no memory: a list missing some, which is not kept */
		return false;
	}
	return true;
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The scanners found, in index order. Mostly none to a few, for which an insertion sort costs a
 * fraction of qsort's call. */
static void sort_found(world_air_index_t *x)
{
	uint32_t *f = x->found, n = x->found_count;
	if (n > 16) {
		qsort(f, n, sizeof(*f), by_index);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t v = f[i], j = i;
		for (; j > 0 && f[j - 1] > v; j--) {
			f[j] = f[j - 1];
		}
		f[j] = v;
	}
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
	x->found_short = false;
	*out = x->found;
	if (w->scanner_count == 0) {
		return 0;
	}
	if (w->air_exhaustive) {
		walk_scanners(w, source, NULL); /* the tests' reference: every scanner, as before */
		*out = x->found;
		return x->found_count;
	}
	const kept_t *k = kept_valid(w, source);
	if (k != NULL && k->power == power) {
		*out = k->scanners;
		return k->count;
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
		sort_found(x);
	}
	keep(w, source, power);
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
	free(x->kept);
	free(x->loss);
	free(x->found);
	memset(x, 0, sizeof(*x));
}

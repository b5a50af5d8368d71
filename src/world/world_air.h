/*
 * world_air.h: the BLE air between the devices of a world, and the radio HAL of a simulated
 * device (hal_ble.h). docs/world.md ("The air") has the model.
 *
 * Every advertising set (a device's, or a scripted foreign beacon's) advertises on channels 37,
 * 38 and 39 in turn at each advertising event, every interval plus the 0..10 ms advDelay of the
 * Core Specification. A scanning device listens during its windows, one channel per scan
 * interval in turn, and hears an event when its window is open on a channel the event uses, with
 * an RSSI from a log-distance path-loss model and Gaussian noise drawn by key (world_air_key_t).
 * Advertising events are only materialised while someone listens (a scanner) or reads the trace:
 * a world of advertisers no one hears costs nothing per advertisement; and an event visits only
 * the scanners within the reach of its power (world_air_in_reach).
 */
#ifndef WORLD_AIR_H
#define WORLD_AIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_ble.h"
#include "rt_config.h"
#include "rt_ble.h"

/* Path loss (log-distance): PL(d) = WORLD_AIR_PL0 + 10 n log10(d / 1 m), n = WORLD_AIR_EXPONENT,
 * plus Gaussian noise of WORLD_AIR_SIGMA dB; below WORLD_AIR_SENSITIVITY nothing is heard.
 * 40 dB is the free-space loss at 1 m at 2.44 GHz (20 log10(4 pi d / lambda)). */
#define WORLD_AIR_PL0 40.0
#define WORLD_AIR_EXPONENT 2.0
#define WORLD_AIR_SIGMA 2.0
#define WORLD_AIR_SENSITIVITY (-95.0)
/* advDelay: each advertising event starts 0..10 ms after its nominal time. */
#define WORLD_AIR_ADV_DELAY_MAX 10

#define WORLD_AIR_SETS CONFIG_BEACON_BLE_ADVERTISERS

typedef struct {
	bool on;
	bool scheduled;      /* an air event is queued for it */
	uint8_t len;
	uint8_t ad[HAL_BLE_AD_MAX];
	int8_t power;
	uint32_t interval;
	uint32_t gen;        /* events of an earlier configuration are ignored */
	uint64_t nominal;    /* world time of the next event before advDelay */
	uint64_t sent;       /* advertising events materialised (trace, reception): the event
			      * number of the receptions' noise draws */
	uint64_t delays;     /* advDelays drawn: the number of the next one's draw */
} world_adv_set_t;

typedef struct {
	bool on;
	hal_ble_scan_t p;
	uint64_t start;      /* world time the scan started: windows count from it */
	uint8_t order[3];    /* the channels it listens on, in order */
	uint8_t nchan;
} world_scan_t;

/* A scripted foreign beacon. */
typedef struct {
	char name[32];
	double lat, lon, alt;
	uint8_t addr[HAL_BLE_ADDR_LEN];
	bool response;    /* answers scan requests with its name */
	bool connectable;
	world_adv_set_t set;
} world_beacon_t;

/* A captured packet given to a device at a time (WORLD_IN_BLE_CAPTURE). */
typedef struct {
	uint8_t len;
	uint8_t ad[HAL_BLE_AD_MAX];
	uint8_t addr[HAL_BLE_ADDR_LEN];
	int8_t rssi;
	uint8_t channel;
	uint8_t kind; /* RT_BLE_RX_* */
} world_capture_t;

/* A device as the air sees it, kept apart from the device so that the air's loops stay in a few
 * small arrays: its identity (world_device_t.identity), its position (a copy of
 * world_device_t.lat, lon, alt, made by world_air_moved) and the generation of that position,
 * bumped at every change (the air's cached path losses are those of a generation). */
typedef struct {
	double lat, lon, alt;
	uint32_t identity;
	uint32_t gen;
} world_air_spot_t;

/* Where a scanning device is in the air's index of scanners (world_air_reach.c). */
typedef struct {
	bool indexed;   /* in the cell (cx, cy) */
	bool unplaced;  /* scanning, but the index had no memory for it: found by the list */
	int32_t cx, cy;
} world_air_place_t;

/* The air's index of scanning devices by cell of latitude and longitude, its cache of path losses
 * between devices that have not moved, and what each device's last advertising event found in
 * reach (world_air_reach.c). */
typedef struct {
	double cell_lat, cell_lon; /* a cell's size, degrees (0: no scanner placed yet) */
	struct world_air_cell *cells;
	uint32_t cell_cap, cell_count;
	uint32_t unplaced;
	/* Bumped whenever a scanner starts, stops or moves: what was found in reach before is stale. */
	uint64_t version;
	struct world_air_kept *kept; /* per device, made on first use */
	struct world_air_loss *loss;
	uint32_t loss_cap, loss_count;
	uint32_t *found; /* the scanners an event reaches */
	uint32_t found_count, found_cap;
	bool found_short; /* a push failed (no memory): the list misses some, and is not kept */
	double reach[256]; /* world_air_reach_m() of each power, from -128 dBm */
	bool reach_made;
} world_air_index_t;

/* What a draw of the air's noise is a function of, with the world's seed and the draw's number:
 * the same key gives the same draw whatever else the world computes, and in whatever order. */
typedef struct {
	uint64_t source;   /* the sender: a device's identity, or 2^32 + a beacon's index */
	uint64_t set;      /* its advertising set */
	uint64_t event;    /* that set's event (world_adv_set_t.sent), or its advDelay's number */
	uint64_t receiver; /* the receiving device's identity; UINT64_MAX for an advDelay */
} world_air_key_t;

/*
 * A real radio under the world's devices: a test board's BLE controller, whose air is BabbleSim's
 * (world_air_use_radio). The device's advertising sets and its scanner then also go to it, so
 * that other firmwares hear the app and the app hears them, while the modeled air stays: the
 * scenario's scripted beacons and captures are heard as before, and the trace says what the app
 * asked of its radio. What the radio receives its driver posts to the device with
 * rt_ble_post_scan() from its own thread; the host wakes the device (world_wake_posted). The
 * functions take what hal_ble.h's take.
 */
typedef struct world_radio {
	bool (*adv_start)(uint32_t set, const uint8_t *ad, size_t len, uint32_t interval_ms,
			  int8_t power_dbm);
	bool (*adv_update)(uint32_t set, const uint8_t *ad, size_t len);
	void (*adv_stop)(uint32_t set);
	bool (*scan_start)(const hal_ble_scan_t *params);
	void (*scan_stop)(void);
} world_radio_t;

struct world;
struct world_device;
struct world_event;

/* Put a real radio under the world's devices (NULL: the modeled air only). The radio is one:
 * a world with a radio has one device, the board's. */
void world_air_use_radio(struct world *w, const world_radio_t *radio);

/* What the real radio of device d received (posted to the device by its driver), counted and
 * written to the trace as the model's receptions are ("ble-rx"), with the sender's address for
 * "from": the world does not know the other firmwares' devices by name. On the world's thread. */
void world_air_radio_received(struct world *w, struct world_device *d, const rt_ble_rx_t *rx);

/* Add a beacon (before the world runs); 0 or -1 (no memory). */
int world_air_add_beacon(struct world *w, const world_beacon_t *beacon);
/* Store a capture; returns its index for the input's value[0], or -1. */
int world_air_add_capture(struct world *w, const world_capture_t *capture);
/* Materialise the advertising of every set that is on but not scheduled (someone listens now). */
void world_air_wake(struct world *w);
/* An air event (WORLD_IN_AIR_ADV) from the world's inputs. */
void world_air_event(struct world *w, const struct world_event *e);
/* An air event comes soon: start bringing what it reads into the cache (no other effect). */
void world_air_prefetch(const struct world *w, const struct world_event *e);
/* A captured packet reaches device d (selected). */
void world_air_capture(struct world *w, struct world_device *d, const struct world_event *e);
/* The radio of a device that resets stops. */
void world_air_device_reset(struct world *w, struct world_device *d);
/* The address of device i (static random, most significant byte first). */
void world_air_device_address(uint32_t index, uint8_t addr[HAL_BLE_ADDR_LEN]);
void world_air_free(struct world *w);

/* Device d changed position (a move input, its GNSS track, the scenario): every position change
 * goes through here, which keeps the index of scanners and the cache of path losses right. */
void world_air_moved(struct world *w, struct world_device *d);
/* The scanning devices that a sender (a source: device index, or device_count + beacon index) at
 * power dBm may be heard by, in index order and without the sender: all within
 * world_air_reach_m(power), maybe some beyond. *out stays valid until the next call. */
size_t world_air_in_reach(struct world *w, uint32_t source, int8_t power, const uint32_t **out);
/* The farthest a sender of power dBm can be heard with any noise the air draws, metres. */
double world_air_reach_m(int8_t power);
/* The largest noise the air can draw, dB (|a normal draw| * WORLD_AIR_SIGMA is at most this). */
double world_air_noise_max(void);
/* Standard normal draw number `draw` of a key (Box-Muller on two keyed uniform draws). */
double world_air_gaussian(const struct world *w, const world_air_key_t *k, uint32_t draw);

#endif /* WORLD_AIR_H */

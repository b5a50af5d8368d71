/*
 * world_air.h: the BLE air between the devices of a world, and the radio HAL of a simulated
 * device (hal_ble.h). docs/world.md ("The air") has the model.
 *
 * Every advertising set (a device's, or a scripted foreign beacon's) advertises on channels 37,
 * 38 and 39 in turn at each advertising event, every interval plus the 0..10 ms advDelay of the
 * Core Specification. A scanning device listens during its windows, one channel per scan
 * interval in turn, and hears an event when its window is open on a channel the event uses, with
 * an RSSI from a log-distance path-loss model and seeded Gaussian noise. Advertising events are
 * only materialised while someone listens (a scanner) or reads the trace: a world of advertisers
 * no one hears costs nothing per advertisement.
 */
#ifndef WORLD_AIR_H
#define WORLD_AIR_H

#include <stdbool.h>
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
	uint64_t sent;       /* advertising events materialised (trace, reception) */
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
/* An air event (WORLD_IN_AIR_ADV) from the world's input heap. */
void world_air_event(struct world *w, const struct world_event *e);
/* A captured packet reaches device d (selected). */
void world_air_capture(struct world *w, struct world_device *d, const struct world_event *e);
/* The radio of a device that resets stops. */
void world_air_device_reset(struct world *w, struct world_device *d);
/* The address of device i (static random, most significant byte first). */
void world_air_device_address(uint32_t index, uint8_t addr[HAL_BLE_ADDR_LEN]);
void world_air_free(struct world *w);

#endif /* WORLD_AIR_H */

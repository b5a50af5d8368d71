/*
 * world_energy.h: what each simulated device draws, part by part, and the battery that pays for
 * it (docs/world.md, "Energy"). The figures are the profile's (world_energy_figures.h, each with
 * its source in src/world/energy/<profile>.json).
 *
 * Each part has a steady current that changes when the device changes what it does (an
 * advertising set starts, the receiver switches on, an LED lights) and charges that come at once
 * (a turn of the CPU, a flash erase, bytes through the modem). The draw is counted lazily: up to
 * the world's time whenever something changes or is read, never per tick, so a device that
 * sleeps for a day costs one step. The battery holds what is left; its percent and voltage
 * follow (rt_battery's discharge curve), getAvgCurrent is the draw of the last minute, and an
 * empty battery switches the device off until external power comes back.
 */
#ifndef WORLD_ENERGY_H
#define WORLD_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_ble.h"
#include "rt_config.h"
#include "world_energy_figures.h"

struct world;
struct world_device;
struct world_event;

typedef enum {
	WORLD_PART_SLEEP,
	WORLD_PART_CPU,
	WORLD_PART_BLE_ADV,
	WORLD_PART_BLE_SCAN,
	WORLD_PART_MODEM,
	WORLD_PART_GNSS,
	WORLD_PART_LEDS,
	WORLD_PART_IMU,
	WORLD_PART_NFC,
	WORLD_PART_UWB,
	WORLD_PART_FLASH,
	WORLD_PART_COUNT
} world_part_t;

/* The part's name in records and reports ("bleAdv"). */
const char *world_energy_part_name(world_part_t part);

typedef struct {
	bool ready;            /* set up (at the device's first boot, after the scenario's settings) */
	const world_energy_figures_t *fig; /* NULL: the profile has no model */
	bool powered;          /* booted, battery not empty */
	bool empty;            /* the battery ran out: the device is off */
	bool fixed;            /* the scenario set a constant current: it stands for the model */
	uint64_t since;        /* world ms the draw is counted up to */
	double battery_mc;     /* charge left */
	double ma[WORLD_PART_COUNT];
	double mc[WORLD_PART_COUNT];
	/* Each advertising set's current and draw, and what it was last set to (for the report). */
	double adv_ma[CONFIG_BEACON_BLE_ADVERTISERS], adv_mc[CONFIG_BEACON_BLE_ADVERTISERS];
	uint32_t adv_interval[CONFIG_BEACON_BLE_ADVERTISERS];
	int8_t adv_power[CONFIG_BEACON_BLE_ADVERTISERS];
	uint32_t scan_window, scan_interval;
	/* Radio time on the air, as BabbleSim's phy dump counts it: TX of advertising packets and
	 * scan-request listening after them, and RX of scan windows: us per ms now, and totals. */
	double adv_tx_rate, adv_tx_ma_rate, adv_rx_rate, scan_rx_rate;
	double adv_tx_us, adv_tx_uc, adv_rx_us, scan_rx_us, scan_rx_uc, scan_tx_us;
	/* The modem: attached since boot (or airplane mode), RRC connected until rrc_until. */
	bool attached;
	uint64_t rrc_until;
	uint32_t syncs, queries;
	double tx_bytes, rx_bytes;
	/* Counts for the report. */
	uint64_t turns, flash_words, flash_pages, rangings;
	/* The last minute's draw, a bucket a second (getAvgCurrent). */
	double minute_mc[60];
	uint64_t minute_sec; /* the second of the newest bucket */
	uint64_t powered_at;
	uint64_t powered_ms; /* time powered since the world began: the summary's average is over it */
	/* A check of the battery is queued for this world time (empty or full), 0: none. */
	uint64_t check_at;
	/* --energy records: the start of the current period and its draw so far. */
	uint64_t record_at;
	double record_mc[WORLD_PART_COUNT];
} world_energy_t;

/* Set up device d's model from its profile and fill its battery to the scenario's percent (at
 * its first boot). */
void world_energy_init(struct world *w, struct world_device *d);
/* Plan the battery's next check (external power or charging changed). */
void world_energy_plan(struct world *w, struct world_device *d);
/* Count the draw up to the world's time (before reading the battery or changing a current). */
void world_energy_update(struct world *w, struct world_device *d);
/* A charge that comes at once, mC. */
void world_energy_charge(struct world *w, struct world_device *d, world_part_t part, double mc);

/* What changed; each recomputes its part's current from the device's state. */
void world_energy_power(struct world *w, struct world_device *d, bool on); /* boot, or off */
void world_energy_radio(struct world *w, struct world_device *d);  /* advertising sets, scan */
/* An active scanner's request to an advertiser (a device, or NULL for a scripted beacon) that
 * answers with a scan response of rsp_len bytes. */
void world_energy_scan_request(struct world *w, struct world_device *scanner, struct world_device *adv,
			       size_t rsp_len, int8_t adv_power);
void world_energy_leds(struct world *w, struct world_device *d);
void world_energy_gnss(struct world *w, struct world_device *d);
void world_energy_nfc_field(struct world *w, struct world_device *d, bool present);
void world_energy_turn(struct world *w, struct world_device *d);   /* the CPU ran a turn */
void world_energy_flash(struct world *w, struct world_device *d, size_t words, size_t pages);
void world_energy_ranging(struct world *w, struct world_device *d);
/* The modem moved data (a sync): attach if needed, RRC connected, the bytes' charge. */
void world_energy_modem_data(struct world *w, struct world_device *d, size_t tx, size_t rx);
/* A modem query that searches the network for ms (modem.getOperators: "takes much power"). */
void world_energy_modem_search(struct world *w, struct world_device *d, uint32_t ms);
/* Airplane mode: the modem detaches. */
void world_energy_modem_detach(struct world *w, struct world_device *d);

/* The scenario set the battery's percent, or a constant current (NAN: the model again). */
void world_energy_set_percent(struct world *w, struct world_device *d, double percent);
void world_energy_set_current(struct world *w, struct world_device *d, double ma);
/* What hal_power_read reports as the average current: the last minute's, mA. */
double world_energy_avg_ma(struct world *w, struct world_device *d);

/* The battery's check event (WORLD_IN_ENERGY): empty, or full while charging. */
void world_energy_event(struct world *w, struct world_device *d, const struct world_event *e);
/* Write device d's record of the period up to now (world_energy_report.c). */
void world_energy_record(struct world *w, struct world_device *d);
/* The run ends: the last period's record and each device's summary (--energy). */
void world_energy_finish(struct world *w);
/* Records of the draw a period, ms (0: none; also off when no one reads them). */
void world_energy_records(struct world *w, uint32_t period_ms);

#endif /* WORLD_ENERGY_H */

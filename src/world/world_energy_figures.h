/*
 * world_energy_figures.h: what each part of a profile draws (src/world/energy/<profile>.json, each
 * figure with its source; the build writes them into src/world/generated/world_energy_table.c).
 * Units are in the names: mA, us, uC, mC, s.
 */
#ifndef WORLD_ENERGY_FIGURES_H
#define WORLD_ENERGY_FIGURES_H

#include <stdint.h>

/* The TX powers radio_tx_ma has a figure for, dBm, ascending. */
#define WORLD_ENERGY_TX_POWERS 14
extern const int8_t world_energy_tx_dbm[WORLD_ENERGY_TX_POWERS];
/* The RSRP points of modem_tx_factor, dBm, descending (good signal first). */
#define WORLD_ENERGY_RSRP_POINTS 4
extern const int16_t world_energy_rsrp_dbm[WORLD_ENERGY_RSRP_POINTS];

typedef struct {
	const char *profile;
	double sleep_ma;
	double cpu_ma;
	double cpu_turn_us;
	double radio_tx_ma[WORLD_ENERGY_TX_POWERS];
	double radio_rx_ma;
	double radio_ramp_us;
	double radio_event_us;
	double radio_event_ma;
	/* LTE: NAN where the profile has no modem. */
	double modem_attach_mc;
	double modem_rrc_ma;
	double modem_rrc_inactivity_s;
	double modem_tx_mc_per_kb;
	double modem_rx_mc_per_kb;
	double modem_tx_factor[WORLD_ENERGY_RSRP_POINTS];
	double modem_psm_ma;
	double gnss_acquisition_ma;
	double gnss_tracking_ma;
	double led_channel_ma[3];
	double imu_ma;
	double nfc_field_ma;
	double uwb_ranging_uc;
	double flash_write_uc_per_word;
	double flash_erase_uc_per_page;
} world_energy_figures_t;

/* The figures of a profile, or NULL. */
const world_energy_figures_t *world_energy_figures(const char *profile);

#endif /* WORLD_ENERGY_FIGURES_H */

/*
 * hal_uwb on Zephyr: neither upstream Zephyr nor nRF Connect SDK has a UWB ranging API (Zephyr's
 * DW1000 driver, CONFIG_IEEE802154_DW1000, is an IEEE 802.15.4 link driver without two-way
 * ranging; the AI variant's DW3000-class radio comes with its vendor's own stack), so the
 * firmware cannot range: uwb.start's promise is rejected with ESR0003 and
 * hal_device_features() has no HAL_FEATURE_UWB. UWB ranging runs in the simulator.
 */
#include "hal_uwb.h"

bool hal_uwb_start(uint8_t role, uint8_t mode, uint16_t pan_id)
{
	(void)role;
	(void)mode;
	(void)pan_id;
	return false;
}

void hal_uwb_stop(void)
{
}

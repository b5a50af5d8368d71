/*
 * The device's app store (src/runtime/core/rt_app_store.h) on the devicetree's two app partitions,
 * app_slot0_partition and app_slot1_partition (the overlays in boards/), through the flash map. The
 * store runs packages where they lie, so each slot is also given as the CPU sees it: the flash's
 * base address plus the partition's offset on a chip with memory-mapped flash (nRF52840,
 * nRF9160), the simulated NVMC's memory on nrf52_bsim, the simulated flash's RAM under QEMU.
 */
#include "app_store_zephyr.h"

#include <stdio.h>
#include <string.h>

#include <zephyr/devicetree.h>
#include <zephyr/kernel.h>
#include <zephyr/storage/flash_map.h>

#include "hal_flash_zephyr.h"

#if DT_NODE_EXISTS(DT_NODELABEL(app_slot0_partition)) && DT_NODE_EXISTS(DT_NODELABEL(app_slot1_partition))
#define HAVE_APP_SLOTS 1
#endif

#if defined(HAVE_APP_SLOTS) && defined(CONFIG_FLASH_MAP) && defined(CONFIG_FLASH_PAGE_LAYOUT)

#if defined(CONFIG_FLASH_SIMULATOR)
#include <zephyr/drivers/flash/flash_simulator.h>
#elif defined(CONFIG_SOC_POSIX)
/* nrf52_bsim: the NVMC model keeps the flash in the host's memory (NHW_NVMC.h). */
void *nrfhw_nmvc_flash_get_base_address(unsigned int inst);
#endif

/* Where the CPU reads the partition's first byte. */
static const uint8_t *mapped(const struct flash_area *fa)
{
#if defined(CONFIG_FLASH_SIMULATOR)
	size_t size;
	const uint8_t *base = flash_simulator_get_memory(flash_area_get_device(fa), &size);

	return base != NULL && (size_t)fa->fa_off + fa->fa_size <= size ? base + fa->fa_off : NULL;
#elif defined(CONFIG_SOC_POSIX)
	/* The model gives the address of its pointer to the storage (NHW_NVMC.c), which it sets when
	 * the flash file or RAM is set up, before the CPU boots. */
	uint8_t *const *storage = nrfhw_nmvc_flash_get_base_address(0);
	const uint8_t *base = storage != NULL ? *storage : NULL;

	return base != NULL ? base + fa->fa_off : NULL;
#else
	/* The partitions' parent is the SoC's flash, mapped at its devicetree address. */
	return (const uint8_t *)(uintptr_t)(DT_REG_ADDR(DT_GPARENT(DT_NODELABEL(app_slot0_partition))) +
					    (uintptr_t)fa->fa_off);
#endif
}

static hal_flash_zephyr_t slots[2];
static rt_app_store_t store;
static bool mounted;

rt_app_store_t *port_zephyr_app_store(const hal_flash_t *(*wrap)(const hal_flash_t *flash),
				      char *msg, size_t msg_cap)
{
	if (mounted) {
		if (msg_cap > 0) {
			msg[0] = '\0';
		}
		return &store;
	}
	const uint8_t ids[2] = {FIXED_PARTITION_ID(app_slot0_partition),
				FIXED_PARTITION_ID(app_slot1_partition)};
	rt_app_store_config_t config;

	memset(&config, 0, sizeof(config));
	for (int i = 0; i < 2; i++) {
		if (hal_flash_zephyr_open(&slots[i], ids[i]) != HAL_FLASH_OK) {
			snprintf(msg, msg_cap, "app slot %d: the flash partition cannot be used", i);
			return NULL;
		}
		config.slot[i].flash = wrap != NULL ? wrap(&slots[i].flash) : &slots[i].flash;
		config.slot[i].mapped = mapped(slots[i].area);
		if (config.slot[i].mapped == NULL) {
			snprintf(msg, msg_cap, "app slot %d: the flash is not mapped", i);
			return NULL;
		}
	}
	rt_app_store_err_t err = rt_app_store_mount(&store, &config, msg, msg_cap);

	if (err != RT_APP_STORE_OK && err != RT_APP_STORE_ENOAPP) {
		if (msg_cap > 0 && msg[0] == '\0') {
			snprintf(msg, msg_cap, "the app store cannot be mounted: %s",
				 rt_app_store_strerror(err));
		}
		return NULL;
	}
	mounted = true;
	return &store;
}

#else /* no app partitions */

rt_app_store_t *port_zephyr_app_store(const hal_flash_t *(*wrap)(const hal_flash_t *flash),
				      char *msg, size_t msg_cap)
{
	ARG_UNUSED(wrap);
	snprintf(msg, msg_cap, "this board has no app partitions (app_slot0_partition, "
			       "app_slot1_partition): only the app built into the image runs");
	return NULL;
}

#endif

/*
 * rt_store.c: mounts the device's storage partition on first use (see rt_store.h).
 */
#include "rt_store.h"

#include "hal_console.h"
#include "hal_flash.h"
#include "rt_device.h"

rt_records_t *rt_store_open(rt_records_err_t *err)
{
	rt_store_state_t *st = &rt_device()->store;
	if (st->records.mounted) {
		return &st->records;
	}
	const hal_flash_t *area = hal_storage_area();
	if (area == NULL) {
		*err = RT_RECORDS_EFLASH;
		return NULL;
	}
	rt_records_config_t config = {
		.flash = area,
		.pages_per_sector = RT_STORE_PAGES_PER_SECTOR,
		.index = st->index,
		.index_capacity = CONFIG_BEACON_STORE_RECORDS,
	};
	rt_records_err_t rc = rt_records_mount(&st->records, &config);
	if (rc != RT_RECORDS_OK) {
		hal_log(HAL_LOG_ERROR, "storage: cannot mount the record store: %s", rt_records_strerror(rc));
		*err = rc;
		return NULL;
	}
	if (st->records.damaged != 0 || st->records.corrupt != 0) {
		/* An interrupted write or a worn cell: the records concerned are left out, the rest
		 * stand. Worth a line in the log, not an error for the app. */
		hal_log(HAL_LOG_WARN, "storage: %u damaged entries and %u damaged records left out",
			(unsigned)st->records.damaged, (unsigned)st->records.corrupt);
	}
	return &st->records;
}

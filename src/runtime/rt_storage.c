/*
 * storage: records in flash, keyed by number.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_storage_save(const rt_storage_save_args_t *args)
{
	return rt_not_implemented("storage.save");
}

eng_value_t rt_storage_read(const rt_storage_read_args_t *args)
{
	return rt_not_implemented("storage.read");
}

eng_value_t rt_storage_remove(const rt_storage_remove_args_t *args)
{
	return rt_not_implemented("storage.remove");
}

eng_value_t rt_storage_readAll(const rt_storage_readAll_args_t *args)
{
	return rt_not_implemented("storage.readAll");
}

eng_value_t rt_storage_clear(void)
{
	return rt_not_implemented("storage.clear");
}

eng_value_t rt_storage_getStats(void)
{
	return rt_not_implemented("storage.getStats");
}

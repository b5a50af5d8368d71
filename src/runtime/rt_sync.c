/*
 * sync: the synchronisation cycle with the cloud.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_sync_setHandler(const rt_sync_setHandler_args_t *args)
{
	return rt_not_implemented("sync.setHandler");
}

eng_value_t rt_sync_setEndHandler(const rt_sync_setEndHandler_args_t *args)
{
	return rt_not_implemented("sync.setEndHandler");
}

eng_value_t rt_sync_now(void)
{
	return rt_not_implemented("sync.now");
}

eng_value_t rt_sync_setSyncPeriod(const rt_sync_setSyncPeriod_args_t *args)
{
	return rt_not_implemented("sync.setSyncPeriod");
}

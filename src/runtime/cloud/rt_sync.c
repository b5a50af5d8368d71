/*
 * sync: the synchronisation cycle with the cloud. The cycle itself (schedule, start handler,
 * exchange, end handler, retries) is in rt_cloud.c over rt_sync_cycle.h; these are its API.
 *
 * The generated glue has checked and converted every argument before these run.
 */
#include "api_types.h"
#include "rt_cloud.h"
#include "rt_sync_cycle.h"
#include "rt_callback.h"

eng_value_t rt_sync_setHandler(const rt_sync_setHandler_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	rt_callback_keep(&s->start_handler, args->callback);
	rt_cloud_reschedule();
	return eng_undefined();
}

eng_value_t rt_sync_setEndHandler(const rt_sync_setEndHandler_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	rt_callback_keep(&s->end_handler, args->callback);
	rt_cloud_reschedule();
	return eng_undefined();
}

eng_value_t rt_sync_now(void)
{
	/* true: a sync starts; false: one runs already, and this call changes nothing. */
	return eng_boolean(rt_cloud_request_sync());
}

eng_value_t rt_sync_setSyncPeriod(const rt_sync_setSyncPeriod_args_t *args)
{
	rt_cloud_state_t *s = rt_cloud_state();
	rt_sync_cycle_set_period(&s->cycle, (uint32_t)args->syncPeriod);
	rt_cloud_reschedule();
	return eng_undefined();
}

/*
 * cloud: the event queue, cloud variables and messages from the cloud.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_cloud_enqueue(const rt_cloud_enqueue_args_t *args)
{
	return rt_not_implemented("cloud.enqueue");
}

eng_value_t rt_cloud_setVar(const rt_cloud_setVar_args_t *args)
{
	return rt_not_implemented("cloud.setVar");
}

eng_value_t rt_cloud_onReceive(const rt_cloud_onReceive_args_t *args)
{
	return rt_not_implemented("cloud.onReceive");
}

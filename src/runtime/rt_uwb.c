/*
 * uwb: ultra-wideband ranging of 0.1.5.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_uwb_start(const rt_uwb_start_args_t *args)
{
	return rt_not_implemented("uwb.start");
}

eng_value_t rt_uwb_stop(const rt_uwb_stop_args_t *args)
{
	return rt_not_implemented("uwb.stop");
}

/*
 * modem (lte in 0.0.9): network queries and airplane mode.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_modem_getOperators(void)
{
	return rt_not_implemented("modem.getOperators");
}

eng_value_t rt_modem_getStatus(void)
{
	return rt_not_implemented("modem.getStatus");
}

eng_value_t rt_modem_getCells(void)
{
	return rt_not_implemented("modem.getCells");
}

eng_value_t rt_modem_getInfo(void)
{
	return rt_not_implemented("modem.getInfo");
}

eng_value_t rt_modem_setAirplaneMode(const rt_modem_setAirplaneMode_args_t *args)
{
	return rt_not_implemented("modem.setAirplaneMode");
}

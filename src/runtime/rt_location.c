/*
 * location: GNSS position updates, mocking and distances.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_location_distance(const rt_location_distance_args_t *args)
{
	return rt_not_implemented("location.distance");
}

eng_value_t rt_location_startUpdates(const rt_location_startUpdates_args_t *args)
{
	return rt_not_implemented("location.startUpdates");
}

eng_value_t rt_location_mock(const rt_location_mock_args_t *args)
{
	return rt_not_implemented("location.mock");
}

eng_value_t rt_location_stop(const rt_location_stop_args_t *args)
{
	return rt_not_implemented("location.stop");
}

/*
 * preview(): data for the visualisation console.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_preview(const rt_preview_args_t *args)
{
	return rt_not_implemented("preview");
}

/*
 * io: the ring LEDs and the buttons.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_io_led(const rt_io_led_args_t *args)
{
	return rt_not_implemented("io.led");
}

eng_value_t rt_io_setLedColor(const rt_io_setLedColor_args_t *args)
{
	return rt_not_implemented("io.setLedColor");
}

eng_value_t rt_io_setLedBrightness(const rt_io_setLedBrightness_args_t *args)
{
	return rt_not_implemented("io.setLedBrightness");
}

eng_value_t rt_io_getMaxLeds(void)
{
	return rt_not_implemented("io.getMaxLeds");
}

eng_value_t rt_io_press(const rt_io_press_args_t *args)
{
	return rt_not_implemented("io.press");
}

eng_value_t rt_io_onRawPress(const rt_io_onRawPress_args_t *args)
{
	return rt_not_implemented("io.onRawPress");
}

/*
 * eng_jerry_dtoa.c: the digits JerryScript 3.0 writes for a number (ToString, String(x), x + '',
 * JSON), made the shortest that read back, as ECMA-262 and Duktape have them.
 *
 * JerryScript's Errol0 conversion is "guaranteed correct but possibly not optimal" (its own
 * comment): it can give 17 digits where 16 read back (1111992791193304100 for
 * 1111992791193304000) or not the closest of two (-1.1102230246251566e-16 for 2^-53). The
 * generated programs of the engine differential test found both. Its function
 * (ecma_errol0_dtoa in jerry-core/ecma/base/ecma-helpers-errol.c, called from another file of
 * the engine) is replaced at link time (-Wl,--wrap, jerryscript.cmake) by eng_format_shortest,
 * so the engine's sources stay as they are.
 */
#include <stdint.h>

#include "eng_number_format.h"

/* val > 0 and finite (the caller writes zero, NaN, the infinities and the sign itself). The
 * digits go to buffer_p without a NUL; *exp_p is where the point goes (val = 0.digits * 10^exp). */
uint32_t __wrap_ecma_errol0_dtoa(double val, uint8_t *buffer_p, int32_t *exp_p);

uint32_t __wrap_ecma_errol0_dtoa(double val, uint8_t *buffer_p, int32_t *exp_p)
{
	int point;
	int k = eng_format_shortest(val, (char *)buffer_p, &point);

	*exp_p = (int32_t)point;
	return (uint32_t)k;
}

/*
 * eng_jerry_remainder.c: the % operator of JerryScript 3.0, made exact.
 *
 * JerryScript computes n % d as n - d * trunc(n / d), which is not the exact remainder the
 * specification asks for (ECMA-262 6.1.6.1.6, C's fmod) once n / d is rounded: 98 % -(1/3) gives
 * 0 instead of 5.440092820663267e-15, and large quotients lose digits. The engine's own function
 * (ecma_number_remainder, in jerry-core/ecma/base/ecma-helpers-number.c; called by the VM for %
 * and by ToUint32/ToInt32) is replaced at link time (-Wl,--wrap, jerryscript.cmake) by this one,
 * so the engine's sources stay as they are. Duktape's % is fmod already; the engine differential
 * test (tests/parity/numbers.js) holds both to it.
 */
#include <math.h>

/* Called with finite, non-zero operands (JerryScript handles NaN, infinities and zeros first).
 * fmod is exact and keeps the dividend's sign, a zero result included, as % does. */
double __wrap_ecma_number_remainder(double left, double right);

double __wrap_ecma_number_remainder(double left, double right)
{
	return fmod(left, right);
}

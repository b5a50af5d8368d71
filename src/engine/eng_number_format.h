/*
 * eng_number_format.h: Number.prototype.toFixed, toExponential, toPrecision and toString(radix)
 * as both engines run them.
 *
 * Why the engine layer has its own: the engines disagree, and JerryScript 3.0 is wrong.
 * JerryScript rounds the shortest decimal form instead of the exact binary value
 * ((1.005).toFixed(2) is "1.01"; the value is 1.00499999999999989...) and stops at 17 digits
 * ((123456789012345680000).toFixed(2), (5e-324).toPrecision(4)); Duktape gets some exponents
 * wrong ((1e-7).toPrecision(21) is "0.99999999999999995475e-7") and allows 20 digits where
 * ES2018 allows 100. Both backends install these instead (eng_parity.h), so a package prints the
 * same digits on either engine, as the specification says (ECMA-262 2023, 21.1.3): the
 * exact value of the double, rounded half up.
 *
 * toString(radix) for radix != 10 follows V8's algorithm (the specification leaves the digits of
 * fractions to the implementation): the digits up to the double's precision, rounded to even, so
 * the result reads back as the same number and matches what node prints.
 *
 * Pure C: no engine calls. Each function writes a NUL-terminated string and returns its length.
 */
#ifndef ENG_NUMBER_FORMAT_H
#define ENG_NUMBER_FORMAT_H

#include <stddef.h>

/* Big enough for every result: toFixed(100) of a number below 1e21, toPrecision(100), and
 * toString(2) of -Number.MAX_VALUE (1024 digits) or of 5e-324 (1075 digits after the point). */
#define ENG_NUMBER_FORMAT_MAX 1100u

/* x finite with |x| < 1e21, digits 0..100 (the caller handles the rest: RangeError, ToString). */
size_t eng_format_fixed(double x, int digits, char *buf);
/* x finite; digits 0..100, or -1 for "as many as needed", in which case shortest holds x's
 * shortest round-trip digits as ToString(x) writes them ("1.5e-7", "120", "0.001"; the
 * engine's own ToString, which both engines get right). */
size_t eng_format_exponential(double x, int digits, const char *shortest, char *buf);
/* x finite; precision 1..100. */
size_t eng_format_precision(double x, int precision, char *buf);
/* ToString's digits of x > 0 (finite): the fewest that read back as x, the closest to x when
 * several do (ECMA-262 Number::toString and its note), an exact tie rounded up as Duktape does. k digits into
 * out (at most 17, no NUL), *point: the value is 0.out * 10^point. Returns k. */
int eng_format_shortest(double x, char *out, int *point);
/* x finite; radix 2..36 but not 10. */
size_t eng_format_radix(double x, int radix, char *buf);

#endif /* ENG_NUMBER_FORMAT_H */

#include "eng_number_format.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ exact decimal digits */

/*
 * A double is m * 2^e with m < 2^53, so its decimal expansion is finite: at most 309 digits
 * before the point and 1074 after it. The digits are made with a small fixed-size big integer
 * (1,280 bits: the integer part of DBL_MAX needs 1,024, the fraction of the smallest subnormal
 * 1,074 plus 4 for a multiplication by ten).
 */
#define BIG_WORDS 40

typedef struct {
	uint32_t w[BIG_WORDS];
	int n; /* words in use; w[n..] are zero */
} big_t;

static void big_set_u64(big_t *b, uint64_t v)
{
	memset(b, 0, sizeof(*b));
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
	b->n = b->w[1] ? 2 : b->w[0] ? 1 : 0;
}

static void big_shift_left(big_t *b, int bits)
{
	int words = bits / 32, rest = bits % 32;
	uint32_t out[BIG_WORDS] = {0};

	for (int i = 0; i < b->n; i++) {
		uint64_t v = (uint64_t)b->w[i] << rest;
		if (i + words < BIG_WORDS) {
			out[i + words] |= (uint32_t)v;
		}
		if (i + words + 1 < BIG_WORDS) {
			out[i + words + 1] |= (uint32_t)(v >> 32);
		}
	}
	memcpy(b->w, out, sizeof(out));
	b->n = BIG_WORDS;
	while (b->n > 0 && b->w[b->n - 1] == 0) {
		b->n--;
	}
}

static void big_mul_small(big_t *b, uint32_t m)
{
	uint64_t carry = 0;

	for (int i = 0; i < b->n; i++) {
		uint64_t v = (uint64_t)b->w[i] * m + carry;
		b->w[i] = (uint32_t)v;
		carry = v >> 32;
	}
	if (carry && b->n < BIG_WORDS) {
		b->w[b->n++] = (uint32_t)carry;
	}
}

static uint32_t big_div_small(big_t *b, uint32_t d)
{
	uint64_t rem = 0;

	for (int i = b->n - 1; i >= 0; i--) {
		uint64_t v = rem << 32 | b->w[i];
		b->w[i] = (uint32_t)(v / d);
		rem = v % d;
	}
	while (b->n > 0 && b->w[b->n - 1] == 0) {
		b->n--;
	}
	return (uint32_t)rem;
}

/* The bits of b at and above bit `at`, which are few (a decimal digit); clears them. */
static uint32_t big_take_above(big_t *b, int at)
{
	int word = at / 32, bit = at % 32;
	uint32_t v = 0;

	if (word < b->n) {
		v = b->w[word] >> bit;
		b->w[word] &= bit ? (1u << bit) - 1u : 0u;
	}
	if (bit && word + 1 < b->n) {
		v |= b->w[word + 1] << (32 - bit);
		b->w[word + 1] = 0;
	}
	while (b->n > 0 && b->w[b->n - 1] == 0) {
		b->n--;
	}
	return v;
}

/*
 * The digits of x > 0 (finite) from its first significant digit: `want` of them plus one more
 * (for rounding), fewer when the expansion ends first (the rest are zeros). *point is where the
 * decimal point goes: the value is 0.d1d2d3... * 10^point. Returns how many digits were made.
 */
#define DIGITS_MAX 440

static int exact_digits_more(double x, int want, char *digits, int *point, bool *more);

static int exact_digits(double x, int want, char *digits, int *point)
{
	bool more;
	return exact_digits_more(x, want, digits, point, &more);
}

/* As exact_digits, and *more says whether a non-zero digit follows those returned. */
static int exact_digits_more(double x, int want, char *digits, int *point, bool *more)
{
	int e2;
	double frac = frexp(x, &e2); /* x = frac * 2^e2, 0.5 <= frac < 1 */
	uint64_t m = (uint64_t)ldexp(frac, 53);
	int e = e2 - 53; /* x = m * 2^e */
	big_t ip, fp;
	int fbits = 0; /* fp holds the fraction as fp / 2^fbits */
	int count = 0;

	if (want + 1 > DIGITS_MAX) {
		want = DIGITS_MAX - 1;
	}
	if (e >= 0) {
		big_set_u64(&ip, m);
		big_shift_left(&ip, e);
		big_set_u64(&fp, 0);
	} else if (e > -64) {
		big_set_u64(&ip, m >> -e);
		big_set_u64(&fp, m & ((1ull << -e) - 1u));
		fbits = -e;
	} else {
		big_set_u64(&ip, 0);
		big_set_u64(&fp, m);
		fbits = -e;
	}

	/* The integer part, least significant digits first, then reversed. */
	char tmp[320];
	int int_digits = 0;
	while (ip.n > 0) {
		uint32_t chunk = big_div_small(&ip, 1000000000u);
		for (int i = 0; i < 9; i++) {
			tmp[int_digits++] = (char)('0' + chunk % 10u);
			chunk /= 10u;
		}
	}
	while (int_digits > 0 && tmp[int_digits - 1] == '0') {
		int_digits--;
	}
	*point = int_digits;
	int i = int_digits - 1;
	for (; i >= 0 && count <= want; i--) {
		digits[count++] = tmp[i];
	}
	*more = false;
	for (; i >= 0; i--) {
		*more = *more || tmp[i] != '0';
	}
	/* The fraction, most significant first; leading zeros move the point when there is no
	 * integer part. */
	while (count <= want && fp.n > 0) {
		big_mul_small(&fp, 10u);
		uint32_t d = big_take_above(&fp, fbits);
		if (count == 0 && d == 0) {
			(*point)--;
			continue;
		}
		digits[count++] = (char)('0' + d);
	}
	*more = *more || fp.n > 0;
	return count;
}

/*
 * The first n significant digits of x > 0, rounded half up at the n-th (the specification's "if
 * there are two such n, pick the larger"), into out (n chars, no NUL). Returns the exponent:
 * the value is 0.out * 10^point. n may be 0 (only the rounding digit decides, for toFixed).
 */
static int rounded_digits(double x, int n, char *out, int *point)
{
	char digits[DIGITS_MAX];
	int have = exact_digits(x, n, digits, point);

	for (int i = 0; i < n; i++) {
		out[i] = i < have ? digits[i] : '0';
	}
	if (n < have && digits[n] >= '5') {
		int i = n - 1;
		while (i >= 0 && out[i] == '9') {
			out[i--] = '0';
		}
		if (i >= 0) {
			out[i]++;
		} else {
			/* 99.9 -> 100: one more digit in front, the last one falls off. */
			if (n > 0) {
				memmove(out + 1, out, (size_t)n - 1u);
				out[0] = '1';
			}
			(*point)++;
			return 1; /* for n == 0: the rounding made a 1 at 10^point */
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ shortest digits */

/* Whether 0.digits[0..n) * 10^point reads back (strtod, correctly rounded) as x. */
static bool reads_back(const char *digits, int n, int point, double x)
{
	char text[40];
	int len = 0;

	text[len++] = '0';
	text[len++] = '.';
	memcpy(text + len, digits, (size_t)n);
	len += n;
	len += snprintf(text + len, sizeof(text) - (size_t)len, "e%d", point);
	return strtod(text, NULL) == x;
}

/* The two candidates of p digits around x: its digits cut there (down) and one more in the last
 * place (up); *up_point is up's point (one more when 99.9 became 100). */
static void candidates(const char *d, int have, int p, int pt, char *down, char *up, int *up_point)
{
	for (int i = 0; i < p; i++) {
		down[i] = up[i] = i < have ? d[i] : '0';
	}
	*up_point = pt;
	int i = p - 1;
	while (i >= 0 && up[i] == '9') {
		up[i--] = '0';
	}
	if (i >= 0) {
		up[i]++;
	} else {
		memmove(up + 1, up, (size_t)p - 1u);
		up[0] = '1';
		(*up_point)++;
	}
}

int eng_format_shortest(double x, char *out, int *point)
{
	char d[DIGITS_MAX];
	char down[20], up[20];
	bool more;
	int pt, up_point;
	int have = exact_digits_more(x, 17, d, &pt, &more);

	/* Exactly representable in at most 15 digits: those digits, without trailing zeros (no
	 * shorter decimal is within half an ulp of it; with 16 or 17 one may be). */
	if (have <= 15 && !more) {
		int k = have;
		while (k > 1 && d[k - 1] == '0') {
			k--;
		}
		memcpy(out, d, (size_t)k);
		*point = pt;
		return k;
	}
	/* The closest candidate of p digits reads back for every p from some length on (a longer
	 * one is nearer x): find that length by bisection, a few strtod calls instead of one per
	 * length. An exact tie goes up, as Duktape rounds (its conversion is the amalgamation's own,
	 * which nothing can replace); ECMA-262's note and V8 take the even one (898997786922725.25:
	 * both engines here write .3, node .2). */
	int lo = 1, hi = 17;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		candidates(d, have, mid, pt, down, up, &up_point);
		bool take_up = mid < have && d[mid] >= '5';
		if (take_up ? reads_back(up, mid, up_point, x) : reads_back(down, mid, pt, x)) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	int p = lo;
	/* One shorter, the farther candidate may still read back where x's interval is lopsided
	 * (at a power of two); then it is the shortest. */
	if (p > 1) {
		candidates(d, have, p - 1, pt, down, up, &up_point);
		bool closer_up = p - 1 < have && d[p - 1] >= '5';
		if (closer_up ? reads_back(down, p - 1, pt, x) : reads_back(up, p - 1, up_point, x)) {
			const char *c = closer_up ? down : up;
			int k = p - 1;
			while (k > 1 && c[k - 1] == '0') {
				k--;
			}
			memcpy(out, c, (size_t)k);
			*point = closer_up ? pt : up_point;
			return k;
		}
	}
	candidates(d, have, p, pt, down, up, &up_point);
	bool take_up = p < have && d[p] >= '5';
	const char *chosen = take_up ? up : down;
	int k = p;
	while (k > 1 && chosen[k - 1] == '0') {
		k--;
	}
	memcpy(out, chosen, (size_t)k);
	*point = take_up ? up_point : pt;
	return k;
}

/* ------------------------------------------------------------------ helpers */

static size_t put_exponent(char *p, int e)
{
	size_t len = 0;
	char tmp[8];
	int t = 0;
	unsigned u = (unsigned)(e < 0 ? -e : e);

	p[len++] = 'e';
	p[len++] = e < 0 ? '-' : '+';
	do {
		tmp[t++] = (char)('0' + u % 10u);
		u /= 10u;
	} while (u);
	while (t) {
		p[len++] = tmp[--t];
	}
	return len;
}

/* ------------------------------------------------------------------ toFixed */

size_t eng_format_fixed(double x, int f, char *buf)
{
	size_t len = 0;
	char digits[DIGITS_MAX];
	int point = 0;

	if (x < 0) {
		buf[len++] = '-';
		x = -x;
	}
	/* n = round(x * 10^f): its digits are the value's down to the 10^-f place. */
	int n_digits = 0;
	if (x > 0) {
		exact_digits(x, 0, digits, &point); /* only to learn where the point is */
		n_digits = point + f;
		if (n_digits < 0) {
			n_digits = 0; /* not even the rounding digit reaches 10^-f: n = 0 */
		} else if (rounded_digits(x, n_digits, digits, &point)) {
			/* Rounding carried out of the first digit: 9.96 -> 10.0, or 0.6 -> 1. */
			digits[n_digits] = '0';
			digits[0] = '1';
			n_digits++;
		}
	}
	if (n_digits <= 0) {
		digits[0] = '0';
		n_digits = 1;
	}
	/* m = digits of n, with zeros in front so there is a digit before the point. */
	int k = n_digits;
	int pad = k <= f ? f + 1 - k : 0;
	int int_len = k + pad - f;
	int written = 0;
	for (int i = 0; i < int_len; i++) {
		buf[len++] = i < pad ? '0' : digits[written++];
	}
	if (f > 0) {
		buf[len++] = '.';
		for (int i = int_len; i < k + pad; i++) {
			buf[len++] = i < pad ? '0' : digits[written++];
		}
	}
	buf[len] = '\0';
	return len;
}

/* ------------------------------------------------------------------ toExponential */

/* The significant digits of a ToString result ("-1.25e-7", "1200", "0.00123") without leading
 * or trailing zeros, and the exponent e of the value d.ddd * 10^e. */
static int shortest_digits(const char *s, char *digits, int *exp10)
{
	int count = 0, before = -1, e = 0, i = 0;

	if (s[i] == '-') {
		i++;
	}
	for (; (s[i] >= '0' && s[i] <= '9') || s[i] == '.'; i++) {
		if (s[i] == '.') {
			before = count;
		} else if (count < DIGITS_MAX - 1) {
			digits[count++] = s[i];
		}
	}
	if (before < 0) {
		before = count;
	}
	if (s[i] == 'e' || s[i] == 'E') {
		int sign = 1;
		i++;
		if (s[i] == '+' || s[i] == '-') {
			sign = s[i++] == '-' ? -1 : 1;
		}
		for (; s[i] >= '0' && s[i] <= '9'; i++) {
			e = e * 10 + (s[i] - '0');
		}
		e *= sign;
	}
	/* value = 0.digits * 10^(before + e) */
	int lead = 0;
	while (lead < count - 1 && digits[lead] == '0') {
		lead++;
	}
	memmove(digits, digits + lead, (size_t)(count - lead));
	count -= lead;
	before -= lead;
	while (count > 1 && digits[count - 1] == '0') {
		count--;
	}
	*exp10 = before + e - 1;
	return count;
}

size_t eng_format_exponential(double x, int f, const char *shortest, char *buf)
{
	size_t len = 0;
	char digits[DIGITS_MAX];
	int count, e;

	if (x < 0) {
		buf[len++] = '-';
		x = -x;
	}
	if (x == 0) {
		count = (f < 0 ? 0 : f) + 1;
		memset(digits, '0', (size_t)count);
		e = 0;
	} else if (f < 0) {
		count = shortest_digits(shortest, digits, &e);
	} else {
		int point;
		count = f + 1;
		rounded_digits(x, count, digits, &point);
		e = point - 1;
	}
	buf[len++] = digits[0];
	if (count > 1) {
		buf[len++] = '.';
		memcpy(buf + len, digits + 1, (size_t)count - 1u);
		len += (size_t)count - 1u;
	}
	len += put_exponent(buf + len, e);
	buf[len] = '\0';
	return len;
}

/* ------------------------------------------------------------------ toPrecision */

size_t eng_format_precision(double x, int p, char *buf)
{
	size_t len = 0;
	char digits[DIGITS_MAX];
	int e;

	if (x < 0) {
		buf[len++] = '-';
		x = -x;
	}
	if (x == 0) {
		memset(digits, '0', (size_t)p);
		e = 0;
	} else {
		int point;
		rounded_digits(x, p, digits, &point);
		e = point - 1;
	}
	if (x != 0 && (e < -6 || e >= p)) {
		buf[len++] = digits[0];
		if (p > 1) {
			buf[len++] = '.';
			memcpy(buf + len, digits + 1, (size_t)p - 1u);
			len += (size_t)p - 1u;
		}
		len += put_exponent(buf + len, e);
	} else if (e >= 0) {
		memcpy(buf + len, digits, (size_t)e + 1u);
		len += (size_t)e + 1u;
		if (e + 1 < p) {
			buf[len++] = '.';
			memcpy(buf + len, digits + e + 1, (size_t)(p - e - 1));
			len += (size_t)(p - e - 1);
		}
	} else {
		buf[len++] = '0';
		buf[len++] = '.';
		for (int i = 0; i < -(e + 1); i++) {
			buf[len++] = '0';
		}
		memcpy(buf + len, digits, (size_t)p);
		len += (size_t)p;
	}
	buf[len] = '\0';
	return len;
}

/* ------------------------------------------------------------------ toString(radix) */

/* The next double above x > 0. */
static double next_up(double x)
{
	return nextafter(x, INFINITY);
}

size_t eng_format_radix(double value, int radix, char *buf)
{
	static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	/* The integer part is written leftwards from the middle, the fraction rightwards. */
	char tmp[2 * ENG_NUMBER_FORMAT_MAX + 8];
	int mid = (int)ENG_NUMBER_FORMAT_MAX + 4;
	int ic = mid, fc = mid;
	bool negative = value < 0;

	if (negative) {
		value = -value;
	}
	double integer = floor(value);
	double fraction = value - integer;
	/* Fraction digits only as far as the double's own precision reaches. */
	double delta = 0.5 * (next_up(value) - value);
	if (delta < next_up(0.0)) {
		delta = next_up(0.0);
	}
	if (fraction >= delta) {
		tmp[fc++] = '.';
		do {
			fraction *= radix;
			delta *= radix;
			int digit = (int)fraction;
			tmp[fc++] = chars[digit];
			fraction -= digit;
			/* Round to even at the last digit. */
			if (fraction > 0.5 || (fraction == 0.5 && (digit & 1))) {
				if (fraction + delta > 1) {
					/* Carry into the digits already written. */
					for (;;) {
						fc--;
						if (fc == mid) {
							integer += 1;
							break;
						}
						char c = tmp[fc];
						int d = c > '9' ? c - 'a' + 10 : c - '0';
						if (d + 1 < radix) {
							tmp[fc++] = chars[d + 1];
							break;
						}
					}
					break;
				}
			}
		} while (fraction >= delta);
	}
	/* Integer digits below the double's precision are zeros. */
	int exponent;
	while (frexp(integer / radix, &exponent), exponent > 53) {
		integer /= radix;
		tmp[--ic] = '0';
	}
	do {
		double remainder = fmod(integer, radix);
		tmp[--ic] = chars[(int)remainder];
		integer = (integer - remainder) / radix;
	} while (integer > 0);
	if (negative) {
		tmp[--ic] = '-';
	}
	size_t len = (size_t)(fc - ic);
	memcpy(buf, tmp + ic, len);
	buf[len] = '\0';
	return len;
}

/* Interval strings, as toMs/toSec and every interval argument read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "rt_interval.h"

static double ms_of(const char *text, double unit_ms, bool *ok)
{
	double out = -1;
	*ok = rt_interval_parse(text, strlen(text), unit_ms, &out);
	return out;
}

static void test_units(void **state)
{
	static const struct {
		const char *text;
		double ms;
	} cases[] = {
		{"200ms", 200},       {"30s", 30000},        {"1h", 3600000},
		{"12h", 43200000},    {"10 secs", 10000},    {"1 sec", 1000},
		{"2m", 120000},       {"2 min", 120000},     {"5 mins", 300000},
		{"1 hour", 3600000},  {"3 hours", 10800000}, {"1d", 86400000},
		{"1 day", 86400000},  {"2 days", 172800000}, {"1w", 604800000},
		{"1 week", 604800000}, {"2 weeks", 1209600000}, {"1.5s", 1500},
		{"0ms", 0},           {" 30s ", 30000},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool ok;
		double ms = ms_of(cases[i].text, 1.0, &ok);
		if (!ok || ms != cases[i].ms) {
			fail_msg("'%s' gave %s %f, expected %f", cases[i].text, ok ? "" : "error", ms,
				 cases[i].ms);
		}
	}
}

static void test_bare_number_takes_the_argument_unit(void **state)
{
	bool ok;
	assert_true(ms_of("500", 1.0, &ok) == 500.0 && ok);
	assert_true(ms_of("30", 1000.0, &ok) == 30000.0 && ok);
}

static void test_rejects(void **state)
{
	static const char *const bad[] = {"", "s", "ms", "-5s", "5 x", "5  s", "5sec s", "1e3ms",
					  "5 S", "five s", "5.", ".5s", "5 s s", "0x10"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok;
		double ms = ms_of(bad[i], 1.0, &ok);
		if (ok) {
			fail_msg("'%s' was accepted as %f ms", bad[i], ms);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_bare_number_takes_the_argument_unit),
		cmocka_unit_test(test_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#include "rt_interval.h"

#include <string.h>

typedef struct {
	const char *name;
	double ms;
} rt_unit_t;

static const rt_unit_t units[] = {
	{"ms", 1.0},
	{"s", 1000.0},         {"sec", 1000.0},        {"secs", 1000.0},
	{"m", 60000.0},        {"min", 60000.0},       {"mins", 60000.0},
	{"h", 3600000.0},      {"hour", 3600000.0},    {"hours", 3600000.0},
	{"d", 86400000.0},     {"day", 86400000.0},    {"days", 86400000.0},
	{"w", 604800000.0},    {"week", 604800000.0},  {"weeks", 604800000.0},
};

bool rt_interval_parse(const char *text, size_t len, double unit_ms, double *out_ms)
{
	size_t i = 0;
	/* Surrounding blanks are forgiven; they are easy to type and carry no meaning. */
	while (i < len && text[i] == ' ') {
		i++;
	}
	while (len > i && text[len - 1] == ' ') {
		len--;
	}
	double value = 0.0;
	size_t digits = 0;
	while (i < len && text[i] >= '0' && text[i] <= '9') {
		value = value * 10.0 + (text[i] - '0');
		i++;
		digits++;
	}
	if (digits == 0) {
		return false;
	}
	if (i < len && text[i] == '.') {
		double scale = 0.1;
		size_t fraction = 0;
		i++;
		while (i < len && text[i] >= '0' && text[i] <= '9') {
			value += (text[i] - '0') * scale;
			scale /= 10.0;
			i++;
			fraction++;
		}
		if (fraction == 0) {
			return false; /* "5." is a typo more often than a number */
		}
	}
	if (i < len && text[i] == ' ') {
		i++;
	}
	size_t unit_len = len - i;
	if (unit_len == 0) {
		if (i > 0 && text[i - 1] == ' ') {
			return false; /* "5 " with a dangling space was trimmed above; "5 x" is not */
		}
		*out_ms = value * unit_ms;
		return true;
	}
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strlen(units[u].name) == unit_len && memcmp(units[u].name, text + i, unit_len) == 0) {
			*out_ms = value * units[u].ms;
			return true;
		}
	}
	return false;
}

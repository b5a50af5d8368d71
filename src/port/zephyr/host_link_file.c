/*
 * host_link_file.c: a whole file of the host, read over host_link.h's calls, so that it works on
 * every simulated board (the scenario, the app package and the packages a scenario deploys).
 */
#include <stdlib.h>

#include "host_link.h"

unsigned char *host_link_read_file(const char *path, size_t *len)
{
	long f = host_link_open(path, false);

	if (f < 0) {
		return NULL;
	}
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap + 1);

	while (buf != NULL) {
		long got = host_link_read(f, buf + n, cap - n);

		if (got <= 0) {
			break;
		}
		n += (size_t)got;
		if (n < cap) {
			continue;
		}
		unsigned char *bigger = realloc(buf, cap * 2 + 1);

		if (bigger == NULL) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	host_link_close(f);
	if (buf != NULL) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

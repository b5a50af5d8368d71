#include "file_util.h"

#include <stdio.h>
#include <stdlib.h>

uint8_t *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap + 1);
	while (buf != NULL) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap) {
			break;
		}
		cap *= 2;
		uint8_t *bigger = realloc(buf, cap + 1);
		if (bigger == NULL) {
			free(buf);
			buf = NULL;
		}
		buf = bigger;
	}
	int failed = ferror(f);
	fclose(f);
	if (buf == NULL || failed) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

int file_write(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		return -1;
	}
	size_t put = fwrite(data, 1, len, f);
	int rc = (put == len && fclose(f) == 0) ? 0 : -1;
	if (put != len) {
		fclose(f);
	}
	return rc;
}

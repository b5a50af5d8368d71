/*
 * test_protocol_doc.h: the byte-exact examples of docs/cloud-protocol.md, for the C tests that
 * check the protocol's frames against the document (the same examples cloudProtocol.test.ts
 * checks the TypeScript side against). Include after <cmocka.h>; the test's target defines
 * BEACON_SOURCE_DIR (tests.cmake).
 */
#ifndef TEST_PROTOCOL_DOC_H
#define TEST_PROTOCOL_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef BEACON_SOURCE_DIR
#error "BEACON_SOURCE_DIR must name the source tree (the protocol document is read from it)"
#endif

/* The bytes of the hex block after "<!-- example: name -->" in docs/cloud-protocol.md ('#' starts
 * a comment; a byte never spans two lines). */
static inline size_t doc_example(const char *name, uint8_t *out, size_t cap)
{
	FILE *f = fopen(BEACON_SOURCE_DIR "/docs/cloud-protocol.md", "r");
	assert_non_null(f);
	char marker[96];
	snprintf(marker, sizeof(marker), "<!-- example: %s -->", name);
	char line[512];
	bool found = false, in_block = false;
	size_t n = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (!found) {
			found = strstr(line, marker) != NULL;
			continue;
		}
		if (!in_block) {
			in_block = strncmp(line, "```hex", 6) == 0;
			continue;
		}
		if (strncmp(line, "```", 3) == 0) {
			break;
		}
		char *hash = strchr(line, '#');
		if (hash != NULL) {
			*hash = '\0';
		}
		int nibble = -1;
		for (char *p = line; *p; p++) {
			int v = *p >= '0' && *p <= '9' ? *p - '0'
				: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
				: -1;
			if (v < 0) {
				continue;
			}
			if (nibble < 0) {
				nibble = v;
			} else {
				assert_true(n < cap);
				out[n++] = (uint8_t)(nibble << 4 | v);
				nibble = -1;
			}
		}
		assert_int_equal(nibble, -1);
	}
	fclose(f);
	if (!found || n == 0) {
		fail_msg("example %s not found in docs/cloud-protocol.md", name);
	}
	return n;
}

#endif

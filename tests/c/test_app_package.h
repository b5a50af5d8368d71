/*
 * test_app_package.h: an app package made from JavaScript source, for C tests that run apps in a
 * world (cmocka helpers; include after <cmocka.h>).
 */
#ifndef TEST_APP_PACKAGE_H
#define TEST_APP_PACKAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rt_package.h"

/* Compile source with the engine under test (API 0.2.6, unsigned); the caller frees the result. */
static inline uint8_t *test_app_package(const char *source, const char *filename, size_t *len)
{
	eng_config_t config = {.heap_size = 0, .exec_budget = 0};
	uint8_t *bytecode = NULL;
	size_t bytecode_len = 0;
	char err[256];
	assert_int_equal(eng_init(&config), 0);
	eng_scope_enter();
	int rc = eng_compile(source, strlen(source), filename, &bytecode, &bytecode_len, err,
			     sizeof(err));
	eng_scope_leave();
	eng_deinit();
	if (rc != 0) {
		fail_msg("%s", err);
	}
	uint8_t *package = rt_package_build(0x000206u, bytecode, bytecode_len, 0, len);
	free(bytecode);
	return package;
}

#endif /* TEST_APP_PACKAGE_H */

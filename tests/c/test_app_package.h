/*
 * test_app_package.h: app packages for the C tests (cmocka helpers; include after <cmocka.h>):
 * one made from JavaScript source, for tests that run apps in a world, and one around bytes that
 * differ per seed, for tests of the store and of downloads, which never run them.
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

/* A package and its length; the test frees bytes. */
typedef struct {
	uint8_t *bytes;
	size_t len;
} test_pkg_t;

/* A package for this firmware's engine around code_len bytes that differ per seed (xorshift, so a
 * seed gives the same bytes on every run), naming source_size as its source's size. */
static inline test_pkg_t test_pkg_make(uint32_t seed, size_t code_len, size_t source_size)
{
	uint8_t *code = malloc(code_len);
	assert_non_null(code);
	uint32_t x = seed * 0x9e3779b9u + 0x6d2b79f5u;
	for (size_t i = 0; i < code_len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		code[i] = (uint8_t)x;
	}
	test_pkg_t p;
	p.bytes = rt_package_build(0x000206u, code, code_len, source_size, &p.len);
	free(code);
	assert_non_null(p.bytes);
	return p;
}

/* A copy of p as built by the other engine's firmware (its CRC made right again). */
static inline test_pkg_t test_pkg_other_engine(const test_pkg_t *p)
{
	test_pkg_t o = {malloc(p->len), p->len};
	assert_non_null(o.bytes);
	memcpy(o.bytes, p->bytes, p->len);
	uint32_t id = eng_id() == ENG_ID_DUKTAPE ? ENG_ID_JERRYSCRIPT : ENG_ID_DUKTAPE;
	for (int i = 0; i < 4; i++) {
		o.bytes[12 + i] = (uint8_t)(id >> (8 * i));
	}
	uint32_t crc = rt_crc32(0, o.bytes, RT_PACKAGE_SIGNED_HEADER_BYTES);
	crc = rt_crc32(crc, o.bytes + RT_PACKAGE_HEADER_SIZE, o.len - RT_PACKAGE_HEADER_SIZE);
	for (int i = 0; i < 4; i++) {
		o.bytes[36 + i] = (uint8_t)(crc >> (8 * i));
	}
	return o;
}

#endif /* TEST_APP_PACKAGE_H */

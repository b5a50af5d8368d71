/* App packages: a good one loads; any damage or a mismatch is refused with a clear reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rt_package.h"

#define API_0_2_6 0x000206u

static const uint8_t code[] = "not really bytecode, but the package does not look inside";

static uint8_t *make(size_t *len)
{
	uint8_t *pkg = rt_package_build(API_0_2_6, code, sizeof(code), 1234, len);
	assert_non_null(pkg);
	return pkg;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* Rewrite a header field and fix the CRC, as a tool for another engine or firmware would. */
static void set_field(uint8_t *pkg, size_t len, size_t offset, uint32_t value)
{
	put32(pkg + offset, value);
	uint32_t crc = rt_crc32(0, pkg, 36);
	crc = rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
	put32(pkg + 36, crc);
}

static void test_good_package_loads(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_OK);
	assert_int_equal(out.api_version, API_0_2_6);
	assert_int_equal(out.bytecode_size, sizeof(code));
	assert_int_equal(out.source_size, 1234);
	assert_memory_equal(out.bytecode, code, sizeof(code));
	free(pkg);
}

static void test_every_bit_flip_is_refused(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	for (size_t bit = 0; bit < len * 8; bit++) {
		pkg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		rt_package_t out;
		char msg[200] = "";
		rt_package_status_t st = rt_package_check(pkg, len, &out, msg, sizeof(msg));
		if (st == RT_PACKAGE_OK) {
			fail_msg("flipping bit %zu was not noticed", bit);
		}
		assert_true(strlen(msg) > 0);
		pkg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	free(pkg);
}

static void test_every_truncation_is_refused(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	for (size_t n = 0; n < len; n++) {
		rt_package_t out;
		char msg[200] = "";
		if (rt_package_check(pkg, n, &out, msg, sizeof(msg)) == RT_PACKAGE_OK) {
			fail_msg("a package cut to %zu of %zu bytes was accepted", n, len);
		}
	}
	free(pkg);
}

static void test_mismatches_say_why(void **state)
{
	static const struct {
		size_t offset;
		uint32_t value;
		rt_package_status_t status;
		const char *says;
	} cases[] = {
		{12, 0x77, RT_PACKAGE_WRONG_ENGINE, "built for an unknown engine"},
		{16, 99999, RT_PACKAGE_WRONG_ENGINE_VERSION, "9.99.99"},
		{20, 0x1234, RT_PACKAGE_WRONG_ENGINE_CONFIG, "configured differently"},
		{8, 0x000301, RT_PACKAGE_UNKNOWN_API, "API 0.3.1"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *pkg = make(&len);
		set_field(pkg, len, cases[i].offset, cases[i].value);
		rt_package_t out;
		char msg[200] = "";
		assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), cases[i].status);
		if (strstr(msg, cases[i].says) == NULL) {
			fail_msg("message '%s' does not say '%s'", msg, cases[i].says);
		}
		free(pkg);
	}
}

static void test_other_engine_is_named(void **state)
{
	size_t len;
	uint8_t *pkg = make(&len);
	uint32_t other = eng_id() == ENG_ID_DUKTAPE ? ENG_ID_JERRYSCRIPT : ENG_ID_DUKTAPE;
	set_field(pkg, len, 12, other);
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(pkg, len, &out, msg, sizeof(msg)), RT_PACKAGE_WRONG_ENGINE);
	assert_non_null(strstr(msg, other == ENG_ID_DUKTAPE ? "built for Duktape" : "built for JerryScript"));
	free(pkg);
}

static void test_not_a_package(void **state)
{
	uint8_t junk[64];
	memset(junk, 'x', sizeof(junk));
	rt_package_t out;
	char msg[200] = "";
	assert_int_equal(rt_package_check(junk, sizeof(junk), &out, msg, sizeof(msg)),
			 RT_PACKAGE_BAD_MAGIC);
	assert_int_equal(rt_package_check(junk, 3, &out, msg, sizeof(msg)), RT_PACKAGE_TRUNCATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_package_loads),
		cmocka_unit_test(test_every_bit_flip_is_refused),
		cmocka_unit_test(test_every_truncation_is_refused),
		cmocka_unit_test(test_mismatches_say_why),
		cmocka_unit_test(test_other_engine_is_named),
		cmocka_unit_test(test_not_a_package),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

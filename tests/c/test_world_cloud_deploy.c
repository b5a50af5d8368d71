/*
 * Deployments in the world's loopback cloud (world_cloud_deploy.h), its side alone: the world
 * script's cloud-deploy lines against the packages given, the offer at a sync start (from the
 * deployment's time, not to a device that runs the package or refused it), the chunks served
 * for fetches with the protocol's frames, a fetch past the end refused, and a fetch of a package
 * a newer deployment replaced answered as withdrawn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal_crypto.h"
#include "rt_cloud_deploy.h"
#include "rt_package.h"
#include "world.h"
#include "world_cloud_deploy.h"
#include "world_script.h"

static const char script[] = "beacon-world 1\n"
			     "device 0 a lte-beacon\n"
			     "device 1 b lte-beacon\n"
			     "at 1000 0 cloud-deploy 0\n"
			     "at 5000 0 cloud-deploy 1\n";

typedef struct {
	uint8_t *bytes;
	size_t len;
	uint8_t hash[32];
} pkg_t;

static pkg_t make_pkg(uint8_t seed, size_t code_len)
{
	uint8_t *code = malloc(code_len);
	assert_non_null(code);
	for (size_t i = 0; i < code_len; i++) {
		code[i] = (uint8_t)(seed + i * 7u);
	}
	pkg_t p;
	p.bytes = rt_package_build(0x000206u, code, code_len, code_len, &p.len);
	free(code);
	assert_non_null(p.bytes);
	hal_crypto_chunk_t c = {p.bytes, p.len};
	assert_int_equal(hal_crypto_sha256(&c, 1, p.hash), HAL_CRYPTO_OK);
	return p;
}

static rt_cloud_sync_start_t start_running(const uint8_t *app)
{
	rt_cloud_sync_start_t s;
	memset(&s, 0, sizeof(s));
	if (app != NULL) {
		s.has_app = true;
		memcpy(s.app, app, 32);
	}
	return s;
}

/* Fetch and decode the chunk: true with its offset and bytes, false when the fetch is refused. */
static bool fetch(world_device_t *d, const uint8_t *hash, uint32_t offset, uint32_t length,
		  uint32_t *at, const uint8_t **data, size_t *n, uint8_t *buf, size_t cap)
{
	uint8_t frame[64];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, frame, sizeof(frame));
	assert_true(rt_cloud_fetch_encode(&e, hash, offset, length));
	rt_cbor_enc_t out;
	rt_cbor_enc_init(&out, buf, cap);
	if (!world_cloud_deploy_fetch(d, frame, e.len, &out)) {
		return false;
	}
	assert_true(rt_cloud_chunk_decode(buf, out.len, at, data, n));
	return true;
}

static void test_the_loopback_cloud_offers_serves_and_withdraws(void **state)
{
	(void)state;
	world_t w;
	world_io_t io = {0};
	char err[200] = "";
	assert_int_equal(world_init(&w, 2, &io), 0);
	pkg_t p0 = make_pkg(1, 6000), p1 = make_pkg(2, 300), running = make_pkg(3, 100);
	/* Not a package: refused before the script can name it. */
	assert_int_equal(world_cloud_deploy_package(&w, (const uint8_t *)"hello", 5, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an app package"));
	assert_int_equal(world_cloud_deploy_package(&w, p0.bytes, p0.len, err, sizeof(err)), 0);
	assert_int_equal(world_cloud_deploy_package(&w, p1.bytes, p1.len, err, sizeof(err)), 1);
	assert_int_equal(world_script_load(&w, script, strlen(script), err, sizeof(err)), 0);
	assert_true(world_cloud_deploys_to(&w, 0));
	assert_false(world_cloud_deploys_to(&w, 1));
	world_device_t *d = &w.devices[0];

	rt_cloud_offer_t offer;
	rt_cloud_sync_start_t s = start_running(running.hash);
	w.now = 999;
	assert_false(world_cloud_deploy_start(d, &s, &offer)); /* not yet */
	w.now = 1000;
	rt_cloud_sync_start_t plain = start_running(NULL);
	assert_false(world_cloud_deploy_start(d, &plain, &offer)); /* takes no deployments */
	assert_true(world_cloud_deploy_start(d, &s, &offer));
	assert_memory_equal(offer.hash, p0.hash, 32);
	assert_int_equal(offer.size, p0.len);
	assert_int_equal(offer.api, 0x000206);
	assert_false(offer.signed_);
	rt_cloud_sync_start_t runs_it = start_running(p0.hash);
	assert_false(world_cloud_deploy_start(d, &runs_it, &offer));
	assert_false(world_cloud_deploy_start(&w.devices[1], &s, &offer));

	/* The chunks are the package's bytes, the last one short; past the end is refused. */
	static uint8_t buf[RT_CLOUD_DEPLOY_MAX_CHUNK + 64];
	uint32_t at;
	const uint8_t *data;
	size_t n;
	assert_true(fetch(d, p0.hash, 0, 4096, &at, &data, &n, buf, sizeof(buf)));
	assert_int_equal(at, 0);
	assert_int_equal(n, 4096);
	assert_memory_equal(data, p0.bytes, 4096);
	assert_true(fetch(d, p0.hash, 4096, 4096, &at, &data, &n, buf, sizeof(buf)));
	assert_int_equal(at, 4096);
	assert_int_equal(n, p0.len - 4096);
	assert_memory_equal(data, p0.bytes + 4096, n);
	assert_false(fetch(d, p0.hash, (uint32_t)p0.len, 16, &at, &data, &n, buf, sizeof(buf)));
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, buf, sizeof(buf));
	assert_false(world_cloud_deploy_fetch(d, (const uint8_t *)"\xa0", 1, &e));
	/* Device 1 has no deployment: a fetch is answered as the real cloud does, withdrawn. */
	assert_true(fetch(&w.devices[1], p0.hash, 0, 16, &at, &data, &n, buf, sizeof(buf)));
	assert_null(data);
	world_cloud_deploy_end(d);

	/* Refused: not offered again. */
	s.report.outcome = RT_CLOUD_OUTCOME_REFUSED;
	memcpy(s.report.hash, p0.hash, 32);
	snprintf(s.report.reason, sizeof(s.report.reason), "package refused: CRC");
	assert_false(world_cloud_deploy_start(d, &s, &offer));
	assert_false(world_cloud_deploy_start(d, &s, &offer));

	/* A newer deployment: the old package is withdrawn, the new one offered. */
	w.now = 5000;
	assert_true(fetch(d, p0.hash, 4096, 4096, &at, &data, &n, buf, sizeof(buf)));
	assert_int_equal(at, 4096);
	assert_null(data);
	assert_true(world_cloud_deploy_start(d, &s, &offer));
	assert_memory_equal(offer.hash, p1.hash, 32);
	assert_int_equal(offer.size, p1.len);

	world_free(&w);
	free(p0.bytes);
	free(p1.bytes);
	free(running.bytes);
}

static void test_a_script_naming_a_package_not_given_is_refused(void **state)
{
	(void)state;
	world_t w;
	world_io_t io = {0};
	char err[200] = "";
	assert_int_equal(world_init(&w, 1, &io), 0);
	static const char bad[] = "beacon-world 1\ndevice 0 a lte-beacon\nat 10 0 cloud-deploy 0\n";
	assert_int_equal(world_script_load(&w, bad, strlen(bad), err, sizeof(err)), -1);
	assert_string_equal(err, "line 3: cloud-deploy: no package 0 to deploy (beacon-sim --deploy gives 0)");
	static const char word[] = "beacon-world 1\ndevice 0 a lte-beacon\nat 10 0 cloud-deploy b.ts\n";
	assert_int_equal(world_script_load(&w, word, strlen(word), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3: cloud-deploy takes the number of a package"));
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_loopback_cloud_offers_serves_and_withdraws),
		cmocka_unit_test(test_a_script_naming_a_package_not_given_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * app-store-bench: the app store (rt_app_store) on the simulated flash, for bench/app_store.sh.
 *
 *   app-store-bench MODE N
 *
 * Instruction modes (run under callgrind; the per-operation cost is
 * (count(MODE, N) - count(MODE, 0)) / N, so the set-up both runs share cancels out). The
 * package is a typical one: 8,553 bytes, the asset tracker's size (its bytes do not matter to
 * the store: the CRC, the signature and the copy cost the same for any content).
 *   stage     N uploads into the staging slot, in the SMP server's 933-byte chunks: the pages
 *             erased and every word programmed (install not asked)
 *   install   N installs of a staged package: checked in place (rt_package_check: the CRC over
 *             all of it) and switched to (slot header, commit marker)
 *   install_signed  the same for the package signed, with its key trusted (rt_signature_check:
 *             SHA-256 of the package and an Ed25519 verification, libsodium on the host)
 *   mount     N boots of a store whose two slots hold apps: headers read, the newer package
 *             checked again (its CRC)
 *   mount_empty  N boots of a store with no app (what a device with only its factory package
 *             pays)
 *   flash_work 1  prints the word programs and page erases of staging and of the switch
 * The slots are the device's: 64 KB of 4 KB pages, 4-byte words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "sim_flash.h"

#define PAGE 4096u
#define SLOT_PAGES 16u
#define CODE 8513u
#define CHUNK 933u

static _Alignas(8) uint8_t mem[2 * SLOT_PAGES * PAGE];
static sim_flash_t sim;
static rt_flash_window_t slots[2];
static rt_app_store_t store;
static rt_app_store_config_t config;

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "app-store-bench: %s: %s\n", what, why);
	exit(1);
}

static void check(rt_app_store_err_t err, const char *what)
{
	if (err != RT_APP_STORE_OK) {
		fail(what, rt_app_store_strerror(err));
	}
}

static void mount(void)
{
	char msg[160];
	rt_app_store_err_t err = rt_app_store_mount(&store, &config, msg, sizeof(msg));
	if (err != RT_APP_STORE_OK && err != RT_APP_STORE_ENOAPP) {
		fail("mount", rt_app_store_strerror(err));
	}
}

static uint8_t *make_package(size_t *len)
{
	static uint8_t code[CODE];
	uint32_t x = 0x2545f491u;
	for (size_t i = 0; i < sizeof(code); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		code[i] = (uint8_t)x;
	}
	uint8_t *pkg = rt_package_build(0x000206u, code, sizeof(code), 3u * sizeof(code), len);
	if (pkg == NULL) {
		fail("package", "out of memory");
	}
	return pkg;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* The package signed as `beacon build --sign` does, its key trusted. */
static uint8_t *sign_package(const uint8_t *plain, size_t plain_len, size_t *len)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	if (sodium_init() < 0) {
		fail("sign", "libsodium");
	}
	/* A fixed seed: the same key, signature and count on every run. */
	unsigned char seed[crypto_sign_SEEDBYTES];
	memset(seed, 0x5e, sizeof(seed));
	crypto_sign_seed_keypair(pk, sk, seed);
	*len = plain_len + RT_PACKAGE_SIG_SIZE;
	uint8_t *pkg = malloc(*len);
	if (pkg == NULL) {
		fail("sign", "out of memory");
	}
	memcpy(pkg, plain, plain_len);
	put32(pkg + 32, RT_PACKAGE_FLAG_SIGNED);
	uint8_t digest[32];
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, pkg, RT_PACKAGE_SIGNED_HEADER_BYTES);
	crypto_hash_sha256_update(&st, pkg + RT_PACKAGE_HEADER_SIZE, plain_len - RT_PACKAGE_HEADER_SIZE);
	crypto_hash_sha256_final(&st, digest);
	uint8_t *sig = pkg + plain_len;
	memcpy(sig, RT_PACKAGE_SIG_MAGIC, 4);
	sig[4] = RT_PACKAGE_SIG_ALG_ED25519_SHA256;
	sig[5] = 0;
	sig[6] = RT_PACKAGE_SIG_SIZE;
	sig[7] = 0;
	memcpy(sig + RT_PACKAGE_SIG_KEY_OFFSET, pk, RT_PACKAGE_SIG_KEY_SIZE);
	crypto_sign_detached(sig + RT_PACKAGE_SIG_SIGNATURE_OFFSET, NULL, digest, sizeof(digest), sk);
	uint32_t crc = rt_crc32(0, pkg, 36);
	put32(pkg + 36, rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, *len - RT_PACKAGE_HEADER_SIZE));
	if (rt_signature_trust(pk) != 0) {
		fail("sign", "cannot trust the key");
	}
	return pkg;
}

static void stage(const uint8_t *pkg, size_t len)
{
	check(rt_app_store_stage_begin(&store, (uint32_t)len), "stage");
	for (size_t off = 0; off < len; off += CHUNK) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;
		check(rt_app_store_stage_write(&store, (uint32_t)off, pkg + off, n), "stage");
	}
}

static void install(size_t len)
{
	rt_package_t parsed;
	char msg[160];
	if (rt_app_store_install(&store, (uint32_t)len, &parsed, msg, sizeof(msg)) != RT_APP_STORE_OK) {
		fail("install", msg);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: app-store-bench stage|install|install_signed|mount|mount_empty|flash_work N\n");
		return 2;
	}
	const char *mode = argv[1];
	long n = strtol(argv[2], NULL, 10);
	if (!sim_flash_init(&sim, mem, PAGE, 2 * SLOT_PAGES) ||
	    rt_flash_window_init(&slots[0], &sim.flash, 0, SLOT_PAGES) != 0 ||
	    rt_flash_window_init(&slots[1], &sim.flash, SLOT_PAGES, SLOT_PAGES) != 0) {
		fail("flash", "bad geometry");
	}
	config = (rt_app_store_config_t){{{&slots[0].flash, mem}, {&slots[1].flash, mem + SLOT_PAGES * PAGE}}};
	mount();
	size_t len;
	uint8_t *pkg = make_package(&len);

	if (strcmp(mode, "stage") == 0) {
		for (long i = 0; i < n; i++) {
			stage(pkg, len);
		}
	} else if (strcmp(mode, "install") == 0 || strcmp(mode, "install_signed") == 0) {
		if (strcmp(mode, "install_signed") == 0) {
			size_t plain_len = len;
			uint8_t *signed_pkg = sign_package(pkg, plain_len, &len);
			free(pkg);
			pkg = signed_pkg;
		}
		/* Staging is in both runs' set-up share as often as the installs: it is measured
		 * apart (stage), and subtracted by the script. */
		for (long i = 0; i < n; i++) {
			stage(pkg, len);
			install(len);
		}
	} else if (strcmp(mode, "mount") == 0) {
		stage(pkg, len);
		install(len);
		stage(pkg, len);
		install(len);
		for (long i = 0; i < n; i++) {
			mount();
		}
	} else if (strcmp(mode, "flash_work") == 0) {
		uint64_t p0 = sim.word_programs, e0 = sim.page_erases;
		stage(pkg, len);
		uint64_t p1 = sim.word_programs, e1 = sim.page_erases;
		install(len);
		printf("app_store.stage_8553_bytes.word_programs: %llu words\n", (unsigned long long)(p1 - p0));
		printf("app_store.stage_8553_bytes.page_erases: %llu pages\n", (unsigned long long)(e1 - e0));
		printf("app_store.switch.word_programs: %llu words\n", (unsigned long long)(sim.word_programs - p1));
		printf("app_store.switch.page_erases: %llu pages\n", (unsigned long long)(sim.page_erases - e1));
	} else if (strcmp(mode, "mount_empty") == 0) {
		for (long i = 0; i < n; i++) {
			mount();
		}
	} else {
		fail("mode", mode);
	}
	free(pkg);
	return 0;
}

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
 *             SHA-256 of the package and an ECDSA P-256 verification, through the PSA Crypto API
 *             of Mbed TLS on the host as on the device)
 *   verify    N signature checks alone (rt_signature_check of the signed package, in RAM)
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

#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_signature.h"
#include "sim_flash.h"
#include "test_signer.h"

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

/* The package signed as `beacon build --sign` does, its key trusted. */
static uint8_t *sign_package(const uint8_t *plain, size_t plain_len, size_t *len)
{
	/* A fixed private key and deterministic ECDSA: the same key, signature and count on every
	 * run. */
	uint8_t d[32];
	memset(d, 0x5e, sizeof(d));
	test_signer_t signer;
	if (test_signer_from_scalar(&signer, d) != 0) {
		fail("sign", "Mbed TLS");
	}
	uint8_t *pkg = test_signer_sign(&signer, plain, plain_len, len);
	if (pkg == NULL) {
		fail("sign", "Mbed TLS");
	}
	if (rt_signature_trust(signer.pub) != 0) {
		fail("sign", "cannot trust the key");
	}
	test_signer_free(&signer);
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
	} else if (strcmp(mode, "verify") == 0) {
		size_t plain_len = len;
		uint8_t *signed_pkg = sign_package(pkg, plain_len, &len);
		free(pkg);
		pkg = signed_pkg;
		rt_package_t checked;
		char msg[200];
		if (rt_package_check(pkg, len, &checked, msg, sizeof(msg)) != RT_PACKAGE_OK) {
			fail("verify", msg);
		}
		for (long i = 0; i < n; i++) {
			if (rt_signature_check(pkg, &checked, msg, sizeof(msg)) != RT_SIGNATURE_OK) {
				fail("verify", msg);
			}
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

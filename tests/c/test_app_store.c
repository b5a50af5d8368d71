/*
 * The app store (rt_app_store) on the simulated nRF52840 flash: uploads land in the staging
 * slot and never touch the installed app; a switch survives a power cut at every single word
 * program and page erase (the boot after each finds the old app or the new one, byte for byte,
 * never neither); damaged, truncated, wrong-engine, unsigned and foreign-signed packages are
 * refused at install and at boot with the words rt_package and rt_signature use for them (which
 * is what `beacon run` prints for the same bytes); and the record store on its own area beside
 * the slots is left exactly as it was.
 *
 * One simulated flash holds slot 0, slot 1 and the storage area (rt_flash_window), so one
 * power-cut counter covers all three.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "rt_app_store.h"
#include "rt_flash_window.h"
#include "rt_package.h"
#include "rt_records.h"
#include "rt_signature.h"
#include "sim_flash.h"
#include "test_app_package.h"
#include "test_signer.h"

#define PAGE 4096u
#define SLOT_PAGES 16u   /* 64 KB, the device's slot (docs/upload.md) */
#define STORAGE_PAGES 8u /* two 4-page sectors */
#define PAGES (2u * SLOT_PAGES + STORAGE_PAGES)
#define STORAGE_FIRST (2u * SLOT_PAGES)
#define RECORDS 5u
/* A typical package: the asset tracker's is 8,553 bytes. An odd length, so its last write block
 * is padded. */
#define TYPICAL_CODE 8513u

typedef struct rig {
	sim_flash_t sim;
	_Alignas(8) uint8_t mem[PAGES * PAGE];
	rt_flash_window_t win[3];
	rt_app_store_config_t config;
	rt_app_store_t store;
	rt_records_entry_t index[32];
	rt_records_t records;
	char msg[200];
} rig_t;

static rig_t *rig_new(void)
{
	rig_t *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_true(sim_flash_init(&r->sim, r->mem, PAGE, PAGES));
	assert_int_equal(rt_flash_window_init(&r->win[0], &r->sim.flash, 0, SLOT_PAGES), 0);
	assert_int_equal(rt_flash_window_init(&r->win[1], &r->sim.flash, SLOT_PAGES, SLOT_PAGES), 0);
	assert_int_equal(rt_flash_window_init(&r->win[2], &r->sim.flash, STORAGE_FIRST, STORAGE_PAGES), 0);
	r->config.slot[0] = (rt_app_store_slot_t){&r->win[0].flash, r->mem};
	r->config.slot[1] = (rt_app_store_slot_t){&r->win[1].flash, r->mem + SLOT_PAGES * PAGE};
	return r;
}

/* Power comes back and the device boots: a fresh store state from flash alone. */
static rt_app_store_err_t boot(rig_t *r)
{
	sim_flash_power_on(&r->sim);
	return rt_app_store_mount(&r->store, &r->config, r->msg, sizeof(r->msg));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void fix_crc(uint8_t *pkg, size_t len)
{
	uint32_t crc = rt_crc32(0, pkg, 36);
	put32(pkg + 36, rt_crc32(crc, pkg + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE));
}

/* A package for this firmware's engine around code_len bytes that differ per seed (the store
 * never runs them; the engine's own tests do). */
typedef test_pkg_t pkg_t;

static pkg_t make_pkg(uint32_t seed, size_t code_len)
{
	return test_pkg_make(seed, code_len, code_len * 3);
}

static test_signer_t new_keys(void)
{
	test_signer_t k;
	assert_int_equal(test_signer_new(&k), 0);
	return k;
}

/* The package signed as rt_package.h describes (what `beacon build --sign` writes: ECDSA P-256). */
static pkg_t make_signed(const test_signer_t *k, uint32_t seed, size_t code_len)
{
	pkg_t plain = make_pkg(seed, code_len);
	pkg_t p;
	p.bytes = test_signer_sign(k, plain.bytes, plain.len, &p.len);
	assert_non_null(p.bytes);
	free(plain.bytes);
	return p;
}

/* The package as `beacon build --sign` wrote it before ECDSA: the retired Ed25519 block
 * (algorithm 1, 104 bytes). Its key and signature bytes do not matter; the algorithm refuses it. */
static pkg_t make_ed25519_signed(uint32_t seed, size_t code_len)
{
	pkg_t plain = make_pkg(seed, code_len);
	pkg_t p = {malloc(plain.len + RT_PACKAGE_SIG_ED25519_SIZE), plain.len + RT_PACKAGE_SIG_ED25519_SIZE};
	assert_non_null(p.bytes);
	memcpy(p.bytes, plain.bytes, plain.len);
	free(plain.bytes);
	put32(p.bytes + 32, get32(p.bytes + 32) | RT_PACKAGE_FLAG_SIGNED);
	uint8_t *sig = p.bytes + plain.len;
	memset(sig, (int)(0xa5u ^ seed), RT_PACKAGE_SIG_ED25519_SIZE);
	memcpy(sig, RT_PACKAGE_SIG_MAGIC, 4);
	sig[4] = RT_PACKAGE_SIG_ALG_ED25519_SHA256;
	sig[5] = 0;
	sig[6] = RT_PACKAGE_SIG_ED25519_SIZE;
	sig[7] = 0;
	fix_crc(p.bytes, p.len);
	return p;
}

/* What the simulator says of these bytes: `beacon run` checks a package file with exactly
 * rt_package_check and rt_signature_check (rt_app_prepare). */
static void simulator_says(const uint8_t *bytes, size_t len, char *msg, size_t cap)
{
	rt_package_t pkg;
	msg[0] = '\0';
	if (rt_package_check(bytes, len, &pkg, msg, cap) == RT_PACKAGE_OK) {
		assert_int_not_equal(rt_signature_check(bytes, &pkg, msg, cap), RT_SIGNATURE_OK);
	}
	assert_true(msg[0] != '\0');
}

/* An upload as the SMP server makes it: begin, then chunks of varying, unaligned sizes. Stops at
 * the first failure (a power cut) and returns it. */
static rt_app_store_err_t upload(rig_t *r, const pkg_t *p)
{
	static const size_t chunks[] = {1, 3, 127, 512, 933, 2, 4096};
	rt_app_store_err_t err = rt_app_store_stage_begin(&r->store, (uint32_t)p->len);
	size_t off = 0;
	for (size_t k = 0; err == RT_APP_STORE_OK && off < p->len; k++) {
		size_t n = chunks[k % (sizeof(chunks) / sizeof(chunks[0]))];
		if (n > p->len - off) {
			n = p->len - off;
		}
		err = rt_app_store_stage_write(&r->store, (uint32_t)off, p->bytes + off, n);
		off += n;
	}
	return err;
}

static rt_app_store_err_t upload_and_install(rig_t *r, const pkg_t *p)
{
	rt_app_store_err_t err = upload(r, p);
	if (err != RT_APP_STORE_OK) {
		return err;
	}
	rt_package_t pkg;
	return rt_app_store_install(&r->store, (uint32_t)p->len, &pkg, r->msg, sizeof(r->msg));
}

static void install_ok(rig_t *r, const pkg_t *p)
{
	rt_app_store_err_t err = upload_and_install(r, p);
	if (err != RT_APP_STORE_OK) {
		fail_msg("install: %s: %s", rt_app_store_strerror(err), r->msg);
	}
}

/* The installed app is exactly p, in place and 8-byte aligned. */
static bool installed_is(const rig_t *r, const pkg_t *p)
{
	const uint8_t *at;
	size_t len;
	if (!rt_app_store_installed(&r->store, &at, &len)) {
		return false;
	}
	assert_int_equal((uintptr_t)at % 8u, 0);
	return len == p->len && memcmp(at, p->bytes, len) == 0;
}

static void fill(uint8_t *buf, size_t len, uint32_t id)
{
	for (size_t i = 0; i < len; i++) {
		buf[i] = (uint8_t)(id * 31u + i * 7u);
	}
}

/* Records on the storage area beside the slots, and a copy of its bytes. */
static void records_setup(rig_t *r, uint8_t *snapshot)
{
	rt_records_config_t cfg = {&r->win[2].flash, 4, r->index, 32};
	assert_int_equal(rt_records_mount(&r->records, &cfg), RT_RECORDS_OK);
	for (uint32_t id = 1; id <= RECORDS; id++) {
		uint8_t data[300];
		fill(data, id * 50u, id);
		assert_int_equal(rt_records_write(&r->records, RT_RECORDS_NS_APP, id, data, id * 50u), RT_RECORDS_OK);
	}
	memcpy(snapshot, r->mem + STORAGE_FIRST * PAGE, STORAGE_PAGES * PAGE);
}

/* The storage area is byte for byte as it was, and its records mount and read back. */
static void records_intact(rig_t *r, const uint8_t *snapshot)
{
	assert_memory_equal(r->mem + STORAGE_FIRST * PAGE, snapshot, STORAGE_PAGES * PAGE);
	rt_records_config_t cfg = {&r->win[2].flash, 4, r->index, 32};
	assert_int_equal(rt_records_mount(&r->records, &cfg), RT_RECORDS_OK);
	for (uint32_t id = 1; id <= RECORDS; id++) {
		uint8_t want[300], got[300];
		size_t n = 0;
		fill(want, id * 50u, id);
		assert_int_equal(rt_records_read(&r->records, RT_RECORDS_NS_APP, id, got, sizeof(got), &n), RT_RECORDS_OK);
		assert_int_equal(n, id * 50u);
		assert_memory_equal(got, want, n);
	}
}

/* Write a committed slot by hand, as the format in docs/upload.md gives it, without the store's
 * checks: what a firmware of another engine (or a store written before a key was trusted) left. */
static void commit_by_hand(rig_t *r, int slot, const pkg_t *p, uint32_t seq)
{
	const hal_flash_t *f = &r->win[slot].flash;
	uint32_t pages = (uint32_t)((32 + p->len + PAGE - 1) / PAGE);
	for (uint32_t i = 0; i < pages; i++) {
		assert_int_equal(hal_flash_erase(f, i), HAL_FLASH_OK);
	}
	size_t padded = (p->len + 3u) & ~(size_t)3u;
	uint8_t *body = malloc(padded);
	assert_non_null(body);
	memset(body, 0xFF, padded);
	memcpy(body, p->bytes, p->len);
	assert_int_equal(hal_flash_program(f, 32, body, padded), HAL_FLASH_OK);
	free(body);
	uint8_t h[28];
	memcpy(h, "BSLT", 4);
	h[4] = 1;
	h[5] = 0;
	h[6] = 32;
	h[7] = 0;
	put32(h + 8, seq);
	put32(h + 12, (uint32_t)p->len);
	put32(h + 16, get32(p->bytes + 36));
	put32(h + 20, rt_crc32(0, h, 20));
	memcpy(h + 24, "CMIT", 4);
	assert_int_equal(hal_flash_program(f, 0, h, 24), HAL_FLASH_OK);
	assert_int_equal(hal_flash_program(f, 24, h + 24, 4), HAL_FLASH_OK);
}

/* The slot the installed app is not in. */
static int staging_slot(const rig_t *r)
{
	const uint8_t *at;
	size_t len;
	assert_true(rt_app_store_installed(&r->store, &at, &len));
	return at >= r->mem + SLOT_PAGES * PAGE ? 0 : 1;
}

/* ------------------------------------------------------------------------------------------- */

static void test_blank_flash_has_no_app_and_the_factory_package_runs(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t factory = make_pkg(99, 200);
	const uint8_t *pkg;
	size_t len;

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	assert_string_equal(r->msg, "");
	assert_int_equal(rt_app_store_capacity(&r->store), SLOT_PAGES * PAGE - 32u);
	assert_int_equal(rt_app_store_boot_package(&r->store, factory.bytes, factory.len, &pkg, &len),
			 RT_APP_STORE_FROM_FACTORY);
	assert_ptr_equal(pkg, factory.bytes);
	assert_int_equal(rt_app_store_boot_package(&r->store, NULL, 0, &pkg, &len), RT_APP_STORE_FROM_NONE);

	/* An emulated board starts with its code memory zeroed, not erased: no app either. */
	memset(r->mem, 0, sizeof(r->mem));
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	assert_string_equal(r->msg, "");

	/* Once an app is installed, the factory package is only the default. */
	memset(r->mem, 0xFF, sizeof(r->mem));
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	pkg_t a = make_pkg(1, TYPICAL_CODE);
	install_ok(r, &a);
	assert_int_equal(rt_app_store_boot_package(&r->store, factory.bytes, factory.len, &pkg, &len),
			 RT_APP_STORE_FROM_STORE);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_int_equal(rt_app_store_boot_package(&r->store, factory.bytes, factory.len, &pkg, &len),
			 RT_APP_STORE_FROM_STORE);
	assert_int_equal(len, a.len);
	assert_memory_equal(pkg, a.bytes, a.len);
	assert_int_equal(r->sim.violations, 0);
	free(a.bytes);
	free(factory.bytes);
	free(r);
}

static void test_installs_alternate_slots_and_survive_a_reboot(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 5000), c = make_pkg(3, 61000);
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);

	install_ok(r, &a);
	assert_true(installed_is(r, &a));
	assert_int_equal(rt_app_store_sequence(&r->store), 1);
	assert_int_equal(r->store.active, 0);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &a));

	install_ok(r, &b);
	assert_int_equal(r->store.active, 1);
	assert_int_equal(rt_app_store_sequence(&r->store), 2);
	/* The old app is still whole in its slot until the next upload begins. */
	assert_memory_equal(r->mem + 32, a.bytes, a.len);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &b));

	/* A package near the slot's size goes into the first slot again. */
	install_ok(r, &c);
	assert_int_equal(r->store.active, 0);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &c));
	assert_int_equal(rt_app_store_sequence(&r->store), 3);

	/* Reading the installed app through the driver gives the same bytes. */
	uint8_t head[64];
	assert_int_equal(rt_app_store_read(&r->store, 100, head, sizeof(head)), RT_APP_STORE_OK);
	assert_memory_equal(head, c.bytes + 100, sizeof(head));
	assert_int_equal(rt_app_store_read(&r->store, (uint32_t)c.len - 10, head, 11), RT_APP_STORE_EINVAL);
	assert_int_equal(r->sim.violations, 0);
	free(a.bytes);
	free(b.bytes);
	free(c.bytes);
	free(r);
}

static void test_mount_writes_nothing(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 3000);
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	install_ok(r, &b);
	/* A damaged newer app, refused at boot, is not repaired or erased either. */
	sim_flash_flip_bit(&r->sim, SLOT_PAGES * PAGE + 32 + 700, 3);
	uint64_t ops = r->sim.ops;
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_int_equal(r->sim.ops, ops);
	assert_true(installed_is(r, &a));
	free(a.bytes);
	free(b.bytes);
	free(r);
}

/* The image before the switch; each cut starts from it. */
typedef struct {
	uint8_t mem[PAGES * PAGE];
	uint8_t storage[STORAGE_PAGES * PAGE];
} snapshot_t;

/*
 * Cut the power at every flash operation of an upload and install of `next` (and once more, at
 * none), from the flash as `before` holds it, where `old` is installed (NULL: none). After each
 * cut the device boots: it finds old or next, whole; next only once the commit marker's word was
 * being programmed; the storage area untouched. Then it takes an upload again: the store works
 * on after any cut.
 */
static void cut_everywhere(rig_t *r, const snapshot_t *before, const pkg_t *old, const pkg_t *next,
			   const pkg_t *after)
{
	memcpy(r->mem, before->mem, sizeof(r->mem));
	assert_int_equal(boot(r), old ? RT_APP_STORE_OK : RT_APP_STORE_ENOAPP);
	uint64_t start = r->sim.ops;
	install_ok(r, next);
	uint64_t total = r->sim.ops - start;
	assert_true(total > next->len / 4);
	uint32_t old_seen = 0, new_seen = 0;

	for (uint64_t n = 1; n <= total + 1; n++) {
		memcpy(r->mem, before->mem, sizeof(r->mem));
		assert_int_equal(boot(r), old ? RT_APP_STORE_OK : RT_APP_STORE_ENOAPP);
		sim_flash_cut_after(&r->sim, n, (uint32_t)n * 2654435761u);
		rt_app_store_err_t err = upload_and_install(r, next);
		bool cut = sim_flash_is_cut(&r->sim);
		assert_true(cut == (n <= total));
		assert_true(cut ? err == RT_APP_STORE_EFLASH : err == RT_APP_STORE_OK);

		rt_app_store_err_t booted = boot(r);
		assert_string_equal(r->msg, "");
		if (installed_is(r, next)) {
			/* Only the commit marker's own word makes the new app the installed one. */
			if (n < total) {
				fail_msg("cut at operation %llu of %llu: the new app is installed before its commit",
					 (unsigned long long)n, (unsigned long long)total);
			}
			new_seen++;
		} else if (old != NULL) {
			if (booted != RT_APP_STORE_OK || !installed_is(r, old)) {
				fail_msg("cut at operation %llu of %llu: neither the old app nor the new one",
					 (unsigned long long)n, (unsigned long long)total);
			}
			old_seen++;
		} else {
			assert_int_equal(booted, RT_APP_STORE_ENOAPP);
			old_seen++;
		}
		records_intact(r, before->storage);

		/* The store works on: the next upload goes through. */
		const pkg_t *keep = installed_is(r, next) ? next : old;
		install_ok(r, after);
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, after));
		/* ... into the slot that was not the installed one. */
		if (keep != NULL) {
			int other = 1 - r->store.active;
			assert_memory_equal(r->mem + (size_t)other * SLOT_PAGES * PAGE + 32, keep->bytes, keep->len);
		}
		records_intact(r, before->storage);
	}
	assert_true(old_seen >= total - 1);
	assert_true(new_seen >= 1); /* the run without a cut at least */
	assert_int_equal(r->sim.violations, 0);
}

static void test_power_cut_at_every_operation_of_a_switch(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	static snapshot_t before;
	pkg_t z = make_pkg(7, 20000), a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 3001),
	      c = make_pkg(3, 1234);

	/* From a store with no app: no app, or the new one. */
	records_setup(r, before.storage);
	memcpy(before.mem, r->mem, sizeof(r->mem));
	cut_everywhere(r, &before, NULL, &a, &c);

	/* A installed in slot 1, an older Z still in slot 0 (the staging slot): the upload erases Z
	 * page by page and writes B there, while A stays the installed app. */
	memcpy(r->mem, before.mem, sizeof(r->mem));
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &z);
	install_ok(r, &a);
	assert_int_equal(r->store.active, 1);
	memcpy(before.mem, r->mem, sizeof(r->mem));
	cut_everywhere(r, &before, &a, &b, &c);

	free(z.bytes);
	free(a.bytes);
	free(b.bytes);
	free(c.bytes);
	free(r);
}

/* A new app that loops through resets is rolled back: one marker word in its header, and the app
 * before it, still complete in the other slot, is the installed one, also after a reboot. A cut
 * while the marker is programmed leaves one of the two. With no app before it nothing is
 * written; a later install goes on with higher sequence numbers. */
static void test_roll_back_to_the_app_before(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 3001), c = make_pkg(3, 1234);

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	static uint8_t before[PAGES * PAGE];
	memcpy(before, r->mem, sizeof(before));
	assert_int_equal(rt_app_store_roll_back(&r->store, r->msg, sizeof(r->msg)), RT_APP_STORE_ENOAPP);
	assert_memory_equal(before, r->mem, sizeof(before));
	assert_true(installed_is(r, &a));

	install_ok(r, &b);
	uint32_t seq_b = rt_app_store_sequence(&r->store);
	memcpy(before, r->mem, sizeof(before));
	/* Cut while the marker word is programmed: B or A after the boot, never neither. */
	sim_flash_cut_after(&r->sim, 1, 0x5eed);
	rt_app_store_roll_back(&r->store, r->msg, sizeof(r->msg));
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &a) || installed_is(r, &b));

	memcpy(r->mem, before, sizeof(before));
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &b));
	assert_int_equal(rt_app_store_roll_back(&r->store, r->msg, sizeof(r->msg)), RT_APP_STORE_OK);
	assert_non_null(strstr(r->msg, "rolled back"));
	assert_true(installed_is(r, &a));
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &a));
	/* The slot B was in is the staging slot now; C goes there, newer than B. */
	install_ok(r, &c);
	assert_true(installed_is(r, &c));
	assert_true(rt_app_store_sequence(&r->store) > seq_b);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &c));
	free(a.bytes);
	free(b.bytes);
	free(c.bytes);
	free(r);
}

/* Every single bit of a header word or of the package, flipped in flash after the install: the
 * boot refuses the damaged app with the simulator's message for those bytes and runs the one
 * before it. */
static void test_bit_flips_in_the_installed_app(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	static uint8_t before[PAGES * PAGE];
	pkg_t a = make_pkg(1, 700), b = make_pkg(2, 900);
	uint8_t *flipped = malloc(b.len);
	assert_non_null(flipped);
	char want[200];

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	install_ok(r, &b); /* slot 1 */
	memcpy(before, r->mem, sizeof(before));
	const uint32_t slot1 = SLOT_PAGES * PAGE;

	/* The slot header (its CRC'd bytes and the commit marker): B is not installed, A runs. */
	for (uint32_t bit = 0; bit < 28 * 8; bit++) {
		memcpy(r->mem, before, sizeof(before));
		sim_flash_flip_bit(&r->sim, slot1 + bit / 8, bit % 8);
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, &a));
	}
	/* The package: every bit of its header, and bits all through its code and its last byte. */
	for (uint32_t bit = 0; bit < b.len * 8; bit += bit < 40 * 8 ? 1 : 61) {
		memcpy(r->mem, before, sizeof(before));
		sim_flash_flip_bit(&r->sim, slot1 + 32 + bit / 8, bit % 8);
		memcpy(flipped, b.bytes, b.len);
		flipped[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		simulator_says(flipped, b.len, want, sizeof(want));
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, &a));
		assert_string_equal(r->msg, want);
		assert_int_equal(r->store.refused, 1);
	}
	/* The older app damaged: B runs, nothing to say. */
	memcpy(r->mem, before, sizeof(before));
	sim_flash_flip_bit(&r->sim, 32 + 300, 5);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &b));
	assert_string_equal(r->msg, "");
	/* Both damaged: no app (the factory package runs), and the newer one's message. */
	sim_flash_flip_bit(&r->sim, slot1 + 32 + 300, 5);
	memcpy(flipped, b.bytes, b.len);
	flipped[300] ^= 1u << 5;
	simulator_says(flipped, b.len, want, sizeof(want));
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	assert_string_equal(r->msg, want);
	assert_non_null(strstr(r->msg, "package is damaged: CRC-32 is "));
	/* With no app installed, the next upload goes to slot 0 and installs. */
	install_ok(r, &a);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &a));
	free(flipped);
	free(a.bytes);
	free(b.bytes);
	free(r);
}

/* A package whose end is missing is refused at install with the simulator's message; the running
 * app stays installed; refused in RAM, it does not even touch the staging slot. */
static void test_truncated_package_is_refused(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 4000);
	char want[200];
	rt_package_t pkg;

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	for (size_t keep = 0; keep < b.len; keep += keep < 64 ? 7 : 997) {
		pkg_t cut = {b.bytes, keep};
		if (keep > 0) {
			simulator_says(b.bytes, keep, want, sizeof(want));
			assert_int_equal(upload(r, &cut), RT_APP_STORE_OK);
			assert_int_equal(rt_app_store_install(&r->store, (uint32_t)keep, &pkg, r->msg, sizeof(r->msg)),
					 RT_APP_STORE_EREFUSED);
			assert_string_equal(r->msg, want);
			assert_true(installed_is(r, &a));
		}
		uint64_t ops = r->sim.ops;
		assert_int_equal(rt_app_store_install_buffer(&r->store, b.bytes, keep, &pkg, r->msg, sizeof(r->msg)),
				 RT_APP_STORE_EREFUSED);
		assert_int_equal(r->sim.ops, ops);
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, &a));
	}
	assert_non_null(strstr(want, "package is damaged: header says"));
	/* Install before the upload has all its bytes. */
	assert_int_equal(rt_app_store_stage_begin(&r->store, (uint32_t)b.len), RT_APP_STORE_OK);
	assert_int_equal(rt_app_store_stage_write(&r->store, 0, b.bytes, 100), RT_APP_STORE_OK);
	assert_int_equal(rt_app_store_install(&r->store, (uint32_t)b.len, &pkg, r->msg, sizeof(r->msg)),
			 RT_APP_STORE_EINCOMPLETE);
	assert_string_equal(r->msg, "the upload is incomplete: 100 of 4040 bytes");
	assert_true(installed_is(r, &a));
	free(a.bytes);
	free(b.bytes);
	free(r);
}

/* A package built for the other engine: refused at install; and found committed at boot (left by
 * a firmware of that engine), refused there with the same words while the older app runs. */
static void test_wrong_engine_is_refused_at_install_and_at_boot(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 2000);
	pkg_t other = test_pkg_other_engine(&b);
	char want[200];
	rt_package_t pkg;
	simulator_says(other.bytes, other.len, want, sizeof(want));
	assert_non_null(strstr(want, "package was built for "));
	assert_non_null(strstr(want, "(rebuild with --engine "));

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	assert_int_equal(upload_and_install(r, &other), RT_APP_STORE_EREFUSED);
	assert_string_equal(r->msg, want);
	assert_true(installed_is(r, &a));
	assert_int_equal(rt_app_store_install_buffer(&r->store, other.bytes, other.len, &pkg, r->msg, sizeof(r->msg)),
			 RT_APP_STORE_EREFUSED);
	assert_string_equal(r->msg, want);

	/* Committed in slot 1 with a higher sequence number, as the other firmware would have. */
	commit_by_hand(r, 1, &other, 5);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_string_equal(r->msg, want);
	assert_true(installed_is(r, &a));
	/* The next install numbers past it and replaces it. */
	install_ok(r, &b);
	assert_int_equal(rt_app_store_sequence(&r->store), 6);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &b));
	assert_string_equal(r->msg, "");

	/* The hand-written slot of this engine's package is taken: the format is as documented. */
	commit_by_hand(r, 0, &a, 7);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &a));
	free(a.bytes);
	free(b.bytes);
	free(other.bytes);
	free(r);
}

/* With a trusted key: unsigned and foreign-signed packages are refused (at install, and at boot
 * when they were installed before the key was trusted); one signed with the key goes in. */
static void test_signature_policy(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	test_signer_t mine = new_keys(), foreign = new_keys();
	pkg_t plain = make_pkg(1, 3000), signed_mine = make_signed(&mine, 2, 3000),
	      signed_foreign = make_signed(&foreign, 3, 3000);
	char want[200];

	rt_signature_forget_all();
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &plain);

	assert_int_equal(rt_signature_trust(mine.pub), 0);
	simulator_says(plain.bytes, plain.len, want, sizeof(want));
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	assert_string_equal(r->msg, want);
	assert_non_null(strstr(want, "is not signed"));

	simulator_says(signed_foreign.bytes, signed_foreign.len, want, sizeof(want));
	assert_int_equal(upload_and_install(r, &signed_foreign), RT_APP_STORE_EREFUSED);
	assert_string_equal(r->msg, want);
	assert_non_null(strstr(want, "which this device does not trust"));

	install_ok(r, &signed_mine);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &signed_mine));
	simulator_says(plain.bytes, plain.len, want, sizeof(want));
	assert_int_equal(upload_and_install(r, &plain), RT_APP_STORE_EREFUSED);
	assert_string_equal(r->msg, want);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &signed_mine));

	/* Signed with the key, then changed in its code (the CRC made right): the signature
	 * refuses it, at install and at boot. */
	pkg_t altered = make_signed(&mine, 4, 3000);
	altered.bytes[RT_PACKAGE_HEADER_SIZE + 1234] ^= 0x08;
	fix_crc(altered.bytes, altered.len);
	simulator_says(altered.bytes, altered.len, want, sizeof(want));
	assert_non_null(strstr(want, "package signature does not verify with key"));
	assert_int_equal(upload_and_install(r, &altered), RT_APP_STORE_EREFUSED);
	assert_string_equal(r->msg, want);
	assert_true(installed_is(r, &signed_mine));
	commit_by_hand(r, staging_slot(r), &altered, 50);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_string_equal(r->msg, want);
	assert_true(installed_is(r, &signed_mine));

	rt_signature_forget_all();
	free(plain.bytes);
	free(signed_mine.bytes);
	free(signed_foreign.bytes);
	free(altered.bytes);
	test_signer_free(&mine);
	test_signer_free(&foreign);
	free(r);
}

/* A package signed with Ed25519 (the retired algorithm 1) is refused with the message to sign it
 * again, trusted keys or not: at install, and at boot when a slot holds it committed (installed by
 * a firmware from before the change), while the older app runs. */
static void test_ed25519_signed_package_is_refused(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	test_signer_t mine = new_keys();
	pkg_t a = make_signed(&mine, 1, TYPICAL_CODE), old = make_ed25519_signed(2, 3000);
	char want[300];
	simulator_says(old.bytes, old.len, want, sizeof(want));
	assert_string_equal(want, "package is signed with Ed25519, which devices no longer accept: "
				  "re-sign it with a new P-256 key (beacon keygen)");
	for (int trusting = 0; trusting < 2; trusting++) {
		rt_signature_forget_all();
		if (trusting) {
			assert_int_equal(rt_signature_trust(mine.pub), 0);
		}
		rig_t *fresh = rig_new();
		assert_int_equal(boot(fresh), RT_APP_STORE_ENOAPP);
		install_ok(fresh, &a);
		assert_int_equal(upload_and_install(fresh, &old), RT_APP_STORE_EREFUSED);
		assert_string_equal(fresh->msg, want);
		assert_true(installed_is(fresh, &a));
		commit_by_hand(fresh, staging_slot(fresh), &old, 9);
		assert_int_equal(boot(fresh), RT_APP_STORE_OK);
		assert_string_equal(fresh->msg, want);
		assert_true(installed_is(fresh, &a));
		free(fresh);
	}
	rt_signature_forget_all();
	free(a.bytes);
	free(old.bytes);
	test_signer_free(&mine);
	free(r);
}

/* Uploads begun, abandoned, restarted and refused while an app is installed: its slot is never
 * erased or written, its bytes never change, and it stays the app a boot finds. */
static void test_staging_rewritten_while_an_app_is_installed(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	pkg_t a = make_pkg(1, TYPICAL_CODE), b = make_pkg(2, 30000), c = make_pkg(3, 777);
	pkg_t bad = make_pkg(4, 5000);
	bad.bytes[2000] ^= 0x10;

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a);
	uint32_t erases[SLOT_PAGES];
	memcpy(erases, r->sim.erase_count, sizeof(erases));
	uint8_t *slot0 = malloc(SLOT_PAGES * PAGE);
	assert_non_null(slot0);
	memcpy(slot0, r->mem, SLOT_PAGES * PAGE);

	for (int round = 0; round < 3; round++) {
		/* Half of B, then begun again with C, which is refused once damaged, then B whole but
		 * never installed. */
		assert_int_equal(rt_app_store_stage_begin(&r->store, (uint32_t)b.len), RT_APP_STORE_OK);
		assert_int_equal(rt_app_store_stage_write(&r->store, 0, b.bytes, b.len / 2), RT_APP_STORE_OK);
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, &a));
		assert_int_equal(upload_and_install(r, &bad), RT_APP_STORE_EREFUSED);
		assert_int_equal(upload(r, &b), RT_APP_STORE_OK);
		assert_int_equal(boot(r), RT_APP_STORE_OK);
		assert_true(installed_is(r, &a));
		assert_memory_equal(r->mem, slot0, SLOT_PAGES * PAGE);
		assert_memory_equal(r->sim.erase_count, erases, sizeof(erases));
	}
	/* Installed: C is the app now, and A's slot becomes the staging slot. */
	install_ok(r, &c);
	assert_int_equal(r->store.active, 1);
	assert_int_equal(upload(r, &b), RT_APP_STORE_OK);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &c));
	assert_int_equal(r->sim.violations, 0);
	free(slot0);
	free(a.bytes);
	free(b.bytes);
	free(c.bytes);
	free(bad.bytes);
	free(r);
}

/* A flash that fails one program after writing part of it, as a controller error can. */
typedef struct {
	hal_flash_t flash;
	const hal_flash_t *under;
	int fail_in;       /* programs until the failing one; 0: none */
	size_t write_part; /* bytes the failing program writes before failing */
} flaky_t;

static int flaky_read(void *ctx, uint32_t off, void *dst, size_t len)
{
	flaky_t *f = ctx;
	return hal_flash_read(f->under, off, dst, len);
}

static int flaky_program(void *ctx, uint32_t off, const void *src, size_t len)
{
	flaky_t *f = ctx;
	if (f->fail_in > 0 && --f->fail_in == 0) {
		size_t part = f->write_part < len ? f->write_part : 0;
		if (part > 0) {
			assert_int_equal(hal_flash_program(f->under, off, src, part), HAL_FLASH_OK);
		}
		return HAL_FLASH_EIO;
	}
	return hal_flash_program(f->under, off, src, len);
}

static int flaky_erase(void *ctx, uint32_t page)
{
	flaky_t *f = ctx;
	return hal_flash_erase(f->under, page);
}

static const hal_flash_ops_t flaky_ops = {flaky_read, flaky_program, flaky_erase};

/* A chunk whose write failed (part of it programmed) is given again and goes through; reads of
 * the staged bytes include those held back short of a write block. */
static void test_failed_write_is_retried_and_staged_bytes_read_back(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	flaky_t flaky = {r->win[1].flash, &r->win[1].flash, 0, 0};
	flaky.flash.ops = &flaky_ops;
	flaky.flash.ctx = &flaky;
	r->config.slot[1].flash = &flaky.flash;
	pkg_t a = make_pkg(1, 1000), b = make_pkg(2, 2000);
	rt_package_t pkg;

	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	install_ok(r, &a); /* slot 0 */
	assert_int_equal(rt_app_store_stage_begin(&r->store, (uint32_t)b.len), RT_APP_STORE_OK);
	size_t off = 0;
	int k = 0;
	while (off < b.len) {
		/* Chunks of 3, 250, 250, ... bytes; every other 250-byte chunk fails once. */
		size_t n = (k % 3 == 0) ? 3 : 250;
		bool fail = n == 250 && k % 2 == 0;
		k++;
		if (n > b.len - off) {
			n = b.len - off;
		}
		if (fail) {
			flaky.fail_in = 1;
			flaky.write_part = 8;
			assert_int_equal(rt_app_store_stage_write(&r->store, (uint32_t)off, b.bytes + off, n),
					 RT_APP_STORE_EFLASH);
		}
		assert_int_equal(rt_app_store_stage_write(&r->store, (uint32_t)off, b.bytes + off, n), RT_APP_STORE_OK);
		off += n;
		uint8_t back[2100];
		assert_int_equal(rt_app_store_stage_read(&r->store, 0, back, off), RT_APP_STORE_OK);
		assert_memory_equal(back, b.bytes, off);
		assert_int_equal(rt_app_store_stage_read(&r->store, 0, back, off + 1), RT_APP_STORE_EINVAL);
	}
	/* Out of order: refused, nothing written. */
	assert_int_equal(rt_app_store_stage_write(&r->store, 5, b.bytes, 1), RT_APP_STORE_EINVAL);
	assert_int_equal(rt_app_store_install(&r->store, (uint32_t)b.len, &pkg, r->msg, sizeof(r->msg)), RT_APP_STORE_OK);
	assert_ptr_equal(pkg.bytecode, r->mem + SLOT_PAGES * PAGE + 32 + RT_PACKAGE_HEADER_SIZE);
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &b));
	assert_int_equal(r->sim.violations, 0);
	free(a.bytes);
	free(b.bytes);
	free(r);
}

static void test_geometry_and_sizes(void **state)
{
	(void)state;
	rig_t *r = rig_new();
	rt_package_t pkg;
	rt_app_store_config_t bad = r->config;
	bad.slot[1].mapped = NULL;
	assert_int_equal(rt_app_store_mount(&r->store, &bad, r->msg, sizeof(r->msg)), RT_APP_STORE_EINVAL);
	hal_flash_t odd = r->win[1].flash;
	odd.page_size = 2048;
	bad = r->config;
	bad.slot[1].flash = &odd;
	assert_int_equal(rt_app_store_mount(&r->store, &bad, r->msg, sizeof(r->msg)), RT_APP_STORE_EINVAL);
	/* A slot of one 64-byte page has no room for a package after its header. */
	hal_flash_t tiny[2] = {r->win[0].flash, r->win[1].flash};
	tiny[0].page_size = tiny[1].page_size = 64;
	tiny[0].page_count = tiny[1].page_count = 1;
	bad = (rt_app_store_config_t){{{&tiny[0], r->mem}, {&tiny[1], r->mem + 64}}};
	assert_int_equal(rt_app_store_mount(&r->store, &bad, r->msg, sizeof(r->msg)), RT_APP_STORE_EINVAL);
	assert_int_equal(rt_app_store_stage_begin(&r->store, 10), RT_APP_STORE_ENOTMOUNTED);

	/* The largest package fits exactly; one byte more does not. */
	assert_int_equal(boot(r), RT_APP_STORE_ENOAPP);
	uint32_t cap = rt_app_store_capacity(&r->store);
	pkg_t big = make_pkg(1, cap - RT_PACKAGE_HEADER_SIZE), over = make_pkg(2, cap - RT_PACKAGE_HEADER_SIZE + 1);
	assert_int_equal(big.len, cap);
	install_ok(r, &big);
	assert_int_equal(rt_app_store_stage_begin(&r->store, cap + 1), RT_APP_STORE_ETOOBIG);
	assert_int_equal(rt_app_store_install_buffer(&r->store, over.bytes, over.len, &pkg, r->msg, sizeof(r->msg)),
			 RT_APP_STORE_ETOOBIG);
	assert_string_equal(r->msg, "package of 65505 bytes does not fit the app slot (65504 bytes)");
	assert_int_equal(boot(r), RT_APP_STORE_OK);
	assert_true(installed_is(r, &big));
	free(big.bytes);
	free(over.bytes);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blank_flash_has_no_app_and_the_factory_package_runs),
		cmocka_unit_test(test_installs_alternate_slots_and_survive_a_reboot),
		cmocka_unit_test(test_mount_writes_nothing),
		cmocka_unit_test(test_power_cut_at_every_operation_of_a_switch),
		cmocka_unit_test(test_roll_back_to_the_app_before),
		cmocka_unit_test(test_bit_flips_in_the_installed_app),
		cmocka_unit_test(test_truncated_package_is_refused),
		cmocka_unit_test(test_wrong_engine_is_refused_at_install_and_at_boot),
		cmocka_unit_test(test_signature_policy),
		cmocka_unit_test(test_ed25519_signed_package_is_refused),
		cmocka_unit_test(test_staging_rewritten_while_an_app_is_installed),
		cmocka_unit_test(test_failed_write_is_retried_and_staged_bytes_read_back),
		cmocka_unit_test(test_geometry_and_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The package signature verifier as the firmware builds it, on the emulated Cortex-M33: known
 * answers, refusals, and the instructions one check of a typical package costs.
 *
 * Prints one line per check ("ok ..." or "FAIL ..."), then the figures as the firmware prints its
 * own ("[beacon figure] name: value unit"), and ends QEMU with status 0 when every check passed,
 * 1 otherwise. Under -icount shift=0 an instruction is a nanosecond of virtual time, so the cycle
 * counter (CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC) counts instructions, as world_zephyr.c does.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include "hal_console.h"
#include "hal_crypto.h"
#include "host_link.h"
#include "rt_signature.h"
#include "signed_package_vector.h"

static int failures;

static void check(bool ok, const char *what)
{
	printk("%s %s\n", ok ? "ok" : "FAIL", what);
	failures += !ok;
}

/* rt_signature.c logs a refused trusted-key list through the HAL. */
void hal_log(hal_log_level_t level, const char *fmt, ...)
{
	va_list ap;
	char line[200];

	va_start(ap, fmt);
	vsnprintk(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("[log %d] %s\n", (int)level, line);
}

static void unhex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			char c = hex[2 * i + k];
			v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		out[i] = (uint8_t)v;
	}
}

static void sha256_text(const char *text, uint8_t digest[32])
{
	hal_crypto_chunk_t c = {(const uint8_t *)text, strlen(text)};
	check(hal_crypto_sha256(&c, 1, digest) == HAL_CRYPTO_OK, "SHA-256 computes");
}

/* Instructions between two readings of the 32-bit cycle counter (it wraps after minutes; each
 * measurement takes well under a second of virtual time). */
static uint64_t instructions_between(uint32_t from, uint32_t to)
{
	return (uint64_t)(uint32_t)(to - from) * (1000000000ull / CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC);
}

static void figure(const char *name, uint64_t value, const char *unit)
{
	printk("[beacon figure] %s: %llu %s\n", name, (unsigned long long)value, unit);
}

/* RFC 6979 A.2.5: the signatures of "sample" and "test" with SHA-256. */
static const char *const messages[] = {"sample", "test"};
static const char *const signatures[] = {
	"EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
	"F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8",
	"F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"
	"019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083",
};

static uint8_t pkg[VECTOR_PACKAGE_SIZE];

int main(void)
{
	uint8_t digest[32], want[32], sig[64];

	/* FIPS 180-2 B.1. */
	sha256_text("abc", digest);
	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	check(memcmp(digest, want, 32) == 0, "SHA-256 of \"abc\" (FIPS 180-2 B.1)");

	for (size_t i = 0; i < 2; i++) {
		sha256_text(messages[i], digest);
		unhex(signatures[i], sig, 64);
		check(hal_crypto_ecdsa_p256_verify(vector_public_key, digest, sig) == HAL_CRYPTO_OK,
		      "RFC 6979 A.2.5 signature verifies");
		/* A bit of r, of s and of the hash flipped. */
		for (size_t at = 0; at < 3; at++) {
			uint8_t *p = at == 0 ? &sig[5] : at == 1 ? &sig[40] : &digest[31];
			*p ^= 0x01;
			check(hal_crypto_ecdsa_p256_verify(vector_public_key, digest, sig) ==
				      HAL_CRYPTO_MISMATCH,
			      "a flipped bit (r, s, hash) is refused");
			*p ^= 0x01;
		}
	}
	uint8_t bent[65];
	memcpy(bent, vector_public_key, 65);
	bent[64] ^= 0x01;
	check(hal_crypto_ecdsa_p256_verify(bent, digest, sig) == HAL_CRYPTO_BAD_KEY,
	      "a key off the curve is refused as a key");

	/* The typical package through the runtime's check, as an install makes it. */
	vector_package(pkg);
	rt_package_t checked = vector_checked(pkg);
	char msg[160] = "";
	char list[140];
	for (size_t i = 0; i < 65; i++) {
		snprintf(list + 2 * i, 3, "%02x", vector_public_key[i]);
	}
	check(rt_signature_trust_list_msg(list, msg, sizeof(msg)) == 1, "the key trusted from its hex form");
	check(rt_signature_check(pkg, &checked, msg, sizeof(msg)) == RT_SIGNATURE_OK,
	      "the typical signed package is accepted");
	pkg[RT_PACKAGE_HEADER_SIZE + 4000] ^= 0x10;
	check(rt_signature_check(pkg, &checked, msg, sizeof(msg)) == RT_SIGNATURE_INVALID,
	      "a bit of its code changed: refused");
	printk("  %s\n", msg);
	pkg[RT_PACKAGE_HEADER_SIZE + 4000] ^= 0x10;

	/* Figures: a whole check of the package, and its parts. */
	enum { N = 4 };
	uint32_t t0 = k_cycle_get_32();
	for (int i = 0; i < N; i++) {
		(void)rt_signature_check(pkg, &checked, msg, sizeof(msg));
	}
	uint32_t t1 = k_cycle_get_32();
	const hal_crypto_chunk_t parts[] = {{pkg, RT_PACKAGE_SIGNED_HEADER_BYTES},
					    {pkg + RT_PACKAGE_HEADER_SIZE, VECTOR_CODE_SIZE}};
	for (int i = 0; i < N; i++) {
		(void)hal_crypto_sha256(parts, 2, digest);
	}
	uint32_t t2 = k_cycle_get_32();
	for (int i = 0; i < N; i++) {
		(void)hal_crypto_ecdsa_p256_verify(vector_public_key, digest,
						   pkg + VECTOR_PACKAGE_SIZE - 64);
	}
	uint32_t t3 = k_cycle_get_32();
	figure("signature.zephyr.mps2_an521.check_8689_bytes", instructions_between(t0, t1) / N,
	       "instructions");
	figure("signature.zephyr.mps2_an521.sha256_8549_bytes", instructions_between(t1, t2) / N,
	       "instructions");
	figure("signature.zephyr.mps2_an521.ecdsa_p256_verify", instructions_between(t2, t3) / N,
	       "instructions");
	size_t unused = 0;
	if (k_thread_stack_space_get(k_current_get(), &unused) == 0) {
		figure("signature.zephyr.mps2_an521.main_stack_peak",
		       CONFIG_MAIN_STACK_SIZE - unused, "bytes");
	}
	printk("%s: %d failed\n", failures ? "FAIL" : "PASS", failures);
	host_link_exit(failures ? 1 : 0);
}

/*
 * The OS-side HAL pieces of the emulated device (what src/port/host gives the simulator): the
 * critical section, the execution-time clock, CRC-32, cryptography and the fatal path. The
 * simulated hardware itself is the world's (src/world/world_hal.c), shared with the simulator.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hal_clock.h"
#include "hal_crypto.h"
#include "hal_lock.h"
#include "qemu_port.h"
#include "rt_package.h"
#include "world.h"

/* PRIMASK: the SysTick interrupt (the only one enabled) is held off inside. */
hal_lock_key_t hal_lock(void)
{
	hal_lock_key_t key;
	__asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(key)::"memory");
	return key;
}

void hal_unlock(hal_lock_key_t key)
{
	__asm__ volatile("msr primask, %0" ::"r"(key) : "memory");
}

/* The engine's execution-time limit counts instructions at the device's clock rate, so a runaway
 * loop is stopped after the same work on every run (virtual time is deterministic). */
uint64_t hal_clock_real_ms(void)
{
	return qemu_instructions() / (QEMU_DEVICE_HZ / 1000u);
}

/*
 * CRC-32 (IEEE 802.3, reflected, as zlib's and Zephyr's crc32_ieee_update). Four bits at a time
 * from a 16-entry table: 64 bytes of flash instead of 1 KB, and the record store and package
 * checks it serves are not on a hot path.
 */
uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
	static const uint32_t table[16] = {
		0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
		0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
		0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
	};
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= data[i];
		crc = (crc >> 4) ^ table[crc & 15u];
		crc = (crc >> 4) ^ table[crc & 15u];
	}
	return ~crc;
}

/*
 * No cryptography library in this image: the device verifies with the PSA Crypto API of Mbed TLS
 * (src/port/psa/hal_crypto_psa.c, from hal_crypto_zephyr.c), which has no bare-metal build here.
 * The image trusts no key, so signatures are not checked (as on the simulator without --trust);
 * one that trusted a key would refuse every signed package with "built without ECDSA P-256"
 * (rt_signature.c), never accept one unverified.
 */
hal_crypto_result_t hal_crypto_sha256(const hal_crypto_chunk_t *chunks, size_t count,
				      uint8_t digest[32])
{
	(void)chunks;
	(void)count;
	(void)digest;
	return HAL_CRYPTO_UNSUPPORTED;
}

hal_crypto_result_t hal_crypto_ecdsa_p256_verify(const uint8_t public_key[65],
						 const uint8_t hash[32],
						 const uint8_t signature[64])
{
	(void)public_key;
	(void)hash;
	(void)signature;
	return HAL_CRYPTO_UNSUPPORTED;
}

void qemu_fault_exit(const char *reason)
{
	fflush(stdout);
	fprintf(stderr, "[beacon fatal] %s\n", reason);
	fflush(stderr);
	exit(70);
}

/* A fault outside any device's guarded code: the image ends, as the simulator's process. */
void world_port_fatal(const char *reason)
{
	qemu_fault_exit(reason);
}

#include "rt_package.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rt_api_version.h"
#include "rt_le.h"

static const char *engine_name(uint32_t id)
{
	switch (id) {
	case ENG_ID_DUKTAPE: return "Duktape";
	case ENG_ID_JERRYSCRIPT: return "JerryScript";
	default: return "an unknown engine";
	}
}

static uint32_t package_crc(const uint8_t *buf, size_t len)
{
	uint32_t crc = rt_crc32(0, buf, 36);
	return rt_crc32(crc, buf + RT_PACKAGE_HEADER_SIZE, len - RT_PACKAGE_HEADER_SIZE);
}

#define V3(v) (unsigned)((v) >> 16), (unsigned)(((v) >> 8) & 0xffu), (unsigned)((v) & 0xffu)
#define EV3(v) (unsigned)((v) / 10000u), (unsigned)((v) / 100u % 100u), (unsigned)((v) % 100u)

rt_package_status_t rt_package_check(const uint8_t *buf, size_t len, rt_package_t *out,
				     char *msg, size_t msg_cap)
{
	if (len < RT_PACKAGE_HEADER_SIZE) {
		snprintf(msg, msg_cap, "not an app package: %zu bytes, shorter than a header", len);
		return RT_PACKAGE_TRUNCATED;
	}
	if (memcmp(buf, RT_PACKAGE_MAGIC, 4) != 0) {
		snprintf(msg, msg_cap, "not an app package (no BAPP magic)");
		return RT_PACKAGE_BAD_MAGIC;
	}
	rt_package_t p;
	p.format = rt_le16_load(buf + 4);
	p.header_size = rt_le16_load(buf + 6);
	p.api_version = rt_le32_load(buf + 8);
	p.engine_id = rt_le32_load(buf + 12);
	p.engine_version = rt_le32_load(buf + 16);
	p.engine_config = rt_le32_load(buf + 20);
	p.bytecode_size = rt_le32_load(buf + 24);
	p.source_size = rt_le32_load(buf + 28);
	p.flags = rt_le32_load(buf + 32);
	p.crc = rt_le32_load(buf + 36);
	if (p.format != RT_PACKAGE_FORMAT) {
		snprintf(msg, msg_cap, "package format %u is not supported (this firmware reads format %u)",
			 (unsigned)p.format, RT_PACKAGE_FORMAT);
		return RT_PACKAGE_BAD_FORMAT;
	}
	if (p.header_size != RT_PACKAGE_HEADER_SIZE) {
		snprintf(msg, msg_cap, "package is damaged: header size %u, format %u has %u",
			 (unsigned)p.header_size, RT_PACKAGE_FORMAT, RT_PACKAGE_HEADER_SIZE);
		return RT_PACKAGE_BAD_FORMAT;
	}
	size_t body = len - RT_PACKAGE_HEADER_SIZE;
	bool is_signed = (p.flags & RT_PACKAGE_FLAG_SIGNED) != 0;
	if (p.bytecode_size == 0 || p.bytecode_size > body ||
	    (!is_signed && body != p.bytecode_size)) {
		snprintf(msg, msg_cap, "package is damaged: header says %u bytes of code, file has %zu",
			 (unsigned)p.bytecode_size, body);
		return p.bytecode_size > body ? RT_PACKAGE_TRUNCATED : RT_PACKAGE_BAD_SIZE;
	}
	const uint8_t *sig = buf + RT_PACKAGE_HEADER_SIZE + p.bytecode_size;
	size_t trailer = body - p.bytecode_size;
	if (is_signed) {
		/* The block says its own size (algorithms differ in it); the CRC below then covers
		 * the size read here. */
		if (trailer < RT_PACKAGE_SIG_HEADER_SIZE) {
			snprintf(msg, msg_cap,
				 "package is damaged: header says %u bytes of code and a signature, file has %zu",
				 (unsigned)p.bytecode_size, body);
			return RT_PACKAGE_TRUNCATED;
		}
		if (memcmp(sig, RT_PACKAGE_SIG_MAGIC, 4) != 0) {
			snprintf(msg, msg_cap, "package is damaged: no signature block where its header says one is");
			return RT_PACKAGE_BAD_SIGNATURE_BLOCK;
		}
		size_t block = rt_le16_load(sig + 6);
		if (block != trailer) {
			snprintf(msg, msg_cap,
				 "package is damaged: header says %u bytes of code and a %zu-byte signature, file has %zu",
				 (unsigned)p.bytecode_size, block, body);
			return trailer < block ? RT_PACKAGE_TRUNCATED : RT_PACKAGE_BAD_SIZE;
		}
	}
	uint32_t crc = package_crc(buf, len);
	if (crc != p.crc) {
		snprintf(msg, msg_cap, "package is damaged: CRC-32 is %08x, header says %08x",
			 (unsigned)crc, (unsigned)p.crc);
		return RT_PACKAGE_BAD_CRC;
	}
	if (p.engine_id != eng_id()) {
		snprintf(msg, msg_cap, "package was built for %s; this firmware runs %s (rebuild with --engine %s)",
			 engine_name(p.engine_id), eng_name(),
			 eng_id() == ENG_ID_DUKTAPE ? "duktape" : "jerryscript");
		return RT_PACKAGE_WRONG_ENGINE;
	}
	if (p.engine_version != eng_version()) {
		snprintf(msg, msg_cap, "package was built for %s %u.%u.%u; this firmware runs %u.%u.%u",
			 eng_name(), EV3(p.engine_version), EV3(eng_version()));
		return RT_PACKAGE_WRONG_ENGINE_VERSION;
	}
	if (p.engine_config != eng_config_hash()) {
		snprintf(msg, msg_cap, "package was built for a %s configured differently (config %08x, firmware %08x)",
			 eng_name(), (unsigned)p.engine_config, (unsigned)eng_config_hash());
		return RT_PACKAGE_WRONG_ENGINE_CONFIG;
	}
	if (rt_api_version_bit_of(p.api_version) < 0) {
		snprintf(msg, msg_cap, "package needs API %u.%u.%u, which this firmware does not have",
			 V3(p.api_version));
		return RT_PACKAGE_UNKNOWN_API;
	}
	if (p.flags & ~RT_PACKAGE_KNOWN_FLAGS) {
		snprintf(msg, msg_cap, "package uses features this firmware does not know (flags %08x)",
			 (unsigned)p.flags);
		return RT_PACKAGE_UNKNOWN_FLAGS;
	}
	p.signature = NULL;
	if (is_signed) {
		unsigned alg = rt_le16_load(sig + 4);
		if (alg == RT_PACKAGE_SIG_ALG_ED25519_SHA256) {
			/* Short enough for an SMP answer (rt_smp.c: 120 bytes). */
			snprintf(msg, msg_cap, "package is signed with Ed25519, which devices no longer accept: "
					       "re-sign it with a new P-256 key (beacon keygen)");
			return RT_PACKAGE_RETIRED_SIGNATURE;
		}
		if (alg != RT_PACKAGE_SIG_ALG_ECDSA_P256_SHA256) {
			snprintf(msg, msg_cap, "package is signed with algorithm %u, which this firmware does not know",
				 alg);
			return RT_PACKAGE_BAD_SIGNATURE_BLOCK;
		}
		if (trailer != RT_PACKAGE_SIG_SIZE) {
			snprintf(msg, msg_cap, "package is damaged: its ECDSA P-256 signature block is %zu bytes, not %u",
				 trailer, RT_PACKAGE_SIG_SIZE);
			return RT_PACKAGE_BAD_SIGNATURE_BLOCK;
		}
		p.signature = sig;
	}
	p.bytecode = buf + RT_PACKAGE_HEADER_SIZE;
	*out = p;
	return RT_PACKAGE_OK;
}

uint8_t *rt_package_build(uint32_t api_version, const uint8_t *bytecode, size_t bytecode_len,
			  size_t source_size, size_t *out_len)
{
	size_t len = RT_PACKAGE_HEADER_SIZE + bytecode_len;
	uint8_t *buf = malloc(len);
	if (buf == NULL) {
		return NULL;
	}
	memcpy(buf, RT_PACKAGE_MAGIC, 4);
	rt_le16_store(buf + 4, RT_PACKAGE_FORMAT);
	rt_le16_store(buf + 6, RT_PACKAGE_HEADER_SIZE);
	rt_le32_store(buf + 8, api_version);
	rt_le32_store(buf + 12, eng_id());
	rt_le32_store(buf + 16, eng_version());
	rt_le32_store(buf + 20, eng_config_hash());
	rt_le32_store(buf + 24, (uint32_t)bytecode_len);
	rt_le32_store(buf + 28, (uint32_t)source_size);
	rt_le32_store(buf + 32, RT_PACKAGE_FLAG_PARITY);
	memcpy(buf + RT_PACKAGE_HEADER_SIZE, bytecode, bytecode_len);
	rt_le32_store(buf + 36, package_crc(buf, len));
	*out_len = len;
	return buf;
}

/*
 * sim_flash_file.c: the simulated flash image kept in a file between runs of the simulator
 * (beacon-sim --flash). The format is in sim_flash_file.h.
 */
#include "sim_flash_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_le.h"

#include <zlib.h>

#define WORD 4u
#define FILE_FORMAT 1u
static const uint8_t file_magic[8] = {'B', 'C', 'N', 'F', 'L', 'A', 'S', 'H'};

static void say(char *msg, size_t msg_len, const char *fmt, ...)
{
	if (msg == NULL || msg_len == 0) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, msg_len, fmt, ap);
	va_end(ap);
}

static void make_header(const sim_flash_t *sim, uint8_t h[SIM_FLASH_FILE_HEADER_SIZE])
{
	memset(h, 0, SIM_FLASH_FILE_HEADER_SIZE);
	memcpy(h, file_magic, sizeof(file_magic));
	rt_le32_store(h + 8, FILE_FORMAT);
	rt_le32_store(h + 12, sim->page_size);
	rt_le32_store(h + 16, WORD);
	rt_le32_store(h + 20, sim->page_count);
	/* zlib's CRC-32, as everywhere else on the host (crc_host.c). */
	rt_le32_store(h + 24, (uint32_t)crc32(0, h, 24));
}

/*
 * Checks an open file against this flash's geometry: 0 when it holds an image for it, -1 with the
 * reason otherwise. Leaves the file positioned after the header.
 */
static int check_file(const sim_flash_t *sim, FILE *f, const char *path, char *msg, size_t msg_len)
{
	uint8_t h[SIM_FLASH_FILE_HEADER_SIZE];
	size_t got = fread(h, 1, sizeof(h), f);
	if (got < sizeof(h)) {
		say(msg, msg_len, "%s: not a flash image (%zu bytes, shorter than its %u-byte header)",
		    path, got, SIM_FLASH_FILE_HEADER_SIZE);
		return -1;
	}
	if (memcmp(h, file_magic, sizeof(file_magic)) != 0) {
		say(msg, msg_len, "%s: not a flash image (no BCNFLASH header)", path);
		return -1;
	}
	if (rt_le32_load(h + 24) != (uint32_t)crc32(0, h, 24)) {
		say(msg, msg_len, "%s: damaged flash image header (CRC mismatch)", path);
		return -1;
	}
	if (rt_le32_load(h + 8) != FILE_FORMAT) {
		say(msg, msg_len, "%s: flash image format %u, this simulator reads format %u", path,
		    (unsigned)rt_le32_load(h + 8), FILE_FORMAT);
		return -1;
	}
	uint32_t page_size = rt_le32_load(h + 12), block = rt_le32_load(h + 16), pages = rt_le32_load(h + 20);
	if (page_size != sim->page_size || block != WORD || pages != sim->page_count) {
		say(msg, msg_len,
		    "%s: flash image of %u pages of %u bytes (write block %u); this flash has %u pages "
		    "of %u bytes (write block %u)",
		    path, (unsigned)pages, (unsigned)page_size, (unsigned)block,
		    (unsigned)sim->page_count, (unsigned)sim->page_size, WORD);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0) {
		say(msg, msg_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	long end = ftell(f);
	long want = (long)SIM_FLASH_FILE_HEADER_SIZE + (long)sim->page_size * (long)sim->page_count;
	if (end != want) {
		say(msg, msg_len, "%s: flash image is %ld bytes, expected %ld (truncated or damaged)",
		    path, end, want);
		return -1;
	}
	if (fseek(f, SIM_FLASH_FILE_HEADER_SIZE, SEEK_SET) != 0) {
		say(msg, msg_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int sim_flash_load(sim_flash_t *sim, const char *path, char *msg, size_t msg_len)
{
	size_t size = (size_t)sim->page_size * sim->page_count;
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		if (errno == ENOENT) {
			return 0;
		}
		say(msg, msg_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = check_file(sim, f, path, msg, msg_len);
	if (rc == 0 && fread(sim->mem, 1, size, f) != size) {
		say(msg, msg_len, "%s: could not read the flash image", path);
		memset(sim->mem, 0xFF, size);
		rc = -1;
	}
	fclose(f);
	return rc == 0 ? 1 : -1;
}

int sim_flash_save(const sim_flash_t *sim, const char *path, char *msg, size_t msg_len)
{
	FILE *old = fopen(path, "rb");
	if (old != NULL) {
		char why[256];
		int rc = check_file(sim, old, path, why, sizeof(why));
		fclose(old);
		if (rc != 0) {
			say(msg, msg_len, "%s; not overwritten", why);
			return -1;
		}
	}
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		say(msg, msg_len, "%s: path too long", path);
		return -1;
	}
	FILE *f = fopen(tmp, "wb");
	if (f == NULL) {
		say(msg, msg_len, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	uint8_t h[SIM_FLASH_FILE_HEADER_SIZE];
	make_header(sim, h);
	size_t size = (size_t)sim->page_size * sim->page_count;
	bool ok = fwrite(h, 1, sizeof(h), f) == sizeof(h) && fwrite(sim->mem, 1, size, f) == size;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		say(msg, msg_len, "%s: could not write the flash image: %s", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

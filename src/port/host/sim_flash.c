/*
 * The simulator's flash: RAM-backed, nRF52840 rules, power cuts and bit rot (see sim_flash.h).
 */
#include "sim_flash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#define WORD 4u

static const uint8_t file_magic[8] = {'B', 'C', 'N', 'F', 'L', 'A', 'S', 'H'};
#define FILE_FORMAT 1u

/*
 * A small mixing function (the finaliser of MurmurHash3) of seed and operation number: what a
 * cut leaves depends only on them, so every replay of a test leaves the same bytes.
 */
static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static uint32_t rnd(const sim_flash_t *sim, uint32_t salt)
{
	return mix(sim->cut_seed ^ mix((uint32_t)sim->ops * 0x9e3779b9u ^ mix(salt + 1u)));
}

static uint32_t load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Counts one program or erase; true when this is the one the power fails in. */
static bool next_op_is_cut(sim_flash_t *sim)
{
	sim->ops++;
	if (sim->cut_at != 0 && sim->ops == sim->cut_at) {
		sim->powered = false;
		return true;
	}
	return false;
}

static int sim_read(void *ctx, uint32_t offset, void *dst, size_t len)
{
	sim_flash_t *sim = ctx;
	if (!sim->powered) {
		return HAL_FLASH_EPOWER;
	}
	uint32_t size = sim->page_size * sim->page_count;
	if (offset > size || len > size - offset) {
		return HAL_FLASH_ERANGE;
	}
	sim->reads++;
	memcpy(dst, sim->mem + offset, len);
	return HAL_FLASH_OK;
}

static int sim_program(void *ctx, uint32_t offset, const void *src, size_t len)
{
	sim_flash_t *sim = ctx;
	if (!sim->powered) {
		return HAL_FLASH_EPOWER;
	}
	uint32_t size = sim->page_size * sim->page_count;
	if (offset > size || len > size - offset) {
		return HAL_FLASH_ERANGE;
	}
	if (offset % WORD != 0 || len % WORD != 0) {
		return HAL_FLASH_EALIGN;
	}
	/* The whole request is checked first: a refused one changes nothing. */
	for (size_t i = 0; i < len; i += WORD) {
		if (load32(sim->mem + offset + i) != 0xFFFFFFFFu) {
			sim->violations++;
			return HAL_FLASH_ENOTERASED;
		}
	}
	const uint8_t *in = src;
	for (size_t i = 0; i < len; i += WORD) {
		uint8_t *word = sim->mem + offset + i;
		uint32_t want = load32(in + i);
		if (next_op_is_cut(sim)) {
			uint32_t r = rnd(sim, offset + (uint32_t)i);
			switch (r % 3u) {
			case 0: /* nothing reached the cells */
				break;
			case 1: /* the word was done */
				store32(word, want);
				break;
			default: /* stopped half-way: only some of the bits to clear are cleared */
				store32(word, 0xFFFFFFFFu & (want | mix(r)));
				break;
			}
			return HAL_FLASH_EPOWER;
		}
		sim->word_programs++;
		store32(word, want); /* the word is erased, so AND with it is the value itself */
	}
	return HAL_FLASH_OK;
}

static int sim_erase(void *ctx, uint32_t page)
{
	sim_flash_t *sim = ctx;
	if (!sim->powered) {
		return HAL_FLASH_EPOWER;
	}
	if (page >= sim->page_count) {
		return HAL_FLASH_ERANGE;
	}
	uint8_t *base = sim->mem + (size_t)page * sim->page_size;
	if (next_op_is_cut(sim)) {
		/*
		 * How far the erase got (0..255 of 256) is drawn once per cut, so that some cuts
		 * leave a page almost untouched and others almost erased; then each word is erased
		 * with that chance, or left part-way (some bits back to 1), or untouched.
		 */
		uint32_t progress = rnd(sim, page) & 0xFFu;
		for (uint32_t i = 0; i < sim->page_size; i += WORD) {
			uint32_t r = rnd(sim, page * sim->page_size + i + 1u);
			uint32_t old = load32(base + i);
			if ((r & 0xFFu) < progress) {
				store32(base + i, 0xFFFFFFFFu);
			} else if ((r >> 8) % 4u == 0) {
				store32(base + i, old | mix(r));
			}
		}
		return HAL_FLASH_EPOWER;
	}
	sim->page_erases++;
	if (page < SIM_FLASH_MAX_PAGES) {
		sim->erase_count[page]++;
	}
	memset(base, 0xFF, sim->page_size);
	return HAL_FLASH_OK;
}

static const hal_flash_ops_t sim_ops = {
	.read = sim_read,
	.program = sim_program,
	.erase = sim_erase,
};

bool sim_flash_init(sim_flash_t *sim, uint8_t *mem, uint32_t page_size, uint32_t page_count)
{
	memset(sim, 0, sizeof(*sim));
	if (mem == NULL || page_size == 0 || page_size % WORD != 0 || page_count == 0 ||
	    page_count > SIM_FLASH_MAX_PAGES || page_size > UINT32_MAX / page_count) {
		return false;
	}
	sim->mem = mem;
	sim->page_size = page_size;
	sim->page_count = page_count;
	sim->powered = true;
	sim->flash.ops = &sim_ops;
	sim->flash.ctx = sim;
	sim->flash.page_size = page_size;
	sim->flash.write_block = WORD;
	sim->flash.page_count = page_count;
	memset(mem, 0xFF, (size_t)page_size * page_count);
	return true;
}

void sim_flash_cut_after(sim_flash_t *sim, uint64_t n, uint32_t seed)
{
	sim->cut_at = n == 0 ? 0 : sim->ops + n;
	sim->cut_seed = seed;
}

void sim_flash_power_on(sim_flash_t *sim)
{
	sim->powered = true;
	sim->cut_at = 0;
}

bool sim_flash_is_cut(const sim_flash_t *sim)
{
	return !sim->powered;
}

void sim_flash_flip_bit(sim_flash_t *sim, uint32_t offset, unsigned bit)
{
	if (offset < sim->page_size * sim->page_count) {
		sim->mem[offset] ^= (uint8_t)(1u << (bit & 7u));
	}
}

/* ------------------------------------------------------------------------------------ files */

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
	store32(h + 8, FILE_FORMAT);
	store32(h + 12, sim->page_size);
	store32(h + 16, WORD);
	store32(h + 20, sim->page_count);
	/* zlib's CRC-32, as everywhere else on the host (crc_host.c). */
	store32(h + 24, (uint32_t)crc32(0, h, 24));
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
	if (load32(h + 24) != (uint32_t)crc32(0, h, 24)) {
		say(msg, msg_len, "%s: damaged flash image header (CRC mismatch)", path);
		return -1;
	}
	if (load32(h + 8) != FILE_FORMAT) {
		say(msg, msg_len, "%s: flash image format %u, this simulator reads format %u", path,
		    (unsigned)load32(h + 8), FILE_FORMAT);
		return -1;
	}
	uint32_t page_size = load32(h + 12), block = load32(h + 16), pages = load32(h + 20);
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

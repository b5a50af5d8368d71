/*
 * The simulator's flash: RAM-backed, nRF52840 rules, power cuts and bit rot (see sim_flash.h).
 */
#include "sim_flash.h"

#include <string.h>

#include "rt_le.h"


#define WORD 4u


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
		if (rt_le32_load(sim->mem + offset + i) != 0xFFFFFFFFu) {
			sim->violations++;
			return HAL_FLASH_ENOTERASED;
		}
	}
	const uint8_t *in = src;
	for (size_t i = 0; i < len; i += WORD) {
		uint8_t *word = sim->mem + offset + i;
		uint32_t want = rt_le32_load(in + i);
		if (next_op_is_cut(sim)) {
			uint32_t r = rnd(sim, offset + (uint32_t)i);
			switch (r % 3u) {
			case 0: /* nothing reached the cells */
				break;
			case 1: /* the word was done */
				rt_le32_store(word, want);
				break;
			default: /* stopped half-way: only some of the bits to clear are cleared */
				rt_le32_store(word, 0xFFFFFFFFu & (want | mix(r)));
				break;
			}
			return HAL_FLASH_EPOWER;
		}
		sim->word_programs++;
		rt_le32_store(word, want); /* the word is erased, so AND with it is the value itself */
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
			uint32_t old = rt_le32_load(base + i);
			if ((r & 0xFFu) < progress) {
				rt_le32_store(base + i, 0xFFFFFFFFu);
			} else if ((r >> 8) % 4u == 0) {
				rt_le32_store(base + i, old | mix(r));
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


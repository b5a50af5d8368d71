/*
 * sim_flash.h: the simulator's flash, in RAM, with the nRF52840's rules and injected faults.
 *
 * Geometry is the caller's (the device's is 4 KB pages, 4-byte words); the image is the caller's
 * memory, so a test or a simulated device owns everything and nothing is global. The rules are
 * enforced, not assumed: programming a word that is not erased is refused (and counted in
 * `violations`, which tests expect to stay 0), programming only clears bits, erase sets a page to
 * 0xFF.
 *
 * Power cuts: sim_flash_cut_after(f, n, seed) makes the n-th word program or page erase from now
 * the one the power fails in. That word is left as it was, as it would have been, or with only
 * some of its bits cleared (real flash can stop half-way through a word, so this is stricter than
 * old-or-new); that page is left partly erased: how far the erase got is drawn once per cut, then
 * each word is erased, untouched or with some bits set. The choices are a pseudo-random function
 * of the seed and the operation number, so a run can be replayed exactly. From then on every
 * operation, reads included, fails with HAL_FLASH_EPOWER until sim_flash_power_on().
 *
 * The image can be kept in a file between runs by the host port (src/port/host/sim_flash_file.h).
 */
#ifndef SIM_FLASH_H
#define SIM_FLASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_flash.h"

#define SIM_FLASH_MAX_PAGES 1024u

typedef struct sim_flash {
	hal_flash_t flash; /* hand &sim->flash to the code under test */
	uint8_t *mem;      /* page_size * page_count bytes, the caller's */
	uint32_t page_size;
	uint32_t page_count;
	uint64_t ops;          /* word programs and page erases so far */
	uint64_t word_programs;
	uint64_t page_erases;
	uint64_t reads;
	uint32_t violations;   /* programs of words that were not erased */
	uint64_t cut_at;       /* value of ops at which the power fails; 0: never */
	uint32_t cut_seed;
	bool powered;
	uint32_t erase_count[SIM_FLASH_MAX_PAGES]; /* per page, for wear figures */
} sim_flash_t;

/*
 * Set up an erased flash of page_count pages of page_size bytes (a multiple of 4) over mem
 * (page_size * page_count bytes). Returns false for a geometry it cannot hold.
 */
bool sim_flash_init(sim_flash_t *sim, uint8_t *mem, uint32_t page_size, uint32_t page_count);

/* Fail the n-th (n >= 1) program-word or erase-page operation from now; see above. */
void sim_flash_cut_after(sim_flash_t *sim, uint64_t n, uint32_t seed);
/* Power comes back: operations work again and no cut is pending. */
void sim_flash_power_on(sim_flash_t *sim);
/* True once a cut has happened and power has not come back. */
bool sim_flash_is_cut(const sim_flash_t *sim);

/* Bit rot: flip one bit of the stored image, outside the rules and the operation count. */
void sim_flash_flip_bit(sim_flash_t *sim, uint32_t offset, unsigned bit);



#endif /* SIM_FLASH_H */

/*
 * sim_flash_file.h: a simulated flash image kept in a file between runs of the simulator.
 *
 * The file is a 32-byte header (magic "BCNFLASH", format 1, page size, write block, page count, CRC-32 of
 * the fields, little endian) followed by the image. A file with another geometry or a damaged
 * header is refused with a message saying which, and save never overwrites such a file.
 */
#ifndef SIM_FLASH_FILE_H
#define SIM_FLASH_FILE_H

#include <stddef.h>

#include "sim_flash.h"

#define SIM_FLASH_FILE_HEADER_SIZE 32u

/*
 * Fill the image from a file made by sim_flash_save with the same geometry. Returns 1 when it
 * was loaded, 0 when there is no such file (the flash stays erased), -1 with a message in msg when
 * the file is refused (another geometry, damaged header, wrong length, unreadable); the flash then
 * stays erased.
 */
int sim_flash_load(sim_flash_t *sim, const char *path, char *msg, size_t msg_len);
/*
 * Write the image to path (through a temporary file and a rename, so a crash leaves the old file
 * or the new one). An existing file that sim_flash_load would refuse is not overwritten: -1 and a
 * message. 0 on success.
 */
int sim_flash_save(const sim_flash_t *sim, const char *path, char *msg, size_t msg_len);

#endif /* SIM_FLASH_FILE_H */

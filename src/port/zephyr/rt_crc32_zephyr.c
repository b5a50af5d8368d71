/*
 * rt_crc32 on Zephyr: the kernel library's CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320).
 *
 * crc32_ieee_update() inverts the running value on entry and on exit, exactly as zlib's crc32()
 * that the host port uses: both start from 0, and feeding a buffer in pieces, each call taking
 * the previous result, gives the CRC of the whole buffer. An empty piece leaves the value as it
 * was, as on the host.
 */
#include "rt_package.h"

#include <stddef.h>
#include <stdint.h>

#include <zephyr/sys/crc.h>

uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
	return crc32_ieee_update(crc, data, len);
}

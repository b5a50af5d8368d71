/* CRC-32 (IEEE 802.3) from zlib on the host; the device uses Zephyr's crc32_ieee_update. */
#include <zlib.h>

#include "rt_crc32.h"

uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
	while (len > 0) {
		uInt chunk = len > 0x40000000u ? 0x40000000u : (uInt)len;
		crc = (uint32_t)crc32(crc, data, chunk);
		data += chunk;
		len -= chunk;
	}
	return crc;
}

/*
 * rt_crc32.h: CRC-32 (IEEE 802.3, the one zlib and Zephyr's crc32_ieee compute), of packages,
 * flash records and uploads. Each port provides it from what it has: zlib on the host, Zephyr's
 * crc32_ieee on the device, a 4-bit table on the bare-metal image.
 */
#ifndef RT_CRC32_H
#define RT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of data continued from crc (0 to start). */
uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t len);

#endif /* RT_CRC32_H */

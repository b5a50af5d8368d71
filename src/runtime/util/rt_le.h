/*
 * rt_le.h: little-endian 16- and 32-bit fields in byte buffers (flash images, file headers, packets),
 * read and written byte by byte so that neither alignment nor the host's byte order matters.
 */
#ifndef RT_LE_H
#define RT_LE_H

#include <stdint.h>

static inline uint32_t rt_le32_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void rt_le32_store(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t rt_le16_load(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline void rt_le16_store(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

#endif /* RT_LE_H */

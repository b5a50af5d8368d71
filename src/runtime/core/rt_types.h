/*
 * rt_types.h: the plain C values the glue hands the runtime services besides numbers, booleans
 * and engine values (the generated args structs in api_types.h use them).
 */
#ifndef RT_TYPES_H
#define RT_TYPES_H

#include <stdint.h>

/* Longest byte string any Bytes<> parameter accepts (AltBeacon ids are 20 bytes, advertised
 * manufacturer data at most 29). */
#define RT_BYTES_MAX 32

typedef struct {
	uint8_t len;
	uint8_t data[RT_BYTES_MAX];
} rt_bytes_t;

/* Longest NumTuple<> (an RGB colour is 3). */
#define RT_TUPLE_MAX 4

typedef struct {
	uint8_t len;
	double item[RT_TUPLE_MAX];
} rt_tuple_t;

#endif /* RT_TYPES_H */

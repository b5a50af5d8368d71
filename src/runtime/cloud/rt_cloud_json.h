/*
 * rt_cloud_json.h: JSON text <-> the cloud protocol's CBOR (docs/cloud-protocol.md §3.1).
 *
 * The engine gives and takes app values as JSON (eng_json_stringify/parse); the wire carries
 * CBOR. Transcoding the text in C, rather than walking engine values, keeps the conversion pure
 * (testable without an engine, the same on both engines) and lets the queue store the exact
 * bytes that go on the wire, so an event is measured and checked once, at cloud.enqueue.
 *
 * JSON -> CBOR follows the protocol's rules: integers (including -0) in the shortest integer
 * form when within ±(2^53 - 1), every other number as float64; definite lengths; object keys as
 * text in the order JSON gives them. CBOR -> JSON accepts only what the protocol allows (no
 * tags, byte strings, undefined or other simple values, non-text map keys, non-finite floats).
 * No allocation: both write into a caller's buffer.
 */
#ifndef RT_CLOUD_JSON_H
#define RT_CLOUD_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "rt_cbor.h"

typedef enum {
	RT_CLOUD_JSON_OK = 0,
	RT_CLOUD_JSON_ESPACE,   /* the output buffer is too small */
	RT_CLOUD_JSON_EDEPTH,   /* nested deeper than allowed */
	RT_CLOUD_JSON_ESYNTAX,  /* not JSON (or not the protocol's CBOR) */
} rt_cloud_json_err_t;

/* Append the CBOR of one JSON value to e, nesting at most max_depth arrays and objects. */
rt_cloud_json_err_t rt_cloud_json_to_cbor(const char *json, size_t len, rt_cbor_enc_t *e,
					  unsigned max_depth);

/* Read one CBOR item from d and write its JSON into out (NUL-terminated); *out_len gets the
 * length without the NUL. */
rt_cloud_json_err_t rt_cloud_cbor_to_json(rt_cbor_dec_t *d, char *out, size_t cap, size_t *out_len,
					  unsigned max_depth);

#endif /* RT_CLOUD_JSON_H */

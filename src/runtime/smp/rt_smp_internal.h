/*
 * rt_smp_internal.h: what the files of the SMP server share and nothing outside it uses.
 *
 *   rt_smp.c         the header, a request's checks and fields, the dispatch, the OS group
 *   rt_smp_upload.c  the file-system group (uploads into the staging area, their status and
 *                    hash) and the beacon group (the app's status, install)
 */
#ifndef RT_SMP_INTERNAL_H
#define RT_SMP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_cbor.h"
#include "rt_smp.h"

/* One request being answered. */
typedef struct {
	rt_smp_server_t *s;
	rt_smp_hdr_t req;
	uint32_t client;
	uint32_t now;
	rt_cbor_enc_t e;
} rt_smp_ctx_t;

/* The fields any request of the served commands may carry. */
typedef struct {
	bool has_off, has_len, has_data, has_name, has_sha, has_type, has_d;
	uint64_t off, len;
	const uint8_t *data, *sha;
	size_t data_len, sha_len;
	const char *name, *type, *d;
	size_t name_len, type_len, d_len;
} rt_smp_fields_t;

/* Answer {"rc": rc}, replacing whatever the answer held. */
void rt_smp_answer_rc(rt_smp_ctx_t *c, uint32_t rc);
/* The same with a "msg" for the client (none when msg is NULL). */
void rt_smp_answer_rc_msg(rt_smp_ctx_t *c, uint32_t rc, const char *msg);
/* The groups' commands (rt_smp_upload.c); the header says which were served. */
void rt_smp_fs_group(rt_smp_ctx_t *c, const rt_smp_fields_t *f);
void rt_smp_beacon_group(rt_smp_ctx_t *c);

#endif /* RT_SMP_INTERNAL_H */

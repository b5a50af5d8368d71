/*
 * rig_smp.h: the rig's SMP client over its link (rig_link.h): the requests of docs/upload.md that
 * `beacon upload` sends (parameters, file upload in chunks with resumption, install, status), and
 * raw packets for the tests of hostile input.
 */
#ifndef RIG_SMP_H
#define RIG_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An answer, decoded: the fields the rig looks at (absent ones are -1 / ""). */
typedef struct {
	int64_t rc;       /* "rc" */
	int64_t err_group, err_rc; /* "err": {group, rc} (SMP version 2) */
	int64_t off;      /* "off" */
	int64_t buf_size; /* "buf_size" */
	char msg[160];    /* "msg" */
	char state[16];   /* "state" */
	uint8_t group, cmd, op;
} rig_answer_t;

/* Send a request and wait for its answer (the one with the request's sequence number). version:
 * 0 (SMP version 1) or 1 (version 2). 0, or a negative errno (-ETIMEDOUT: no answer). */
int rig_smp_request(uint8_t version, uint8_t op, uint16_t group, uint8_t cmd,
		    const uint8_t *body, size_t body_len, rig_answer_t *answer, uint32_t timeout_ms);
/* Send raw bytes as one packet (no answer awaited). */
int rig_smp_send_raw(const uint8_t *packet, size_t len);
/* Wait for any answer packet. */
int rig_smp_wait_any(rig_answer_t *answer, uint32_t timeout_ms);

/* The upload of a package in chunks of at most chunk bytes of data, from the offset the device
 * answers; stop_after > 0 stops (without installing) once that many bytes are acknowledged.
 * Returns the offset the device holds at the end, or a negative errno; *answer is the last. */
int64_t rig_smp_upload(const uint8_t *package, size_t len, const uint8_t *sha, size_t sha_len,
		       size_t chunk, size_t stop_after, rig_answer_t *answer);
/* The same, going on from offset `from`, which the device named (no first chunk). */
int64_t rig_smp_upload_from(const uint8_t *package, size_t len, const uint8_t *sha,
			    size_t sha_len, size_t chunk, size_t stop_after, rig_answer_t *answer,
			    size_t from);
/* One upload request (group 8, command 0): the chunk of n bytes at off; with sha (not NULL) it is a
 * first chunk, which also carries the package's length and sha. */
int rig_smp_chunk(size_t off, const uint8_t *data, size_t n, size_t len, const uint8_t *sha,
		  size_t sha_len, rig_answer_t *answer);
/* Install what was uploaded (group 77, command 1). */
int rig_smp_install(rig_answer_t *answer);
/* The largest request the device takes (group 0, command 6), or a negative errno. */
int64_t rig_smp_buf_size(void);

#endif /* RIG_SMP_H */

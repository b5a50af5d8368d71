/*
 * rt_smp.h: a transport-independent SMP (MCUmgr Simple Management Protocol) server, through
 * which app packages are uploaded and installed.
 *
 * A request is one SMP packet: an 8-byte header (res:3 ver:2 op:3 | flags | length (BE16) |
 * group (BE16) | sequence | command) and a CBOR map of `length` bytes. The transport (UDP: one
 * packet per datagram; serial: rt_smp_serial.h; BLE: reassembled GATT writes) hands the server
 * whole packets and sends back what rt_smp_handle() writes.
 *
 * Header version 0 is SMP version 1 (errors as {"rc": mcumgr_err_t}); version 1 is SMP version 2
 * (errors of a group as {"err": {"group": g, "rc": r}}; errors of SMP itself, such as an unknown
 * group or command, still as "rc"). Responses carry the request's version, op + 1, group,
 * sequence and command. Versions 2 and 3 are reserved and answered with rc 13 (protocol version
 * too new).
 *
 * Groups served:
 *   0  OS: echo (0), MCUmgr parameters (6: buf_size, buf_count, so clients size their chunks).
 *   8  File management: upload (0) of one file name only, RT_SMP_STAGING_NAME; status (1);
 *      hash/checksum (2, "crc32" only); supported hash types (3).
 *  77  beacon (RT_SMP_GROUP_BEACON, in the user range >= 64; 64 itself is left to the many
 *      samples that take the first user id): status (0, read) and install (1, write).
 *
 * Malformed requests: a declared length that does not match the bytes received is answered
 * with rc 9 (corrupt); a body that is not one well-formed CBOR map with rc 3 (invalid); then an
 * unknown group or command, or a command with an op it does not serve (file download, say),
 * with rc 8 (not supported); then a known field of the wrong type, or a required one missing,
 * with rc 3.
 *
 * Upload, resumable: the first chunk has off 0 and "len" (the whole size) and may carry "sha",
 * any byte string up to 32 bytes that names the package (beacon upload sends its SHA-256). A
 * chunk at another offset than the one the server expects is not written; the answer is
 * {"off": expected} and the client continues from there. That is also how a client resumes
 * after a lost link: it resends at its last acknowledged offset, or (a new process) sends the
 * first chunk again with the same "len" and "sha", and the server answers with the offset it
 * holds instead of starting over.
 *
 * One upload at a time: the staging area belongs to the client (a transport-level identity:
 * address and port, a serial line, a BLE connection) that started the upload, until it installs,
 * or stays silent for idle_ms, or restarts it with a new off-0 chunk. Another client's chunks
 * are refused with rc 10 (busy) meanwhile, except a first chunk with the same len and sha,
 * which takes the upload over (it is the same package: nothing can mix). A complete package
 * stays reserved to its uploader until it asks to install or idles out, so a second uploader
 * cannot replace it between the last chunk and the install.
 *
 * Install (group 77, command 1) hands the complete staged package to the caller's install
 * callback, which verifies it (header, CRC, signature, API and engine version) and switches to
 * it, or refuses it and leaves the running app alone; the answer carries its message. Either way
 * the staging area is free again afterwards.
 *
 * A staging area shared with another writer (rt_smp_staging_t's claim): while that writer holds
 * it, a first chunk, a later chunk and an install are answered rc 10 (busy) with the area's
 * message; an upload whose area was taken from it (it stayed silent for idle_ms) is forgotten.
 *
 * All state lives in rt_smp_server_t, which the caller owns; no heap, no OS call.
 */
#ifndef RT_SMP_H
#define RT_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_package.h"

#define RT_SMP_HDR_SIZE 8u

/* Header op codes (mcumgr_op_t). */
#define RT_SMP_OP_READ 0u
#define RT_SMP_OP_READ_RSP 1u
#define RT_SMP_OP_WRITE 2u
#define RT_SMP_OP_WRITE_RSP 3u

/* Header version field. */
#define RT_SMP_VERSION_1 0u
#define RT_SMP_VERSION_2 1u

#define RT_SMP_GROUP_OS 0u
#define RT_SMP_GROUP_FS 8u
#define RT_SMP_GROUP_BEACON 77u

#define RT_SMP_OS_ECHO 0u
#define RT_SMP_OS_PARAMS 6u
#define RT_SMP_FS_FILE 0u
#define RT_SMP_FS_STATUS 1u
#define RT_SMP_FS_HASH 2u
#define RT_SMP_FS_HASH_TYPES 3u
#define RT_SMP_BEACON_STATUS 0u
#define RT_SMP_BEACON_INSTALL 1u

/* The one file name the file management group accepts. */
#define RT_SMP_STAGING_NAME "/app/staged.bapp"
/* Longest "sha" the server keeps to recognise a resumed upload. */
#define RT_SMP_SHA_MAX 32u

/* mcumgr_err_t. */
typedef enum {
	RT_SMP_ERR_OK = 0,
	RT_SMP_ERR_UNKNOWN = 1,
	RT_SMP_ERR_NOMEM = 2,
	RT_SMP_ERR_INVAL = 3,
	RT_SMP_ERR_TIMEOUT = 4,
	RT_SMP_ERR_NOENT = 5,
	RT_SMP_ERR_BADSTATE = 6,
	RT_SMP_ERR_MSGSIZE = 7,
	RT_SMP_ERR_NOTSUP = 8,
	RT_SMP_ERR_CORRUPT = 9,
	RT_SMP_ERR_BUSY = 10,
	RT_SMP_ERR_ACCESSDENIED = 11,
	RT_SMP_ERR_TOO_OLD = 12,
	RT_SMP_ERR_TOO_NEW = 13,
	RT_SMP_ERR_PERUSER = 256,
} rt_smp_err_t;

/* fs_mgmt_err_code_t (SMP version 2 errors of group 8). */
typedef enum {
	RT_SMP_FS_ERR_UNKNOWN = 1,
	RT_SMP_FS_ERR_INVALID_NAME = 2,
	RT_SMP_FS_ERR_NOT_FOUND = 3,
	RT_SMP_FS_ERR_READ_FAILED = 7,
	RT_SMP_FS_ERR_WRITE_FAILED = 10,
	RT_SMP_FS_ERR_OFFSET_NOT_VALID = 11,
	RT_SMP_FS_ERR_OFFSET_LARGER = 12,
	RT_SMP_FS_ERR_HASH_NOT_FOUND = 13,
	RT_SMP_FS_ERR_FILE_EMPTY = 16,
} rt_smp_fs_err_t;

/* Errors of the beacon group: "err" {77, code} in SMP version 2, "rc" 256 + code in version 1. */
typedef enum {
	RT_SMP_BEACON_ERR_REFUSED = 1,     /* the package was verified and refused */
	RT_SMP_BEACON_ERR_NOTHING_STAGED = 2,
	RT_SMP_BEACON_ERR_INCOMPLETE = 3,  /* the upload has not reached its length */
	RT_SMP_BEACON_ERR_NOT_OWNER = 4,   /* the staged package is another client's */
} rt_smp_beacon_err_t;

/*
 * Where uploaded bytes go (on the device: a flash partition; in tests: RAM). Each returns 0 on
 * success, negative on failure. begin() prepares for `total` bytes (erasing, say) and must not
 * touch the installed app; write() receives chunks in order from offset 0.
 */
typedef struct {
	int (*begin)(void *ctx, uint32_t total);
	int (*write)(void *ctx, uint32_t off, const uint8_t *data, size_t len);
	int (*read)(void *ctx, uint32_t off, uint8_t *data, size_t len);
	uint32_t capacity; /* largest package the area holds */
	void *ctx;
	/* Optional, for an area another writer shares (the app store's staging slot, which a cloud
	 * download fills too): claim() is called before begin(), each write() and the install, with
	 * the request's time and the server's idle_ms; non-zero when the other writer holds the area,
	 * and the request is answered rc 10 (busy) with busy_msg. release() when the upload ends
	 * (installed, refused, given up, restarted). */
	int (*claim)(void *ctx, uint32_t now_ms, uint32_t idle_ms);
	void (*release)(void *ctx);
	const char *busy_msg;
} rt_smp_staging_t;

/* What `status` reports about the running app. */
typedef struct {
	bool installed;
	uint32_t crc;            /* the package's CRC-32 (header field) */
	uint32_t api_version;    /* major << 16 | minor << 8 | patch */
	uint32_t engine_id;
	uint32_t engine_version;
	const char *state;       /* "running", "stopped", "none", ... */
} rt_smp_app_status_t;

/* What `status` reports for the package in an app slot (len bytes; none when it is absent or
 * does not check) with the app's state name ("running", "stopped", ...): the same answer from
 * every server, the device's and the simulator's. */
void rt_smp_status_of(rt_smp_app_status_t *out, const uint8_t *slot, size_t len, const char *state);

/* The message of an install that succeeded ("installed: API x.y.z, N bytes of bytecode, CRC c"),
 * which `beacon upload` prints. */
void rt_smp_installed_msg(const rt_package_t *pkg, char *msg, size_t cap);

/* Verify the staged package (len bytes, read through `staging`) and switch to it. Returns 0
 * when it is installed; otherwise the package is refused, the running app is left as it was and
 * msg says why. msg is set in both cases ("installed ..." on success). */
typedef int (*rt_smp_install_fn)(void *ctx, const rt_smp_staging_t *staging, uint32_t len,
				 char *msg, size_t msg_cap);
typedef void (*rt_smp_status_fn)(void *ctx, rt_smp_app_status_t *out);

typedef struct {
	const rt_smp_staging_t *staging;
	rt_smp_install_fn install;
	rt_smp_status_fn status;
	void *app_ctx;
	/* Reported by the parameters command: the largest request the transport accepts (header
	 * included) and how many it buffers. */
	uint32_t buf_size;
	uint32_t buf_count;
	/* An upload whose owner has been silent this long may be taken by another client. */
	uint32_t idle_ms;
} rt_smp_config_t;

typedef enum {
	RT_SMP_UPLOAD_IDLE = 0,
	RT_SMP_UPLOAD_ACTIVE,
	RT_SMP_UPLOAD_COMPLETE,
} rt_smp_upload_state_t;

typedef struct {
	rt_smp_config_t cfg;
	rt_smp_upload_state_t state;
	uint32_t owner;
	uint32_t last_ms;
	uint32_t total;
	uint32_t off;
	uint8_t sha[RT_SMP_SHA_MAX];
	uint8_t sha_len;
	/* Counters for tests and diagnostics. */
	uint32_t requests;
	uint32_t errors;
} rt_smp_server_t;

typedef struct {
	uint8_t version;
	uint8_t op;
	uint8_t flags;
	uint16_t len;
	uint16_t group;
	uint8_t seq;
	uint8_t cmd;
} rt_smp_hdr_t;

void rt_smp_hdr_encode(const rt_smp_hdr_t *h, uint8_t out[RT_SMP_HDR_SIZE]);
/* Decode a header; false when fewer than RT_SMP_HDR_SIZE bytes are given or the reserved bits
 * are set. */
bool rt_smp_hdr_decode(const uint8_t *buf, size_t len, rt_smp_hdr_t *out);

void rt_smp_init(rt_smp_server_t *s, const rt_smp_config_t *cfg);

/*
 * Handle one request packet from `client` at time now_ms (any monotonic millisecond clock; it
 * may wrap). Writes the response packet into rsp and returns its length, or 0 when the request
 * is dropped without an answer: shorter than a header (nothing to answer to), reserved header
 * bits set, or a response op (a server never answers answers, so two servers cannot ping-pong).
 * rsp_cap should be at least 128 bytes, so every error answer fits.
 */
size_t rt_smp_handle(rt_smp_server_t *s, uint32_t client, uint32_t now_ms, const uint8_t *req,
		     size_t req_len, uint8_t *rsp, size_t rsp_cap);

/* Forget the upload in progress (a transport going away, say). */
void rt_smp_reset_upload(rt_smp_server_t *s);

#endif /* RT_SMP_H */

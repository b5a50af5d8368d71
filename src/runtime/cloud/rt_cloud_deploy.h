/*
 * rt_cloud_deploy.h: apps deployed from the cloud over the sync (docs/cloud-protocol.md §3.8), the
 * device's side. During a sync the cloud offers the package assigned to the device; this module
 * decides whether to take it, fetches it chunk by chunk into the app store's staging slot (the one
 * an SMP upload lands in, through the same rt_app_store_stage_* calls), and after the sync checks
 * the staged bytes against the offered SHA-256 and installs them with the port's install, the
 * function its SMP server calls: the same checks (CRC, engine, API version, signature against the
 * trusted keys) and the same atomic switch. What became of the package is reported at the next
 * sync.
 *
 * The frames (sync start with its deployment keys, the offer, fetch and chunk) are here too, in
 * the strict style of rt_cloud_proto.h: a frame is checked whole before anything of it is used.
 *
 * The staging slot is shared with SMP uploads: the download claims it (rt_app_store_stage_claim,
 * as RT_APP_STORE_OWNER_CLOUD) when it begins and with every chunk, and gives it up once the
 * package was installed or refused, withdrawn, or could not be written. An offer that finds an SMP
 * upload holding the slot is not fetched in that sync (d->deferred says why; the next offer tries
 * again) and erases nothing. A download left unused for RT_CLOUD_DEPLOY_CLAIM_IDLE_MS (a cloud
 * that stopped offering it) may be taken by an upload; it starts again from 0 at its next offer.
 *
 * The report outlives a reset: it is a record of the app store (rt_app_store_report_*), written
 * before the install's commit into the new app's slot (so the two count together), after a
 * refusal or a roll back into the installed app's, and marked sent when the sync that carried it
 * succeeded; rt_cloud_deploy_load reads it back after a reset. The download's state is in RAM
 * (rt_device_t's cloud_deploy), and what it fetches in a record of the store
 * (rt_app_store_download_put) that the next begin of the staging slot or install ends: the staged
 * bytes stay in the staging slot between syncs, so a cut sync costs only the chunk in flight, and
 * after a reset rt_cloud_deploy_load goes on from where the staged bytes end (less a write block).
 * The installed app is never touched until the switch, so a power cut at any point leaves the old
 * app or the new one.
 */
#ifndef RT_CLOUD_DEPLOY_H
#define RT_CLOUD_DEPLOY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_app_store.h"
#include "rt_cbor.h"

#define RT_CLOUD_DEPLOY_HASH 32u
/* The largest package the protocol carries (protocol.ts DEPLOY_MAX_PACKAGE). */
#define RT_CLOUD_DEPLOY_MAX_PACKAGE (1u << 20)
/* The protocol's largest chunk, and what this device asks for: a flash page. */
#define RT_CLOUD_DEPLOY_MAX_CHUNK 16384u
#define RT_CLOUD_DEPLOY_CHUNK 4096u
#define RT_CLOUD_DEPLOY_REASON_MAX 100u
/* A sync start with both deployment keys, at most. */
/* A download unused this long (device time) may lose the staging slot to an SMP upload. */
#define RT_CLOUD_DEPLOY_CLAIM_IDLE_MS (10u * 60u * 1000u)
#define RT_CLOUD_DEPLOY_START_MAX (16u + 36u + 40u + 4u + RT_CLOUD_DEPLOY_REASON_MAX * 4u + 6u)

/* What a port gives the sync so that it takes deployments. */
typedef struct rt_cloud_deploy_target {
	rt_app_store_t *store; /* its staging slot takes the download */
	/* Install the staged package of len bytes and run it, as the port's SMP install does (the
	 * new app starts after the sync returns): 0 with msg "installed ...", else msg says why it
	 * was refused and the running app is untouched. */
	int (*install)(void *ctx, uint32_t len, char *msg, size_t cap);
	/* The package the device runs (its SHA-256 goes in every sync start). */
	bool (*running)(void *ctx, const uint8_t **package, size_t *len);
	void *ctx;
	/* Optional: the clock the staging slot's claim is kept by, the one the port's SMP server
	 * gives it (milliseconds since boot); NULL: hal_clock_ms(). */
	uint32_t (*now_ms)(void *ctx);
} rt_cloud_deploy_target_t;

typedef enum {
	RT_CLOUD_OUTCOME_NONE = 0,
	RT_CLOUD_OUTCOME_INSTALLED = 1,
	RT_CLOUD_OUTCOME_REFUSED = 2,
	RT_CLOUD_OUTCOME_ROLLED_BACK = 3,
} rt_cloud_outcome_t;

typedef struct {
	uint8_t hash[RT_CLOUD_DEPLOY_HASH];
	uint32_t size;
	uint32_t api;
	bool signed_;
} rt_cloud_offer_t;

typedef struct {
	uint8_t hash[RT_CLOUD_DEPLOY_HASH];
	uint8_t outcome; /* rt_cloud_outcome_t; NONE: nothing to report */
	char reason[RT_CLOUD_DEPLOY_REASON_MAX + 1];
} rt_cloud_report_t;

typedef struct rt_cloud_deploy {
	const rt_cloud_deploy_target_t *target; /* NULL: this device takes no deployments */
	rt_cloud_offer_t fetching;              /* the package being fetched */
	bool active;                            /* a download is open (fetching is valid) */
	uint32_t staged;                        /* its bytes in the staging slot */
	bool complete;                          /* all staged: to check and install after the sync */
	rt_cloud_report_t report;               /* for the next sync start */
	bool report_sent;                       /* this report went out in the current sync */
	uint8_t refused[RT_CLOUD_DEPLOY_HASH];  /* the last package refused: not fetched again */
	bool has_refused;
	bool loaded;                            /* the store's report was read (or replaced) */
	const char *deferred;                   /* why the last offer was not fetched, or NULL */
	/* Figures (for the trace and the bench). */
	uint32_t chunks;
	uint32_t bytes_in;
} rt_cloud_deploy_t;

/* ------------------------------------------------------------------ frames */

/* Sync start {0: last id, 1: app hash (when app != NULL), 2: report (when outcome != NONE),
 * 3: errors since the app started (when app != NULL and errors != 0)}. */
bool rt_cloud_sync_start_encode(rt_cbor_enc_t *e, uint64_t last_id, const uint8_t *app,
				const rt_cloud_report_t *report, uint32_t errors);
/* The offer map inside a message frame (key 2), at the decoder's position. */
bool rt_cloud_offer_read(rt_cbor_dec_t *d, rt_cloud_offer_t *offer);
/* Fetch {0: hash, 1: offset, 2: length}. */
bool rt_cloud_fetch_encode(rt_cbor_enc_t *e, const uint8_t *hash, uint32_t offset, uint32_t length);
/* Chunk {0: offset, 1: bytes}; *data NULL when the package was withdrawn ({0: offset}). */
bool rt_cloud_chunk_decode(const uint8_t *buf, size_t len, uint32_t *offset, const uint8_t **data,
			   size_t *data_len);

/* The cloud's side of the same frames (the world's loopback cloud, tests): each decoder checks
 * the whole frame as the cloud service does (bindings-ts/src/cloud/protocol.ts). */
typedef struct {
	uint64_t last_id;
	bool has_app;
	uint8_t app[RT_CLOUD_DEPLOY_HASH]; /* key 1, when has_app */
	rt_cloud_report_t report;          /* key 2; outcome NONE when absent */
	uint32_t errors;                   /* key 3 (0 when absent) */
} rt_cloud_sync_start_t;

bool rt_cloud_sync_start_decode(const uint8_t *buf, size_t len, rt_cloud_sync_start_t *s);
/* The offer map (key 2 of the last message frame), at the encoder's position. */
bool rt_cloud_offer_write(rt_cbor_enc_t *e, const rt_cloud_offer_t *offer);
bool rt_cloud_fetch_decode(const uint8_t *buf, size_t len, uint8_t hash[RT_CLOUD_DEPLOY_HASH],
			   uint32_t *offset, uint32_t *length);
/* Chunk {0: offset, 1: bytes}; data NULL: {0: offset}, the package was withdrawn. */
bool rt_cloud_chunk_encode(rt_cbor_enc_t *e, uint32_t offset, const uint8_t *data, size_t len);

/* ------------------------------------------------------------------ the download */

/* SHA-256 of the running package into out; false when there is none or no SHA-256. */
bool rt_cloud_deploy_app_hash(const rt_cloud_deploy_t *d, uint8_t out[RT_CLOUD_DEPLOY_HASH]);
/* Read the report the app store kept over a reset, and the download it left open (once; what
 * this module did since counts). The sync calls it before its sync start. */
void rt_cloud_deploy_load(rt_cloud_deploy_t *d);

/* An offer arrived: true when the device fetches it (a download begins or goes on). A package it
 * cannot take (too large, an unknown API version, unsigned while keys are trusted) is refused
 * here without a byte fetched, and reported. Not fetched either while an SMP upload holds the
 * staging slot (d->deferred says so; nothing reported). */
bool rt_cloud_deploy_offer(rt_cloud_deploy_t *d, const rt_cloud_offer_t *offer);
/* Whether a fetch is due, and its frame. */
bool rt_cloud_deploy_wants(const rt_cloud_deploy_t *d);
bool rt_cloud_deploy_fetch(const rt_cloud_deploy_t *d, rt_cbor_enc_t *e);
/* A chunk arrived: staged. False, with *why, when it is refused (not decodable, out of order,
 * past the end, a flash error): the sync fails and what was staged before stays. */
bool rt_cloud_deploy_chunk(rt_cloud_deploy_t *d, const uint8_t *buf, size_t len, const char **why);
/* After the sync: a complete download is checked against its hash and installed (the report
 * says how it went). Returns the outcome (NONE: nothing was complete). */
rt_cloud_outcome_t rt_cloud_deploy_finish(rt_cloud_deploy_t *d);
/* The port rolled the installed package back (a reboot loop): reported at the next sync, with
 * why, and that package is not fetched again. */
void rt_cloud_deploy_rolled_back(rt_cloud_deploy_t *d, const uint8_t *package, size_t len,
				 const char *why);
/* The report was sent in a sync that succeeded: it is the cloud's now. */
void rt_cloud_deploy_reported(rt_cloud_deploy_t *d);

#endif /* RT_CLOUD_DEPLOY_H */

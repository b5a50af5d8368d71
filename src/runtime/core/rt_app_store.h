/*
 * rt_app_store.h: the installed app on flash. Two equal slots, each a flash area (hal_flash.h)
 * that is also memory-mapped, because the engine runs the package's bytecode where it lies. At
 * any time one slot holds the installed app and the other is the staging slot, where an upload
 * lands; installing writes a small header into the staging slot, and the slots swap roles. The
 * installed app is never erased or written while it is the installed one, so a power cut at any
 * flash operation of an upload or a switch leaves the old app or the new one, complete.
 *
 * A slot (docs/upload.md has the same table and the reasoning):
 *
 *   off size
 *     0    4 magic "BSLT"
 *     4    2 format (RT_APP_STORE_FORMAT)
 *     6    2 header size (32)
 *     8    4 sequence number: 1 for the first install, one more than the highest in the store
 *            for each later one
 *    12    4 package length in bytes
 *    16    4 the package's own CRC-32 (its header's bytes 36..39), to name it without reading it
 *    20    4 CRC-32 of bytes 0..19
 *    24    4 commit marker "CMIT", programmed last (the rest of its write block stays erased)
 *    28    4 erased; "BACK" once the app was rolled back (rt_app_store_roll_back): the slot is
 *            not the installed app any more, the one before it is
 *    32    . the package, padded with 0xFF to the write block (8-byte aligned: the slot starts
 *            on a page)
 *
 * The upload writes the package at offset 32 of the staging slot (whose pages it erased first,
 * page 0 first, so an older header there is gone before anything else changes); install checks
 * the package where it lies (rt_package_check: layout, CRC, engine id/version/configuration, API
 * version; then rt_signature_check against the trusted keys), then programs bytes 0..23 and
 * reads them back, and then programs the commit marker. Until the marker's write block is
 * complete and reads "CMIT", the slot is not installed; from then on it is, with the higher
 * sequence number. Mount (at boot) writes nothing: it takes the committed slots, newest first,
 * and checks each package again (same checks as install); the first that passes is the installed
 * app. A newer slot whose package no longer passes (a bit flipped in flash, a firmware built for
 * another engine, a key no longer trusted) is refused with the message the simulator gives for
 * the same bytes, and the one before it runs on.
 *
 * No allocation, no globals: all state is in rt_app_store_t, which the caller owns. The same C
 * runs on the device (two flash_map partitions, src/port/zephyr), on the emulated board
 * (src/port/qemu/qemu_flash.c) and in the host's servers (one simulated flash cut into windows,
 * rt_flash_window.h). Not thread safe, except the claim of the staging slot: each writer (an SMP
 * upload on the SMP server's thread, a cloud download on the JavaScript thread) claims the slot
 * before it begins or writes there, and only the holder of the claim touches the staging slot
 * (rt_app_store_stage_claim below).
 *
 * Deployment reports (rt_app_store_report_*): after the package in a slot, in the pages the upload
 * erased, up to RT_APP_STORE_REPORT_SLOTS records of RT_APP_STORE_REPORT_SIZE bytes say what
 * became of the package the cloud deployed last, until the cloud has it:
 *
 *   off size
 *     0    4 magic "DRPT"
 *     4    1 outcome (1 installed, 2 refused, 3 rolled back)
 *     5    1 reason length, 0..100
 *     6    2 zero
 *     8   32 the package's SHA-256
 *    40  104 the reason (UTF-8), zero-padded
 *   144    4 CRC-32 of bytes 0..143
 *   148    4 zero
 *   152    8 "SENT" and 4 erased bytes once the cloud acknowledged it (erased until then)
 *
 * A download record says what the staging slot holds while a cloud download is open there:
 *
 *     0    4 magic "DDLD"
 *     4    4 the package's size
 *     8   32 its SHA-256
 *    40    4 its API version
 *    44    1 1: signed, 0: not
 *    45   99 zero
 *   144    4 CRC-32 of bytes 0..143
 *   148    4 zero
 *   152    8 "DONE" and 4 erased bytes once the staging slot was begun again or installed
 *
 * They begin at the first 8-byte boundary after the package and end where the pages the upload
 * erased for package and records end (RT_APP_STORE_REPORT_ROOM more than the package needs, fewer
 * for a package that nearly fills the slot). Bytes 0..151 are programmed in one write; a record
 * cut in that write fails its CRC and is skipped, so the one before it stands. The installed
 * app's latest intact report record is the report; its latest download record, not done and
 * with no report after it, is the download open in the staging slot.
 */
#ifndef RT_APP_STORE_H
#define RT_APP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_flash.h"
#include "rt_package.h"
#include "rt_smp.h"

#define RT_APP_STORE_MAGIC "BSLT"
#define RT_APP_STORE_FORMAT 1u
#define RT_APP_STORE_HEADER_SIZE 32u
#define RT_APP_STORE_COMMIT "CMIT"
#define RT_APP_STORE_COMMIT_OFFSET 24u
/* Bytes of the header covered by its CRC, and programmed before the commit marker. */
#define RT_APP_STORE_HEADER_BODY 24u
#define RT_APP_STORE_BACK "BACK"
#define RT_APP_STORE_BACK_OFFSET 28u
#define RT_APP_STORE_REPORT_MAGIC "DRPT"
#define RT_APP_STORE_DOWNLOAD_MAGIC "DDLD"
#define RT_APP_STORE_REPORT_SIZE 160u
#define RT_APP_STORE_REPORT_SENT_OFFSET 152u
#define RT_APP_STORE_REPORT_SLOTS 8u
#define RT_APP_STORE_REPORT_ROOM (RT_APP_STORE_REPORT_SIZE * RT_APP_STORE_REPORT_SLOTS)
#define RT_APP_STORE_REPORT_HASH 32u
#define RT_APP_STORE_REPORT_REASON 100u

typedef enum rt_app_store_err {
	RT_APP_STORE_OK = 0,
	RT_APP_STORE_ENOAPP,       /* mount: no slot holds an app that passes the checks */
	RT_APP_STORE_EREFUSED,     /* the package failed a check; msg says which (rt_package's words) */
	RT_APP_STORE_ETOOBIG,      /* larger than a slot holds */
	RT_APP_STORE_EINCOMPLETE,  /* install of a staged package that is not all there */
	RT_APP_STORE_EFLASH,       /* the flash failed (or lost power); nothing installed */
	RT_APP_STORE_EINVAL,       /* bad geometry or argument, a write out of order */
	RT_APP_STORE_ENOTMOUNTED,
	RT_APP_STORE_EBUSY,        /* the staging slot is claimed by the other writer */
	RT_APP_STORE_ENOSPACE,     /* no room left for a report record in that slot */
} rt_app_store_err_t;

/* Who writes the staging slot (rt_app_store_stage_claim). */
typedef enum rt_app_store_owner {
	RT_APP_STORE_OWNER_NONE = 0,
	RT_APP_STORE_OWNER_UPLOAD = 1, /* an SMP upload (the SMP server's thread) */
	RT_APP_STORE_OWNER_CLOUD = 2,  /* a cloud download (the JavaScript thread, in a sync) */
} rt_app_store_owner_t;

/* One slot: its flash area and the same bytes as the CPU reads them (flash base + offset on the
 * device; the simulated flash's memory on a host). */
typedef struct rt_app_store_slot {
	const hal_flash_t *flash;
	const uint8_t *mapped;
} rt_app_store_slot_t;

/* Both slots must have the same page size and a write block of 1, 2, 4 or 8 bytes; the smaller
 * slot sets the largest package. */
typedef struct rt_app_store_config {
	rt_app_store_slot_t slot[2];
} rt_app_store_config_t;

typedef struct rt_app_store {
	rt_app_store_slot_t slot[2];
	uint32_t capacity;      /* largest package, bytes */
	int8_t active;          /* slot of the installed app, -1: none */
	int8_t refused;         /* slot whose newer package mount refused, -1: none */
	bool mounted;
	bool staging;           /* an upload is open in the staging slot */
	uint32_t active_seq;    /* the installed app's sequence number */
	uint32_t top_seq;       /* highest sequence number of any committed slot */
	uint32_t app_len;       /* the installed package's length */
	uint32_t stage_total;   /* bytes the open upload will have */
	uint32_t stage_off;     /* bytes it has (tail included) */
	uint8_t tail[8];        /* bytes short of a whole write block, programmed with the next ones */
	uint8_t tail_len;
	int flash_error;        /* the flash driver's last error (HAL_FLASH_E*) */
	/* The staging slot's claim (under hal_lock): its holder, when the holder last used it (its
	 * own millisecond clock) and how long unused before the other writer may take it. */
	uint8_t claim;
	uint32_t claim_ms;
	uint32_t claim_idle_ms;
} rt_app_store_t;

/*
 * Mount the store: read both slot headers and find the installed app, checking its package as
 * install does (so trust keys first: rt_signature_trust). Writes nothing to flash, so it is safe
 * to cut too. Returns RT_APP_STORE_OK with an installed app, RT_APP_STORE_ENOAPP without one,
 * RT_APP_STORE_EINVAL for a geometry it cannot use, RT_APP_STORE_EFLASH when a header cannot be
 * read. When a newer committed package was refused, msg gets why (the words rt_package_check or
 * rt_signature_check use for it) and store->refused its slot; otherwise msg is "".
 */
rt_app_store_err_t rt_app_store_mount(rt_app_store_t *store, const rt_app_store_config_t *config,
				      char *msg, size_t msg_cap);

/* The installed package, in place (8-byte aligned); false when there is none. */
bool rt_app_store_installed(const rt_app_store_t *store, const uint8_t **package, size_t *len);
/* Read len bytes of the installed package at off through the flash driver (for a caller that
 * wants a copy rather than the mapped bytes). */
rt_app_store_err_t rt_app_store_read(rt_app_store_t *store, uint32_t off, void *dst, size_t len);
/* The installed app's sequence number (0: none); it grows by one or more with every install. */
uint32_t rt_app_store_sequence(const rt_app_store_t *store);
/* Largest package a slot holds. */
uint32_t rt_app_store_capacity(const rt_app_store_t *store);

/* Where the device's app comes from at boot. */
typedef enum rt_app_store_source {
	RT_APP_STORE_FROM_NONE = 0,
	RT_APP_STORE_FROM_STORE,   /* the installed app */
	RT_APP_STORE_FROM_FACTORY, /* the package linked into the image (BEACON_APP_PACKAGE) */
} rt_app_store_source_t;

/* The package to run at boot: the installed app, else the factory package (may be NULL), which
 * is only the default of a store that holds no app that passes its checks. */
rt_app_store_source_t rt_app_store_boot_package(const rt_app_store_t *store, const uint8_t *factory,
						size_t factory_len, const uint8_t **package,
						size_t *len);

/*
 * Staging: an upload of total bytes. begin erases the staging slot's pages the package needs
 * (never the installed app's); write takes chunks in order (off is the bytes given so far; a
 * chunk whose write failed may be given again at the same offset); read returns staged bytes.
 */
/*
 * The staging slot's owner. A writer claims the slot before it begins an upload there and before
 * each write (which keeps the claim fresh), and releases it when its package was installed or
 * refused, or it gave up. RT_APP_STORE_EBUSY while the other writer holds it, unless that one left
 * it unused for its idle_ms (by the clock of now_ms: both writers must give the same clock; a
 * time before the holder's last use never counts as idle): then the claim passes to the caller,
 * whose begin erases what the other staged. The claim is in RAM: a reset ends it. Thread safe
 * (hal_lock); the begin and writes that follow are the holder's alone.
 */
rt_app_store_err_t rt_app_store_stage_claim(rt_app_store_t *store, rt_app_store_owner_t owner,
					    uint32_t now_ms, uint32_t idle_ms);
/* Give the claim up, when owner holds it (otherwise nothing happens). */
void rt_app_store_stage_release(rt_app_store_t *store, rt_app_store_owner_t owner);
rt_app_store_owner_t rt_app_store_stage_owner(const rt_app_store_t *store);

rt_app_store_err_t rt_app_store_stage_begin(rt_app_store_t *store, uint32_t total);
rt_app_store_err_t rt_app_store_stage_write(rt_app_store_t *store, uint32_t off, const void *data,
					    size_t len);
rt_app_store_err_t rt_app_store_stage_read(const rt_app_store_t *store, uint32_t off, void *dst,
					   size_t len);
/* The staged bytes where they lie, for hashing them without a copy: the programmed part (in
 * mapped flash) and the tail still held in RAM (less than a write block). False when no upload
 * is open. */
bool rt_app_store_staged(const rt_app_store_t *store, const uint8_t **flash, size_t *flash_len,
			 const uint8_t **tail, size_t *tail_len);

/*
 * Check the staged package of len bytes where it lies and make it the installed app (see the
 * protocol above). RT_APP_STORE_OK: *pkg describes it (bytecode in place) and msg is "";
 * RT_APP_STORE_EREFUSED: msg is rt_package_check's or rt_signature_check's message and nothing
 * changed; any other error: msg says what failed and the installed app is still the old one.
 * Either way the staging slot must be begun again before the next install.
 */
rt_app_store_err_t rt_app_store_install(rt_app_store_t *store, uint32_t len, rt_package_t *pkg,
					char *msg, size_t msg_cap);

/*
 * Roll back: the installed app is replaced by the one installed before it, still complete in the
 * other slot (until the next upload begins there), as after a reboot loop of a new app. One word
 * is programmed, the installed slot's "BACK" marker (header offset 28, erased until then): a cut
 * before it completes leaves the new app, after it the one before, never neither. Then the store
 * is mounted again. RT_APP_STORE_ENOAPP (nothing written) when there is no app before it that
 * passes the checks; RT_APP_STORE_EINVAL on a flash whose write block is 8 bytes (the marker
 * shares the commit marker's block there). msg says which app runs now, or why not.
 */
rt_app_store_err_t rt_app_store_roll_back(rt_app_store_t *store, char *msg, size_t msg_cap);

/* Check, stage and install a package held in RAM (a file given to a host tool, a factory
 * package being installed). A package that fails the checks is refused before the staging slot
 * is touched. */
rt_app_store_err_t rt_app_store_install_buffer(rt_app_store_t *store, const uint8_t *package,
					       size_t len, rt_package_t *pkg, char *msg,
					       size_t msg_cap);

/* The report records (see the layout above). sent: the cloud acknowledged it. */
typedef struct rt_app_store_report {
	uint8_t hash[RT_APP_STORE_REPORT_HASH];
	uint8_t outcome;
	char reason[RT_APP_STORE_REPORT_REASON + 1];
	bool sent;
} rt_app_store_report_t;

/* The installed app's latest intact record; false when it has none (a torn or corrupt record is
 * skipped, never an error). */
bool rt_app_store_report_get(const rt_app_store_t *store, rt_app_store_report_t *out);
/* Append a record (r->sent is ignored) to the installed app's slot, or with next to the slot the
 * next switch makes the installed one: the complete staged package's (written before its install,
 * so the record and the commit count together) or the app a roll back returns to.
 * RT_APP_STORE_ENOSPACE when the slot's records are used up; EFLASH when the write failed. */
rt_app_store_err_t rt_app_store_report_put(rt_app_store_t *store, const rt_app_store_report_t *r,
					   bool next);
/* Mark the installed app's latest intact record sent (one word; a cut leaves it pending, or sent
 * when any of it was programmed). */
rt_app_store_err_t rt_app_store_report_sent(rt_app_store_t *store);

/* A cloud download open in the staging slot (its record above). */
typedef struct rt_app_store_download {
	uint8_t hash[RT_APP_STORE_REPORT_HASH];
	uint32_t size;
	uint32_t api;
	bool signed_;
} rt_app_store_download_t;

/* Record the download just begun in the staging slot (size: the begin's total), in the installed
 * app's slot. Any later begin of the staging slot and any install mark it done first. */
rt_app_store_err_t rt_app_store_download_put(rt_app_store_t *store, const rt_app_store_download_t *dl);
/* Mark the open download's record done (nothing when there is none). */
void rt_app_store_download_end(rt_app_store_t *store);
/* After a reset: the download still open in the staging slot, which is staged again up to where
 * its bytes end (rt_app_store_staged, stage_write from there). Take the staging slot's claim
 * first. False, changing nothing, when there is none or the slot was begun since the mount. */
bool rt_app_store_download_resume(rt_app_store_t *store, rt_app_store_download_t *out);

/* The staging slot as the SMP server's staging area (rt_smp.h): begin, write and read go to the
 * functions above, claim and release to the claim as RT_APP_STORE_OWNER_UPLOAD; capacity is the
 * store's. The server's install callback then calls rt_app_store_install. */
/* What an SMP client is told (with rc 10) while a cloud download holds the staging slot. */
#define RT_APP_STORE_BUSY_MSG "the staging slot is busy with a cloud download: upload again when it is over"
void rt_app_store_smp_staging(rt_app_store_t *store, rt_smp_staging_t *out);

const char *rt_app_store_strerror(rt_app_store_err_t err);

#endif /* RT_APP_STORE_H */

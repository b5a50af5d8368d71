/*
 * rt_cloud_deploy.c: the download and its report (see rt_cloud_deploy.h and docs/cloud-protocol.md
 * §3.8); the frames are in rt_cloud_deploy_frames.c.
 */
#include "rt_cloud_deploy.h"

#include <stdio.h>
#include <string.h>

#include "hal_clock.h"
#include "hal_console.h"
#include "hal_crypto.h"
#include "rt_api_version.h"
#include "rt_signature.h"

/* ------------------------------------------------------------------ the download */

static bool has_store(const rt_cloud_deploy_t *d)
{
	return d->target != NULL && d->target->store != NULL && d->target->store->mounted;
}

static void hex8(char out[17], const uint8_t *hash)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 8; i++) {
		out[2 * i] = digits[hash[i] >> 4];
		out[2 * i + 1] = digits[hash[i] & 15];
	}
	out[16] = '\0';
}

static uint32_t now_ms(const rt_cloud_deploy_t *d)
{
	return d->target->now_ms != NULL ? d->target->now_ms(d->target->ctx) : (uint32_t)hal_clock_ms();
}

static void release(rt_cloud_deploy_t *d)
{
	rt_app_store_stage_release(d->target->store, RT_APP_STORE_OWNER_CLOUD);
}

static void fill_report(rt_cloud_report_t *r, const uint8_t *hash, rt_cloud_outcome_t outcome,
			const char *reason)
{
	memcpy(r->hash, hash, RT_CLOUD_DEPLOY_HASH);
	r->outcome = (uint8_t)outcome;
	/* Cut to the protocol's 100 characters, never inside a UTF-8 sequence. */
	size_t n = strlen(reason);
	if (n > RT_CLOUD_DEPLOY_REASON_MAX) {
		n = RT_CLOUD_DEPLOY_REASON_MAX;
		while (n > 0 && ((uint8_t)reason[n] & 0xC0) == 0x80) {
			n--;
		}
	}
	memcpy(r->reason, reason, n);
	r->reason[n] = '\0';
}

/* The report as a record of the app store: of the installed app, or (next) of the one the next
 * switch installs. A report the store cannot keep (its records used up, a flash error) stays in
 * RAM, as before there were records. */
static void persist(rt_cloud_deploy_t *d, const rt_cloud_report_t *r, bool next)
{
	rt_app_store_report_t rec;
	memcpy(rec.hash, r->hash, RT_CLOUD_DEPLOY_HASH);
	rec.outcome = r->outcome;
	memcpy(rec.reason, r->reason, sizeof(rec.reason));
	rec.sent = false;
	rt_app_store_err_t err = rt_app_store_report_put(d->target->store, &rec, next);
	if (err != RT_APP_STORE_OK) {
		hal_log(HAL_LOG_WARN, "deployment: the report is kept in RAM only: %s", rt_app_store_strerror(err));
	}
}

void rt_cloud_deploy_load(rt_cloud_deploy_t *d)
{
	rt_app_store_report_t rec;
	if (d->loaded || !has_store(d)) {
		return;
	}
	d->loaded = true;
	rt_app_store_t *store = d->target->store;
	if (rt_app_store_report_get(store, &rec)) {
		if (!rec.sent) {
			memcpy(d->report.hash, rec.hash, RT_CLOUD_DEPLOY_HASH);
			d->report.outcome = rec.outcome;
			memcpy(d->report.reason, rec.reason, sizeof(d->report.reason));
			d->report_sent = false;
		}
		if (rec.outcome != RT_CLOUD_OUTCOME_INSTALLED) {
			memcpy(d->refused, rec.hash, RT_CLOUD_DEPLOY_HASH);
			d->has_refused = true;
		}
	}
	/* A download open before the reset goes on from the bytes in the staging slot (unless an
	 * upload holds the slot: its begin ends the download's record). */
	rt_app_store_download_t dl;
	if (d->active || rt_app_store_stage_claim(store, RT_APP_STORE_OWNER_CLOUD, now_ms(d),
						  RT_CLOUD_DEPLOY_CLAIM_IDLE_MS) != RT_APP_STORE_OK) {
		return;
	}
	if (!rt_app_store_download_resume(store, &dl)) {
		release(d);
		return;
	}
	memcpy(d->fetching.hash, dl.hash, RT_CLOUD_DEPLOY_HASH);
	d->fetching.size = dl.size;
	d->fetching.api = dl.api;
	d->fetching.signed_ = dl.signed_;
	d->staged = store->stage_off;
	d->active = true;
	d->complete = false;
}

/* What became of a package, for the next sync start (kept by the store when persist), and in the
 * trace. */
static void set_report(rt_cloud_deploy_t *d, const uint8_t *hash, rt_cloud_outcome_t outcome,
		       const char *reason, bool persist_it)
{
	fill_report(&d->report, hash, outcome, reason);
	d->report_sent = false;
	d->loaded = true; /* this report replaces any the store kept */
	if (persist_it) {
		persist(d, &d->report, false);
	}
	if (outcome != RT_CLOUD_OUTCOME_INSTALLED) {
		memcpy(d->refused, hash, RT_CLOUD_DEPLOY_HASH);
		d->has_refused = true;
	}
	char h[17], text[RT_CLOUD_DEPLOY_REASON_MAX + 1], fields[RT_CLOUD_DEPLOY_REASON_MAX + 96];
	hex8(h, hash);
	/* Inside a JSON string of the trace: quotes and backslashes become apostrophes and
	 * slashes, control characters spaces (the runtime's own words never have them). */
	size_t i = 0;
	for (; d->report.reason[i] != '\0'; i++) {
		char c = d->report.reason[i];
		text[i] = c == '"' ? '\'' : c == '\\' ? '/' : (uint8_t)c < 0x20 ? ' ' : c;
	}
	text[i] = '\0';
	snprintf(fields, sizeof(fields), "\"package\":\"%s\",\"outcome\":\"%s\",\"reason\":\"%s\"", h,
		 outcome == RT_CLOUD_OUTCOME_INSTALLED ? "installed"
		 : outcome == RT_CLOUD_OUTCOME_REFUSED ? "refused"
						       : "rolled back",
		 text);
	hal_console_record("cloud-deploy", fields);
}

static bool sha256_of(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
		      uint8_t out[RT_CLOUD_DEPLOY_HASH])
{
	hal_crypto_chunk_t chunks[2] = {{a, a_len}, {b, b_len}};
	return hal_crypto_sha256(chunks, b_len ? 2 : 1, out) == HAL_CRYPTO_OK;
}

bool rt_cloud_deploy_app_hash(const rt_cloud_deploy_t *d, uint8_t out[RT_CLOUD_DEPLOY_HASH])
{
	const uint8_t *pkg;
	size_t len;
	if (d->target == NULL || d->target->running == NULL ||
	    !d->target->running(d->target->ctx, &pkg, &len)) {
		return false;
	}
	return sha256_of(pkg, len, NULL, 0, out);
}

/* Why the device cannot take this package whatever its bytes, or NULL. */
static const char *cannot_take(const rt_cloud_deploy_t *d, const rt_cloud_offer_t *o, char *buf,
			       size_t cap)
{
	uint32_t capacity = rt_app_store_capacity(d->target->store);
	if (o->size > capacity) {
		snprintf(buf, cap, "package of %lu bytes, larger than the app slot (%lu bytes)",
			 (unsigned long)o->size, (unsigned long)capacity);
		return buf;
	}
	if (rt_api_version_bit_of(o->api) < 0) {
		snprintf(buf, cap, "package for API %u.%u.%u, which this firmware does not have",
			 (unsigned)(o->api >> 16), (unsigned)((o->api >> 8) & 0xFF), (unsigned)(o->api & 0xFF));
		return buf;
	}
	if (!o->signed_ && rt_signature_trusted_count() > 0) {
		return "unsigned package: the device trusts signing keys and installs only signed packages";
	}
	return NULL;
}

bool rt_cloud_deploy_offer(rt_cloud_deploy_t *d, const rt_cloud_offer_t *o)
{
	if (!has_store(d)) {
		return false;
	}
	rt_cloud_deploy_load(d);
	if (d->has_refused && memcmp(d->refused, o->hash, RT_CLOUD_DEPLOY_HASH) == 0) {
		return false; /* refused already: the report tells the cloud, which stops offering it */
	}
	rt_app_store_t *store = d->target->store;
	d->deferred = NULL;
	/* Going on: the same package, and the staging slot still holds what was fetched (the claim
	 * still the download's: an SMP upload that took it would have begun the slot again). */
	bool ours = rt_app_store_stage_owner(store) == RT_APP_STORE_OWNER_CLOUD;
	if (d->active && ours && memcmp(d->fetching.hash, o->hash, RT_CLOUD_DEPLOY_HASH) == 0 &&
	    d->fetching.size == o->size && store->staging && store->stage_total == o->size &&
	    store->stage_off == d->staged &&
	    rt_app_store_stage_claim(store, RT_APP_STORE_OWNER_CLOUD, now_ms(d), RT_CLOUD_DEPLOY_CLAIM_IDLE_MS) ==
		    RT_APP_STORE_OK) {
		return true;
	}
	d->active = false;
	d->complete = false;
	char why[RT_CLOUD_DEPLOY_REASON_MAX + 1];
	const char *no = cannot_take(d, o, why, sizeof(why));
	if (no != NULL) {
		if (ours) {
			release(d);
		}
		set_report(d, o->hash, RT_CLOUD_OUTCOME_REFUSED, no, true);
		return false;
	}
	if (rt_app_store_stage_claim(store, RT_APP_STORE_OWNER_CLOUD, now_ms(d), RT_CLOUD_DEPLOY_CLAIM_IDLE_MS) !=
	    RT_APP_STORE_OK) {
		/* An SMP upload is under way: its bytes stay; the next offer tries again. */
		d->deferred = "the staging slot is busy with an SMP upload";
		hal_console_record("cloud-deploy", "\"deferred\":\"the staging slot is busy with an SMP upload\"");
		hal_log(HAL_LOG_INFO, "deployment: %s, fetched at a later sync", d->deferred);
		return false;
	}
	rt_app_store_err_t err = rt_app_store_stage_begin(store, o->size);
	if (err != RT_APP_STORE_OK) {
		release(d);
		/* The flash failed: tried again at the next offer, nothing reported. */
		hal_log(HAL_LOG_WARN, "deployment: cannot open the staging slot: %s",
			rt_app_store_strerror(err));
		return false;
	}
	d->fetching = *o;
	d->staged = 0;
	d->active = true;
	/* So that a reset does not start it again from 0 (kept in RAM only when it cannot be). */
	rt_app_store_download_t dl = {.size = o->size, .api = o->api, .signed_ = o->signed_};
	memcpy(dl.hash, o->hash, RT_CLOUD_DEPLOY_HASH);
	(void)rt_app_store_download_put(store, &dl);
	return true;
}

bool rt_cloud_deploy_wants(const rt_cloud_deploy_t *d)
{
	return d->active && !d->complete && d->staged < d->fetching.size;
}

bool rt_cloud_deploy_fetch(const rt_cloud_deploy_t *d, rt_cbor_enc_t *e)
{
	uint32_t left = d->fetching.size - d->staged;
	return rt_cloud_fetch_encode(e, d->fetching.hash, d->staged,
				     left < RT_CLOUD_DEPLOY_CHUNK ? left : RT_CLOUD_DEPLOY_CHUNK);
}

bool rt_cloud_deploy_chunk(rt_cloud_deploy_t *d, const uint8_t *buf, size_t len, const char **why)
{
	uint32_t off;
	const uint8_t *data;
	size_t n;
	if (!rt_cloud_chunk_decode(buf, len, &off, &data, &n)) {
		*why = "a package chunk the device cannot decode";
		return false;
	}
	if (!rt_cloud_deploy_wants(d)) {
		*why = "a package chunk the device did not ask for";
		return false;
	}
	if (data == NULL) {
		/* Withdrawn: a newer deployment replaced it. The staging slot is begun again by the
		 * next download, or an upload. */
		d->active = false;
		rt_app_store_download_end(d->target->store);
		release(d);
		return true;
	}
	if (off != d->staged) {
		*why = "a package chunk out of order";
		return false;
	}
	if (n > d->fetching.size - d->staged) {
		*why = "a package chunk past the end of the package";
		return false;
	}
	if (n > RT_CLOUD_DEPLOY_CHUNK) {
		*why = "a package chunk longer than asked for";
		return false;
	}
	rt_app_store_t *store = d->target->store;
	if (rt_app_store_stage_claim(store, RT_APP_STORE_OWNER_CLOUD, now_ms(d), RT_CLOUD_DEPLOY_CLAIM_IDLE_MS) !=
	    RT_APP_STORE_OK) {
		/* An SMP upload took the slot the download had left unused: begun again next time. */
		d->active = false;
		*why = "the staging slot was taken by an SMP upload";
		return false;
	}
	rt_app_store_err_t err = rt_app_store_stage_write(store, off, data, n);
	if (err != RT_APP_STORE_OK) {
		/* Begun again at the next offer (a block cut half-way cannot be written over). */
		d->active = false;
		rt_app_store_download_end(store);
		release(d);
		*why = "the staging slot could not be written";
		return false;
	}
	d->staged += (uint32_t)n;
	d->chunks++;
	d->bytes_in += (uint32_t)n;
	d->complete = d->staged == d->fetching.size;
	return true;
}

static rt_cloud_outcome_t finish_download(rt_cloud_deploy_t *d);

rt_cloud_outcome_t rt_cloud_deploy_finish(rt_cloud_deploy_t *d)
{
	if (!d->active || !d->complete || !has_store(d)) {
		return RT_CLOUD_OUTCOME_NONE;
	}
	d->active = false;
	d->complete = false;
	rt_cloud_outcome_t outcome = finish_download(d);
	release(d);
	return outcome;
}

static rt_cloud_outcome_t finish_download(rt_cloud_deploy_t *d)
{
	const uint8_t *flash, *tail;
	size_t flash_len, tail_len;
	uint8_t hash[RT_CLOUD_DEPLOY_HASH];
	if (!rt_app_store_staged(d->target->store, &flash, &flash_len, &tail, &tail_len) ||
	    flash_len + tail_len != d->fetching.size ||
	    !sha256_of(flash, flash_len, tail, tail_len, hash)) {
		set_report(d, d->fetching.hash, RT_CLOUD_OUTCOME_REFUSED,
			   "the staged package could not be read back", true);
		return RT_CLOUD_OUTCOME_REFUSED;
	}
	if (memcmp(hash, d->fetching.hash, RT_CLOUD_DEPLOY_HASH) != 0) {
		set_report(d, d->fetching.hash, RT_CLOUD_OUTCOME_REFUSED,
			   "package refused: its SHA-256 is not the one offered", true);
		return RT_CLOUD_OUTCOME_REFUSED;
	}
	/* The report goes into the new app's slot before its commit: installed, it is there. */
	rt_cloud_report_t installed;
	fill_report(&installed, d->fetching.hash, RT_CLOUD_OUTCOME_INSTALLED, "");
	persist(d, &installed, true);
	char msg[160];
	msg[0] = '\0';
	if (d->target->install(d->target->ctx, d->fetching.size, msg, sizeof(msg)) != 0) {
		/* Room for all of it: set_report cuts it to the protocol's 100 characters. */
		char reason[sizeof(msg) + 24];
		snprintf(reason, sizeof(reason), "package refused: %s", msg[0] ? msg : "install failed");
		set_report(d, d->fetching.hash, RT_CLOUD_OUTCOME_REFUSED, reason, true);
		return RT_CLOUD_OUTCOME_REFUSED;
	}
	set_report(d, d->fetching.hash, RT_CLOUD_OUTCOME_INSTALLED, "", false);
	return RT_CLOUD_OUTCOME_INSTALLED;
}

void rt_cloud_deploy_rolled_back(rt_cloud_deploy_t *d, const uint8_t *package, size_t len,
				 const char *why)
{
	uint8_t hash[RT_CLOUD_DEPLOY_HASH];
	if (sha256_of(package, len, NULL, 0, hash)) {
		d->active = false;
		d->complete = false;
		if (has_store(d)) {
			release(d);
		}
		set_report(d, hash, RT_CLOUD_OUTCOME_ROLLED_BACK, why, has_store(d));
	}
}

void rt_cloud_deploy_reported(rt_cloud_deploy_t *d)
{
	if (d->report_sent) {
		rt_app_store_report_t rec;
		/* The store's record, when it is this report, is marked sent: not read back after a
		 * reset. */
		if (has_store(d) && rt_app_store_report_get(d->target->store, &rec) && !rec.sent &&
		    rec.outcome == d->report.outcome && memcmp(rec.hash, d->report.hash, RT_CLOUD_DEPLOY_HASH) == 0) {
			(void)rt_app_store_report_sent(d->target->store);
		}
		d->report.outcome = RT_CLOUD_OUTCOME_NONE;
		d->report_sent = false;
	}
}

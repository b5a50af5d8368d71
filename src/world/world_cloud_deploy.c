/*
 * world_cloud_deploy.c: see world_cloud_deploy.h.
 */
#include "world_cloud_deploy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_crypto.h"
#include "rt_package.h"
#include "world_trace.h"

typedef struct {
	uint8_t *bytes;
	size_t len;
	rt_cloud_offer_t offer; /* its hash, size, API version and whether it is signed */
} package_t;

typedef struct {
	uint64_t at;
	uint32_t device;
	uint32_t package;
} assignment_t;

typedef struct {
	/* The last report recorded, and the package the device refused or rolled back (not offered
	 * again: it said so). */
	rt_cloud_report_t report;
	bool has_done;
	uint8_t done[RT_CLOUD_DEPLOY_HASH];
	/* What the current connection fetched. */
	uint8_t fetching[RT_CLOUD_DEPLOY_HASH];
	uint32_t chunks, bytes, from, to;
} device_state_t;

struct world_cloud_deploys {
	package_t *packages;
	uint32_t package_count;
	assignment_t *assignments; /* in the script's order, which is time order */
	size_t assignment_count, assignment_cap;
	device_state_t *devices;   /* world->device_count of them */
};

static struct world_cloud_deploys *deploys_of(world_t *w)
{
	if (w->cloud_deploys == NULL) {
		w->cloud_deploys = calloc(1, sizeof(*w->cloud_deploys));
	}
	return w->cloud_deploys;
}

/* The first 8 bytes of a hash in hex, as the device's own cloud-deploy record names packages. */
static void hex8(char out[17], const uint8_t *hash)
{
	for (int i = 0; i < 8; i++) {
		snprintf(out + 2 * i, 3, "%02x", hash[i]);
	}
}

int world_cloud_deploy_package(world_t *w, const uint8_t *bytes, size_t len, char *why, size_t cap)
{
	if (len < RT_PACKAGE_HEADER_SIZE || memcmp(bytes, RT_PACKAGE_MAGIC, 4) != 0) {
		snprintf(why, cap, "not an app package (no BAPP header)");
		return -1;
	}
	if (len > RT_CLOUD_DEPLOY_MAX_PACKAGE) {
		snprintf(why, cap, "%lu bytes: a deployment carries at most %u", (unsigned long)len,
			 (unsigned)RT_CLOUD_DEPLOY_MAX_PACKAGE);
		return -1;
	}
	struct world_cloud_deploys *c = deploys_of(w);
	package_t *grown = c == NULL ? NULL : realloc(c->packages, (c->package_count + 1) * sizeof(*grown));
	uint8_t *copy = malloc(len);
	if (grown == NULL || copy == NULL) {
		if (grown != NULL) {
			c->packages = grown;
		}
		free(copy);
		snprintf(why, cap, "out of memory");
		return -1;
	}
	c->packages = grown;
	package_t *p = &c->packages[c->package_count];
	memcpy(copy, bytes, len);
	p->bytes = copy;
	p->len = len;
	memset(&p->offer, 0, sizeof(p->offer));
	hal_crypto_chunk_t chunk = {copy, len};
	if (hal_crypto_sha256(&chunk, 1, p->offer.hash) != HAL_CRYPTO_OK) {
		free(copy);
		snprintf(why, cap, "no SHA-256 to name the package with");
		return -1;
	}
	/* What the header says, as the cloud service offers it (its CRC is the device's to check:
	 * a damaged package is offered, and refused by the device's install). */
	p->offer.size = (uint32_t)len;
	p->offer.api = (uint32_t)bytes[8] | (uint32_t)bytes[9] << 8 | (uint32_t)bytes[10] << 16;
	p->offer.signed_ = (bytes[32] & RT_PACKAGE_FLAG_SIGNED) != 0;
	return (int)c->package_count++;
}

int world_cloud_deploy_add(world_t *w, uint32_t index, uint64_t at, uint32_t package, char *why,
			   size_t cap)
{
	struct world_cloud_deploys *c = deploys_of(w);
	if (c == NULL) {
		snprintf(why, cap, "out of memory");
		return -1;
	}
	if (package >= c->package_count) {
		snprintf(why, cap, "no package %u to deploy (beacon-sim --deploy gives %u)", (unsigned)package,
			 (unsigned)c->package_count);
		return -1;
	}
	if (c->devices == NULL) {
		c->devices = calloc(w->device_count, sizeof(*c->devices));
	}
	if (c->assignment_count == c->assignment_cap) {
		size_t n = c->assignment_cap ? 2 * c->assignment_cap : 8;
		assignment_t *grown = realloc(c->assignments, n * sizeof(*grown));
		if (grown != NULL) {
			c->assignments = grown;
			c->assignment_cap = n;
		}
	}
	if (c->devices == NULL || c->assignment_count == c->assignment_cap) {
		snprintf(why, cap, "out of memory");
		return -1;
	}
	c->assignments[c->assignment_count++] = (assignment_t){at, index, package};
	return 0;
}

bool world_cloud_deploys_to(const world_t *w, uint32_t index)
{
	const struct world_cloud_deploys *c = w->cloud_deploys;
	for (size_t i = 0; c != NULL && i < c->assignment_count; i++) {
		if (c->assignments[i].device == index) {
			return true;
		}
	}
	return false;
}

/* The package assigned to the device now (the scenario's latest deployment to it), or NULL. */
static const package_t *assigned(const world_device_t *d)
{
	const struct world_cloud_deploys *c = d->world->cloud_deploys;
	const package_t *p = NULL;
	for (size_t i = 0; c != NULL && i < c->assignment_count; i++) {
		const assignment_t *a = &c->assignments[i];
		if (a->device == (uint32_t)(d - d->world->devices) && a->at <= d->world->now) {
			p = &c->packages[a->package];
		}
	}
	return p;
}

static device_state_t *state_of(const world_device_t *d)
{
	const struct world_cloud_deploys *c = d->world->cloud_deploys;
	return c != NULL && c->devices != NULL ? &c->devices[d - d->world->devices] : NULL;
}

static const char *outcome_name(uint8_t outcome)
{
	return outcome == RT_CLOUD_OUTCOME_INSTALLED ? "installed"
	       : outcome == RT_CLOUD_OUTCOME_REFUSED ? "refused"
						     : "rolled back";
}

bool world_cloud_deploy_start(world_device_t *d, const rt_cloud_sync_start_t *start,
			      rt_cloud_offer_t *offer)
{
	device_state_t *s = state_of(d);
	world_t *w = d->world;
	char h[17];
	if (s == NULL) {
		return false;
	}
	const rt_cloud_report_t *r = &start->report;
	/* A report is sent until a sync with it succeeds: recorded once. */
	if (r->outcome != RT_CLOUD_OUTCOME_NONE && memcmp(r, &s->report, sizeof(*r)) != 0) {
		s->report = *r;
		if (r->outcome != RT_CLOUD_OUTCOME_INSTALLED) {
			memcpy(s->done, r->hash, RT_CLOUD_DEPLOY_HASH);
			s->has_done = true;
		}
		if (world_tracing(w)) {
			hex8(h, r->hash);
			world_trace_begin(&w->json, w, d, "cloud-deploy-report");
			world_trace_strz(&w->json, "package", h);
			world_trace_strz(&w->json, "outcome", outcome_name(r->outcome));
			if (r->reason[0] != '\0') {
				world_trace_strz(&w->json, "reason", r->reason);
			}
			world_trace_end(&w->json, w);
		}
	}
	const package_t *p = assigned(d);
	/* Offered to a device that says what it runs, when it runs another package and has not
	 * refused or rolled back this one. */
	if (p == NULL || !start->has_app || memcmp(start->app, p->offer.hash, RT_CLOUD_DEPLOY_HASH) == 0 ||
	    (s->has_done && memcmp(s->done, p->offer.hash, RT_CLOUD_DEPLOY_HASH) == 0)) {
		return false;
	}
	*offer = p->offer;
	if (world_tracing(w)) {
		hex8(h, p->offer.hash);
		world_trace_begin(&w->json, w, d, "cloud-deploy-offer");
		world_trace_strz(&w->json, "package", h);
		world_trace_num(&w->json, "size", p->offer.size);
		world_trace_num(&w->json, "api", p->offer.api);
		world_trace_end(&w->json, w);
	}
	return true;
}

bool world_cloud_deploy_fetch(world_device_t *d, const uint8_t *frame, size_t len, rt_cbor_enc_t *e)
{
	uint8_t hash[RT_CLOUD_DEPLOY_HASH];
	uint32_t offset, length;
	device_state_t *s = state_of(d);
	if (s == NULL || !rt_cloud_fetch_decode(frame, len, hash, &offset, &length)) {
		return false;
	}
	const package_t *p = assigned(d);
	if (p == NULL || memcmp(hash, p->offer.hash, RT_CLOUD_DEPLOY_HASH) != 0) {
		/* No longer the device's package: withdrawn. */
		return rt_cloud_chunk_encode(e, offset, NULL, 0);
	}
	if (offset >= p->len) {
		return false; /* past the end: refused, as the cloud service does */
	}
	size_t n = p->len - offset < length ? p->len - offset : length;
	if (s->chunks == 0 || memcmp(s->fetching, hash, RT_CLOUD_DEPLOY_HASH) != 0) {
		world_cloud_deploy_end(d);
		memcpy(s->fetching, hash, RT_CLOUD_DEPLOY_HASH);
		s->from = offset;
	}
	s->chunks++;
	s->bytes += (uint32_t)n;
	s->to = offset + (uint32_t)n;
	return rt_cloud_chunk_encode(e, offset, p->bytes + offset, n);
}

void world_cloud_deploy_end(world_device_t *d)
{
	device_state_t *s = state_of(d);
	world_t *w = d->world;
	if (s == NULL || s->chunks == 0) {
		return;
	}
	if (world_tracing(w)) {
		char h[17];
		hex8(h, s->fetching);
		world_trace_begin(&w->json, w, d, "cloud-deploy-fetch");
		world_trace_strz(&w->json, "package", h);
		world_trace_num(&w->json, "chunks", s->chunks);
		world_trace_num(&w->json, "bytes", s->bytes);
		world_trace_num(&w->json, "from", s->from);
		world_trace_num(&w->json, "to", s->to);
		world_trace_end(&w->json, w);
	}
	s->chunks = 0;
	s->bytes = 0;
}

void world_cloud_deploy_free(world_t *w)
{
	struct world_cloud_deploys *c = w->cloud_deploys;
	if (c == NULL) {
		return;
	}
	for (uint32_t i = 0; i < c->package_count; i++) {
		free(c->packages[i].bytes);
	}
	free(c->packages);
	free(c->assignments);
	free(c->devices);
	free(c);
	w->cloud_deploys = NULL;
}

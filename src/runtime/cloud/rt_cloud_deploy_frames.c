/*
 * rt_cloud_deploy_frames.c: the deployment frames of docs/cloud-protocol.md §3.8 (rt_cloud_deploy.h),
 * the device's and the cloud's side, each checked whole before anything of it is used.
 */
#include <string.h>

#include "rt_cloud_deploy.h"

/* ------------------------------------------------------------------ frames */

static bool read_key(rt_cbor_dec_t *d, int *prev, uint64_t max)
{
	uint64_t k;
	if (rt_cbor_read_uint(d, &k) != RT_CBOR_OK || k > max || (int)k <= *prev) {
		return false;
	}
	*prev = (int)k;
	return true;
}

static bool read_hash(rt_cbor_dec_t *d, uint8_t out[RT_CLOUD_DEPLOY_HASH])
{
	const uint8_t *p;
	size_t n;
	if (rt_cbor_read_bytes(d, &p, &n) != RT_CBOR_OK || n != RT_CLOUD_DEPLOY_HASH) {
		return false;
	}
	memcpy(out, p, n);
	return true;
}

bool rt_cloud_sync_start_encode(rt_cbor_enc_t *e, uint64_t last_id, const uint8_t *app,
				const rt_cloud_report_t *report, uint32_t errors)
{
	bool with_report = report != NULL && report->outcome != RT_CLOUD_OUTCOME_NONE;
	bool with_errors = app != NULL && errors != 0;
	rt_cbor_enc_map(e, 1u + (app != NULL) + with_report + with_errors);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_uint(e, last_id);
	if (app != NULL) {
		rt_cbor_enc_uint(e, 1);
		rt_cbor_enc_bytes(e, app, RT_CLOUD_DEPLOY_HASH);
	}
	if (with_report) {
		size_t reason = strlen(report->reason);
		rt_cbor_enc_uint(e, 2);
		rt_cbor_enc_map(e, reason ? 3 : 2);
		rt_cbor_enc_uint(e, 0);
		rt_cbor_enc_bytes(e, report->hash, RT_CLOUD_DEPLOY_HASH);
		rt_cbor_enc_uint(e, 1);
		rt_cbor_enc_uint(e, report->outcome);
		if (reason) {
			rt_cbor_enc_uint(e, 2);
			rt_cbor_enc_text(e, report->reason, reason);
		}
	}
	if (with_errors) {
		rt_cbor_enc_uint(e, 3);
		rt_cbor_enc_uint(e, errors);
	}
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_offer_read(rt_cbor_dec_t *d, rt_cloud_offer_t *o)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP || it.u < 3 || it.u > 4) {
		return false;
	}
	int prev = -1;
	uint64_t size, api;
	memset(o, 0, sizeof(*o));
	if (!read_key(d, &prev, 0) || !read_hash(d, o->hash) || !read_key(d, &prev, 1) ||
	    rt_cbor_read_uint(d, &size) != RT_CBOR_OK || size == 0 ||
	    size > RT_CLOUD_DEPLOY_MAX_PACKAGE || !read_key(d, &prev, 2) ||
	    rt_cbor_read_uint(d, &api) != RT_CBOR_OK || api > 0xFFFFFFu) {
		return false;
	}
	o->size = (uint32_t)size;
	o->api = (uint32_t)api;
	if (it.u == 4) {
		if (!read_key(d, &prev, 3) || rt_cbor_next(d, &it) != RT_CBOR_OK ||
		    (it.type != RT_CBOR_TRUE && it.type != RT_CBOR_FALSE)) {
			return false;
		}
		o->signed_ = it.type == RT_CBOR_TRUE;
	}
	return true;
}

bool rt_cloud_fetch_encode(rt_cbor_enc_t *e, const uint8_t *hash, uint32_t offset, uint32_t length)
{
	rt_cbor_enc_map(e, 3);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_bytes(e, hash, RT_CLOUD_DEPLOY_HASH);
	rt_cbor_enc_uint(e, 1);
	rt_cbor_enc_uint(e, offset);
	rt_cbor_enc_uint(e, 2);
	rt_cbor_enc_uint(e, length);
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_chunk_decode(const uint8_t *buf, size_t len, uint32_t *offset, const uint8_t **data,
			   size_t *data_len)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	rt_cbor_item_t it;
	int prev = -1;
	uint64_t off;
	if (rt_cbor_next(&d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP || it.u < 1 || it.u > 2 ||
	    !read_key(&d, &prev, 0) || rt_cbor_read_uint(&d, &off) != RT_CBOR_OK ||
	    off >= RT_CLOUD_DEPLOY_MAX_PACKAGE) {
		return false;
	}
	*offset = (uint32_t)off;
	*data = NULL;
	*data_len = 0;
	if (it.u == 2 && (!read_key(&d, &prev, 1) || rt_cbor_read_bytes(&d, data, data_len) != RT_CBOR_OK ||
			  *data_len == 0 || *data_len > RT_CLOUD_DEPLOY_MAX_CHUNK)) {
		return false;
	}
	return rt_cbor_at_end(&d);
}

/* ------------------------------------------------------------------ the cloud's side */

static bool read_report(rt_cbor_dec_t *d, rt_cloud_report_t *r)
{
	rt_cbor_item_t it;
	int prev = -1;
	uint64_t outcome;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP || it.u < 2 || it.u > 3 ||
	    !read_key(d, &prev, 0) || !read_hash(d, r->hash) || !read_key(d, &prev, 1) ||
	    rt_cbor_read_uint(d, &outcome) != RT_CBOR_OK || outcome < RT_CLOUD_OUTCOME_INSTALLED ||
	    outcome > RT_CLOUD_OUTCOME_ROLLED_BACK) {
		return false;
	}
	r->outcome = (uint8_t)outcome;
	r->reason[0] = '\0';
	if (it.u == 3) {
		const char *text;
		size_t n;
		if (!read_key(d, &prev, 2) || rt_cbor_read_text(d, &text, &n) != RT_CBOR_OK || n == 0 ||
		    n > RT_CLOUD_DEPLOY_REASON_MAX || memchr(text, 0, n) != NULL) {
			return false;
		}
		memcpy(r->reason, text, n);
		r->reason[n] = '\0';
	}
	/* Refused and rolled back say why. */
	return outcome == RT_CLOUD_OUTCOME_INSTALLED || r->reason[0] != '\0';
}

bool rt_cloud_sync_start_decode(const uint8_t *buf, size_t len, rt_cloud_sync_start_t *s)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	rt_cbor_item_t it;
	int prev = -1;
	memset(s, 0, sizeof(*s));
	if (rt_cbor_next(&d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP || it.u < 1 || it.u > 4 ||
	    !read_key(&d, &prev, 0) || rt_cbor_read_uint(&d, &s->last_id) != RT_CBOR_OK ||
	    s->last_id > 0x1FFFFFFFFFFFFFull) {
		return false;
	}
	for (uint64_t i = 1; i < it.u; i++) {
		uint64_t errors;
		if (!read_key(&d, &prev, 3)) {
			return false;
		}
		if (prev == 1) {
			if (!read_hash(&d, s->app)) {
				return false;
			}
			s->has_app = true;
		} else if (prev == 2) {
			if (!read_report(&d, &s->report)) {
				return false;
			}
		} else if (!s->has_app || rt_cbor_read_uint(&d, &errors) != RT_CBOR_OK || errors == 0 ||
			   errors > UINT32_MAX) {
			return false; /* errors: with the app's hash, never 0 */
		} else {
			s->errors = (uint32_t)errors;
		}
	}
	return rt_cbor_at_end(&d);
}

bool rt_cloud_offer_write(rt_cbor_enc_t *e, const rt_cloud_offer_t *o)
{
	rt_cbor_enc_map(e, o->signed_ ? 4 : 3);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_bytes(e, o->hash, RT_CLOUD_DEPLOY_HASH);
	rt_cbor_enc_uint(e, 1);
	rt_cbor_enc_uint(e, o->size);
	rt_cbor_enc_uint(e, 2);
	rt_cbor_enc_uint(e, o->api);
	if (o->signed_) {
		rt_cbor_enc_uint(e, 3);
		rt_cbor_enc_bool(e, true);
	}
	return rt_cbor_enc_ok(e);
}

bool rt_cloud_fetch_decode(const uint8_t *buf, size_t len, uint8_t hash[RT_CLOUD_DEPLOY_HASH],
			   uint32_t *offset, uint32_t *length)
{
	rt_cbor_dec_t d;
	rt_cbor_dec_init(&d, buf, len);
	rt_cbor_item_t it;
	int prev = -1;
	uint64_t off, n;
	if (rt_cbor_next(&d, &it) != RT_CBOR_OK || it.type != RT_CBOR_MAP || it.u != 3 ||
	    !read_key(&d, &prev, 0) || !read_hash(&d, hash) || !read_key(&d, &prev, 1) ||
	    rt_cbor_read_uint(&d, &off) != RT_CBOR_OK || off >= RT_CLOUD_DEPLOY_MAX_PACKAGE ||
	    !read_key(&d, &prev, 2) || rt_cbor_read_uint(&d, &n) != RT_CBOR_OK || n == 0 ||
	    n > RT_CLOUD_DEPLOY_MAX_CHUNK) {
		return false;
	}
	*offset = (uint32_t)off;
	*length = (uint32_t)n;
	return rt_cbor_at_end(&d);
}

bool rt_cloud_chunk_encode(rt_cbor_enc_t *e, uint32_t offset, const uint8_t *data, size_t len)
{
	rt_cbor_enc_map(e, data != NULL ? 2 : 1);
	rt_cbor_enc_uint(e, 0);
	rt_cbor_enc_uint(e, offset);
	if (data != NULL) {
		rt_cbor_enc_uint(e, 1);
		rt_cbor_enc_bytes(e, data, len);
	}
	return rt_cbor_enc_ok(e);
}

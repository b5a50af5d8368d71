/*
 * rt_cloud_json.c: see rt_cloud_json.h. A recursive-descent reader of the JSON the engine's
 * JSON.stringify writes (it is also strict enough for any RFC 8259 text), writing CBOR as it
 * goes. A container's item count is not known until its end, so its head is written as one byte
 * and widened (the items moved up) when the count needs more: a shift of at most 8 bytes per
 * container.
 */
#include "rt_cloud_json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAFE_INT 9007199254740991.0

typedef struct {
	const char *s;
	size_t len;
	size_t pos;
	rt_cbor_enc_t *e;
} reader_t;

static void skip_ws(reader_t *r)
{
	while (r->pos < r->len) {
		char c = r->s[r->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			break;
		}
		r->pos++;
	}
}

static rt_cloud_json_err_t enc_status(const rt_cbor_enc_t *e)
{
	return rt_cbor_enc_ok(e) ? RT_CLOUD_JSON_OK : RT_CLOUD_JSON_ESPACE;
}

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9') {
			v |= c - '0';
		} else if (c >= 'a' && c <= 'f') {
			v |= c - 'a' + 10;
		} else if (c >= 'A' && c <= 'F') {
			v |= c - 'A' + 10;
		} else {
			return -1;
		}
	}
	return v;
}

static size_t utf8_put(uint32_t cp, uint8_t *out)
{
	if (cp < 0x80) {
		out[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (uint8_t)(0xC0 | (cp >> 6));
		out[1] = (uint8_t)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (uint8_t)(0xE0 | (cp >> 12));
		out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (uint8_t)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (uint8_t)(0xF0 | (cp >> 18));
	out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (uint8_t)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * Decode the string at r->pos (after the opening quote) into out (NULL: only measure). Returns
 * the UTF-8 length, or -1 when the text is not a JSON string. Leaves r->pos after the closing
 * quote when out is given.
 */
static long string_body(reader_t *r, uint8_t *out)
{
	size_t p = r->pos;
	long n = 0;
	while (p < r->len) {
		unsigned char c = (unsigned char)r->s[p];
		if (c == '"') {
			if (out != NULL) {
				r->pos = p + 1;
			}
			return n;
		}
		if (c < 0x20) {
			return -1;
		}
		if (c != '\\') {
			if (out != NULL) {
				out[n] = c;
			}
			n++;
			p++;
			continue;
		}
		if (p + 1 >= r->len) {
			return -1;
		}
		char esc = r->s[p + 1];
		uint8_t tmp[4];
		uint8_t one = 0;
		switch (esc) {
		case '"': one = '"'; break;
		case '\\': one = '\\'; break;
		case '/': one = '/'; break;
		case 'b': one = '\b'; break;
		case 'f': one = '\f'; break;
		case 'n': one = '\n'; break;
		case 'r': one = '\r'; break;
		case 't': one = '\t'; break;
		case 'u': {
			if (p + 6 > r->len) {
				return -1;
			}
			int u = hex4(r->s + p + 2);
			if (u < 0) {
				return -1;
			}
			uint32_t cp = (uint32_t)u;
			p += 6;
			if (cp >= 0xD800 && cp < 0xDC00 && p + 6 <= r->len && r->s[p] == '\\' &&
			    r->s[p + 1] == 'u') {
				int lo = hex4(r->s + p + 2);
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
					p += 6;
				}
			}
			if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD; /* a lone surrogate has no UTF-8: as the engines read it back */
			}
			size_t k = utf8_put(cp, tmp);
			if (out != NULL) {
				memcpy(out + n, tmp, k);
			}
			n += (long)k;
			continue;
		}
		default:
			return -1;
		}
		if (out != NULL) {
			out[n] = one;
		}
		n++;
		p += 2;
	}
	return -1;
}

static rt_cloud_json_err_t text(reader_t *r)
{
	r->pos++; /* the quote */
	long n = string_body(r, NULL);
	if (n < 0) {
		return RT_CLOUD_JSON_ESYNTAX;
	}
	rt_cbor_enc_t *e = r->e;
	/* The head, then the decoded bytes straight into the encoder's buffer (rt_cbor has no
	 * "head only" call, so the text head is built here). */
	uint8_t head[5];
	size_t hl;
	if (n < 24) {
		head[0] = (uint8_t)(0x60 | n);
		hl = 1;
	} else if (n < 0x100) {
		head[0] = 0x78;
		head[1] = (uint8_t)n;
		hl = 2;
	} else if (n < 0x10000) {
		head[0] = 0x79;
		head[1] = (uint8_t)(n >> 8);
		head[2] = (uint8_t)n;
		hl = 3;
	} else {
		head[0] = 0x7a;
		head[1] = (uint8_t)(n >> 24);
		head[2] = (uint8_t)(n >> 16);
		head[3] = (uint8_t)(n >> 8);
		head[4] = (uint8_t)n;
		hl = 5;
	}
	if (e->overflow || hl + (size_t)n > e->cap - e->len) {
		e->overflow = true;
		return RT_CLOUD_JSON_ESPACE;
	}
	memcpy(e->buf + e->len, head, hl);
	e->len += hl;
	string_body(r, e->buf + e->len);
	e->len += (size_t)n;
	return RT_CLOUD_JSON_OK;
}

static rt_cloud_json_err_t number(reader_t *r)
{
	/* JSON's grammar, checked before strtod (which would also take hex, inf and nan). */
	size_t p = r->pos;
	if (p < r->len && r->s[p] == '-') {
		p++;
	}
	size_t digits = p;
	while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9') {
		p++;
	}
	if (p == digits) {
		return RT_CLOUD_JSON_ESYNTAX;
	}
	if (p < r->len && r->s[p] == '.') {
		p++;
		size_t frac = p;
		while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9') {
			p++;
		}
		if (p == frac) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
	}
	if (p < r->len && (r->s[p] == 'e' || r->s[p] == 'E')) {
		p++;
		if (p < r->len && (r->s[p] == '+' || r->s[p] == '-')) {
			p++;
		}
		size_t exp = p;
		while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9') {
			p++;
		}
		if (p == exp) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
	}
	char buf[64];
	size_t n = p - r->pos;
	if (n >= sizeof(buf)) {
		return RT_CLOUD_JSON_ESYNTAX; /* the engines never write numbers this long */
	}
	memcpy(buf, r->s + r->pos, n);
	buf[n] = '\0';
	r->pos = p;
	double v = strtod(buf, NULL);
	if (!isfinite(v)) {
		return RT_CLOUD_JSON_ESYNTAX;
	}
	if (v == floor(v) && fabs(v) <= MAX_SAFE_INT) {
		if (v >= 0) {
			rt_cbor_enc_uint(r->e, (uint64_t)v);
		} else {
			rt_cbor_enc_negative(r->e, (uint64_t)(-v) - 1u);
		}
	} else {
		rt_cbor_enc_float64(r->e, v);
	}
	return enc_status(r->e);
}

static bool literal(reader_t *r, const char *word)
{
	size_t n = strlen(word);
	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0) {
		return false;
	}
	r->pos += n;
	return true;
}

/* Rewrite the one-byte head at start as the head of a container of count items. */
static rt_cloud_json_err_t fix_head(rt_cbor_enc_t *e, size_t start, uint8_t major, uint64_t count)
{
	uint8_t head[9];
	rt_cbor_enc_t h;
	rt_cbor_enc_init(&h, head, sizeof(head));
	if (major == 4) {
		rt_cbor_enc_array(&h, count);
	} else {
		rt_cbor_enc_map(&h, count);
	}
	size_t extra = h.len - 1;
	if (extra > 0) {
		if (extra > e->cap - e->len) {
			e->overflow = true;
			return RT_CLOUD_JSON_ESPACE;
		}
		memmove(e->buf + start + h.len, e->buf + start + 1, e->len - start - 1);
		e->len += extra;
	}
	memcpy(e->buf + start, head, h.len);
	return RT_CLOUD_JSON_OK;
}

static rt_cloud_json_err_t value(reader_t *r, unsigned depth);

static rt_cloud_json_err_t container(reader_t *r, unsigned depth, bool object)
{
	if (depth == 0) {
		return RT_CLOUD_JSON_EDEPTH;
	}
	char close = object ? '}' : ']';
	rt_cbor_enc_t *e = r->e;
	size_t start = e->len;
	/* Placeholder head, widened by fix_head once the count is known. */
	if (object ? !rt_cbor_enc_map(e, 0) : !rt_cbor_enc_array(e, 0)) {
		return RT_CLOUD_JSON_ESPACE;
	}
	r->pos++;
	skip_ws(r);
	uint64_t count = 0;
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return RT_CLOUD_JSON_OK;
	}
	for (;;) {
		skip_ws(r);
		rt_cloud_json_err_t err;
		if (object) {
			if (r->pos >= r->len || r->s[r->pos] != '"') {
				return RT_CLOUD_JSON_ESYNTAX;
			}
			err = text(r);
			if (err != RT_CLOUD_JSON_OK) {
				return err;
			}
			skip_ws(r);
			if (r->pos >= r->len || r->s[r->pos] != ':') {
				return RT_CLOUD_JSON_ESYNTAX;
			}
			r->pos++;
		}
		err = value(r, depth - 1);
		if (err != RT_CLOUD_JSON_OK) {
			return err;
		}
		count++;
		skip_ws(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == close) {
			r->pos++;
			break;
		}
		return RT_CLOUD_JSON_ESYNTAX;
	}
	return fix_head(e, start, object ? 5 : 4, count);
}

static rt_cloud_json_err_t value(reader_t *r, unsigned depth)
{
	skip_ws(r);
	if (r->pos >= r->len) {
		return RT_CLOUD_JSON_ESYNTAX;
	}
	char c = r->s[r->pos];
	switch (c) {
	case '{':
		return container(r, depth, true);
	case '[':
		return container(r, depth, false);
	case '"':
		return text(r);
	case 't':
		if (!literal(r, "true")) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		rt_cbor_enc_bool(r->e, true);
		return enc_status(r->e);
	case 'f':
		if (!literal(r, "false")) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		rt_cbor_enc_bool(r->e, false);
		return enc_status(r->e);
	case 'n':
		if (!literal(r, "null")) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		rt_cbor_enc_null(r->e);
		return enc_status(r->e);
	default:
		return number(r);
	}
}

rt_cloud_json_err_t rt_cloud_json_to_cbor(const char *json, size_t len, rt_cbor_enc_t *e,
					  unsigned max_depth)
{
	reader_t r = {.s = json, .len = len, .pos = 0, .e = e};
	rt_cloud_json_err_t err = value(&r, max_depth);
	if (err != RT_CLOUD_JSON_OK) {
		return err;
	}
	skip_ws(&r);
	return r.pos == len ? RT_CLOUD_JSON_OK : RT_CLOUD_JSON_ESYNTAX;
}

/* ------------------------------------------------------------------ CBOR -> JSON */

typedef struct {
	char *out;
	size_t cap;
	size_t len;
	bool overflow;
} writer_t;

static void w_put(writer_t *w, const char *s, size_t n)
{
	if (w->overflow || n >= w->cap - w->len) {
		w->overflow = true;
		return;
	}
	memcpy(w->out + w->len, s, n);
	w->len += n;
}

static void w_text(writer_t *w, const uint8_t *s, size_t n)
{
	w_put(w, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\') {
			continue;
		}
		w_put(w, (const char *)s + run, i - run);
		run = i + 1;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			w_put(w, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			w_put(w, esc, 6);
		}
	}
	w_put(w, (const char *)s + run, n - run);
	w_put(w, "\"", 1);
}

static rt_cloud_json_err_t item_json(rt_cbor_dec_t *d, writer_t *w, unsigned depth)
{
	rt_cbor_item_t it;
	if (rt_cbor_next(d, &it) != RT_CBOR_OK) {
		return RT_CLOUD_JSON_ESYNTAX;
	}
	char num[40];
	switch (it.type) {
	case RT_CBOR_UINT:
		if (it.u > (uint64_t)MAX_SAFE_INT) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		w_put(w, num, (size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)it.u));
		break;
	case RT_CBOR_NEGATIVE:
		if (it.u >= (uint64_t)MAX_SAFE_INT) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		w_put(w, num, (size_t)snprintf(num, sizeof(num), "-%llu", (unsigned long long)it.u + 1));
		break;
	case RT_CBOR_FLOAT:
		if (!isfinite(it.f)) {
			return RT_CLOUD_JSON_ESYNTAX;
		}
		/* 17 significant digits read back as the same double. */
		w_put(w, num, (size_t)snprintf(num, sizeof(num), "%.17g", it.f));
		break;
	case RT_CBOR_TEXT:
		w_text(w, it.data, it.len);
		break;
	case RT_CBOR_TRUE:
		w_put(w, "true", 4);
		break;
	case RT_CBOR_FALSE:
		w_put(w, "false", 5);
		break;
	case RT_CBOR_NULL:
		w_put(w, "null", 4);
		break;
	case RT_CBOR_ARRAY:
	case RT_CBOR_MAP: {
		if (depth == 0) {
			return RT_CLOUD_JSON_EDEPTH;
		}
		bool map = it.type == RT_CBOR_MAP;
		w_put(w, map ? "{" : "[", 1);
		for (uint64_t i = 0; i < it.u; i++) {
			if (i > 0) {
				w_put(w, ",", 1);
			}
			if (map) {
				rt_cbor_item_t key;
				if (rt_cbor_next(d, &key) != RT_CBOR_OK || key.type != RT_CBOR_TEXT) {
					return RT_CLOUD_JSON_ESYNTAX;
				}
				w_text(w, key.data, key.len);
				w_put(w, ":", 1);
			}
			rt_cloud_json_err_t err = item_json(d, w, depth - 1);
			if (err != RT_CLOUD_JSON_OK) {
				return err;
			}
		}
		w_put(w, map ? "}" : "]", 1);
		break;
	}
	default:
		return RT_CLOUD_JSON_ESYNTAX; /* bytes, tags, undefined, other simple values */
	}
	return w->overflow ? RT_CLOUD_JSON_ESPACE : RT_CLOUD_JSON_OK;
}

rt_cloud_json_err_t rt_cloud_cbor_to_json(rt_cbor_dec_t *d, char *out, size_t cap, size_t *out_len,
					  unsigned max_depth)
{
	writer_t w = {.out = out, .cap = cap, .len = 0, .overflow = cap == 0};
	rt_cloud_json_err_t err = item_json(d, &w, max_depth);
	if (err == RT_CLOUD_JSON_OK && w.overflow) {
		err = RT_CLOUD_JSON_ESPACE;
	}
	if (cap > 0) {
		out[w.len < cap ? w.len : cap - 1] = '\0';
	}
	*out_len = w.len;
	return err;
}

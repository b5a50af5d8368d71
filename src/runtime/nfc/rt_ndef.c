/*
 * NDEF encoding and decoding. Written here rather than taken from a library: Debian packages no
 * C NDEF codec, and the nRF Connect SDK's (lib/nfc/ndef) builds only under Zephyr, while this
 * one must also run on the host simulator and in its tests. The formats are small and fixed
 * (NDEF 1.0, Text RTD 1.0, URI RTD 1.0, Type 2 Tag TLVs).
 *
 * This file: the URI prefixes, messages, and encoding; decoding is in rt_ndef_decode.c, the Type 2
 * tag's TLVs in rt_ndef_tlv.c.
 */
#include "rt_ndef.h"

#include <string.h>

#include "rt_hex.h"
#include "rt_ndef_internal.h"

/* URI RTD 1.0, Table 3: the URI identifier codes 0x00 to 0x23. */
static const char *const uri_prefixes[] = {
	"",
	"http://www.",
	"https://www.",
	"http://",
	"https://",
	"tel:",
	"mailto:",
	"ftp://anonymous:anonymous@",
	"ftp://ftp.",
	"ftps://",
	"sftp://",
	"smb://",
	"nfs://",
	"ftp://",
	"dav://",
	"news:",
	"telnet://",
	"imap:",
	"rtsp://",
	"urn:",
	"pop:",
	"sip:",
	"sips:",
	"tftp:",
	"btspp://",
	"btl2cap://",
	"btgoep://",
	"tcpobex://",
	"irdaobex://",
	"file://",
	"urn:epc:id:",
	"urn:epc:tag:",
	"urn:epc:pat:",
	"urn:epc:raw:",
	"urn:epc:",
	"urn:nfc:",
};
#define URI_CODES (sizeof(uri_prefixes) / sizeof(uri_prefixes[0]))

const char *rt_ndef_uri_prefix(uint8_t code)
{
	return code < URI_CODES ? uri_prefixes[code] : NULL;
}

const char *rt_ndef_error_message(rt_ndef_error_t error)
{
	switch (error) {
	case RT_NDEF_OK:
		return "OK";
	case RT_NDEF_ERR_INVALID_FORMAT:
		return "Invalid format";
	case RT_NDEF_ERR_TOO_BIG:
		return "Too big";
	case RT_NDEF_ERR_INVALID_RECORD_TYPE:
		return "Invalid record type";
	case RT_NDEF_ERR_MISSING_FIELD:
		return "Missing field";
	}
	return "Invalid format";
}

/* ---------------------------------------------------------------------------------- encoding */

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF. A string
 * from the engine is valid; this guards against text that is not. */
static bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint8_t c = s[i];
		size_t more;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			more = 1;
			cp = c & 0x1F;
			min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			more = 2;
			cp = c & 0x0F;
			min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			more = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= more) {
			return false;
		}
		for (size_t k = 1; k <= more; k++) {
			if ((s[i + k] & 0xC0) != 0x80) {
				return false;
			}
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
			return false;
		}
		i += more + 1;
	}
	return true;
}

static bool has_control(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] == 0x7F) {
			return true;
		}
	}
	return false;
}

/*
 * An NFC Forum external type name (RTD 1.0, sec. 3.2.2): "<domain>:<type>", the domain of
 * letters, digits, '.' and '-', the type of URN name characters (RFC 2141). Readers compare them
 * without regard to case, so the case given is kept.
 */
static bool external_type_valid(const char *s, size_t n)
{
	if (n == 0 || n > 255) {
		return false;
	}
	const char *colon = memchr(s, ':', n);
	if (colon == NULL || colon == s || (size_t)(colon - s) == n - 1) {
		return false;
	}
	for (const char *p = s; p < colon; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '-';
		if (!ok) {
			return false;
		}
	}
	for (const char *p = colon + 1; p < s + n; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  (c != '\0' && strchr("()+,-.:=@;$_!*'%/?#", c) != NULL);
		if (!ok) {
			return false;
		}
	}
	return true;
}

/* The longest prefix of the table that uri starts with (0 if none). */
static uint8_t uri_code(const char *uri, size_t len, size_t *prefix_len)
{
	uint8_t best = 0;
	size_t best_len = 0;
	for (uint8_t code = 1; code < URI_CODES; code++) {
		size_t n = strlen(uri_prefixes[code]);
		if (n > best_len && n <= len && memcmp(uri, uri_prefixes[code], n) == 0) {
			best = code;
			best_len = n;
		}
	}
	*prefix_len = best_len;
	return best;
}

/* A checked record: its type and the parts of its payload. */
typedef struct {
	uint8_t tnf;
	const uint8_t *type;
	size_t type_len;
	uint8_t head[3]; /* TEXT: status byte and "en"; URI: identifier code */
	size_t head_len;
	const uint8_t *body; /* text, rest of the URI, or hex digits */
	size_t body_len;
	bool body_hex;
	size_t payload_len;
} encoded_record_t;

static rt_ndef_error_t check_record(const rt_ndef_record_in_t *in, encoded_record_t *r,
				    const char **detail)
{
	static const uint8_t type_text[] = {'T'};
	static const uint8_t type_uri[] = {'U'};
	double t = in->record_type;
	memset(r, 0, sizeof(*r));
	if (t == RT_NDEF_RECORD_TEXT) {
		if (in->text.ptr == NULL) {
			*detail = "a TEXT record needs text";
			return RT_NDEF_ERR_MISSING_FIELD;
		}
		if (!utf8_valid((const uint8_t *)in->text.ptr, in->text.len)) {
			*detail = "text is not valid UTF-8";
			return RT_NDEF_ERR_INVALID_FORMAT;
		}
		r->tnf = RT_NDEF_TNF_WELL_KNOWN;
		r->type = type_text;
		r->type_len = 1;
		/* Status byte: bit 7 clear for UTF-8, bits 5..0 the language code's length. */
		r->head[0] = (uint8_t)(sizeof(RT_NDEF_TEXT_LANGUAGE) - 1);
		memcpy(r->head + 1, RT_NDEF_TEXT_LANGUAGE, sizeof(RT_NDEF_TEXT_LANGUAGE) - 1);
		r->head_len = sizeof(RT_NDEF_TEXT_LANGUAGE);
		r->body = (const uint8_t *)in->text.ptr;
		r->body_len = in->text.len;
	} else if (t == RT_NDEF_RECORD_URI) {
		if (in->uri.ptr == NULL) {
			*detail = "a URI record needs uri";
			return RT_NDEF_ERR_MISSING_FIELD;
		}
		if (in->uri.len == 0) {
			*detail = "uri is empty";
			return RT_NDEF_ERR_INVALID_FORMAT;
		}
		/* URI RTD: a UTF-8 IRI; control characters have no place in one. */
		if (!utf8_valid((const uint8_t *)in->uri.ptr, in->uri.len) ||
		    has_control((const uint8_t *)in->uri.ptr, in->uri.len)) {
			*detail = "uri has control characters or is not valid UTF-8";
			return RT_NDEF_ERR_INVALID_FORMAT;
		}
		size_t skip;
		r->tnf = RT_NDEF_TNF_WELL_KNOWN;
		r->type = type_uri;
		r->type_len = 1;
		r->head[0] = uri_code(in->uri.ptr, in->uri.len, &skip);
		r->head_len = 1;
		r->body = (const uint8_t *)in->uri.ptr + skip;
		r->body_len = in->uri.len - skip;
	} else if (t == RT_NDEF_RECORD_EXTERNAL) {
		if (in->type.ptr == NULL || in->data.ptr == NULL) {
			*detail = in->type.ptr == NULL ? "an EXTERNAL record needs type"
						       : "an EXTERNAL record needs data";
			return RT_NDEF_ERR_MISSING_FIELD;
		}
		if (!external_type_valid(in->type.ptr, in->type.len)) {
			*detail = "type is not an external type name (domain:type)";
			return RT_NDEF_ERR_INVALID_FORMAT;
		}
		if (in->data.len % 2 != 0) {
			*detail = "data has an odd number of hex digits";
			return RT_NDEF_ERR_INVALID_FORMAT;
		}
		for (size_t i = 0; i < in->data.len; i++) {
			if (rt_hex_digit(in->data.ptr[i]) < 0) {
				*detail = "data is not hex";
				return RT_NDEF_ERR_INVALID_FORMAT;
			}
		}
		r->tnf = RT_NDEF_TNF_EXTERNAL;
		r->type = (const uint8_t *)in->type.ptr;
		r->type_len = in->type.len;
		r->body = (const uint8_t *)in->data.ptr;
		r->body_len = in->data.len;
		r->body_hex = true;
	} else {
		*detail = "recordType is not TEXT, URI or EXTERNAL";
		return RT_NDEF_ERR_INVALID_RECORD_TYPE;
	}
	r->payload_len = r->head_len + (r->body_hex ? r->body_len / 2 : r->body_len);
	return RT_NDEF_OK;
}

static size_t record_size(const encoded_record_t *r)
{
	return 2 + (r->payload_len <= 255 ? 1 : 4) + r->type_len + r->payload_len;
}

rt_ndef_error_t rt_ndef_encode(const rt_ndef_record_in_t *records, size_t count, uint8_t *out,
			       size_t cap, size_t *out_len, rt_ndef_fault_t *fault)
{
	rt_ndef_fault_t ignored;
	if (fault == NULL) {
		fault = &ignored;
	}
	*out_len = 0;
	fault->record = 0;
	fault->detail = NULL;
	if (count == 0) {
		/* nfc.setMsg(null) restores the initial message; an empty list is more likely a
		 * mistake than a wish for an empty tag. */
		fault->detail = "the message has no records";
		return RT_NDEF_ERR_INVALID_FORMAT;
	}
	size_t total = 0;
	for (size_t i = 0; i < count; i++) {
		encoded_record_t r;
		rt_ndef_error_t e = check_record(&records[i], &r, &fault->detail);
		if (e != RT_NDEF_OK) {
			fault->record = i;
			return e;
		}
		size_t n = record_size(&r);
		/* Bounded before adding, so no sum can wrap whatever the lengths given. */
		if (n > RT_NDEF_MAX_MESSAGE || total + n > RT_NDEF_MAX_MESSAGE) {
			total = RT_NDEF_MAX_MESSAGE + 1;
		} else {
			total += n;
		}
	}
	if (total > RT_NDEF_MAX_MESSAGE || total > cap) {
		fault->record = count;
		fault->detail = "the message is over the tag's 868 bytes (or the buffer given)";
		return RT_NDEF_ERR_TOO_BIG;
	}
	size_t at = 0;
	for (size_t i = 0; i < count; i++) {
		encoded_record_t r;
		const char *unused;
		check_record(&records[i], &r, &unused);
		uint8_t flags = r.tnf;
		if (i == 0) {
			flags |= NDEF_MB;
		}
		if (i == count - 1) {
			flags |= NDEF_ME;
		}
		bool sr = r.payload_len <= 255;
		if (sr) {
			flags |= NDEF_SR;
		}
		out[at++] = flags;
		out[at++] = (uint8_t)r.type_len;
		if (sr) {
			out[at++] = (uint8_t)r.payload_len;
		} else {
			out[at++] = (uint8_t)(r.payload_len >> 24);
			out[at++] = (uint8_t)(r.payload_len >> 16);
			out[at++] = (uint8_t)(r.payload_len >> 8);
			out[at++] = (uint8_t)r.payload_len;
		}
		memcpy(out + at, r.type, r.type_len);
		at += r.type_len;
		memcpy(out + at, r.head, r.head_len);
		at += r.head_len;
		if (r.body_hex) {
			for (size_t k = 0; k < r.body_len; k += 2) {
				out[at++] = (uint8_t)(rt_hex_digit((char)r.body[k]) << 4 |
						      rt_hex_digit((char)r.body[k + 1]));
			}
		} else if (r.body_len > 0) {
			memcpy(out + at, r.body, r.body_len);
			at += r.body_len;
		}
	}
	*out_len = at;
	return RT_NDEF_OK;
}

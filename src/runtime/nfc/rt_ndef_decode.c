/*
 * NDEF messages decoded (rt_ndef.h): what a writer left on the tag, record by record, and the
 * Text and URI records read; the encoder is in rt_ndef.c.
 */
#include <string.h>

#include "rt_ndef.h"
#include "rt_ndef_internal.h"

const char *rt_ndef_decode_error_message(rt_ndef_decode_error_t error)
{
	switch (error) {
	case RT_NDEF_DECODE_OK:
		return "OK";
	case RT_NDEF_DECODE_EMPTY:
		return "no bytes";
	case RT_NDEF_DECODE_TRUNCATED:
		return "a record runs past the end of the message";
	case RT_NDEF_DECODE_NO_BEGIN:
		return "the first record has no message-begin flag";
	case RT_NDEF_DECODE_EXTRA_BEGIN:
		return "a record after the first has the message-begin flag";
	case RT_NDEF_DECODE_NO_END:
		return "the message ends without a message-end flag";
	case RT_NDEF_DECODE_TRAILING:
		return "bytes follow the record with the message-end flag";
	case RT_NDEF_DECODE_CHUNKED:
		return "chunked records are not supported";
	case RT_NDEF_DECODE_BAD_TNF:
		return "a record's type name format or lengths are invalid";
	case RT_NDEF_DECODE_TOO_MANY:
		return "more records than expected";
	}
	return "invalid NDEF";
}

rt_ndef_decode_error_t rt_ndef_decode(const uint8_t *msg, size_t len, rt_ndef_record_t *records,
				      size_t max, size_t *count, size_t *error_offset)
{
	size_t ignored;
	if (error_offset == NULL) {
		error_offset = &ignored;
	}
	*count = 0;
	*error_offset = 0;
	if (len == 0) {
		return RT_NDEF_DECODE_EMPTY;
	}
	size_t at = 0;
	for (;;) {
		*error_offset = at;
		/* Every step below checks the bytes left (len - at) before reading: no sum of
		 * untrusted lengths is ever formed. */
		if (len - at < 3) {
			return RT_NDEF_DECODE_TRUNCATED;
		}
		uint8_t flags = msg[at];
		uint8_t tnf = flags & NDEF_TNF_MASK;
		bool first = *count == 0;
		if (first && !(flags & NDEF_MB)) {
			return RT_NDEF_DECODE_NO_BEGIN;
		}
		if (!first && (flags & NDEF_MB)) {
			return RT_NDEF_DECODE_EXTRA_BEGIN;
		}
		if (flags & NDEF_CF) {
			return RT_NDEF_DECODE_CHUNKED;
		}
		size_t p = at + 1;
		size_t type_len = msg[p++];
		size_t payload_len;
		if (flags & NDEF_SR) {
			payload_len = msg[p++];
		} else {
			if (len - p < 4) {
				return RT_NDEF_DECODE_TRUNCATED;
			}
			payload_len = (size_t)msg[p] << 24 | (size_t)msg[p + 1] << 16 |
				      (size_t)msg[p + 2] << 8 | msg[p + 3];
			p += 4;
		}
		size_t id_len = 0;
		if (flags & NDEF_IL) {
			if (len - p < 1) {
				return RT_NDEF_DECODE_TRUNCATED;
			}
			id_len = msg[p++];
		}
		/* NDEF 1.0, sec. 3.3.2 to 3.3.4: what each TNF allows. */
		if (tnf == RT_NDEF_TNF_RESERVED ||
		    (tnf == RT_NDEF_TNF_EMPTY && (type_len != 0 || payload_len != 0 || id_len != 0)) ||
		    ((tnf == RT_NDEF_TNF_UNKNOWN || tnf == RT_NDEF_TNF_UNCHANGED) && type_len != 0) ||
		    (tnf != RT_NDEF_TNF_EMPTY && tnf != RT_NDEF_TNF_UNKNOWN &&
		     tnf != RT_NDEF_TNF_UNCHANGED && type_len == 0)) {
			return RT_NDEF_DECODE_BAD_TNF;
		}
		/* TNF 6 belongs to chunks only. */
		if (tnf == RT_NDEF_TNF_UNCHANGED) {
			return RT_NDEF_DECODE_BAD_TNF;
		}
		if (len - p < type_len) {
			return RT_NDEF_DECODE_TRUNCATED;
		}
		const uint8_t *type = msg + p;
		p += type_len;
		if (len - p < id_len) {
			return RT_NDEF_DECODE_TRUNCATED;
		}
		const uint8_t *id = (flags & NDEF_IL) ? msg + p : NULL;
		p += id_len;
		if (len - p < payload_len) {
			return RT_NDEF_DECODE_TRUNCATED;
		}
		const uint8_t *payload = msg + p;
		p += payload_len;

		if (records != NULL) {
			if (*count >= max) {
				return RT_NDEF_DECODE_TOO_MANY;
			}
			rt_ndef_record_t *r = &records[*count];
			r->tnf = tnf;
			r->mb = (flags & NDEF_MB) != 0;
			r->me = (flags & NDEF_ME) != 0;
			r->sr = (flags & NDEF_SR) != 0;
			r->type = type;
			r->type_len = type_len;
			r->id = id;
			r->id_len = id_len;
			r->payload = payload;
			r->payload_len = payload_len;
		}
		(*count)++;
		at = p;
		if (flags & NDEF_ME) {
			if (at != len) {
				*error_offset = at;
				return RT_NDEF_DECODE_TRAILING;
			}
			return RT_NDEF_DECODE_OK;
		}
		if (at == len) {
			*error_offset = at;
			return RT_NDEF_DECODE_NO_END;
		}
	}
}

static bool is_well_known(const rt_ndef_record_t *r, char type)
{
	return r->tnf == RT_NDEF_TNF_WELL_KNOWN && r->type_len == 1 && r->type[0] == (uint8_t)type;
}

bool rt_ndef_text(const rt_ndef_record_t *r, rt_ndef_text_t *out)
{
	if (!is_well_known(r, 'T') || r->payload_len < 1) {
		return false;
	}
	uint8_t status = r->payload[0];
	size_t lang_len = status & 0x3F;
	/* Bit 6 is reserved and must be 0 (Text RTD 1.0, sec. 3.2.1). */
	if ((status & 0x40) || r->payload_len - 1 < lang_len) {
		return false;
	}
	out->utf16 = (status & 0x80) != 0;
	out->lang = r->payload + 1;
	out->lang_len = lang_len;
	out->text = r->payload + 1 + lang_len;
	out->text_len = r->payload_len - 1 - lang_len;
	return true;
}

bool rt_ndef_uri(const rt_ndef_record_t *r, char *out, size_t cap, size_t *len)
{
	*len = 0;
	if (!is_well_known(r, 'U') || r->payload_len < 1) {
		return false;
	}
	const char *prefix = rt_ndef_uri_prefix(r->payload[0]);
	if (prefix == NULL) {
		return false;
	}
	size_t plen = strlen(prefix);
	size_t rest = r->payload_len - 1;
	*len = plen + rest;
	if (cap == 0 || cap - 1 < *len) {
		return false;
	}
	memcpy(out, prefix, plen);
	memcpy(out + plen, r->payload + 1, rest);
	out[plen + rest] = '\0';
	return true;
}

/*
 * rt_ndef.h: NDEF messages of the NFC tag (nfc.setMsg and nfc.onWrite of 0.0.9).
 *
 * Encoding: the records of nfc.setMsg become one NDEF message (NFC Forum NDEF 1.0): TEXT as a
 * well-known 'T' record (UTF-8, language "en"), URI as a well-known 'U' record with the URI RTD's
 * prefix abbreviation, EXTERNAL as TNF 0x04 with its type name and the bytes of its hex data.
 * Records are short (SR, one length byte) when their payload fits 255 bytes, normal otherwise;
 * MB marks the first, ME the last. No record carries an ID.
 *
 * The tag is an NFC Forum Type 2 tag shaped like NXP's NTAG216: 888 bytes of user memory, of
 * which its capability container (0x6D x 8) declares 872 as the NDEF data area. The message sits
 * there in an NDEF TLV (0x03, a length of 1 or 3 bytes, the message) followed by a Terminator TLV
 * (0xFE) when there is room. "Too big" counts the encoded message: it may be at most 868 bytes,
 * which with the 4-byte TLV header fills the 872.
 *
 * Decoding takes raw bytes from outside (a phone writing the tag, the simulated world, tests)
 * and never reads outside them: every malformed input is an error with its offset.
 *
 * Pure: no allocation, no state; every buffer is the caller's.
 */
#ifndef RT_NDEF_H
#define RT_NDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_NDEF_TAG_USER_MEMORY 888 /* NTAG216 */
#define RT_NDEF_TAG_DATA_AREA 872   /* its capability container: 0x6D * 8 bytes */
#define RT_NDEF_MAX_MESSAGE 868     /* data area less the TLV header 03 FF hi lo */

/* The values of nfc.RecordType. */
enum {
	RT_NDEF_RECORD_TEXT = 1,
	RT_NDEF_RECORD_URI = 2,
	RT_NDEF_RECORD_EXTERNAL = 3,
};

/* Type name formats (NDEF 1.0, sec. 3.2.6). */
enum {
	RT_NDEF_TNF_EMPTY = 0x00,
	RT_NDEF_TNF_WELL_KNOWN = 0x01,
	RT_NDEF_TNF_MEDIA = 0x02,
	RT_NDEF_TNF_ABSOLUTE_URI = 0x03,
	RT_NDEF_TNF_EXTERNAL = 0x04,
	RT_NDEF_TNF_UNKNOWN = 0x05,
	RT_NDEF_TNF_UNCHANGED = 0x06,
	RT_NDEF_TNF_RESERVED = 0x07,
};

/* The text language of TEXT records: nfc.setMsg gives none, and "en" is what readers show
 * without complaint. */
#define RT_NDEF_TEXT_LANGUAGE "en"

/* A string field of a record: ptr NULL when the field is absent. Not NUL-terminated. */
typedef struct {
	const char *ptr;
	size_t len;
} rt_ndef_str_t;

/* One record as nfc.setMsg gets it. record_type is the JS number as given (checked here). */
typedef struct {
	double record_type;
	rt_ndef_str_t text;     /* TEXT */
	rt_ndef_str_t uri;      /* URI */
	rt_ndef_str_t type;     /* EXTERNAL: type name, "domain:type" */
	rt_ndef_str_t data;     /* EXTERNAL: payload as hex */
} rt_ndef_record_in_t;

/* The errors of nfc.setMsg; rt_ndef_error_message gives 0.0.9's wording. */
typedef enum {
	RT_NDEF_OK = 0,
	RT_NDEF_ERR_INVALID_FORMAT,      /* a field that is there but unusable; an empty list */
	RT_NDEF_ERR_TOO_BIG,             /* the message exceeds RT_NDEF_MAX_MESSAGE (or cap) */
	RT_NDEF_ERR_INVALID_RECORD_TYPE, /* recordType is not an nfc.RecordType */
	RT_NDEF_ERR_MISSING_FIELD,       /* the field the record type needs is absent */
} rt_ndef_error_t;

const char *rt_ndef_error_message(rt_ndef_error_t error);

/* What went wrong, for a message that says which record and why. */
typedef struct {
	size_t record;      /* index of the record at fault (for TOO_BIG: the count) */
	const char *detail; /* e.g. "data is not hex", static text */
} rt_ndef_fault_t;

/*
 * Encodes records[0..count) into out (cap bytes; a message never exceeds RT_NDEF_MAX_MESSAGE, so
 * that many always suffice). Checks every record first, in order, each for its record type,
 * then its fields (missing before malformed); then the size. On error nothing useful is in out,
 * *out_len is 0 and fault (may be NULL) says where.
 */
rt_ndef_error_t rt_ndef_encode(const rt_ndef_record_in_t *records, size_t count, uint8_t *out,
			       size_t cap, size_t *out_len, rt_ndef_fault_t *fault);

/* ---------------------------------------------------------------------------------- decoding */

/* A record of a decoded message: pointers into the caller's bytes. */
typedef struct {
	uint8_t tnf;
	bool mb, me, sr;
	const uint8_t *type;
	size_t type_len;
	const uint8_t *id; /* NULL when the record has no ID */
	size_t id_len;
	const uint8_t *payload;
	size_t payload_len;
} rt_ndef_record_t;

typedef enum {
	RT_NDEF_DECODE_OK = 0,
	RT_NDEF_DECODE_EMPTY,          /* no bytes */
	RT_NDEF_DECODE_TRUNCATED,      /* a header or field runs past the end */
	RT_NDEF_DECODE_NO_BEGIN,       /* the first record lacks MB */
	RT_NDEF_DECODE_EXTRA_BEGIN,    /* a later record has MB */
	RT_NDEF_DECODE_NO_END,         /* the bytes end before a record with ME */
	RT_NDEF_DECODE_TRAILING,       /* bytes after the record with ME */
	RT_NDEF_DECODE_CHUNKED,        /* chunked records (CF) are not supported */
	RT_NDEF_DECODE_BAD_TNF,        /* TNF 7, or lengths its TNF forbids */
	RT_NDEF_DECODE_TOO_MANY,       /* more records than the caller's array holds */
} rt_ndef_decode_error_t;

const char *rt_ndef_decode_error_message(rt_ndef_decode_error_t error);

/*
 * Splits an NDEF message into records. records may be NULL to count only (max is then
 * ignored). *count is the number of records found (so far, on error); *error_offset (may be
 * NULL) the offset of the record at fault.
 */
rt_ndef_decode_error_t rt_ndef_decode(const uint8_t *msg, size_t len, rt_ndef_record_t *records,
				      size_t max, size_t *count, size_t *error_offset);

/* A well-known Text record's parts. */
typedef struct {
	bool utf16; /* else UTF-8 */
	const uint8_t *lang;
	size_t lang_len;
	const uint8_t *text;
	size_t text_len;
} rt_ndef_text_t;

/* true when r is a well-known 'T' record with a consistent status byte. */
bool rt_ndef_text(const rt_ndef_record_t *r, rt_ndef_text_t *out);

/* Expands a well-known 'U' record into out (cap bytes, NUL-terminated) and sets *len to the
 * URI's length. false when r is not one, its identifier code is reserved, or out is too
 * small (*len then says how much is needed, without the NUL). */
bool rt_ndef_uri(const rt_ndef_record_t *r, char *out, size_t cap, size_t *len);

/* The prefix a URI identifier code stands for (URI RTD 1.0, Table 3), NULL for codes 0x24 and
 * up (reserved). Code 0 is "". */
const char *rt_ndef_uri_prefix(uint8_t code);

/* ------------------------------------------------------------------- the Type 2 tag's TLVs */

/* Wraps msg in an NDEF TLV (and a Terminator TLV when it fits) into area (cap bytes, at most
 * RT_NDEF_TAG_DATA_AREA used). Returns the bytes written, 0 when it does not fit. */
size_t rt_ndef_tlv_wrap(const uint8_t *msg, size_t len, uint8_t *area, size_t cap);

/* Finds the NDEF TLV in a tag's data area, skipping NULL, Lock Control, Memory Control and
 * proprietary TLVs. false when there is none before the Terminator or the end, or a length
 * runs past the end. */
bool rt_ndef_tlv_find(const uint8_t *area, size_t len, const uint8_t **msg, size_t *msg_len);

#endif /* RT_NDEF_H */

/*
 * The Type 2 tag's TLVs (rt_ndef.h): the NDEF message in its TLV and a Terminator in the tag's
 * data area, and the message found again in what a writer left there.
 */
#include <string.h>

#include "rt_ndef.h"
#include "rt_ndef_internal.h"

size_t rt_ndef_tlv_wrap(const uint8_t *msg, size_t len, uint8_t *area, size_t cap)
{
	size_t room = cap < RT_NDEF_TAG_DATA_AREA ? cap : RT_NDEF_TAG_DATA_AREA;
	size_t head = len < 0xFF ? 2 : 4;
	if (len > 0xFFFE || room < head || room - head < len) {
		return 0;
	}
	size_t at = 0;
	area[at++] = TLV_NDEF;
	if (head == 2) {
		area[at++] = (uint8_t)len;
	} else {
		area[at++] = 0xFF;
		area[at++] = (uint8_t)(len >> 8);
		area[at++] = (uint8_t)len;
	}
	memcpy(area + at, msg, len);
	at += len;
	/* The Terminator is optional where the NDEF TLV fills the area (Type 2 Tag 1.0, 2.3.6). */
	if (at < room) {
		area[at++] = TLV_TERMINATOR;
	}
	return at;
}

bool rt_ndef_tlv_find(const uint8_t *area, size_t len, const uint8_t **msg, size_t *msg_len)
{
	size_t at = 0;
	while (at < len) {
		uint8_t t = area[at++];
		if (t == TLV_NULL) {
			continue;
		}
		if (t == TLV_TERMINATOR) {
			return false;
		}
		if (at >= len) {
			return false;
		}
		size_t l = area[at++];
		if (l == 0xFF) {
			if (len - at < 2) {
				return false;
			}
			l = (size_t)area[at] << 8 | area[at + 1];
			at += 2;
		}
		if (len - at < l) {
			return false;
		}
		if (t == TLV_NDEF) {
			*msg = area + at;
			*msg_len = l;
			return true;
		}
		/* Lock Control, Memory Control, proprietary and reserved TLVs: skipped whole. */
		at += l;
	}
	return false;
}

/*
 * rt_ndef_internal.h: the NDEF record header's flags and the Type 2 tag's TLV types, shared by
 * the encoder (rt_ndef.c), the decoder (rt_ndef_decode.c) and the TLVs (rt_ndef_tlv.c), and by
 * nothing outside the nfc service.
 */
#ifndef RT_NDEF_INTERNAL_H
#define RT_NDEF_INTERNAL_H

/* Record header flags (NDEF 1.0, sec. 3.2). */
#define NDEF_MB 0x80
#define NDEF_ME 0x40
#define NDEF_CF 0x20
#define NDEF_SR 0x10
#define NDEF_IL 0x08
#define NDEF_TNF_MASK 0x07

#define TLV_NULL 0x00
#define TLV_LOCK_CONTROL 0x01
#define TLV_MEMORY_CONTROL 0x02
#define TLV_NDEF 0x03
#define TLV_PROPRIETARY 0xFD
#define TLV_TERMINATOR 0xFE

#endif /* RT_NDEF_INTERNAL_H */

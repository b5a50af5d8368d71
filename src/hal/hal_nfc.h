/*
 * hal_nfc.h: the NFC tag (nfc.* of 0.0.9): an NFC Forum Type 2 tag emulated by the nRF52840's
 * NFCT peripheral.
 *
 * The runtime gives the tag its NDEF message (rt_ndef encodes it) and says whether readers may
 * write it. The driver reports a reader entering or leaving the field with rt_nfc_post_field()
 * and a completed write with rt_nfc_post_write() (rt_nfc.h), and keeps the written message for
 * hal_nfc_written().
 */
#ifndef HAL_NFC_H
#define HAL_NFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The NDEF message the tag presents (len <= 868, rt_ndef's limit). false: no tag. */
bool hal_nfc_set_message(const uint8_t *ndef, size_t len);
/* Whether a reader may write the tag. */
void hal_nfc_writable(bool writable);
/* The NDEF message written last (the bytes of its NDEF TLV). Returns its length; 0 when none. */
size_t hal_nfc_written(uint8_t *buf, size_t cap);

#endif /* HAL_NFC_H */

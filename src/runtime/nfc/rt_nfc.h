/*
 * rt_nfc.h: nfc.* of 0.0.9: the tag's NDEF message (rt_ndef), its write permission, field and
 * write events from hal_nfc.
 *
 * The tag presents the device's initial message until the app sets one and again after
 * setMsg(null): a TEXT record "beacon <public id in hex>", what a phone reading a new device
 * shows. It is writable only while an onWrite callback is registered.
 */
#ifndef RT_NFC_H
#define RT_NFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rt_ndef.h"

/* Records one setMsg takes: a message of tiny records could hold more, none a real tag needs. */
#define RT_NFC_MAX_RECORDS 16
/* Room for the records' strings as given (hex data is two characters a byte). */
#define RT_NFC_TEXT_POOL (2 * RT_NDEF_MAX_MESSAGE + 64)

typedef struct {
	eng_ref_t on_field;
	eng_ref_t on_write;
} rt_nfc_state_t;

struct rt_device;

/* A reader entered (true) or left the field; a reader wrote the tag (hal_nfc_written has it). */
void rt_nfc_post_field(struct rt_device *device, bool field);
void rt_nfc_post_write(struct rt_device *device);

/* The initial message of the selected device into out (at least 64 bytes); returns its length. */
size_t rt_nfc_initial_message(uint8_t *out, size_t cap);

/* The app ends: callbacks go, the tag is read-only and shows the initial message again. */
void rt_nfc_reset(void);

#endif /* RT_NFC_H */

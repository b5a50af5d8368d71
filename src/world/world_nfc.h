/*
 * world_nfc.h: the NFC tag of a simulated device (ble-beacon) and the readers that come near it.
 *
 * The tag holds the NDEF message the runtime gives it. A reader entering the field reads it (the
 * trace shows the bytes: what a phone would see); a reader writing it replaces the message when
 * the tag is writable (an app's nfc.onWrite is registered) and is refused otherwise.
 */
#ifndef WORLD_NFC_H
#define WORLD_NFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_ndef.h"

struct world;
struct world_device;
struct world_event;

typedef struct {
	uint8_t message[RT_NDEF_MAX_MESSAGE];
	size_t len;
	bool writable;
	bool field;
	uint8_t written[RT_NDEF_MAX_MESSAGE];
	size_t written_len;
	/* Scripted writes' bytes, by the index their input carries (owned). */
	uint8_t **writes;
	size_t *write_len;
	size_t n_writes;
} world_nfc_t;

void world_nfc_init(world_nfc_t *n);
void world_nfc_free(world_nfc_t *n);
/* Keep the bytes of a scripted write; returns their index, or -1 (no memory). */
long world_nfc_add_write(world_nfc_t *n, const uint8_t *bytes, size_t len);

/* The device boots: the tag shows the initial message (rt_nfc_initial_message). */
void world_nfc_boot(struct world *w, struct world_device *d);
/* WORLD_IN_NFC_FIELD (value[0]: 1 in, 0 out) and WORLD_IN_NFC_WRITE (value[0]: write index). */
void world_nfc_input(struct world *w, struct world_device *d, const struct world_event *e);

#endif /* WORLD_NFC_H */

/*
 * world_nfc.c: the simulated NFC tag and the readers near it (see world_nfc.h, docs/world.md).
 */
#include "world_nfc.h"

#include <stdlib.h>
#include <string.h>

#include "hal_device.h"
#include "hal_nfc.h"
#include "rt_nfc.h"
#include "world.h"
#include "world_inputs.h"

void world_nfc_init(world_nfc_t *n)
{
	memset(n, 0, sizeof(*n));
}

void world_nfc_free(world_nfc_t *n)
{
	for (size_t i = 0; i < n->n_writes; i++) {
		free(n->writes[i]);
	}
	free(n->writes);
	free(n->write_len);
	n->writes = NULL;
	n->write_len = NULL;
	n->n_writes = 0;
}

long world_nfc_add_write(world_nfc_t *n, const uint8_t *bytes, size_t len)
{
	uint8_t **writes = realloc(n->writes, (n->n_writes + 1) * sizeof(*writes));
	if (writes == NULL) {
		return -1;
	}
	n->writes = writes;
	size_t *lens = realloc(n->write_len, (n->n_writes + 1) * sizeof(*lens));
	if (lens == NULL) {
		return -1;
	}
	n->write_len = lens;
	uint8_t *copy = malloc(len ? len : 1);
	if (copy == NULL) {
		return -1;
	}
	memcpy(copy, bytes, len);
	n->writes[n->n_writes] = copy;
	n->write_len[n->n_writes] = len;
	return (long)n->n_writes++;
}

static world_device_t *nfc_device(void)
{
	world_device_t *d = world_current();
	return d != NULL && (d->features & HAL_FEATURE_NFC) ? d : NULL;
}

/* Bytes as lower-case hex for the trace (what a phone's NFC tool shows). */
static void trace_hex(world_t *w, const char *key, const uint8_t *bytes, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * RT_NDEF_MAX_MESSAGE];
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 0x0f];
	}
	world_trace_str(&w->json, key, hex, 2 * len);
}

bool hal_nfc_set_message(const uint8_t *ndef, size_t len)
{
	world_device_t *d = nfc_device();
	if (d == NULL || len > RT_NDEF_MAX_MESSAGE) {
		return false;
	}
	world_nfc_t *n = &d->nfc;
	memcpy(n->message, ndef, len);
	n->len = len;
	world_t *w = d->world;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "nfc-msg");
		trace_hex(w, "ndef", n->message, n->len);
		world_trace_end(&w->json, w);
	}
	return true;
}

void hal_nfc_writable(bool writable)
{
	world_device_t *d = nfc_device();
	if (d == NULL || d->nfc.writable == writable) {
		return;
	}
	d->nfc.writable = writable;
	world_t *w = d->world;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "nfc-tag");
		world_trace_bool(&w->json, "writable", writable);
		world_trace_end(&w->json, w);
	}
}

size_t hal_nfc_written(uint8_t *buf, size_t cap)
{
	world_device_t *d = nfc_device();
	if (d == NULL) {
		return 0;
	}
	size_t n = d->nfc.written_len < cap ? d->nfc.written_len : cap;
	memcpy(buf, d->nfc.written, n);
	return n;
}

void world_nfc_boot(world_t *w, world_device_t *d)
{
	(void)w;
	world_nfc_t *n = &d->nfc;
	n->writable = false;
	n->written_len = 0;
	if (!(d->features & HAL_FEATURE_NFC)) {
		return;
	}
	/* The tag shows the initial message from power-on, before any app runs. */
	world_device_t *was = world_current();
	world_select(w, d);
	n->len = rt_nfc_initial_message(n->message, sizeof(n->message));
	world_select(w, was);
}

void world_nfc_input(world_t *w, world_device_t *d, const world_event_t *e)
{
	world_nfc_t *n = &d->nfc;
	bool has_tag = (d->features & HAL_FEATURE_NFC) != 0;
	if (e->kind == WORLD_IN_NFC_FIELD) {
		bool field = e->value[0] != 0;
		if (world_tracing(w)) {
			world_trace_begin(&w->json, w, d, "nfc-field");
			world_trace_bool(&w->json, "field", field);
			if (field && has_tag) {
				trace_hex(w, "read", n->message, n->len); /* what the reader reads */
			}
			world_trace_end(&w->json, w);
		}
		if (!has_tag || n->field == field) {
			return;
		}
		n->field = field;
		world_energy_nfc_field(w, d, field);
		rt_nfc_post_field(&d->rt, field);
		world_wake(w, d);
		return;
	}
	size_t index = (size_t)e->value[0];
	if (index >= n->n_writes) {
		return;
	}
	const uint8_t *bytes = n->writes[index];
	size_t len = n->write_len[index];
	/* A reader writes only a tag in its field that accepts writes (the Type 2 tag's lock). */
	bool accepted = has_tag && n->writable && len <= RT_NDEF_MAX_MESSAGE;
	if (world_tracing(w)) {
		world_trace_begin(&w->json, w, d, "nfc-write");
		trace_hex(w, "ndef", bytes, len);
		world_trace_bool(&w->json, "accepted", accepted);
		world_trace_end(&w->json, w);
	}
	if (!accepted) {
		return;
	}
	memcpy(n->written, bytes, len);
	n->written_len = len;
	/* The written message is what the tag presents from now on, as on a real Type 2 tag. */
	memcpy(n->message, bytes, len);
	n->len = len;
	rt_nfc_post_write(&d->rt);
	world_wake(w, d);
}

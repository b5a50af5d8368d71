/*
 * hal_nfc on Zephyr: the nRF52840's NFCT peripheral as an NFC Forum Type 2 tag, with nRF Connect
 * SDK's nfc_t2t library (CONFIG_NFC_T2T_NRFXLIB). Upstream Zephyr has no tag emulation: without
 * it there is no tag (hal_device_features() has no HAL_FEATURE_NFC and setMsg changes nothing).
 *
 * The library presents a read-only tag: nfc_t2t_payload_set() takes the NDEF message and wraps
 * it in its NDEF TLV. Writes from a reader need a writable tag (Type 4 with nfc_t4t in NCS), which
 * is not built: on the device, nfc.onWrite is accepted and never called, which the simulator
 * (where writes are modelled) does not show. The field events come from the library's callback
 * (interrupt context) and are posted to the runtime (rt_nfc_post_field is safe there).
 */
#include "hal_nfc.h"

#include <string.h>
#include <zephyr/kernel.h>

#include "rt_ndef.h"
#include "rt_nfc.h"

#if defined(CONFIG_NFC_T2T_NRFXLIB)
#include <nfc_t2t_lib.h>

static struct rt_device *target;
/* The library reads the payload from here whenever a reader asks: it must outlive the call. */
static uint8_t payload[RT_NDEF_MAX_MESSAGE];
static bool emulating;

static void on_nfc(void *context, nfc_t2t_event_t event, const uint8_t *data, size_t len)
{
	(void)context;
	(void)data;
	(void)len;
	if (target == NULL) {
		return;
	}
	if (event == NFC_T2T_EVENT_FIELD_ON) {
		rt_nfc_post_field(target, true);
	} else if (event == NFC_T2T_EVENT_FIELD_OFF) {
		rt_nfc_post_field(target, false);
	}
}

void port_zephyr_nfc_init(struct rt_device *device)
{
	target = device;
	(void)nfc_t2t_setup(on_nfc, NULL);
}

bool hal_nfc_set_message(const uint8_t *ndef, size_t len)
{
	if (len > sizeof(payload)) {
		return false;
	}
	/* The payload may only change while the tag is not emulated. */
	if (emulating) {
		(void)nfc_t2t_emulation_stop();
		emulating = false;
	}
	memcpy(payload, ndef, len);
	if (nfc_t2t_payload_set(payload, len) != 0 || nfc_t2t_emulation_start() != 0) {
		return false;
	}
	emulating = true;
	return true;
}

#else /* no tag */

void port_zephyr_nfc_init(struct rt_device *device)
{
	(void)device;
}

bool hal_nfc_set_message(const uint8_t *ndef, size_t len)
{
	(void)ndef;
	(void)len;
	return false;
}

#endif

void hal_nfc_writable(bool writable)
{
	(void)writable; /* a Type 2 tag of nfc_t2t is read-only (above) */
}

size_t hal_nfc_written(uint8_t *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return 0;
}

/*
 * rig_link.h: the rig's link to a beacon's upload service: find it on the air (a connectable
 * advertisement naming MCUmgr's SMP service), connect with the connection interval asked for,
 * exchange the ATT MTU, find the SMP characteristic and subscribe to it; then send SMP packets
 * (split into ATT writes without response, as MCUmgr's clients do; the beacon reassembles them)
 * and take the answers (notifications, reassembled by the SMP header's length).
 */
#ifndef RIG_LINK_H
#define RIG_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint16_t interval_units; /* connection interval in 1.25 ms units */
	bool default_mtu;        /* keep the default 23-byte ATT MTU (no exchange, no longer packets) */
	uint32_t scan_timeout_ms;
} rig_link_params_t;

/* Connect to the first beacon that offers the upload service. 0, or a negative errno. */
int rig_link_open(const rig_link_params_t *params);
/* The ATT MTU agreed. */
uint16_t rig_link_mtu(void);
/* The connection's interval, in 1.25 ms units. */
uint16_t rig_link_interval(void);
/* Send one SMP packet. 0, or a negative errno. */
int rig_link_send(const uint8_t *packet, size_t len);
/* The next SMP packet from the beacon, within timeout_ms: its length, 0 on timeout, negative on
 * a broken link. */
int rig_link_receive(uint8_t *buf, size_t cap, uint32_t timeout_ms);
/* Disconnect and wait until the link is gone. */
void rig_link_close(void);
/* Whether the link is up. */
bool rig_link_up(void);

#endif /* RIG_LINK_H */

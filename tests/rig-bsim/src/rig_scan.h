/* rig_scan.h: the rig as a scanner: every advertisement it hears, as a JSON line (rig_scan.c). */
#ifndef RIG_SCAN_H
#define RIG_SCAN_H

#include <stdint.h>

/* Scan (passive, every channel, a window as long as the interval) for ms milliseconds and write
 * one line per packet heard to the host file out: {"t": ms since the scan began, "addr": "...",
 * "type": PDU type, "rssi": dBm, "data": "hex"}. Returns the number of packets, or a negative
 * errno. */
int rig_scan(uint32_t ms, long out);

#endif /* RIG_SCAN_H */

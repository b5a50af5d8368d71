/*
 * gnss_receiver_zephyr.h: fixes from Zephyr's GNSS subsystem (zephyr/drivers/gnss.h) to the
 * runtime. The receiver is the devicetree's `gnss` alias: any receiver Zephyr has a driver for,
 * such as one that speaks NMEA 0183 on a UART under the generic NMEA driver. On nrf52_bsim that
 * receiver is the simulated world's (world_gnss_zephyr.c). Built with CONFIG_GNSS.
 */
#ifndef GNSS_RECEIVER_ZEPHYR_H
#define GNSS_RECEIVER_ZEPHYR_H

struct rt_device;

/* From now on each fix the receiver publishes is posted to device (rt_location_post_fix), and
 * posted() (NULL: nothing) is called after each, on the driver's thread: what wakes a
 * JavaScript thread that does not wait on the runtime's queue (the simulated world's). Data
 * without a fix (a receiver still searching) is not posted: the runtime's maxFixWait decides
 * how long a search may last. */
void gnss_receiver_bind(struct rt_device *device, void (*posted)(void));

#endif /* GNSS_RECEIVER_ZEPHYR_H */

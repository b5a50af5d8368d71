/*
 * world_gnss_zephyr.c: the simulated world's GNSS receiver on a test board's UART (nrf52_bsim
 * with boards/gnss-uart-nrf52_bsim.overlay). Each fix of the world's device goes out as a
 * receiver sends it, NMEA 0183 sentences (world_nmea.c) on uart0's RX line
 * (runner/gnss_receiver_runner.c); Zephyr's generic NMEA driver reads them and
 * gnss_receiver_zephyr.c posts the fix to the device, so location.* reads its fixes through
 * gnss.h as on a board with a real receiver. The world still decides when there is a fix (the
 * track, the sky, the time to first fix, the receiver switched by the runtime).
 */
#include <zephyr/kernel.h>

#include "gnss_receiver_zephyr.h"
#include "runner/gnss_receiver_runner.h"
#include "world.h"
#include "world_nmea.h"
#include "world_zephyr.h"

static void send_sentences(struct world_device *d, const hal_gnss_fix_t *fix)
{
	ARG_UNUSED(d); /* the board's world has one device */
	char sentences[WORLD_NMEA_FIX_MAX];
	size_t len = world_nmea_fix(fix, sentences, sizeof(sentences));

	gnss_receiver_runner_send(sentences, len);
}

void world_zephyr_use_gnss_receiver(world_t *world)
{
	gnss_receiver_bind(&world->devices[0].rt, world_zephyr_wake);
	world_gnss_use_wire(world, send_sentences);
}

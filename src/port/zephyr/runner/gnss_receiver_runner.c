/*
 * gnss_receiver_runner.c: a GNSS receiver's UART on nrf52_bsim's uart0 (docs/firmware.md,
 * "Location through Zephyr's GNSS subsystem"). It is a UART backend of nrf_hw_models
 * (NHW_UART_backend_if.h), compiled into the native simulator's runner beside the models, as
 * uart_link_runner.c is.
 *
 * The receiver's mind is the simulated world on the firmware's side (world_gnss_zephyr.c): at
 * each fix it hands over the fix's NMEA sentences (gnss_receiver_runner_send). This side is the
 * wire: it puts them on uart0's RX line one byte time apart (a byte arrives at the end of its
 * frame, as with nrf_hw_models' own backends), at the UART's configured speed. What the firmware
 * sends to the receiver is dropped: the simulated receiver takes no commands.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bs_tracing.h"
#include "bs_types.h"
/* The models' headers in their own order: the register types before the UART's. */
#include "NHW_config.h"
#include "NHW_peri_types.h"
#include "NHW_UART_backend_if.h"
#include "nsi_hw_scheduler.h"
#include "nsi_hws_models_if.h"
#include "nsi_tasks.h"

#include "gnss_receiver_runner.h"

/* The receiver's UART: uart0 (boards/gnss-uart-nrf52_bsim.overlay); uart1 is the H:4 link. */
#define RECEIVER_UART 0

static uint8_t *line;
static size_t head, len, cap;
static uint64_t timer_receiver = NSI_NEVER; /* when the next byte finishes arriving */

void gnss_receiver_runner_send(const void *bytes, size_t n)
{
	if (head > 0 && head == len) {
		head = len = 0;
	}
	if (len + n > cap) {
		size_t grown = cap ? cap : 256;
		while (grown < len + n) {
			grown *= 2;
		}
		uint8_t *p = realloc(line, grown);
		if (p == NULL) {
			bs_trace_error_line("gnss receiver: out of memory\n");
		}
		line = p;
		cap = grown;
	}
	memcpy(line + len, bytes, n);
	len += n;
	if (timer_receiver == NSI_NEVER && head < len) {
		timer_receiver = nsi_hws_get_time() + nhw_uarte_one_byte_time(RECEIVER_UART);
		nsi_hws_find_next_event();
	}
}

static void receiver_byte_arrives(void)
{
	nhw_UARTE_digest_Rx_byte(RECEIVER_UART, line[head++]);
	timer_receiver = head < len ? timer_receiver + nhw_uarte_one_byte_time(RECEIVER_UART)
				    : NSI_NEVER;
	nsi_hws_find_next_event();
}

NSI_HW_EVENT(timer_receiver, receiver_byte_arrives, 900);

static void receiver_takes_no_commands(uint inst, uint8_t data)
{
	(void)inst;
	(void)data;
}

static void receiver_init(void)
{
	struct backend_if backend = {
		.tx_byte_f = receiver_takes_no_commands,
		.RTS_pin_toggle_f = NULL,
		.uart_enable_notify_f = NULL,
	};
	nhw_UARTE_backend_register(RECEIVER_UART, &backend);
}

/* Before the UART model's own initialisation (HW_INIT 200), as its backends must be. */
NSI_TASK(receiver_init, HW_INIT, 150);

static void receiver_cleanup(void)
{
	free(line);
	line = NULL;
	head = len = cap = 0;
}

NSI_TASK(receiver_cleanup, ON_EXIT_PRE, 100);

/*
 * gnss_receiver_runner.h: the GNSS receiver on nrf52_bsim's uart0, in the native simulator's
 * runner (gnss_receiver_runner.c). The simulated world, on the firmware's side, hands it what the
 * receiver sends; the firmware reads it through its UART and Zephyr's GNSS driver.
 */
#ifndef GNSS_RECEIVER_RUNNER_H
#define GNSS_RECEIVER_RUNNER_H

#include <stddef.h>

/* Put len bytes on the line after what is still being sent, one byte time apart from now on. */
void gnss_receiver_runner_send(const void *bytes, size_t len);

#endif /* GNSS_RECEIVER_RUNNER_H */

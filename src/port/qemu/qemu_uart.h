/*
 * qemu_uart.h: UART0 of the emulated board (Arm CMSDK APB UART at 0x40004000 on mps2-an386), a
 * byte stream to and from the host: QEMU connects it to what -serial names (a pseudo-terminal,
 * a TCP socket, stdio). It is the transport the SMP server's serial framing (rt_smp_serial.h)
 * runs over for uploads into the emulated device; polled, since the image has one thread and
 * the world's scheduler decides when the device runs.
 */
#ifndef QEMU_UART_H
#define QEMU_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void qemu_uart_init(void);
/* Send len bytes (waits while the transmitter is full). */
void qemu_uart_write(const uint8_t *data, size_t len);
/* Take up to cap received bytes without waiting; returns how many. */
size_t qemu_uart_read(uint8_t *buf, size_t cap);

#endif /* QEMU_UART_H */

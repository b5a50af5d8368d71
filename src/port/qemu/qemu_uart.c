/* UART0 of the emulated board: see qemu_uart.h. */
#include "qemu_uart.h"

/* The board's (CMakeLists.txt): 0x40004000 on mps2-an386. */
#define UART0_BASE QEMU_UART0_BASE
#define UART_DATA (*(volatile uint32_t *)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(UART0_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t *)(UART0_BASE + 0x08u))
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0_BASE + 0x10u))

#define STATE_TX_FULL 0x1u
#define STATE_RX_FULL 0x2u
#define CTRL_TX_EN 0x1u
#define CTRL_RX_EN 0x2u

void qemu_uart_init(void)
{
	/* 115200 baud from the board's APB clock (25 MHz); the CMSDK UART does not run with a
	 * divider under 16. */
	UART_BAUDDIV = QEMU_SYSCLK_HZ / 115200u;
	UART_CTRL = CTRL_TX_EN | CTRL_RX_EN;
}

void qemu_uart_write(const uint8_t *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		while (UART_STATE & STATE_TX_FULL) {
		}
		UART_DATA = data[i];
	}
}

size_t qemu_uart_read(uint8_t *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap && (UART_STATE & STATE_RX_FULL)) {
		buf[n++] = (uint8_t)UART_DATA;
	}
	return n;
}

/*
 * qemu_port.h: the bare-metal port on QEMU's mps2-an386 (Cortex-M4F, the nRF52840's core): what
 * the startup code gives the rest of the port.
 *
 * Time: QEMU runs with -icount shift=0, so virtual time advances one nanosecond per instruction
 * and SysTick, clocked at the board's system clock, advances one tick per 40 instructions
 * (25 MHz). The device clock the apps see is the simulated world's (as in the host simulator, so outputs match); the
 * instruction count is what the figures are made of.
 */
#ifndef QEMU_PORT_H
#define QEMU_PORT_H

#include <stddef.h>
#include <stdint.h>

/* 1 ns per instruction (-icount shift=0) over SysTick at the board's system clock (QEMU_SYSCLK_HZ,
 * from CMakeLists.txt): 40 on mps2-an386 (25 MHz). */
#define QEMU_INSTRUCTIONS_PER_TICK (1000000000u / QEMU_SYSCLK_HZ)
/* The clock the figures are converted at: the nRF52840's and the nRF9160's 64 MHz. */
#define QEMU_DEVICE_HZ 64000000u

/* SysTick ticks and instructions since reset (resolution: QEMU_INSTRUCTIONS_PER_TICK). */
uint64_t qemu_ticks(void);
uint64_t qemu_instructions(void);
/* Deepest use of the main stack since reset (painted at reset), and its size, in bytes. */
size_t qemu_stack_depth(void);
size_t qemu_stack_size(void);
/* An Arm semihosting call (op, parameter block). */
int qemu_semihost(int op, void *arg);
/* Reset the emulated machine (SYSRESETREQ). */
void qemu_system_reset(void) __attribute__((noreturn));
/* A fault outside any device code: report it and end the emulation with status 70. */
void qemu_fault_exit(const char *reason) __attribute__((noreturn));

#endif /* QEMU_PORT_H */

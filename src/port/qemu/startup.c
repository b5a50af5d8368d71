/*
 * Reset and vector table of the emulated Cortex-M4F (QEMU mps2-an386; the vector table is at the
 * start of the image).
 *
 * The FPU is switched on before any C runs: the image is built with -mfloat-abi=hard, so the C
 * runtime's first memcpy or a float argument may already use FP registers, and an FP instruction
 * with CP10/CP11 off is a UsageFault. Then .data is copied from flash, .bss zeroed, the stack
 * painted (qemu_stack_depth() reads how deep it went), semihosting's standard handles opened
 * (newlib's rdimon), the command line fetched from the host, and main() runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_port.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_bottom[], __stack_top[];

void initialise_monitor_handles(void);
int main(int argc, char **argv);

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#define STACK_PAINT 0x5AA55AA5u

/* SysTick wraps every 2^24 ticks; the wraps counted here make a 64-bit tick count. */
static volatile uint32_t systick_wraps;

static void systick_handler(void)
{
	systick_wraps++;
}

uint64_t qemu_ticks(void)
{
	uint32_t wraps, value;
	/* Read the count between two reads of the wrap counter, so a wrap in between is seen. */
	do {
		wraps = systick_wraps;
		value = SYST_CVR;
	} while (wraps != systick_wraps);
	return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

uint64_t qemu_instructions(void)
{
	return qemu_ticks() * QEMU_INSTRUCTIONS_PER_TICK;
}

size_t qemu_stack_depth(void)
{
	const uint32_t *p = __stack_bottom;
	while (p < __stack_top && *p == STACK_PAINT) {
		p++;
	}
	return (size_t)((const uint8_t *)__stack_top - (const uint8_t *)p);
}

size_t qemu_stack_size(void)
{
	return (size_t)((const uint8_t *)__stack_top - (const uint8_t *)__stack_bottom);
}

int qemu_semihost(int op, void *arg)
{
	register int r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void qemu_system_reset(void)
{
	/* SYSRESETREQ: QEMU resets the machine and runs the image from its vector table again. */
	__asm__ volatile("dsb" ::: "memory");
	SCB_AIRCR = (0x05FAu << 16) | (1u << 2);
	__asm__ volatile("dsb" ::: "memory");
	for (;;) {
	}
}

/* The host's command line, split at spaces (semihosting SYS_GET_CMDLINE). */
#define CMDLINE_MAX 1024
#define ARGS_MAX 48
static char cmdline[CMDLINE_MAX];
static char *args[ARGS_MAX + 1];

static int split_cmdline(void)
{
	struct {
		char *buf;
		int len;
	} block = {cmdline, CMDLINE_MAX - 1};
	int argc = 0;
	if (qemu_semihost(0x15, &block) != 0) {
		args[argc++] = "beacon-qemu";
		return argc;
	}
	cmdline[block.len] = '\0';
	char *p = cmdline;
	while (*p && argc < ARGS_MAX) {
		while (*p == ' ') {
			*p++ = '\0';
		}
		if (*p) {
			args[argc++] = p;
			while (*p && *p != ' ') {
				p++;
			}
		}
	}
	args[argc] = NULL;
	return argc;
}

static void __attribute__((noreturn)) fault_handler(void)
{
	qemu_fault_exit("hard fault of the core");
}

static void __attribute__((noreturn, naked)) reset_handler(void)
{
	__asm__ volatile("ldr sp, =__stack_top\n"
			 "b qemu_reset_c\n");
}

void __attribute__((noreturn, used)) qemu_reset_c(void);
void qemu_reset_c(void)
{
	SCB_CPACR |= (0xFu << 20); /* CP10 and CP11: full access */
	__asm__ volatile("dsb\n isb" ::: "memory");
	memcpy(__data_start, __data_load, (size_t)((uint8_t *)__data_end - (uint8_t *)__data_start));
	memset(__bss_start, 0, (size_t)((uint8_t *)__bss_end - (uint8_t *)__bss_start));
	/* Paint the stack below the current frame (a few words of margin). */
	uint32_t *sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	for (uint32_t *p = __stack_bottom; p < sp - 16; p++) {
		*p = STACK_PAINT;
	}
	SYST_RVR = 0xFFFFFFu;
	SYST_CVR = 0;
	SYST_CSR = 7; /* processor clock, interrupt on wrap, enabled */
	initialise_monitor_handles();
	int argc = split_cmdline();
	exit(main(argc, args));
}

typedef void (*vector_t)(void);

__attribute__((section(".vectors"), used)) static const vector_t vectors[16 + 32] = {
	(vector_t)(uintptr_t)__stack_top,
	reset_handler,
	fault_handler, /* NMI */
	fault_handler, /* HardFault */
	fault_handler, /* MemManage */
	fault_handler, /* BusFault */
	fault_handler, /* UsageFault */
	0, 0, 0, 0,
	fault_handler, /* SVCall */
	fault_handler, /* DebugMon */
	0,
	fault_handler, /* PendSV */
	systick_handler,
};

/* newlib's __libc_fini_array calls these (crti/crtn without -nostartfiles); nothing to do. */
void _init(void);
void _fini(void);
void _init(void)
{
}
void _fini(void)
{
}

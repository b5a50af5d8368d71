/*
 * qemu_harness.h: the harness's own heap on the emulated board (docs/budget.md).
 *
 * The QEMU image carries, besides the firmware, what stands in for the device's surroundings:
 * the simulated world (other devices, the air, the loopback cloud, the scenario) and the main
 * that loads the app over semihosting. None of it exists on the device, so none of its RAM may
 * count against the device's budget: its statics are linked into the board's separate PSRAM
 * (the HARNESS region of beacon-qemu.ld.in) and its allocations come from a heap there, through
 * these functions. The world's sources and qemu_main.c are compiled with this header forced in
 * (-include), which turns their malloc, calloc, realloc and free into these; the firmware's own
 * allocations (the C library's, the runtime's, Duktape's heap) stay newlib's, in the device's
 * arena.
 */
#ifndef QEMU_HARNESS_H
#define QEMU_HARNESS_H

#include <stddef.h>
#include <stdlib.h>

void *qemu_harness_malloc(size_t size);
void *qemu_harness_calloc(size_t count, size_t size);
void *qemu_harness_realloc(void *p, size_t size);
void qemu_harness_free(void *p);
/* The most the heap has held at once, bytes (headers included). */
size_t qemu_harness_peak(void);

#ifndef QEMU_HARNESS_IMPL
#define malloc(n) qemu_harness_malloc(n)
#define calloc(n, s) qemu_harness_calloc(n, s)
#define realloc(p, n) qemu_harness_realloc(p, n)
#define free(p) qemu_harness_free(p)
#endif

#endif /* QEMU_HARNESS_H */

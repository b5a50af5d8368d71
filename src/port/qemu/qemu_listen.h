/*
 * qemu_listen.h: the emulated device as a long-lived device that takes apps over SMP on UART0
 * (beacon-qemu --listen), the firmware counterpart of `beacon-sim --listen`.
 *
 * QEMU connects UART0 to what -serial names (a pseudo-terminal: -serial pty), so
 * `beacon upload --device serial:/dev/pts/N` talks to the firmware image itself: Zephyr's MCUmgr
 * serial framing (rt_smp_serial.h) and the SMP server (rt_smp.h) of the device's build, on its
 * core. An upload lands in the app store's staging slot (qemu_flash.h, rt_app_store.h), is
 * verified there (rt_package_check, rt_signature_check) and only then made the installed app (the
 * slots swap roles) and started where it lies; a refused package leaves the running app, its slot
 * and its storage alone.
 *
 * One thread, as on the device where the SMP work queue and the JavaScript thread take turns:
 * the loop runs the world up to the device clock (hal_clock_real_ms: instructions at the
 * device's 64 MHz, virtual under -icount), then serves the bytes UART0 holds, then again. The
 * image never returns from here; the host ends QEMU.
 */
#ifndef QEMU_LISTEN_H
#define QEMU_LISTEN_H

#include "world.h"

/* Serve SMP on UART0 and run the world's one device. Prints "ready" on stdout once UART0 is
 * served (everything after it is the device's console), then starts the app store's installed
 * package (slot, len; named `name` in messages), if any. */
void qemu_listen(world_t *world, const char *name, const uint8_t *slot, size_t len)
	__attribute__((noreturn));

#endif /* QEMU_LISTEN_H */

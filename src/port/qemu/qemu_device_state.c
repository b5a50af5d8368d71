/*
 * qemu_device_state.c: the device's own state, counted in the device's RAM budget.
 *
 * On the device, the runtime's state (rt_device_t) is a static of the firmware. On the QEMU
 * image the simulated world keeps it inside its model of the device (world_device_t), which is
 * the harness's memory (qemu_harness.h). So that the link still counts it against the device's
 * RAM, this reserves its size in the device's region (the .device_state section of
 * beacon-qemu.ld.in). Nothing uses the bytes; an image whose state grows past the budget fails
 * to link, as it would on the device.
 */
#include <stdint.h>

#include "rt_device.h"

/* Global, and named by the link script (EXTERN), so that the link takes it from the port's
 * library although nothing refers to it. */
extern uint8_t qemu_device_state[sizeof(rt_device_t)];
__attribute__((used, section(".device_state"))) uint8_t qemu_device_state[sizeof(rt_device_t)];

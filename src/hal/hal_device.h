/*
 * hal_device.h: identity and power of the device itself.
 */
#ifndef HAL_DEVICE_H
#define HAL_DEVICE_H

#include <stddef.h>
#include <stdint.h>

/* The device's public identifier (raw bytes; sys.getPublicId() shows it as hex). Returns the
 * number of bytes written. */
size_t hal_device_public_id(uint8_t *buf, size_t cap);
/* Hardware revision, e.g. "nrf52840dk-1.0" or "sim-ble-1". */
const char *hal_device_hardware(void);
/* An unrecoverable runtime or engine error: log it and reset the device (the host simulator
 * exits with status 70). Does not return. */
void hal_device_fatal(const char *reason) __attribute__((noreturn));

#endif /* HAL_DEVICE_H */

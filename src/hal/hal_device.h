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

/* What the hardware has beyond the basics every beacon has (BLE, main button, ring LEDs,
 * accelerometer, battery, temperature). */
#define HAL_FEATURE_SIDE_BUTTON 0x01u
#define HAL_FEATURE_GYRO 0x02u
#define HAL_FEATURE_GNSS 0x04u
#define HAL_FEATURE_LTE 0x08u
#define HAL_FEATURE_UWB 0x10u
#define HAL_FEATURE_NFC 0x20u
uint32_t hal_device_features(void);
/* Fill buf with len random bytes. A device takes them from its hardware's entropy source (the
 * nRF RNG through Zephyr's entropy driver): never the same on two devices or after two boots.
 * The simulator draws them from the world's seed, the device and its boot, so a run repeats.
 * Not for keys: the engine seeds Math.random with them. */
void hal_device_random(void *buf, size_t len);
/* An unrecoverable runtime or engine error: log it and reset the device (the host simulator
 * exits with status 70). Does not return. */
void hal_device_fatal(const char *reason) __attribute__((noreturn));

#endif /* HAL_DEVICE_H */

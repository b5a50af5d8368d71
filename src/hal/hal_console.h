/*
 * hal_console.h: the debug console.
 *
 * Two channels: what the app prints (print(), stdout on the host, the BLE/UART console on the
 * device) and what the runtime itself reports (stderr on the host, Zephyr's log on the device).
 */
#ifndef HAL_CONSOLE_H
#define HAL_CONSOLE_H

#include <stddef.h>

typedef enum { HAL_LOG_ERROR = 0, HAL_LOG_WARN, HAL_LOG_INFO, HAL_LOG_DEBUG } hal_log_level_t;

/* One line of app output; text need not be NUL-terminated and carries no newline. */
void hal_console_print(const char *text, size_t len);
void hal_log(hal_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* HAL_CONSOLE_H */

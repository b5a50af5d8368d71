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
/* Data for the visualisation console (preview()): one JSON text. */
void hal_console_preview(const char *json, size_t len);

/* What happened to the app, for whoever watches the device (the device log, the simulator's
 * trace). detail may be NULL. */
typedef enum {
	HAL_APP_STARTED = 0, /* its top level ran */
	HAL_APP_FAILED,      /* refused, or its top level threw: detail says why */
	HAL_APP_STOPPED,     /* app.stop() */
	HAL_APP_REMOVED,     /* app.remove() */
	HAL_APP_RESTARTING,  /* app.restart(), or started again by the side button */
} hal_app_event_t;
void hal_console_app_event(hal_app_event_t event, const char *detail);

/* Something the firmware did that a watcher wants to see (the simulator's trace; the device's debug
 * log): kind names it ("storage"); fields are JSON members without the braces, e.g.
 * "op":"save","id":3,"bytes":41. */
void hal_console_record(const char *kind, const char *fields);
void hal_log(hal_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* HAL_CONSOLE_H */

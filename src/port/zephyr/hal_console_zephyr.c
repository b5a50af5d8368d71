/*
 * hal_console on Zephyr: app output through printk (the console UART, later also the BLE
 * console), runtime messages through Zephyr's log under the module "beacon".
 *
 * preview() data has no channel of its own yet: until the BLE visualisation channel exists it
 * goes to the log, one info line "preview: <json>", which a host tool reading the console can
 * pick out. App lifecycle events go to the log too ("app started", "app failed: ...").
 */
#include "hal_console.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <zephyr/logging/log.h>
#include <zephyr/sys/printk.h>
#include <zephyr/sys/util.h>

LOG_MODULE_REGISTER(beacon, CONFIG_BEACON_LOG_LEVEL);

/* printk has no portable way to print a counted string (precision is not supported by every
 * cbprintf configuration), so the text goes out in NUL-terminated pieces. */
#define PRINT_CHUNK 64

/* Longest runtime message; longer ones are cut, which vsnprintf makes safe. */
#define LOG_LINE_MAX 192

/* Longest preview JSON put in one log line. preview() allows CONFIG_BEACON_PRINT_MAX (1 KB);
 * the deferred log copies each string into its buffer (CONFIG_LOG_BUFFER_SIZE, 1 KB by
 * default), so a longer text is cut, and the line says so. */
#define PREVIEW_LOG_MAX 256

void hal_console_print(const char *text, size_t len)
{
	char chunk[PRINT_CHUNK + 1];
	size_t used = 0;

	for (size_t i = 0; i < len; i++) {
		/* A NUL cannot travel through a C string; the console could not show it anyway. */
		if (text[i] == '\0') {
			continue;
		}
		chunk[used++] = text[i];
		if (used == PRINT_CHUNK) {
			chunk[used] = '\0';
			printk("%s", chunk);
			used = 0;
		}
	}
	chunk[used] = '\0';
	printk("%s\n", chunk);
}

void hal_log(hal_log_level_t level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;

#if defined(CONFIG_BEACON_LOG_LEVEL)
	/* hal_log_level_t counts from 0 (error), Zephyr's levels from 1 (LOG_LEVEL_ERR): skip the
	 * formatting of what the log would drop. */
	if ((int)level + 1 > CONFIG_BEACON_LOG_LEVEL) {
		return;
	}
#endif
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);

	/* The deferred log copies strings from RAM into the message, so a stack buffer is fine. */
	switch (level) {
	case HAL_LOG_ERROR:
		LOG_ERR("%s", line);
		break;
	case HAL_LOG_WARN:
		LOG_WRN("%s", line);
		break;
	case HAL_LOG_INFO:
		LOG_INF("%s", line);
		break;
	case HAL_LOG_DEBUG:
	default:
		LOG_DBG("%s", line);
		break;
	}
}

void hal_console_preview(const char *json, size_t len)
{
	char text[PREVIEW_LOG_MAX + 1];
	size_t n = len < PREVIEW_LOG_MAX ? len : PREVIEW_LOG_MAX;

	/* The engine's JSON escapes control characters, so the text has no NUL of its own. */
	memcpy(text, json, n);
	text[n] = '\0';
	if (n < len) {
		LOG_INF("preview: %s ... (cut: %u of %u bytes)", text, (unsigned)n, (unsigned)len);
	} else {
		LOG_INF("preview: %s", text);
	}
}

void hal_console_app_event(hal_app_event_t event, const char *detail)
{
	static const char *const names[] = {"started", "failed", "stopped", "removed",
					    "restarting"};
	const char *name = (unsigned int)event < ARRAY_SIZE(names) ? names[event] : "changed";

	if (event == HAL_APP_FAILED) {
		LOG_ERR("app failed: %s", detail != NULL ? detail : "(no reason given)");
	} else if (detail != NULL) {
		LOG_INF("app %s: %s", name, detail);
	} else {
		LOG_INF("app %s", name);
	}
}

void hal_console_record(const char *kind, const char *fields)
{
	/* The simulator traces these; on the device they are debug lines. */
	LOG_DBG("%s {%s}", kind, fields);
}

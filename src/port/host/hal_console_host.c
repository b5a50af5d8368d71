/* App output to stdout, one line per print(); runtime messages to stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "hal_console.h"
#include "sim.h"

void hal_console_print(const char *text, size_t len)
{
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
}

void sim_console_flush(void)
{
	fflush(stdout);
}

void hal_log(hal_log_level_t level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	/* Keep stdout and stderr in order for a reader of both. */
	fflush(stdout);
	fprintf(stderr, "[beacon %s] ", names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG]);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

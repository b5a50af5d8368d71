#include "host_io.h"

#include <time.h>

uint64_t host_real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void print_line(void *ctx, const char *device, bool several, const char *text, size_t len)
{
	host_io_t *host = ctx;
	host_progress_clear(&host->progress);
	if (several) {
		printf("[%s] ", device);
	}
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
}

static void log_line(void *ctx, const char *device, bool several, hal_log_level_t level,
		     const char *text)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	host_io_t *host = ctx;
	host_progress_clear(&host->progress);
	/* Keep stdout and stderr in order for a reader of both. */
	fflush(stdout);
	fprintf(stderr, "[beacon %s] %s%s%s\n", names[level <= HAL_LOG_DEBUG ? level : HAL_LOG_DEBUG],
		several ? device : "", several ? ": " : "", text);
}

static void trace_line(void *ctx, const char *json, size_t len)
{
	host_io_t *host = ctx;
	fwrite(json, 1, len, host->trace);
	fputc('\n', host->trace);
}

static void energy_line(void *ctx, const char *json, size_t len)
{
	host_io_t *host = ctx;
	fwrite(json, 1, len, host->energy);
	fputc('\n', host->energy);
}

static void verbose_line(void *ctx, const char *text)
{
	host_io_t *host = ctx;
	host_progress_clear(&host->progress);
	fflush(stdout);
	fprintf(stderr, "%s\n", text);
}

static void wait_until(void *ctx, uint64_t at)
{
	host_io_t *host = ctx;
	if (host->world != NULL && host_progress_on(&host->progress)) {
		host_progress_step(&host->progress, host->world);
	}
	if (!host->realtime) {
		return;
	}
	uint64_t now = host_real_ms() - host->real_start_ms;
	if (at > now) {
		fflush(stdout);
		uint64_t wait = at - now;
		struct timespec ts = {(time_t)(wait / 1000u), (long)(wait % 1000u) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

void host_io_setup(host_io_t *host, world_io_t *io, bool verbose, int progress_fd)
{
	host->real_start_ms = host_real_ms();
	host_progress_init(&host->progress, progress_fd, host->real_start_ms);
	if (progress_fd == -2) {
		host->progress.tty = false;
		host->progress.fd = -1;
	}
	io->ctx = host;
	io->print = print_line;
	io->log = log_line;
	io->trace = host->trace ? trace_line : NULL;
	io->energy = host->energy ? energy_line : NULL;
	io->verbose = verbose ? verbose_line : NULL;
	io->wait_until = host->realtime || host_progress_on(&host->progress) ? wait_until : NULL;
}

/*
 * host_link on nrf52_bsim: the firmware is a process of the host and links the host's C library
 * (CONFIG_NATIVE_LIBC), so files are the host's stdio. The run's options come on the device's
 * command line as one argument, -beacon_args="...", registered with BabbleSim's argument parser
 * before the kernel boots.
 */
#include "host_link.h"

#include <stdio.h>
#include <stdlib.h>

#include <zephyr/kernel.h>

/* The board's own headers (boards/native/nrf_bsim): its command line is BabbleSim's. */
#include "cmdline.h"
#include "nsi_main.h"
#include "posix_native_task.h"

static char *beacon_args;

static void register_args(void)
{
	static struct args_struct_t args[] = {
		{
			.option = "beacon_args",
			.name = "options",
			.type = 's',
			.dest = (void *)&beacon_args,
			.descript = "The beacon firmware's run options (see world_main_zephyr.c), "
				    "space-separated",
		},
		ARG_TABLE_ENDMARKER,
	};
	native_add_command_line_opts(args);
}

NATIVE_TASK(register_args, PRE_BOOT_1, 200);

const char *host_link_cmdline(void)
{
	return beacon_args != NULL ? beacon_args : "";
}

/* Handles index a small table of open files (a 32-bit process's pointers do not fit a
 * non-negative long); 1 and 2 name the standard streams. */
#define FIRST_HANDLE 3
static FILE *files[8];

static FILE *file_of(long file)
{
	if (file == 1) {
		return stdout;
	}
	if (file == 2) {
		return stderr;
	}
	long i = file - FIRST_HANDLE;

	return i >= 0 && i < (long)ARRAY_SIZE(files) ? files[i] : NULL;
}

long host_link_open(const char *path, bool write)
{
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i] == NULL) {
			files[i] = fopen(path, write ? "wb" : "rb");
			return files[i] != NULL ? (long)i + FIRST_HANDLE : -1;
		}
	}
	return -1;
}

long host_link_read(long file, void *buf, size_t len)
{
	FILE *f = file_of(file);

	return f != NULL ? (long)fread(buf, 1, len, f) : -1;
}

long host_link_write(long file, const void *buf, size_t len)
{
	FILE *f = file_of(file);

	if (f == NULL) {
		return -1;
	}
	long n = (long)fwrite(buf, 1, len, f);

	fflush(f);
	return n;
}

void host_link_close(long file)
{
	FILE *f = file_of(file);

	if (f != NULL && file >= FIRST_HANDLE) {
		fclose(f);
		files[file - FIRST_HANDLE] = NULL;
	}
}

long host_link_stdout(void)
{
	return 1;
}

long host_link_stderr(void)
{
	return 2;
}

void host_link_exit(int status)
{
	fflush(stdout);
	fflush(stderr);
	nsi_exit(status);
	CODE_UNREACHABLE;
}

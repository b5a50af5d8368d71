/*
 * host_link under QEMU (mps2/an521): Arm semihosting (CONFIG_SEMIHOST), the debug channel
 * through which an emulated core asks the emulator to open, read and write host files. QEMU runs
 * with -semihosting-config enable=on,target=native,arg=...: the args are the run's command line.
 * The board's UART stays Zephyr's console; the run's output goes to the host's stdout and stderr
 * (":tt" opened for writing and appending, by the semihosting convention), so the two never mix.
 */
#include "host_link.h"

#include <string.h>

#include <zephyr/arch/common/semihost.h>
#include <zephyr/kernel.h>

/* SYS_EXIT_EXTENDED (Arm semihosting 2.0): ends the emulation with an exit status. Zephyr's
 * enum names the calls it uses itself, not this one. */
#define SEMIHOST_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

const char *host_link_cmdline(void)
{
	static char line[1024];
	static bool read;

	if (!read) {
		struct {
			char *buf;
			long len;
		} args = {line, (long)sizeof(line) - 1};

		read = true;
		if (semihost_exec(SEMIHOST_GET_CMDLINE, &args) != 0) {
			line[0] = '\0';
		} else {
			line[args.len < (long)sizeof(line) ? args.len : (long)sizeof(line) - 1] = '\0';
		}
	}
	/* The first word is the program's name (QEMU's first arg=). */
	const char *rest = strchr(line, ' ');
	return rest != NULL ? rest + 1 : "";
}

long host_link_open(const char *path, bool write)
{
	long fd = semihost_open(path, write ? SEMIHOST_OPEN_WB : SEMIHOST_OPEN_RB);
	return fd >= 0 ? fd : -1;
}

long host_link_read(long file, void *buf, size_t len)
{
	/* Zephyr's semihost_read() (arch/common/semihost.c) turns READ's "bytes not read" into len
	 * when all were read and -EIO at the end of the file, but passes a partial read's count of
	 * bytes NOT read through as it is. */
	long r = semihost_read(file, buf, (long)len);

	if (r < 0) {
		return 0;
	}
	return r == (long)len ? r : (long)len - r;
}

long host_link_write(long file, const void *buf, size_t len)
{
	long left = semihost_write(file, buf, (long)len);
	return left < 0 ? -1 : (long)len - left;
}

void host_link_close(long file)
{
	(void)semihost_close(file);
}

long host_link_stdout(void)
{
	static long fd = -2;

	if (fd == -2) {
		fd = semihost_open(":tt", SEMIHOST_OPEN_W);
	}
	return fd;
}

long host_link_stderr(void)
{
	static long fd = -2;

	if (fd == -2) {
		fd = semihost_open(":tt", SEMIHOST_OPEN_A);
	}
	return fd;
}

void host_link_exit(int status)
{
	long block[2] = {ADP_STOPPED_APPLICATION_EXIT, status};

	(void)semihost_exec((enum semihost_instr)SEMIHOST_EXIT_EXTENDED, block);
	for (;;) {
		k_cpu_idle();
	}
}

/*
 * host_link.h: what a firmware on a simulated board (nrf52_bsim, mps2/an521 under QEMU) reaches
 * of the machine that simulates it: the run's options, files, and the end of the run.
 *
 * The boards' own channels differ: on nrf52_bsim the firmware is a process of the host, with the
 * host's C library (host_link_bsim.c); under QEMU it asks the emulator through Arm semihosting
 * (host_link_semihost.c). The world's front end (world_main_zephyr.c) is written against this
 * header only. A device on the desk has no host: none of this is built for it.
 */
#ifndef HOST_LINK_H
#define HOST_LINK_H

#include <stdbool.h>
#include <stddef.h>

/* The run's options as one line, space-separated (the emulator's command line, or the bsim
 * device's -beacon_args); "" when none were given. */
const char *host_link_cmdline(void);

/* A file of the host: read whole, or written from the start. -1 when it cannot be opened. */
long host_link_open(const char *path, bool write);
long host_link_read(long file, void *buf, size_t len);
long host_link_write(long file, const void *buf, size_t len);
void host_link_close(long file);
/* A whole host file from the heap, NUL-terminated (its length without the NUL in *len); NULL
 * when it cannot be read. Over the calls above, whichever board (host_link_file.c). */
unsigned char *host_link_read_file(const char *path, size_t *len);
/* The host's standard output and error (for the run's own messages). */
long host_link_stdout(void);
long host_link_stderr(void);

/* End the simulation with the process's exit status. */
void host_link_exit(int status) __attribute__((noreturn));

#endif /* HOST_LINK_H */

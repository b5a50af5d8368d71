/*
 * host_pty.h: the pseudo-terminal the host's SMP servers (beacon-smp-testd, beacon sim --listen)
 * offer as a serial port, and writing frames to it.
 */
#ifndef HOST_PTY_H
#define HOST_PTY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Open a pty master (non-blocking if asked) and put its slave in raw mode; the slave stays open
 * in *slave so that the master never reads EIO between two clients and raw mode holds for each.
 * name receives the slave's path. Returns the master, or -1.
 */
int host_pty_open(char *name, size_t cap, int *slave, bool nonblocking);

/*
 * Write all of b to fd, waiting while it is full. With give_up, a second without room ends the
 * write (nobody reads: the answer is lost and the SMP client sends again).
 */
void host_pty_write_all(int fd, const uint8_t *b, size_t n, bool give_up);

/*
 * Take the time n bytes take on a serial line at baud (10 bits a byte; 0: no time), as the
 * device's UART would; a signal that sets *stop ends the wait early.
 */
void host_pty_line_delay(unsigned long baud, size_t n, const volatile sig_atomic_t *stop);

#endif /* HOST_PTY_H */

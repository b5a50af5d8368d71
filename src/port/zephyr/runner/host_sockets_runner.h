/*
 * host_sockets_runner.h: the host's TCP sockets, for the firmware on nrf52_bsim (a process of
 * the host). host_sockets_runner.c is compiled into the native simulator's runner with the host's
 * headers; the firmware's socket provider (host_sockets_bsim.c) calls it with Zephyr's.
 * The two share no header but this one, so it speaks plain integers and bytes, and errors as the
 * HOST_SOCKETS_E* codes below rather than either side's errno numbers.
 *
 * Every call blocks the host process, and with it the simulated device and BabbleSim's air: a
 * device that waits on the network holds the simulation's time (host_sockets_bsim.c, poll).
 */
#ifndef HOST_SOCKETS_RUNNER_H
#define HOST_SOCKETS_RUNNER_H

#include <stddef.h>
#include <stdint.h>

/* Errors, returned negated. */
enum {
	HOST_SOCKETS_EAGAIN = 1,
	HOST_SOCKETS_ECONNREFUSED,
	HOST_SOCKETS_ECONNRESET,
	HOST_SOCKETS_ETIMEDOUT,
	HOST_SOCKETS_EPIPE,
	HOST_SOCKETS_ENOTCONN,
	HOST_SOCKETS_EHOSTUNREACH,
	HOST_SOCKETS_ENOMEM,
	HOST_SOCKETS_EINVAL,
	HOST_SOCKETS_EIO,
};

/* poll's events and results. */
#define HOST_SOCKETS_IN 1
#define HOST_SOCKETS_OUT 2
#define HOST_SOCKETS_ERR 4

/* A TCP socket over IPv4: the host's descriptor, or a negated error. */
int host_sockets_open(void);
/* Connect (blocking) to an IPv4 address and port, both in network byte order. */
int host_sockets_connect(int fd, uint32_t addr, uint16_t port);
/* Send or receive up to len bytes: the count, 0 for the peer's end (receive), or a negated
 * error (HOST_SOCKETS_EAGAIN when dont_wait and nothing can move now). */
long host_sockets_send(int fd, const void *buf, size_t len, int dont_wait);
long host_sockets_recv(int fd, void *buf, size_t len, int dont_wait);
/* Wait up to timeout_ms of the host's time (0: look only) for any of events on each descriptor:
 * revents[i] gets what happened to fds[i]; the count of descriptors with something, or a
 * negated error. */
int host_sockets_poll(const int *fds, const int *events, int *revents, int count, int timeout_ms);
/* Bytes that can be received without waiting. */
int host_sockets_pending(int fd);
/* The pending error of a connection (SO_ERROR) as a HOST_SOCKETS_E* code, 0 when none. */
int host_sockets_error(int fd);
void host_sockets_close(int fd);
/* The first IPv4 address of a host name (or dotted quad), in network byte order: 0 on success. */
int host_sockets_resolve(const char *name, uint32_t *addr);
/* Milliseconds of the host's monotonic clock. */
int64_t host_sockets_now_ms(void);

#endif /* HOST_SOCKETS_RUNNER_H */

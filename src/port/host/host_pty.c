/*
 * host_pty.c: see host_pty.h.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "host_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int host_pty_open(char *name, size_t cap, int *slave, bool nonblocking)
{
	int fd = posix_openpt(O_RDWR | O_NOCTTY | (nonblocking ? O_NONBLOCK : 0));
	if (fd < 0 || grantpt(fd) != 0 || unlockpt(fd) != 0) {
		return -1;
	}
	const char *path = ptsname(fd);
	if (!path || strlen(path) >= cap) {
		return -1;
	}
	strcpy(name, path);
	*slave = open(path, O_RDWR | O_NOCTTY);
	if (*slave < 0) {
		return -1;
	}
	struct termios tio;
	if (tcgetattr(*slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(*slave, TCSANOW, &tio);
	}
	return fd;
}

void host_pty_write_all(int fd, const uint8_t *b, size_t n, bool give_up)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (errno == EAGAIN) {
				struct pollfd p = {fd, POLLOUT, 0};
				if (poll(&p, 1, 1000) <= 0 && give_up) {
					return;
				}
				continue;
			}
			return;
		}
		b += w;
		n -= (size_t)w;
	}
}

void host_pty_line_delay(unsigned long baud, size_t n, const volatile sig_atomic_t *stop)
{
	if (baud == 0 || n == 0) {
		return;
	}
	uint64_t ns = (uint64_t)n * 10u * 1000000000u / baud;
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !*stop) {
	}
}

/*
 * host_sockets_runner.c: see host_sockets_runner.h. Runs in the native simulator's runner, with the
 * host's C library and headers (never Zephyr's: the two define the same names differently).
 */
#include "host_sockets_runner.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int code_of(int e)
{
	switch (e) {
	case EAGAIN:
#if EWOULDBLOCK != EAGAIN
	case EWOULDBLOCK:
#endif
	case EINPROGRESS:
		return HOST_SOCKETS_EAGAIN;
	case ECONNREFUSED:
		return HOST_SOCKETS_ECONNREFUSED;
	case ECONNRESET:
	case ECONNABORTED:
		return HOST_SOCKETS_ECONNRESET;
	case ETIMEDOUT:
		return HOST_SOCKETS_ETIMEDOUT;
	case EPIPE:
		return HOST_SOCKETS_EPIPE;
	case ENOTCONN:
		return HOST_SOCKETS_ENOTCONN;
	case EHOSTUNREACH:
	case ENETUNREACH:
		return HOST_SOCKETS_EHOSTUNREACH;
	case ENOMEM:
	case ENOBUFS:
	case EMFILE:
	case ENFILE:
		return HOST_SOCKETS_ENOMEM;
	case EINVAL:
	case EBADF:
		return HOST_SOCKETS_EINVAL;
	default:
		return HOST_SOCKETS_EIO;
	}
}

int host_sockets_open(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);

	if (fd < 0) {
		return -code_of(errno);
	}
	/* A sync is a few small request/answer exchanges: no Nagle delay between them. */
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int host_sockets_connect(int fd, uint32_t addr, uint16_t port)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = port};

	in.sin_addr.s_addr = addr;
	while (connect(fd, (struct sockaddr *)&in, sizeof(in)) != 0) {
		if (errno != EINTR) {
			return -code_of(errno);
		}
	}
	return 0;
}

long host_sockets_send(int fd, const void *buf, size_t len, int dont_wait)
{
	for (;;) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | (dont_wait ? MSG_DONTWAIT : 0));

		if (n >= 0) {
			return (long)n;
		}
		if (errno != EINTR) {
			return -code_of(errno);
		}
	}
}

long host_sockets_recv(int fd, void *buf, size_t len, int dont_wait)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, dont_wait ? MSG_DONTWAIT : 0);

		if (n >= 0) {
			return (long)n;
		}
		if (errno != EINTR) {
			return -code_of(errno);
		}
	}
}

int host_sockets_poll(const int *fds, const int *events, int *revents, int count, int timeout_ms)
{
	struct pollfd p[8];

	if (count < 0 || count > (int)(sizeof(p) / sizeof(p[0]))) {
		return -HOST_SOCKETS_EINVAL;
	}
	for (int i = 0; i < count; i++) {
		p[i].fd = fds[i];
		p[i].events = (short)((events[i] & HOST_SOCKETS_IN ? POLLIN : 0) |
				      (events[i] & HOST_SOCKETS_OUT ? POLLOUT : 0));
		p[i].revents = 0;
	}
	int n;

	while ((n = poll(p, (nfds_t)count, timeout_ms)) < 0) {
		if (errno != EINTR) {
			return -code_of(errno);
		}
	}
	for (int i = 0; i < count; i++) {
		revents[i] = (p[i].revents & POLLIN ? HOST_SOCKETS_IN : 0) |
			     (p[i].revents & POLLOUT ? HOST_SOCKETS_OUT : 0) |
			     (p[i].revents & (POLLERR | POLLHUP | POLLNVAL) ? HOST_SOCKETS_ERR : 0);
	}
	return n;
}

int host_sockets_pending(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 ? n : 0;
}

int host_sockets_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0) {
		return code_of(errno);
	}
	return e != 0 ? code_of(e) : 0;
}

void host_sockets_close(int fd)
{
	(void)close(fd);
}

int host_sockets_resolve(const char *name, uint32_t *addr)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL;

	if (getaddrinfo(name, NULL, &hints, &res) != 0 || res == NULL) {
		return -1;
	}
	*addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
	freeaddrinfo(res);
	return 0;
}

int64_t host_sockets_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The test board's socket provider: on nrf52_bsim (the firmware a process of the host) TCP
 * sockets are the host's, reached through the runner-side half (runner/host_sockets_runner.c).
 * It registers through Zephyr's socket offload API, as the nRF9160's modem library does, so
 * everything above it is what a device runs: Zephyr's socket layer, its TLS sockets on Mbed TLS
 * with TLS credentials, the MQTT library and the cloud client (hal_cloud_zephyr.c).
 *
 * Time: every host call blocks the process, and BabbleSim's lockstep air waits for the device,
 * so while the firmware waits on the network the simulation's time stands still: the device's
 * clock never runs ahead of a broker that answers in real time, and a sync takes no device time,
 * as on the host simulator (whose world waits for its MQTT transport the same way). Only a poll
 * whose whole timeout passes on the host with nothing moves the device's clock, by that timeout,
 * so that a deadline the firmware set in its own time still ends a wait on a silent broker.
 */
#include <errno.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/net/socket.h>
#include <zephyr/net/socket_offload.h>
#include <zephyr/posix/fcntl.h>
#include <zephyr/sys/fdtable.h>

#include "sockets_internal.h"

#include "runner/host_sockets_runner.h"

#define MAX_SOCKETS 4

struct host_socket {
	bool used;
	bool nonblock;
	int host_fd;
};

static struct host_socket sockets[MAX_SOCKETS];
static const struct socket_op_vtable host_socket_vtable;

/* The runner side's error codes as Zephyr's errno values. */
static int errno_of(long code)
{
	static const int table[] = {
		[HOST_SOCKETS_EAGAIN] = EAGAIN,
		[HOST_SOCKETS_ECONNREFUSED] = ECONNREFUSED,
		[HOST_SOCKETS_ECONNRESET] = ECONNRESET,
		[HOST_SOCKETS_ETIMEDOUT] = ETIMEDOUT,
		[HOST_SOCKETS_EPIPE] = EPIPE,
		[HOST_SOCKETS_ENOTCONN] = ENOTCONN,
		[HOST_SOCKETS_EHOSTUNREACH] = EHOSTUNREACH,
		[HOST_SOCKETS_ENOMEM] = ENOMEM,
		[HOST_SOCKETS_EINVAL] = EINVAL,
		[HOST_SOCKETS_EIO] = EIO,
	};
	long c = code < 0 ? -code : code;

	return c > 0 && c < (long)ARRAY_SIZE(table) ? table[c] : EIO;
}

/* A negated runner-side error as the socket API's -1 and errno. */
static long fail(long rc)
{
	errno = errno_of(rc);
	return -1;
}

static bool is_supported(int family, int type, int proto)
{
	/* Plain TCP over IPv4. TLS sockets are Zephyr's (sockets_tls.c), on top of these. */
	return family == AF_INET && type == SOCK_STREAM && (proto == 0 || proto == IPPROTO_TCP);
}

static int create(int family, int type, int proto)
{
	struct host_socket *s = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(sockets); i++) {
		if (!sockets[i].used) {
			s = &sockets[i];
			break;
		}
	}
	if (s == NULL) {
		errno = ENFILE;
		return -1;
	}
	int fd = zvfs_reserve_fd();

	if (fd < 0) {
		return -1;
	}
	int host_fd = host_sockets_open();

	if (host_fd < 0) {
		zvfs_free_fd(fd);
		return (int)fail(host_fd);
	}
	*s = (struct host_socket){.used = true, .host_fd = host_fd};
	zvfs_finalize_typed_fd(fd, s, &host_socket_vtable.fd_vtable, ZVFS_MODE_IFSOCK);
	return fd;
}

static int hs_close(void *obj)
{
	struct host_socket *s = obj;

	host_sockets_close(s->host_fd);
	s->used = false;
	return 0;
}

static int hs_connect(void *obj, const struct sockaddr *addr, socklen_t addrlen)
{
	struct host_socket *s = obj;
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

	if (addr == NULL || addrlen < sizeof(*in) || addr->sa_family != AF_INET) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	int rc = host_sockets_connect(s->host_fd, in->sin_addr.s_addr, in->sin_port);

	return rc < 0 ? (int)fail(rc) : 0;
}

static ssize_t hs_sendto(void *obj, const void *buf, size_t len, int flags,
			 const struct sockaddr *dest, socklen_t dest_len)
{
	struct host_socket *s = obj;

	ARG_UNUSED(dest);
	ARG_UNUSED(dest_len);
	long n = host_sockets_send(s->host_fd, buf, len, s->nonblock || (flags & ZSOCK_MSG_DONTWAIT));

	return n < 0 ? fail(n) : n;
}

static ssize_t hs_sendmsg(void *obj, const struct msghdr *msg, int flags)
{
	ssize_t sent = 0;

	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		ssize_t n = hs_sendto(obj, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len, flags,
				      NULL, 0);
		if (n < 0) {
			return sent > 0 ? sent : n;
		}
		sent += n;
		if ((size_t)n < msg->msg_iov[i].iov_len) {
			break;
		}
	}
	return sent;
}

static ssize_t hs_recvfrom(void *obj, void *buf, size_t len, int flags, struct sockaddr *src,
			   socklen_t *src_len)
{
	struct host_socket *s = obj;

	ARG_UNUSED(src);
	if (src_len != NULL) {
		*src_len = 0;
	}
	long n = host_sockets_recv(s->host_fd, buf, len, s->nonblock || (flags & ZSOCK_MSG_DONTWAIT));

	return n < 0 ? fail(n) : n;
}

static ssize_t hs_read(void *obj, void *buf, size_t len)
{
	return hs_recvfrom(obj, buf, len, 0, NULL, NULL);
}

static ssize_t hs_write(void *obj, const void *buf, size_t len)
{
	return hs_sendto(obj, buf, len, 0, NULL, 0);
}

static int hs_getsockopt(void *obj, int level, int optname, void *optval, socklen_t *optlen)
{
	struct host_socket *s = obj;

	if (level == SOL_SOCKET && optname == SO_ERROR && optval != NULL && optlen != NULL &&
	    *optlen >= sizeof(int)) {
		int code = host_sockets_error(s->host_fd);

		*(int *)optval = code != 0 ? errno_of(code) : 0;
		*optlen = sizeof(int);
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

static int hs_setsockopt(void *obj, int level, int optname, const void *optval, socklen_t optlen)
{
	ARG_UNUSED(obj);
	ARG_UNUSED(optval);
	ARG_UNUSED(optlen);
	/* The host's defaults serve a client (TCP_NODELAY is set at open); options the socket
	 * layer passes down are accepted without effect rather than failing a connection. */
	if (level == SOL_SOCKET || level == IPPROTO_TCP) {
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

/* Wait for the descriptors (all this provider's: Zephyr hands poll to the provider only then)
 * in the host's time, the simulation's standing still (see the top of the file). */
static int poll_offload(struct zsock_pollfd *fds, int nfds, int timeout_ms)
{
	int host_fds[8], events[8], revents[8];

	if (nfds > (int)ARRAY_SIZE(host_fds)) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < nfds; i++) {
		struct host_socket *s = zvfs_get_fd_obj(fds[i].fd, &host_socket_vtable.fd_vtable, 0);

		if (s == NULL) {
			errno = EINVAL;
			return -1;
		}
		host_fds[i] = s->host_fd;
		events[i] = (fds[i].events & ZSOCK_POLLIN ? HOST_SOCKETS_IN : 0) |
			    (fds[i].events & ZSOCK_POLLOUT ? HOST_SOCKETS_OUT : 0);
	}
	int n = host_sockets_poll(host_fds, events, revents, nfds, timeout_ms);

	if (n < 0) {
		return (int)fail(n);
	}
	for (int i = 0; i < nfds; i++) {
		fds[i].revents = (revents[i] & HOST_SOCKETS_IN ? ZSOCK_POLLIN : 0) |
				 (revents[i] & HOST_SOCKETS_OUT ? ZSOCK_POLLOUT : 0) |
				 (revents[i] & HOST_SOCKETS_ERR ? ZSOCK_POLLERR : 0);
	}
	if (n == 0 && timeout_ms > 0) {
		/* The whole timeout passed on the host with nothing: the device's clock catches
		 * up with it, so that the caller's own deadline (in device time) is reached. */
		k_sleep(K_MSEC(timeout_ms));
	}
	return n;
}

static int hs_ioctl(void *obj, unsigned int request, va_list args)
{
	struct host_socket *s = obj;

	switch (request) {
	case ZFD_IOCTL_POLL_PREPARE:
		/* Zephyr's poll then hands the whole set to ZFD_IOCTL_POLL_OFFLOAD. */
		return -EXDEV;
	case ZFD_IOCTL_POLL_UPDATE:
		return -EOPNOTSUPP;
	case ZFD_IOCTL_POLL_OFFLOAD: {
		struct zsock_pollfd *fds = va_arg(args, struct zsock_pollfd *);
		int nfds = va_arg(args, int);
		int timeout = va_arg(args, int);

		return poll_offload(fds, nfds, timeout);
	}
	case F_GETFL:
		return s->nonblock ? O_NONBLOCK : 0;
	case F_SETFL:
		s->nonblock = (va_arg(args, int) & O_NONBLOCK) != 0;
		return 0;
	case ZFD_IOCTL_FIONREAD: {
		int *avail = va_arg(args, int *);

		*avail = host_sockets_pending(s->host_fd);
		return 0;
	}
	default:
		errno = EINVAL;
		return -1;
	}
}

static const struct socket_op_vtable host_socket_vtable = {
	.fd_vtable = {
		.read = hs_read,
		.write = hs_write,
		.close = hs_close,
		.ioctl = hs_ioctl,
	},
	.connect = hs_connect,
	.sendto = hs_sendto,
	.sendmsg = hs_sendmsg,
	.recvfrom = hs_recvfrom,
	.getsockopt = hs_getsockopt,
	.setsockopt = hs_setsockopt,
};

NET_SOCKET_OFFLOAD_REGISTER(beacon_host, CONFIG_NET_SOCKETS_OFFLOAD_PRIORITY, AF_INET, is_supported,
			    create);

/* ------------------------------------------------------------------ names */

/* One resolution at a time (the cloud client's): the answer lives here until freed. */
static struct {
	bool used;
	struct zsock_addrinfo info;
	struct sockaddr_in addr;
} answer;

static int hs_getaddrinfo(const char *node, const char *service, const struct zsock_addrinfo *hints,
			  struct zsock_addrinfo **res)
{
	uint32_t addr;

	if (node == NULL || res == NULL || (hints != NULL && hints->ai_family != AF_UNSPEC &&
					    hints->ai_family != AF_INET)) {
		return DNS_EAI_FAMILY;
	}
	if (answer.used) {
		return DNS_EAI_MEMORY;
	}
	if (host_sockets_resolve(node, &addr) != 0) {
		return DNS_EAI_NONAME;
	}
	memset(&answer, 0, sizeof(answer));
	answer.used = true;
	answer.addr.sin_family = AF_INET;
	answer.addr.sin_addr.s_addr = addr;
	answer.addr.sin_port = htons(service != NULL ? (uint16_t)strtoul(service, NULL, 10) : 0);
	answer.info.ai_family = AF_INET;
	answer.info.ai_socktype = SOCK_STREAM;
	answer.info.ai_protocol = IPPROTO_TCP;
	answer.info.ai_addr = (struct sockaddr *)&answer.addr;
	answer.info.ai_addrlen = sizeof(answer.addr);
	*res = &answer.info;
	return 0;
}

static void hs_freeaddrinfo(struct zsock_addrinfo *res)
{
	if (res == &answer.info) {
		answer.used = false;
	}
}

static const struct socket_dns_offload dns = {
	.getaddrinfo = hs_getaddrinfo,
	.freeaddrinfo = hs_freeaddrinfo,
};

static int host_sockets_init(void)
{
	socket_offload_dns_register(&dns);
	return 0;
}

SYS_INIT(host_sockets_init, APPLICATION, 0);

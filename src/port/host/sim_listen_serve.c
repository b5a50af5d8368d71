/*
 * The transports of `beacon-sim --listen` (sim_listen.h): SMP over UDP datagrams and over the
 * pseudo-terminal with the serial framing (rt_smp_serial.h, at the simulated line rate), the
 * control channel's commands, and the loop that waits for them at most until the world's next
 * deadline and steps the world against the wall clock in between.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host_io.h"
#include "host_pty.h"
#include "rt_smp.h"
#include "rt_smp_serial.h"
#include "sim_listen_internal.h"
#include "world.h"
#include "world_script.h"

/* --- control channel --- */

static void control_line(listen_t *l, char *line)
{
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
		line[--n] = '\0';
	}
	if (n == 0) {
		return;
	}
	if (strcmp(line, "quit") == 0) {
		sim_listen_stop = 1;
	} else if (strcmp(line, "sync") == 0) {
		sim_listen_catch_up(l);
		fflush(stdout);
		fprintf(stderr, "[beacon sync] %llu\n", (unsigned long long)l->world->now);
	} else if (strncmp(line, "advance ", 8) == 0) {
		uint64_t ms;
		if (!l->virtual_time) {
			fprintf(stderr, "[beacon error] advance: device time runs in real time (start with --virtual)\n");
		} else if (!world_script_parse_u64(line + 8, &ms)) {
			fprintf(stderr, "[beacon error] advance takes milliseconds\n");
		} else {
			world_run_until(l->world, l->world->now + ms);
		}
	} else if (strncmp(line, "input ", 6) == 0) {
		const char *rest = line + 6;
		uint64_t delay = 0;
		if (rest[0] == '+') {
			char num[24];
			size_t k = strcspn(rest + 1, " ");
			if (k == 0 || k >= sizeof(num)) {
				fprintf(stderr, "[beacon error] input +MS takes milliseconds\n");
				return;
			}
			memcpy(num, rest + 1, k);
			num[k] = '\0';
			if (!world_script_parse_u64(num, &delay)) {
				fprintf(stderr, "[beacon error] input +MS takes milliseconds\n");
				return;
			}
			rest += 1 + k;
			rest += strspn(rest, " ");
		}
		sim_listen_catch_up(l);
		/* The world script is the one grammar of inputs: a new kind there is a new kind here. */
		char script[700], err[256];
		int len = snprintf(script, sizeof(script), "beacon-world 1\nat %llu 0 %s\n",
				   (unsigned long long)(l->world->now + delay), rest);
		if (len < 0 || (size_t)len >= sizeof(script)) {
			fprintf(stderr, "[beacon error] input: line too long\n");
		} else if (world_script_load(l->world, script, (size_t)len, err, sizeof(err)) != 0) {
			/* "line 2: ..." names the script's line, which the user never saw. */
			const char *why = strncmp(err, "line 2: ", 8) == 0 ? err + 8 : err;
			fprintf(stderr, "[beacon error] input: %s\n", why);
		}
	} else {
		fprintf(stderr, "[beacon error] unknown command '%s' (input, advance, sync, quit)\n", line);
	}
}

void sim_listen_serve(listen_t *l, rt_smp_server_t *server, int udp, int control)
{
	static uint8_t rx[MAX_PACKET + 2], rsp[MAX_PACKET], frames[MAX_PACKET * 2];
	static char ctl[1024];
	size_t ctl_len = 0;
	rt_smp_serial_dec_t dec;
	rt_smp_serial_dec_init(&dec, rx, sizeof(rx), NULL, NULL);

	while (!sim_listen_stop) {
		int timeout = 1000;
		if (!l->virtual_time) {
			uint64_t now = sim_listen_real_now(l);
			world_run_until(l->world, now);
			uint64_t next = world_next_deadline(l->world);
			if (next != WORLD_FOREVER) {
				uint64_t wait = next > now ? next - now : 0;
				timeout = wait < 1000 ? (int)wait : 1000;
			}
		}
		struct pollfd fds[3];
		int nfds = 0, i_udp = -1, i_pty = -1, i_ctl = -1;
		if (udp >= 0) {
			i_udp = nfds;
			fds[nfds++] = (struct pollfd){udp, POLLIN, 0};
		}
		if (l->pty >= 0) {
			i_pty = nfds;
			fds[nfds++] = (struct pollfd){l->pty, POLLIN, 0};
		}
		if (control >= 0) {
			i_ctl = nfds;
			fds[nfds++] = (struct pollfd){control, POLLIN, 0};
		}
		if (poll(fds, (nfds_t)nfds, timeout) < 0) {
			if (errno == EINTR) {
				continue;
			}
			break;
		}
		uint32_t now_ms = (uint32_t)host_real_ms();
		if (i_udp >= 0 && (fds[i_udp].revents & POLLIN)) {
			uint8_t req[MAX_PACKET];
			struct sockaddr_in from;
			socklen_t flen = sizeof(from);
			ssize_t n = recvfrom(udp, req, sizeof(req), 0, (struct sockaddr *)&from, &flen);
			if (n >= 0) {
				uint32_t client = ntohl(from.sin_addr.s_addr) * 65599u + ntohs(from.sin_port);
				size_t m = rt_smp_handle(server, client, now_ms, req, (size_t)n, rsp, sizeof(rsp));
				if (m > 0) {
					sendto(udp, rsp, m, 0, (struct sockaddr *)&from, flen);
				}
			}
		}
		if (i_pty >= 0 && (fds[i_pty].revents & POLLIN)) {
			uint8_t b[512];
			ssize_t n = read(l->pty, b, sizeof(b));
			if (n > 0) {
				host_pty_line_delay(l->baud, (size_t)n, &sim_listen_stop);
				for (ssize_t i = 0; i < n; i++) {
					const uint8_t *pkt;
					size_t len;
					if (rt_smp_serial_feed(&dec, b[i], &pkt, &len) != RT_SMP_SERIAL_PACKET) {
						continue;
					}
					size_t m = rt_smp_handle(server, SERIAL_CLIENT, now_ms, pkt, len, rsp, sizeof(rsp));
					if (m == 0) {
						continue;
					}
					size_t k = rt_smp_serial_encode(rsp, m, frames, sizeof(frames));
					host_pty_line_delay(l->baud, k, &sim_listen_stop);
					host_pty_write_all(l->pty, frames, k, true);
				}
			}
		}
		if (i_ctl >= 0 && fds[i_ctl].revents) {
			ssize_t n = read(control, ctl + ctl_len, sizeof(ctl) - 1 - ctl_len);
			if (n <= 0) {
				break; /* the tool that drove the device is gone */
			}
			ctl_len += (size_t)n;
			ctl[ctl_len] = '\0';
			char *nl;
			while ((nl = memchr(ctl, '\n', ctl_len)) != NULL) {
				*nl = '\0';
				control_line(l, ctl);
				size_t used = (size_t)(nl + 1 - ctl);
				memmove(ctl, nl + 1, ctl_len - used);
				ctl_len -= used;
				ctl[ctl_len] = '\0';
			}
			if (ctl_len == sizeof(ctl) - 1) {
				fprintf(stderr, "[beacon error] control line too long: dropped\n");
				ctl_len = 0;
			}
		}
	}
}

/*
 * uart_link_runner.c: joins uart1 of two nrf52_bsim processes, the LTE beacon's two chips in
 * simulation (docs/firmware.md, "The LTE beacon in simulation"): the beacon firmware with
 * Bluetooth over H:4, and the chip that runs Zephyr's HCI UART controller on BabbleSim's air.
 *
 *   -uart_link_txfile=PATH -uart_link_rxfile=PATH   (crossed between the two processes)
 *
 * It is a UART backend of nrf_hw_models (NHW_UART_backend_if.h), compiled into the native
 * simulator's runner as the models are. nrf_hw_models' own FIFO backend does the same job, but
 * each side may only run one byte time (10 us at 1 Mbaud) ahead of the other: an idle pair
 * exchanges a message every byte time, and a simulated second cost 4.3 s of wall time at 1 Mbaud
 * (0.5 s at 115200; bench/RESULTS.md). This link synchronises on what each chip will do next
 * instead, so an idle pair jumps from event to event:
 *
 * At each barrier both sides exchange their next event time (the HW scheduler's, not counting
 * this link) and what their UART put on the line since the last barrier (bytes, with the time
 * they finish arriving, and RTS changes). Neither chip can put anything on the line before
 * G = the earliest of the two next events and of the arrivals exchanged, and nothing sent at G or
 * later arrives before G + one byte time. So both run freely to the next barrier, G + one byte
 * time, and exchange again there: the two processes stay in lockstep, deterministically, and
 * the controller's side holds BabbleSim's air while the host's side waits on the host (its
 * network, its files) and the other way round.
 *
 * Arrivals are delivered to the UART model at their times (a byte at the end of its frame, as
 * nrf_hw_models' backends do). The one difference from a wire: an RTS change reaches the other
 * side's CTS one byte time later, which the UARTE's receive FIFO absorbs.
 *
 * When one side leaves (its run ended), it says so at its last barrier and the other ends too:
 * the controller chip has nothing to do without its host.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bs_cmd_line.h"
#include "bs_dynargs.h"
#include "bs_tracing.h"
#include "bs_types.h"
/* The models' headers in their own order: the register types before the UART's. */
#include "NHW_config.h"
#include "NHW_peri_types.h"
#include "NHW_UART_backend_if.h"
#include "nsi_hw_scheduler.h"
#include "nsi_hws_models_if.h"
#include "nsi_tasks.h"

/* The H:4 link is uart1 on both chips (nrf52_bsim.dts's bt_hci_uart, the sample's c2h UART). */
#define LINK_UART 1

enum record_kind {
	RECORD_BYTE = 1, /* a byte, at the end of its frame */
	RECORD_RTS = 2,  /* the sender's RTS: the receiver's CTS (1: raised, not clear to send) */
};

struct record {
	uint64_t time;
	uint8_t kind;
	uint8_t value;
	uint8_t pad[6];
};

/* One barrier's message: this header, then `count` records in time order. */
struct barrier_msg {
	uint64_t next_event; /* NSI_NEVER: none */
	uint64_t byte_time;  /* the sender's, in us: both use the smaller */
	uint32_t count;
	uint32_t leaving; /* the sender's run ended: the last message */
};

struct queue {
	struct record *rec;
	size_t head, len, cap;
};

static char *tx_path, *rx_path;
static int fd_tx = -1, fd_rx = -1;
static bool enabled, peer_left, warned_baud;

static uint64_t timer_link = NSI_NEVER; /* the HW scheduler's view: min(barrier, next arrival) */
static uint64_t barrier = NSI_NEVER;
static struct queue outgoing, incoming;

static void queue_push(struct queue *q, uint64_t time, uint8_t kind, uint8_t value)
{
	if (q->head > 0 && q->head == q->len) {
		q->head = q->len = 0;
	}
	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct record *rec = realloc(q->rec, cap * sizeof(*rec));
		if (rec == NULL) {
			bs_trace_error_line("uart link: out of memory\n");
		}
		q->rec = rec;
		q->cap = cap;
	}
	q->rec[q->len++] = (struct record){.time = time, .kind = kind, .value = value};
}

static uint64_t queue_first_time(const struct queue *q)
{
	return q->head < q->len ? q->rec[q->head].time : NSI_NEVER;
}

static void update_timer(void)
{
	uint64_t arrival = queue_first_time(&incoming);
	timer_link = barrier < arrival ? barrier : arrival;
	nsi_hws_find_next_event();
}

static void write_all(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = write(fd_tx, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			/* The other side is gone without saying so: it failed. */
			bs_trace_error_time_line("uart link: the other chip left unexpectedly (%s)\n",
						 strerror(errno));
		}
		p += n;
		len -= (size_t)n;
	}
}

static bool read_all(void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = read(fd_rx, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static void send_barrier(uint64_t next_event, bool leaving)
{
	struct barrier_msg msg = {
		.next_event = next_event,
		.byte_time = nhw_uarte_one_byte_time(LINK_UART),
		.count = (uint32_t)(outgoing.len - outgoing.head),
		.leaving = leaving,
	};
	write_all(&msg, sizeof(msg));
	if (msg.count > 0) {
		write_all(&outgoing.rec[outgoing.head], msg.count * sizeof(struct record));
	}
}

static void deliver_due(uint64_t now)
{
	while (incoming.head < incoming.len && incoming.rec[incoming.head].time <= now) {
		const struct record *r = &incoming.rec[incoming.head++];
		if (r->kind == RECORD_BYTE) {
			nhw_UARTE_digest_Rx_byte(LINK_UART, r->value);
		} else if (r->value) {
			nhw_UARTE_CTS_raised(LINK_UART);
		} else {
			nhw_UARTE_CTS_lowered(LINK_UART);
		}
	}
}

static void do_barrier(uint64_t now)
{
	/* This chip's next event, not counting the link's own timer. */
	timer_link = NSI_NEVER;
	nsi_hws_find_next_event();
	uint64_t next = nsi_hws_get_next_event_time();
	uint64_t mine = queue_first_time(&incoming);
	if (mine < next) {
		next = mine;
	}

	send_barrier(next, false);
	uint64_t g = next;
	for (size_t i = outgoing.head; i < outgoing.len; i++) {
		if (outgoing.rec[i].time < g) {
			g = outgoing.rec[i].time;
		}
	}
	outgoing.head = outgoing.len = 0;

	struct barrier_msg peer;
	if (!read_all(&peer, sizeof(peer))) {
		bs_trace_error_time_line("uart link: the other chip left unexpectedly\n");
	}
	for (uint32_t i = 0; i < peer.count; i++) {
		struct record r;
		if (!read_all(&r, sizeof(r))) {
			bs_trace_error_time_line("uart link: the other chip left mid-message\n");
		}
		/* An arrival the exchange could not announce sooner is delivered at once. */
		queue_push(&incoming, r.time < now ? now : r.time, r.kind, r.value);
		if (r.time < g) {
			g = r.time;
		}
	}
	if (peer.leaving) {
		peer_left = true;
		bs_trace_exit_time_line("uart link: the other chip's run ended, so does this one's\n");
	}
	if (peer.next_event < g) {
		g = peer.next_event;
	}
	uint64_t byte_time = nhw_uarte_one_byte_time(LINK_UART);
	if (peer.byte_time != byte_time && !warned_baud) {
		warned_baud = true;
		bs_trace_warning_time_line("uart link: the two chips' UARTs run at different speeds "
					   "(%u and %u us a byte)\n",
					   (unsigned)byte_time, (unsigned)peer.byte_time);
	}
	if (peer.byte_time < byte_time) {
		byte_time = peer.byte_time;
	}
	if (byte_time == 0) {
		byte_time = 1;
	}
	if (g == NSI_NEVER) {
		barrier = NSI_NEVER; /* neither chip will ever do anything again */
	} else {
		barrier = (g > now ? g : now) + byte_time;
	}
	deliver_due(now);
}

static void link_timer_triggered(void)
{
	uint64_t now = nsi_hws_get_time();
	deliver_due(now);
	if (barrier == now) {
		do_barrier(now);
	}
	update_timer();
}

/* Priority 900: after the other models' events of the same time, as nrf_hw_models' FIFO backend
 * does, so that what they put on the line at a barrier's time goes with it. */
NSI_HW_EVENT(timer_link, link_timer_triggered, 900);

static void link_tx_byte(uint inst, uint8_t data)
{
	(void)inst;
	queue_push(&outgoing, nsi_hws_get_time() + nhw_uarte_one_byte_time(LINK_UART),
		   RECORD_BYTE, data);
}

static void link_rts_toggle(uint inst, bool level)
{
	(void)inst;
	/* It reaches the other side's CTS one byte time later (see the top of the file). */
	queue_push(&outgoing, nsi_hws_get_time() + nhw_uarte_one_byte_time(LINK_UART), RECORD_RTS,
		   level);
}

static void open_fifos(void)
{
	if ((mkfifo(tx_path, 0600) != 0 && errno != EEXIST) ||
	    (mkfifo(rx_path, 0600) != 0 && errno != EEXIST)) {
		bs_trace_error_line("uart link: cannot make its FIFOs (%s)\n", strerror(errno));
	}
	/* As nrf_hw_models' FIFO backend: the read side first without blocking, so that both ends
	 * can then open their write side (which waits for a reader) in any order. */
	int provisional = open(rx_path, O_RDONLY | O_NONBLOCK);
	fd_tx = provisional < 0 ? -1 : open(tx_path, O_WRONLY);
	fd_rx = fd_tx < 0 ? -1 : open(rx_path, O_RDONLY);
	if (provisional < 0 || fd_tx < 0 || fd_rx < 0) {
		bs_trace_error_line("uart link: cannot open its FIFOs (%s)\n", strerror(errno));
	}
	close(provisional);
}

static void link_init(void)
{
	if (tx_path == NULL && rx_path == NULL) {
		return;
	}
	if (tx_path == NULL || rx_path == NULL) {
		bs_trace_error_line("uart link: -uart_link_txfile and -uart_link_rxfile go together\n");
	}
	signal(SIGPIPE, SIG_IGN);
	open_fifos();
	enabled = true;
	struct backend_if backend = {
		.tx_byte_f = link_tx_byte,
		.RTS_pin_toggle_f = link_rts_toggle,
		.uart_enable_notify_f = NULL,
	};
	nhw_UARTE_backend_register(LINK_UART, &backend);
	/* Not clear to send until the other side's RTS says so. */
	nhw_UARTE_CTS_raised(LINK_UART);
	barrier = 0;
	update_timer();
}

/* Before the UART model's own initialisation (HW_INIT 200), as its backends must be. */
NSI_TASK(link_init, HW_INIT, 150);

static void link_cleanup(void)
{
	if (!enabled) {
		return;
	}
	if (!peer_left) {
		/* The last barrier: the other side ends when it reads it. */
		send_barrier(NSI_NEVER, true);
	}
	close(fd_tx);
	close(fd_rx);
	(void)remove(tx_path);
	(void)remove(rx_path);
	enabled = false;
}

NSI_TASK(link_cleanup, ON_EXIT_PRE, 100);

static void link_register_cmdline(void)
{
	static bs_args_struct_t args[] = {
		{
			.option = "uart_link_txfile",
			.name = "path",
			.type = 's',
			.dest = (void *)&tx_path,
			.descript = "uart1's link to another chip: the FIFO this side writes (the other's "
				    "uart_link_rxfile)",
		},
		{
			.option = "uart_link_rxfile",
			.name = "path",
			.type = 's',
			.dest = (void *)&rx_path,
			.descript = "uart1's link to another chip: the FIFO this side reads",
		},
		ARG_TABLE_ENDMARKER,
	};
	bs_add_extra_dynargs(args);
}

NSI_TASK(link_register_cmdline, PRE_BOOT_1, 200);

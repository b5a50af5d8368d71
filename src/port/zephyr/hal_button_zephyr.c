/*
 * The buttons on Zephyr: the main button behind the devicetree alias sw0, the side button behind
 * sw1 (optional; hal_device_features() says whether it is there). Each is a GPIO input with an
 * interrupt on both edges; the runtime classifies presses by how long the button was down
 * (rt_io.h), so all the port reports is every settled edge with its time.
 *
 * Bounce. A mechanical contact chatters for a few milliseconds when it closes and opens. The
 * runtime measures a press from its down edge to its up edge, so chatter at the start or the
 * end of a press does not change how long the press is; but a bounce on release, reported raw,
 * would be a down-up pair of its own: a SHORT press that never happened, a spurious
 * io.onRawPress edge, and events that fill the queue. So the edges are debounced: the first edge
 * of a burst is timestamped in the interrupt, and CONFIG_BEACON_BUTTON_DEBOUNCE_MS after the last
 * one the pin is read; if its level differs from the one last reported, that edge is reported,
 * with the time of the first edge of the burst, so press durations are not stretched by the
 * wait. A glitch that ends where it began is not reported. 0 reports each edge as soon as the
 * system work queue runs, with the level read then.
 *
 * rt_io_button_edge() is safe from any thread; it runs here on the system work queue.
 */
#include "port_zephyr.h"
#include "rt_io.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <zephyr/devicetree.h>
#include <zephyr/drivers/gpio.h>
#include <zephyr/irq.h>
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/sys/util.h>

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

/* A missing alias gives a spec with no port (include/zephyr/drivers/gpio.h, GPIO_DT_SPEC_GET_OR):
 * the button is left out. Index = the runtime's button number (0 main, 1 side). */
static const struct gpio_dt_spec pins[RT_IO_BUTTONS] = {
	GPIO_DT_SPEC_GET_OR(DT_ALIAS(sw0), gpios, {0}),
	GPIO_DT_SPEC_GET_OR(DT_ALIAS(sw1), gpios, {0}),
};

struct button {
	struct gpio_callback cb;
	struct k_work_delayable settle;
	uint8_t index;
	/* Written by the interrupt, read and cleared by the work item under irq_lock. */
	bool burst;
	int64_t burst_at;
	/* Only the work item touches this. */
	bool reported_down;
};

static struct button buttons[RT_IO_BUTTONS];
static struct rt_device *target;

static void on_edge(const struct device *port, struct gpio_callback *cb, gpio_port_pins_t pin_mask)
{
	ARG_UNUSED(port);
	ARG_UNUSED(pin_mask);
	struct button *b = CONTAINER_OF(cb, struct button, cb);

	/* An ISR is not preempted by the work item, which is the only other user of these. */
	if (!b->burst) {
		b->burst = true;
		b->burst_at = k_uptime_get();
	}
	/* Each edge pushes the read further out, so it comes after the last bounce.
	 * k_work_reschedule() is ISR-safe (include/zephyr/kernel.h: @funcprops \isr_ok). */
	(void)k_work_reschedule(&b->settle, K_MSEC(CONFIG_BEACON_BUTTON_DEBOUNCE_MS));
}

static void on_settled(struct k_work *work)
{
	struct k_work_delayable *dwork = k_work_delayable_from_work(work);
	struct button *b = CONTAINER_OF(dwork, struct button, settle);
	unsigned int key = irq_lock();
	int64_t at = b->burst_at;

	b->burst = false;
	irq_unlock(key);

	/* The logical level: 1 pressed, whatever the wiring (the DKs' buttons are active low,
	 * which the devicetree flags say). Negative: an errno. */
	int level = gpio_pin_get_dt(&pins[b->index]);

	if (level < 0) {
		LOG_WRN("button %u: reading the pin failed (%d)", (unsigned)b->index, level);
		return;
	}
	bool down = level > 0;

	if (down == b->reported_down) {
		return; /* bounced back to where it was */
	}
	b->reported_down = down;
	rt_io_button_edge(target, b->index, down, (uint64_t)at);
}

static int button_init(struct button *b, uint8_t index)
{
	const struct gpio_dt_spec *pin = &pins[index];
	int rc;

	b->index = index;
	k_work_init_delayable(&b->settle, on_settled);
	if (!gpio_is_ready_dt(pin)) {
		return -ENODEV;
	}
	/* GPIO_INPUT plus the devicetree's flags (pull-up, active low). */
	rc = gpio_pin_configure_dt(pin, GPIO_INPUT);
	if (rc < 0) {
		return rc;
	}
	/* A button held at boot is down already: its release is the first edge reported. */
	rc = gpio_pin_get_dt(pin);
	b->reported_down = rc > 0;
	gpio_init_callback(&b->cb, on_edge, BIT(pin->pin));
	rc = gpio_add_callback_dt(pin, &b->cb);
	if (rc < 0) {
		return rc;
	}
	return gpio_pin_interrupt_configure_dt(pin, GPIO_INT_EDGE_BOTH);
}

void port_zephyr_button_init(struct rt_device *device)
{
	static const char *const names[RT_IO_BUTTONS] = {"main (sw0)", "side (sw1)"};

	target = device;
	for (uint8_t i = 0; i < RT_IO_BUTTONS; i++) {
		if (pins[i].port == NULL) {
			if (i == 0) {
				LOG_WRN("no main button: the devicetree has no alias sw0");
			}
			continue;
		}
		int rc = button_init(&buttons[i], i);

		if (rc < 0) {
			LOG_ERR("%s button: GPIO setup failed (%d)", names[i], rc);
		}
	}
}

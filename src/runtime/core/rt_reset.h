/*
 * rt_reset.h: why the device last reset, kept where a reset does not erase it, and the guard
 * against an app that resets the device over and over.
 *
 * A fault the app cannot catch resets the device: the engine running out of heap, a failed engine
 * assertion, the hardware watchdog (a driver call that never returned), a system failure. The
 * port keeps an rt_reset_record_t across resets (no-init RAM on the device; the simulated device's
 * state in the simulator) and, after each boot, hands the runtime what it says: the app's error
 * handler then hears the previous reset as a system error (type 3):
 *
 *   { code: 'ESR0001', message: 'ESR0001 Unknown: the device reset: out of memory (JavaScript heap)',
 *     reset: 'out-of-memory' }
 *
 * The reboot-loop guard: a fault less than RT_RESET_LOOP_WINDOW_MS after the boot it follows
 * counts toward a loop; RT_RESET_LOOP_COUNT of them in a row stop the app (it is not started
 * again, the reason is reported with ESR0002 Reboot loop detected). A long press of the side
 * button (the main one without a side button), an upload or app.restart() from the cloud start it
 * again; an app that runs longer than the window before its next fault starts the count again.
 */
#ifndef RT_RESET_H
#define RT_RESET_H

#include <stdbool.h>
#include <stdint.h>

#define RT_RESET_LOOP_COUNT 3u
#define RT_RESET_LOOP_WINDOW_MS (10u * 60u * 1000u)

typedef enum {
	RT_RESET_NONE = 0,       /* power on, or no record */
	RT_RESET_OUT_OF_MEMORY,  /* the JavaScript heap ran out */
	RT_RESET_ENGINE,         /* the engine stopped on a failed assertion or a fatal error */
	RT_RESET_WATCHDOG,       /* the hardware watchdog expired: a driver call did not return */
	RT_RESET_SYSTEM,         /* another fault of the firmware */
	RT_RESET_CAUSE_COUNT
} rt_reset_cause_t;

#define RT_RESET_DETAIL_MAX 72
#define RT_RESET_MAGIC 0x52535431u /* "RST1" */

typedef struct {
	uint32_t magic;
	uint32_t cause;            /* rt_reset_cause_t of the last reset */
	uint32_t loop_count;       /* faults in a row within the window of their boot */
	uint32_t total;            /* resets since power on */
	bool app_stopped;          /* the guard stopped the app */
	char detail[RT_RESET_DETAIL_MAX];
	uint32_t check;            /* over the fields above: a record RAM garbage passes is none */
} rt_reset_record_t;

/* "out-of-memory", "engine", "watchdog", "system", "none". */
const char *rt_reset_cause_name(rt_reset_cause_t cause);
/* The cause a fatal message of the engine layer or the runtime stands for. */
rt_reset_cause_t rt_reset_cause_of(const char *message);

/* A record that is valid (after a reset) or cleared (after power on, or RAM garbage). */
void rt_reset_record_check(rt_reset_record_t *record);
/* A fault at uptime_ms since boot: record it. Returns true when the guard stops the app. */
bool rt_reset_record_fault(rt_reset_record_t *record, rt_reset_cause_t cause, const char *detail,
			   uint64_t uptime_ms);
/* The app was started again by hand (side button, upload, cloud): the guard's count clears. */
void rt_reset_record_cleared(rt_reset_record_t *record);

#endif /* RT_RESET_H */

/*
 * rt_loop.h: the one event loop that runs JavaScript.
 *
 * Each turn: run the earliest due timer or alarm, then queued events, then promise jobs (also
 * after every single callback, so promise continuations run before the next event as in any JS
 * host); when nothing is due, the port sleeps until the next deadline (k_sleep on the device, a
 * jump of the virtual clock in the simulator). Drivers and ISRs never call into the engine: they
 * post events with rt_loop_post(), which is safe from any thread.
 */
#ifndef RT_LOOP_H
#define RT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rt_config.h"

/* The type argument given to the app's error handler. */
typedef enum {
	RT_ERROR_CALLBACK = 1, /* a callback threw */
	RT_ERROR_UNHANDLED_REJECTION = 2,
	RT_ERROR_SYSTEM = 3,
} rt_error_type_t;

/* Why a run of the loop returned. */
typedef enum {
	RT_RUN_CONTINUE = 0, /* nothing more is due now: sleep until the next deadline */
	RT_RUN_APP_STOPPED,  /* the app stopped or removed itself */
	RT_RUN_RESTART,      /* app.restart(): the port reinstalls the package */
	RT_RUN_TIME_UP,      /* (rt_loop_run) until_ms was reached */
	RT_RUN_IDLE,         /* (rt_loop_run) nothing can happen any more */
} rt_run_result_t;

#define RT_EVENT_PAYLOAD_MAX 48

typedef struct rt_event rt_event_t;
typedef void (*rt_event_handler_t)(const rt_event_t *event);

struct rt_event {
	rt_event_handler_t handler;
	uint8_t len;
	uint8_t payload[RT_EVENT_PAYLOAD_MAX];
};

typedef struct {
	rt_event_t queue[CONFIG_BEACON_EVENT_QUEUE_SIZE];
	uint32_t head, count;
	uint32_t dropped;
	eng_ref_t error_handler;
	bool exit_requested;
	bool in_error_handler;
	uint8_t exit_reason; /* rt_run_result_t */
	/* Errors reported since the app started (uncaught exceptions in callbacks, unhandled
	 * rejections, system errors): a device that takes deployments sends it at its syncs, and a
	 * rollout stops on a storm of them. */
	uint32_t errors;
} rt_loop_state_t;

struct rt_device;

/* Queue an event for the JS thread of the selected device (rt_loop_post_to: of a given one).
 * Returns false (and counts a drop) when the queue is full. */
bool rt_loop_post(rt_event_handler_t handler, const void *payload, size_t len);
bool rt_loop_post_to(struct rt_device *device, rt_event_handler_t handler, const void *payload,
		     size_t len);
uint32_t rt_loop_dropped_events(void);
/* Whether events wait in the selected device's queue. */
bool rt_loop_has_events(void);
/* The same for a given device, from any thread (a host checking what a driver posted). */
bool rt_loop_has_events_of(struct rt_device *device);

/*
 * Call a JS function from the loop with the watchdog armed, then run promise jobs. An exception
 * goes to the app's error handler (or the log) and the loop goes on. Returns false if it threw.
 */
bool rt_loop_invoke(eng_value_t fn, const eng_value_t *argv, uint32_t argc);

/* Hand an error to the app's error handler, or log it when there is none. Consumes nothing. */
void rt_loop_report(rt_error_type_t type, eng_value_t error);
/* The handler set by app.setErrorHandler (0: none). The loop owns the reference. */
void rt_loop_set_error_handler(eng_ref_t handler);

/* Run promise jobs until none are left, reporting failures. */
void rt_loop_run_jobs(void);

/* Ask the loop to return (app.stop(), app.restart(), app.remove()). */
void rt_loop_request_exit(rt_run_result_t why);

/*
 * Run everything that is due at the current time of the selected device: timers and alarms in
 * deadline order, queued events, promise jobs. Returns RT_RUN_CONTINUE with *next_ms the next
 * deadline (HAL_CLOCK_FOREVER: none; queued events still count as due), or why the app ended.
 */
rt_run_result_t rt_loop_step(uint64_t *next_ms);

/* For ports with one device and a blocking sleep (the firmware): step and sleep until until_ms,
 * until the app ends or (when the port says so) nothing can happen any more. */
rt_run_result_t rt_loop_run(uint64_t until_ms);

/* Free what the loop holds (error handler, queued events) before the engine goes away. */
void rt_loop_reset(void);

#endif /* RT_LOOP_H */

/*
 * rt_loop.h: the one event loop that runs JavaScript.
 *
 * Each turn: run due timers, then queued events, then promise jobs (also after every single
 * callback, so promise continuations run before the next event as in any JS host), then sleep
 * until the next deadline (a virtual-clock jump on the host). Drivers and ISRs never call into
 * the engine: they post events with rt_loop_post(), which is safe from any thread.
 */
#ifndef RT_LOOP_H
#define RT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rt_app.h"

/* The type argument given to the app's error handler. */
typedef enum {
	RT_ERROR_CALLBACK = 1, /* a callback threw */
	RT_ERROR_UNHANDLED_REJECTION = 2,
	RT_ERROR_SYSTEM = 3,
} rt_error_type_t;

#define RT_EVENT_PAYLOAD_MAX 48

typedef struct rt_event rt_event_t;
typedef void (*rt_event_handler_t)(const rt_event_t *event);

struct rt_event {
	rt_event_handler_t handler;
	uint8_t len;
	uint8_t payload[RT_EVENT_PAYLOAD_MAX];
};

void rt_loop_init(void);
/* Queue an event for the JS thread. Returns false (and counts a drop) when the queue is full. */
bool rt_loop_post(rt_event_handler_t handler, const void *payload, size_t len);
uint32_t rt_loop_dropped_events(void);

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

rt_run_result_t rt_loop_run(uint64_t until_ms);

/* Free what the loop holds (error handler, queued events) before the engine goes away. */
void rt_loop_reset(void);

#endif /* RT_LOOP_H */

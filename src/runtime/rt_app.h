/*
 * rt_app.h: the app lifecycle, the entry point that a port's main() calls.
 *
 *   rt_app_init();                      once, after the HAL is up
 *   rt_app_install(pkg, len, msg, cap)  check a package and run its top level
 *   rt_app_run(until_ms)                the event loop, until the app stops or time is up
 */
#ifndef RT_APP_H
#define RT_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	RT_APP_NONE = 0,  /* nothing installed */
	RT_APP_RUNNING,
	RT_APP_STOPPED,   /* app.stop(): restartable */
	RT_APP_REMOVED,   /* app.remove(): a new app must be installed */
	RT_APP_FAILED,    /* the top level threw or the package was refused */
} rt_app_state_t;

typedef enum {
	RT_RUN_APP_STOPPED = 0, /* the app stopped or removed itself */
	RT_RUN_TIME_UP,         /* until_ms was reached */
	RT_RUN_IDLE,            /* nothing can happen any more */
	RT_RUN_RESTART,         /* app.restart(): the port reinstalls the package */
} rt_run_result_t;

int rt_app_init(void);
void rt_app_deinit(void);
/* Check and start a package. The buffer must stay valid while the app runs. Returns 0, or -1 with
 * a message for the user in msg. */
int rt_app_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap);
rt_run_result_t rt_app_run(uint64_t until_ms);
rt_app_state_t rt_app_state(void);
/* API version the running app was built for (major << 16 | minor << 8 | patch). */
uint32_t rt_app_api_version(void);

#endif /* RT_APP_H */

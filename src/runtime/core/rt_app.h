/*
 * rt_app.h: the app lifecycle of the selected device.
 *
 * Ports start an app with glue_app_install() (glue_app.h: installing an app means installing its
 * API surface, which is the glue's work), which calls rt_app_prepare(), glue_install() and
 * rt_app_start(); then they run it:
 *
 *   rt_device_init(&dev, 0); rt_device_select(&dev);
 *   glue_app_install(pkg, len, msg, cap)  check a package, build its API, run its top level
 *   rt_app_step(&next) / rt_app_run()     run what is due; sleep until next
 *   rt_app_deinit()                       stop the app and free its engine instance
 */
#ifndef RT_APP_H
#define RT_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_loop.h"
#include "rt_package.h"
#include "rt_reset.h"

typedef enum {
	RT_APP_NONE = 0,  /* nothing installed */
	RT_APP_RUNNING,
	RT_APP_STOPPED,   /* app.stop(): restartable */
	RT_APP_REMOVED,   /* app.remove(): a new app must be installed */
	RT_APP_FAILED,    /* the top level threw or the package was refused */
} rt_app_state_t;

typedef struct {
	uint8_t state; /* rt_app_state_t */
	/* A stopped app is asked to start again (the side button was cycled). */
	bool restart_requested;
	uint64_t started_ms;
	/* The reset before this boot, for the app's error handler (cause RT_RESET_NONE: none, or
	 * already told). */
	uint8_t notice_cause;
	bool notice_loop;
	char notice_detail[RT_RESET_DETAIL_MAX];
} rt_app_lifecycle_t;

/* Stop the previous app, check a package (header, CRC, signature, versions) and create its engine
 * instance with the device's engine configuration. The buffer must stay valid while the app runs.
 * Returns 0, or -1 with a message for the user in msg. */
int rt_app_prepare(const uint8_t *package, size_t len, rt_package_t *pkg, char *msg,
		   size_t msg_cap);
/* Mark the app failed with the message why (installing its API failed). */
void rt_app_fail(char *msg, size_t msg_cap, const char *why);
/* Run the package's top level (the API is installed). Returns 0, or -1 with a message. */
int rt_app_start(const rt_package_t *pkg, char *msg, size_t msg_cap);
/* Run what is due now (rt_loop_step) while the app runs; RT_RUN_APP_STOPPED once it does not. */
rt_run_result_t rt_app_step(uint64_t *next_ms);
/* Run until until_ms on a port with a blocking sleep (rt_loop_run). */
rt_run_result_t rt_app_run(uint64_t until_ms);
/* Stop the app and free its engine instance. */
void rt_app_deinit(void);
/* After a boot: the device reset before it (from the port's reset record). Once the app sets its
 * error handler, the handler hears it as a system error. loop: the reboot-loop guard stopped the
 * app (ESR0002), which has now been started again by hand. */
void rt_app_reset_notice(rt_reset_cause_t cause, const char *detail, bool loop);
rt_app_state_t rt_app_state(void);
/* The state as the upload status names it: "running", "failed", else "stopped". */
const char *rt_app_state_name(rt_app_state_t state);

#endif /* RT_APP_H */

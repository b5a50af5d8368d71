/*
 * glue_app.h: starting an app, the entry point ports call.
 *
 * It sits at the top, with the glue, because starting an app means building the API surface of
 * its version in its new engine instance; the steps below it are runtime services.
 */
#ifndef GLUE_APP_H
#define GLUE_APP_H

#include <stddef.h>
#include <stdint.h>

/* Check a package and start it on the selected device (stopping its previous app): engine
 * instance, the API of the package's version, the top level. The buffer must stay valid while
 * the app runs. Returns 0, or -1 with a message for the user in msg. */
int glue_app_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap);

#endif /* GLUE_APP_H */

#include "glue_app.h"

#include <stdio.h>

#include "engine.h"
#include "glue_core.h"
#include "rt_app.h"

int glue_app_install(const uint8_t *package, size_t len, char *msg, size_t msg_cap)
{
	rt_package_t pkg;
	if (rt_app_prepare(package, len, &pkg, msg, msg_cap) != 0) {
		return -1;
	}
	eng_scope_enter();
	int installed = glue_install();
	eng_scope_leave();
	if (installed != 0) {
		char why[64];
		snprintf(why, sizeof(why), "the API %u.%u.%u could not be installed",
			 (unsigned)(pkg.api_version >> 16), (unsigned)((pkg.api_version >> 8) & 0xff),
			 (unsigned)(pkg.api_version & 0xff));
		rt_app_fail(msg, msg_cap, why);
		return -1;
	}
	return rt_app_start(&pkg, msg, msg_cap);
}

/*
 * eng_jerry_port.c: the jerry_port_* functions JerryScript 3.0 calls with this configuration
 * (no debugger, no module system, no external context), routed to the runtime's eng_port_*.
 */
#include <stdio.h>
#include <stdlib.h>

#include "eng_jerry_internal.h"
#include "jerryscript-port.h"

void jerry_port_init(void)
{
}

void jerry_port_fatal(jerry_fatal_code_t code)
{
	const char *what;
	char message[64];

	switch (code) {
	case JERRY_FATAL_OUT_OF_MEMORY:
		what = "out of memory";
		break;
	case JERRY_FATAL_REF_COUNT_LIMIT:
		what = "reference count limit";
		break;
	case JERRY_FATAL_DISABLED_BYTE_CODE:
		what = "disabled byte code";
		break;
	case JERRY_FATAL_UNTERMINATED_GC_LOOPS:
		what = "unterminated GC loops";
		break;
	case JERRY_FATAL_FAILED_ASSERTION:
		what = "failed assertion";
		break;
	default:
		what = "unknown";
		break;
	}
	if (code == JERRY_FATAL_OUT_OF_MEMORY) {
		/* Worded as Duktape's backend words it: the same fault on either engine. */
		eng_port_fatal("out of memory (JavaScript heap)");
	}
	snprintf(message, sizeof(message), "JerryScript fatal error %d: %s", (int)code, what);
	eng_port_fatal(message);
}

/* Only reached for assertion details in debug builds of the engine; a port with a better log
 * than stderr can provide its own. */
__attribute__((weak)) void jerry_port_log(const char *message)
{
	fputs(message, stderr);
}

int32_t jerry_port_local_tza(double unix_ms)
{
	(void)unix_ms;
	/* Devices keep UTC; local time is UTC for apps. */
	return 0;
}

double jerry_port_current_time(void)
{
	return eng_port_utc_now_ms();
}

/*
 * rt_config.h: sizes of the runtime's fixed pools.
 *
 * On the device these come from Kconfig (CONFIG_BEACON_*); the host build uses the same defaults
 * as the Kconfig file so that the simulator exhausts its pools exactly where a device would.
 */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#ifndef CONFIG_BEACON_MAX_TIMERS
#define CONFIG_BEACON_MAX_TIMERS 16
#endif
#ifndef CONFIG_BEACON_MAX_TIMER_HANDLES
#define CONFIG_BEACON_MAX_TIMER_HANDLES 64
#endif
#ifndef CONFIG_BEACON_MAX_LEDS
#define CONFIG_BEACON_MAX_LEDS 12
#endif
#ifndef CONFIG_BEACON_MAX_ALARMS
#define CONFIG_BEACON_MAX_ALARMS 24
#endif
#ifndef CONFIG_BEACON_EVENT_QUEUE_SIZE
#define CONFIG_BEACON_EVENT_QUEUE_SIZE 32
#endif
#ifndef CONFIG_BEACON_JS_HEAP_SIZE
#define CONFIG_BEACON_JS_HEAP_SIZE (96 * 1024)
#endif
/*
 * The heap given to the engine: the device's. JerryScript gets exactly this heap, on the device
 * and in the simulator; Duktape, whose built-ins live in its heap and take far more room on a
 * 64-bit host, gets the room the app would have on the device (see eng_config_t, eng_heap_seal).
 */
#define RT_JS_HEAP_BYTES ((size_t)CONFIG_BEACON_JS_HEAP_SIZE)

/* Work one callback may do before ESR0104, in loop iterations (see eng_config_t.exec_budget). */
#ifndef CONFIG_BEACON_EXEC_BUDGET
#define CONFIG_BEACON_EXEC_BUDGET 1000000
#endif
#ifndef CONFIG_BEACON_PRINT_MAX
#define CONFIG_BEACON_PRINT_MAX 1024
#endif

#endif /* RT_CONFIG_H */

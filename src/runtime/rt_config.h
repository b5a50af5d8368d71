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
 * The heap given to the engine. JerryScript's heap is the device's, sized at build time. Duktape
 * keeps its built-ins in the heap and, on a 64-bit host, uses 8-byte pointers: it needs about
 * 145 KB just to start there. The host build scales the heap so that an app that fits the
 * device's heap also fits the simulator's.
 */
#if UINTPTR_MAX > 0xffffffffu
#define RT_JS_HEAP_BYTES ((size_t)CONFIG_BEACON_JS_HEAP_SIZE * 4u)
#else
#define RT_JS_HEAP_BYTES ((size_t)CONFIG_BEACON_JS_HEAP_SIZE)
#endif

#ifndef CONFIG_BEACON_EXEC_LIMIT_MS
#define CONFIG_BEACON_EXEC_LIMIT_MS 5000
#endif
#ifndef CONFIG_BEACON_PRINT_MAX
#define CONFIG_BEACON_PRINT_MAX 1024
#endif

#endif /* RT_CONFIG_H */

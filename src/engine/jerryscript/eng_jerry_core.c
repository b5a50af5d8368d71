/*
 * eng_jerry_core.c: JerryScript backend: identity, lifecycle, memory statistics and the
 * execution-time watchdog. Value scopes and references are in eng_jerry_handles.c.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_hash.h"
#include "eng_jerry_internal.h"

/* Static-context builds: the heap is a static array of JERRY_GLOBAL_HEAP_SIZE KB inside the
 * engine. External-context builds give each instance the heap its configuration asks for, or
 * this much when it asks for none. */
#define ENG_JERRY_HEAP_BYTES ((size_t)JERRY_GLOBAL_HEAP_SIZE * 1024u)

/* The halt hook runs every this many backward branches (loop iterations): the unit of the work
 * budget is one branch, counted in steps of this many, so the hook costs nothing measurable. */
#define ENG_JERRY_HALT_INTERVAL 128u

static eng_jerry_state_t eng_jerry_none;
eng_jerry_state_t *eng_jerry = &eng_jerry_none;

/* ------------------------------------------------------------------ identity */

uint32_t eng_id(void)
{
	return ENG_ID_JERRYSCRIPT;
}

uint32_t eng_version(void)
{
	return JERRY_API_MAJOR_VERSION * 10000u + JERRY_API_MINOR_VERSION * 100u +
	       JERRY_API_PATCH_VERSION;
}

uint32_t eng_config_hash(void)
{
	const char *config = eng_jerry_private_config();
	uint8_t version[4];
	uint32_t snapshot_version = JERRY_SNAPSHOT_VERSION;

	/* Fixed byte order: the host tool and the device must agree on the value. */
	for (int i = 0; i < 4; i++) {
		version[i] = (uint8_t)(snapshot_version >> (8 * i));
	}
	uint32_t hash = eng_fnv1a(ENG_FNV1A_INIT, version, sizeof(version));
	return eng_fnv1a(hash, config, strlen(config));
}

const char *eng_name(void)
{
	return "JerryScript";
}

/* ------------------------------------------------------------------ heap helpers */

void *eng_jerry_alloc(size_t size)
{
	return jerry_heap_alloc((jerry_size_t)size);
}

void eng_jerry_free(void *ptr, size_t size)
{
	if (ptr != NULL) {
		jerry_heap_free(ptr, (jerry_size_t)size);
	}
}

/* ------------------------------------------------------------------ lifecycle */

static jerry_value_t get_path(jerry_value_t object, const char *const *keys, size_t count)
{
	jerry_value_t current = jerry_value_copy(object);

	for (size_t i = 0; i < count; i++) {
		jerry_value_t next = jerry_object_get_sz(current, keys[i]);

		jerry_value_free(current);
		current = next;
	}
	return current;
}

static void take_intrinsics(void)
{
	static const char *const freeze[] = {"Object", "freeze"};
	static const char *const stringify[] = {"JSON", "stringify"};
	static const char *const get_time[] = {"Date", "prototype", "getTime"};
	jerry_value_t global = jerry_current_realm();

	eng_jerry->intrinsics.object_freeze = get_path(global, freeze, 2);
	eng_jerry->intrinsics.json_stringify = get_path(global, stringify, 2);
	eng_jerry->intrinsics.date_get_time = get_path(global, get_time, 3);
	jerry_value_free(global);
}

static void free_intrinsics(void)
{
	jerry_value_free(eng_jerry->intrinsics.object_freeze);
	jerry_value_free(eng_jerry->intrinsics.json_stringify);
	jerry_value_free(eng_jerry->intrinsics.date_get_time);
	jerry_value_free(eng_jerry->intrinsics.number_value_of);
	memset(&eng_jerry->intrinsics, 0, sizeof(eng_jerry->intrinsics));
}

bool eng_jerry_initialized(void)
{
	return eng_jerry->initialized;
}

#if JERRY_EXTERNAL_CONTEXT
/* Each instance has exactly the heap it was configured with: nothing to fence. */
static bool fence_heap(size_t heap_size)
{
	(void)heap_size;
	return true;
}
#else
static size_t heap_area_size(void)
{
	jerry_heap_stats_t heap = {0};

	return jerry_heap_stats(&heap) ? heap.size : ENG_JERRY_HEAP_BYTES;
}

/* The heap size is fixed when the engine is built (JERRY_GLOBAL_HEAP_SIZE). A smaller
 * heap_size is honoured by fencing off the rest; 0, or a request above the build-time heap,
 * gets the whole heap (eng_mem_stats() reports what there is). */
static bool fence_heap(size_t heap_size)
{
	size_t area = heap_area_size();

	if (heap_size == 0 || heap_size >= area) {
		return true;
	}
	eng_jerry->heap_fence_size = area - heap_size;
	eng_jerry->heap_fence = eng_jerry_alloc(eng_jerry->heap_fence_size);
	if (eng_jerry->heap_fence == NULL) {
		/* The built-ins alone do not fit in the requested heap. */
		eng_jerry->heap_fence_size = 0;
		return false;
	}
	return true;
}
#endif

/* The state behind an eng_context_t. */
struct eng_context {
	eng_jerry_state_t state;
};

#if !JERRY_EXTERNAL_CONTEXT
/* The engine's context is static memory: one instance at a time. */
static eng_context_t *static_owner;
#endif

/* Start the engine in the selected (zeroed) state. */
static bool instance_start(const eng_config_t *config)
{
	eng_jerry->active_config = config != NULL ? *config : (eng_config_t){0};
#if JERRY_EXTERNAL_CONTEXT
	/* Allocated here rather than in jerry_port_context_alloc(), which cannot fail: jerry_init()
	 * writes to the block it gets. */
	size_t heap = eng_jerry->active_config.heap_size != 0 ? eng_jerry->active_config.heap_size
							      : ENG_JERRY_HEAP_BYTES;
	/* JerryScript's 16-bit compressed pointers address at most 512 KB of heap. */
	if (heap > 512u * 1024u) {
		heap = 512u * 1024u;
	}
	eng_jerry->jerry_context_size = ((eng_jerry_private_context_size() + 7u) & ~(size_t)7u) + heap;
	eng_jerry->jerry_context = calloc(1, eng_jerry->jerry_context_size);
	if (eng_jerry->jerry_context == NULL) {
		return false;
	}
#endif
	jerry_init(JERRY_INIT_EMPTY);
	eng_jerry->initialized = true;
	take_intrinsics();
	eng_jerry_parity_setup();
	eng_jerry_promises_init();
	return fence_heap(eng_jerry->active_config.heap_size);
}

static void instance_stop(void)
{
	if (!eng_jerry->initialized) {
#if JERRY_EXTERNAL_CONTEXT
		/* Started no engine (or failed before jerry_init): only the block to give back. */
		free(eng_jerry->jerry_context);
		eng_jerry->jerry_context = NULL;
#endif
		return;
	}
	eng_watchdog_disarm();
	eng_jerry_free_all_handles();
	eng_jerry_free_all_refs();
	eng_jerry_promises_free();
	eng_jerry_keysets_free();
	free_intrinsics();
	eng_jerry_free(eng_jerry->heap_fence, eng_jerry->heap_fence_size);
	eng_jerry->heap_fence = NULL;
	eng_jerry->heap_fence_size = 0;
	/* From here finalizers of remaining objects run; what they do with references is a no-op. */
	eng_jerry->initialized = false;
	jerry_cleanup();
}

eng_context_t *eng_create(const eng_config_t *config)
{
	eng_jerry_state_t *previous = eng_jerry;
	eng_context_t *context;

#if !JERRY_EXTERNAL_CONTEXT
	if (static_owner != NULL) {
		return NULL;
	}
#endif
	context = calloc(1, sizeof(*context));
	if (context == NULL) {
		return NULL;
	}
	eng_jerry = &context->state;
	if (!instance_start(config)) {
		instance_stop();
		free(context);
		eng_jerry = previous;
		return NULL;
	}
#if !JERRY_EXTERNAL_CONTEXT
	static_owner = context;
#endif
	return context;
}

void eng_destroy(eng_context_t *context)
{
	eng_jerry_state_t *previous = eng_jerry;

	if (context == NULL) {
		return;
	}
	eng_jerry = &context->state;
	instance_stop();
#if !JERRY_EXTERNAL_CONTEXT
	if (static_owner == context) {
		static_owner = NULL;
	}
#endif
	bool was_selected = previous == &context->state;
	free(context);
	eng_jerry = was_selected ? &eng_jerry_none : previous;
}

void eng_abandon(eng_context_t *context)
{
	eng_jerry_state_t *previous = eng_jerry;

	if (context == NULL) {
		return;
	}
	/* The backend's tables live in the JS heap, which lives in the context block: giving the
	 * block back gives back everything, without running anything in it. */
#if JERRY_EXTERNAL_CONTEXT
	free(context->state.jerry_context);
#else
	/* The static context cannot be thrown away (the device resets instead); make it usable
	 * again by the next eng_create(). */
	if (static_owner == context) {
		static_owner = NULL;
	}
#endif
	bool was_selected = previous == &context->state;
	free(context);
	eng_jerry = was_selected ? &eng_jerry_none : previous;
}

void eng_select(eng_context_t *context)
{
	eng_jerry = context != NULL ? &context->state : &eng_jerry_none;
}

eng_context_t *eng_selected(void)
{
	return eng_jerry == &eng_jerry_none ? NULL : (eng_context_t *)eng_jerry;
}

int eng_init(const eng_config_t *config)
{
	return eng_create(config) != NULL ? 0 : -1;
}

void eng_deinit(void)
{
	eng_destroy(eng_selected());
}

int eng_reset(void)
{
	eng_config_t config = eng_jerry->active_config;

	if (eng_selected() == NULL) {
		return -1;
	}
	instance_stop();
	memset(eng_jerry, 0, sizeof(*eng_jerry));
	return instance_start(&config) ? 0 : -1;
}

#if JERRY_EXTERNAL_CONTEXT
/* The engine's own context and heap, one block per instance; jerry_init() asks for it. */
size_t jerry_port_context_alloc(size_t context_size)
{
	(void)context_size; /* eng_jerry_private_context_size() is the same figure */
	return eng_jerry->jerry_context_size;
}

struct jerry_context_t *jerry_port_context_get(void)
{
	return eng_jerry->jerry_context;
}

void jerry_port_context_free(void)
{
	free(eng_jerry->jerry_context);
	eng_jerry->jerry_context = NULL;
	eng_jerry->jerry_context_size = 0;
}
#endif

/* ------------------------------------------------------------------ resources */

size_t eng_heap_host_bytes(void)
{
	jerry_heap_stats_t heap = {0};

	return jerry_heap_stats(&heap) ? heap.allocated_bytes - eng_jerry->heap_fence_size : 0;
}

void eng_mem_stats(eng_mem_stats_t *stats)
{
	jerry_heap_stats_t heap = {0};

	if (jerry_heap_stats(&heap)) {
		stats->total = heap.size - eng_jerry->heap_fence_size;
		stats->used = heap.allocated_bytes - eng_jerry->heap_fence_size;
		stats->peak = heap.peak_allocated_bytes - eng_jerry->heap_fence_size;
	} else {
		stats->total = ENG_JERRY_HEAP_BYTES;
		stats->used = 0;
		stats->peak = 0;
	}
}

void eng_mem_reset_peak(void)
{
	eng_jerry_private_reset_peak();
}

void eng_gc(void)
{
	jerry_heap_gc(JERRY_GC_PRESSURE_HIGH);
}

void eng_heap_seal(void)
{
	/* The heap is the device's from the start: nothing to change. */
}

/* ------------------------------------------------------------------ watchdog */

static jerry_value_t watchdog_check(void *user)
{
	(void)user;
	if (eng_jerry->watchdog_units < eng_jerry->active_config.exec_budget) {
		eng_jerry->watchdog_units += ENG_JERRY_HALT_INTERVAL;
		if (eng_jerry->watchdog_units < eng_jerry->active_config.exec_budget) {
			return jerry_undefined();
		}
	}
	/* Returned from the halt hook this becomes an abort: JavaScript cannot catch it, so the
	 * callback unwinds completely and reaches C as an exception. The hook fires again on the
	 * next backward branch while the budget stays spent. */
	return eng_jerry_make_error_text(ENG_ERROR_COMMON, "ESR0104", "Execution interrupted");
}

void eng_watchdog_arm(void)
{
	eng_jerry->watchdog_units = 0;
	if (!eng_jerry->initialized || eng_jerry->active_config.exec_budget == 0) {
		return;
	}
	jerry_halt_handler(ENG_JERRY_HALT_INTERVAL, watchdog_check, NULL);
}

void eng_watchdog_disarm(void)
{
	if (eng_jerry->initialized) {
		jerry_halt_handler(ENG_JERRY_HALT_INTERVAL, NULL, NULL);
	}
}

uint64_t eng_watchdog_units(void)
{
	return eng_jerry->watchdog_units;
}

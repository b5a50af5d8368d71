/*
 * eng_jerry_core.c: JerryScript backend: identity, lifecycle, value scopes, references,
 * memory statistics and the execution-time watchdog.
 */
#include <stdlib.h>
#include <string.h>

#include "eng_hash.h"
#include "eng_jerry_internal.h"

/* The heap is a static array of JERRY_GLOBAL_HEAP_SIZE KB inside the engine. */
#define ENG_JERRY_HEAP_BYTES ((size_t)JERRY_GLOBAL_HEAP_SIZE * 1024u)

/* The halt hook runs on backward jumps; reading the clock on every one would dominate tight
 * loops, and 128 iterations of even a heavy loop body stay far below the limit's resolution. */
#define ENG_JERRY_HALT_INTERVAL 128u

#define ENG_JERRY_SCOPE_DEPTH 16u
#define ENG_JERRY_HANDLES_MIN 64u
#define ENG_JERRY_REFS_MIN 32u
#define ENG_JERRY_REF_IN_USE UINT32_MAX

eng_jerry_intrinsics_t eng_jerry_intrinsics;

static bool initialized;
static eng_config_t active_config;
/* A block taken at eng_init() so that a heap_size below the build-time heap is what the app
 * gets: the static heap cannot shrink, but part of it can be fenced off. */
static void *heap_fence;
static size_t heap_fence_size;

/* Handle table: values handed out, innermost scope on top. Slots freed early by eng_release()
 * become undefined (freeing undefined is a no-op) and are dropped once they reach the top. */
static jerry_value_t *handles;
static uint32_t handle_count;
static uint32_t handle_cap;
static uint32_t handle_floor; /* first slot of the innermost scope */
static uint32_t scope_saved[ENG_JERRY_SCOPE_DEPTH];
static uint32_t scope_depth;

/* Reference table: a copy of each kept value; ids are slot index + 1. */
typedef struct {
	jerry_value_t value;
	uint32_t next; /* ENG_JERRY_REF_IN_USE, or the id of the next free slot (0: none) */
} eng_jerry_ref_slot_t;

static eng_jerry_ref_slot_t *refs;
static uint32_t ref_cap;
static uint32_t ref_live;
static uint32_t ref_free_head;

static uint64_t watchdog_deadline;

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

static void out_of_memory(const char *what)
{
	eng_port_fatal(what);
	/* The port is not meant to return from a fatal error. */
	abort();
}

/* ------------------------------------------------------------------ value scopes */

static bool is_untracked(jerry_value_t value)
{
	/* Constants without a reference count: nothing to free. */
	return jerry_value_is_undefined(value) || jerry_value_is_null(value) ||
	       jerry_value_is_boolean(value);
}

eng_value_t eng_jerry_track(jerry_value_t value)
{
	if (is_untracked(value) || !initialized) {
		return value;
	}
	if (handle_count == handle_cap) {
		uint32_t cap = handle_cap ? handle_cap * 2u : ENG_JERRY_HANDLES_MIN;
		jerry_value_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

		if (grown == NULL) {
			out_of_memory("JS heap exhausted (value handles)");
		}
		if (handles != NULL) {
			memcpy(grown, handles, handle_count * sizeof(*grown));
			eng_jerry_free(handles, handle_cap * sizeof(*handles));
		}
		handles = grown;
		handle_cap = cap;
	}
	handles[handle_count++] = value;
	return value;
}

bool eng_jerry_untrack(jerry_value_t value)
{
	for (uint32_t i = handle_count; i-- > handle_floor;) {
		if (handles[i] == value) {
			handles[i] = jerry_undefined();
			while (handle_count > handle_floor &&
			       jerry_value_is_undefined(handles[handle_count - 1])) {
				handle_count--;
			}
			return true;
		}
	}
	return false;
}

uint32_t eng_jerry_scope_open(void)
{
	uint32_t saved = handle_floor;

	handle_floor = handle_count;
	return saved;
}

void eng_jerry_scope_close(uint32_t saved)
{
	while (handle_count > handle_floor) {
		jerry_value_free(handles[--handle_count]);
	}
	handle_floor = saved;
	/* A burst of handles (a big conversion) must not keep its table in the JS heap. */
	if (handle_count == 0 && handle_cap > ENG_JERRY_HANDLES_MIN) {
		eng_jerry_free(handles, handle_cap * sizeof(*handles));
		handles = NULL;
		handle_cap = 0;
	}
}

void eng_scope_enter(void)
{
	if (scope_depth == ENG_JERRY_SCOPE_DEPTH) {
		eng_port_fatal("engine value scopes nested too deeply");
		abort();
	}
	scope_saved[scope_depth++] = eng_jerry_scope_open();
}

void eng_scope_leave(void)
{
	if (scope_depth > 0) {
		eng_jerry_scope_close(scope_saved[--scope_depth]);
	}
}

void eng_release(eng_value_t value)
{
	/* A value of an outer scope (or an argument of the running native call) is not ours to
	 * free here: it stays valid and its own scope frees it. */
	if (!is_untracked(value) && eng_jerry_untrack(value)) {
		jerry_value_free(value);
	}
}

static void free_all_handles(void)
{
	scope_depth = 0;
	handle_floor = 0;
	while (handle_count > 0) {
		jerry_value_free(handles[--handle_count]);
	}
	eng_jerry_free(handles, handle_cap * sizeof(*handles));
	handles = NULL;
	handle_cap = 0;
}

/* ------------------------------------------------------------------ references */

static bool refs_grow(void)
{
	uint32_t cap = ref_cap ? ref_cap * 2u : ENG_JERRY_REFS_MIN;
	eng_jerry_ref_slot_t *grown = eng_jerry_alloc(cap * sizeof(*grown));

	if (grown == NULL) {
		return false;
	}
	if (refs != NULL) {
		memcpy(grown, refs, ref_cap * sizeof(*grown));
		eng_jerry_free(refs, ref_cap * sizeof(*refs));
	}
	/* New slots join the free list in index order. */
	for (uint32_t i = ref_cap; i < cap; i++) {
		grown[i].value = jerry_undefined();
		grown[i].next = (i + 1 < cap) ? i + 2 : ref_free_head;
	}
	ref_free_head = ref_cap + 1;
	refs = grown;
	ref_cap = cap;
	return true;
}

static eng_jerry_ref_slot_t *ref_slot(eng_ref_t ref)
{
	if (ref == 0 || ref > ref_cap || refs[ref - 1].next != ENG_JERRY_REF_IN_USE) {
		return NULL;
	}
	return &refs[ref - 1];
}

eng_ref_t eng_ref_new(eng_value_t value)
{
	if (!initialized || (ref_free_head == 0 && !refs_grow())) {
		return 0;
	}
	eng_ref_t id = ref_free_head;
	eng_jerry_ref_slot_t *slot = &refs[id - 1];

	ref_free_head = slot->next;
	slot->value = jerry_value_copy(value);
	slot->next = ENG_JERRY_REF_IN_USE;
	ref_live++;
	return id;
}

eng_value_t eng_ref_get(eng_ref_t ref)
{
	eng_jerry_ref_slot_t *slot = ref_slot(ref);

	if (slot == NULL) {
		return jerry_undefined();
	}
	return eng_jerry_track(jerry_value_copy(slot->value));
}

void eng_ref_free(eng_ref_t ref)
{
	eng_jerry_ref_slot_t *slot = ref_slot(ref);

	if (slot == NULL) {
		return;
	}
	jerry_value_t value = slot->value;

	slot->value = jerry_undefined();
	slot->next = ref_free_head;
	ref_free_head = ref;
	ref_live--;
	/* Last: freeing may run finalizers that free other references. */
	jerry_value_free(value);
}

uint32_t eng_ref_count(void)
{
	return ref_live;
}

static void free_all_refs(void)
{
	for (uint32_t i = 0; i < ref_cap; i++) {
		if (refs[i].next == ENG_JERRY_REF_IN_USE) {
			eng_ref_free(i + 1);
		}
	}
	eng_jerry_free(refs, ref_cap * sizeof(*refs));
	refs = NULL;
	ref_cap = 0;
	ref_live = 0;
	ref_free_head = 0;
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

	eng_jerry_intrinsics.object_freeze = get_path(global, freeze, 2);
	eng_jerry_intrinsics.json_stringify = get_path(global, stringify, 2);
	eng_jerry_intrinsics.date_get_time = get_path(global, get_time, 3);
	jerry_value_free(global);
}

static void free_intrinsics(void)
{
	jerry_value_free(eng_jerry_intrinsics.object_freeze);
	jerry_value_free(eng_jerry_intrinsics.json_stringify);
	jerry_value_free(eng_jerry_intrinsics.date_get_time);
	memset(&eng_jerry_intrinsics, 0, sizeof(eng_jerry_intrinsics));
}

bool eng_jerry_initialized(void)
{
	return initialized;
}

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
	heap_fence_size = area - heap_size;
	heap_fence = eng_jerry_alloc(heap_fence_size);
	if (heap_fence == NULL) {
		/* The built-ins alone do not fit in the requested heap. */
		heap_fence_size = 0;
		return false;
	}
	return true;
}

int eng_init(const eng_config_t *config)
{
	if (initialized) {
		eng_deinit();
	}
	active_config = config != NULL ? *config : (eng_config_t){0};
	jerry_init(JERRY_INIT_EMPTY);
	initialized = true;
	take_intrinsics();
	eng_jerry_promises_init();
	if (!fence_heap(active_config.heap_size)) {
		eng_deinit();
		return -1;
	}
	return 0;
}

void eng_deinit(void)
{
	if (!initialized) {
		return;
	}
	eng_watchdog_disarm();
	free_all_handles();
	free_all_refs();
	eng_jerry_promises_free();
	free_intrinsics();
	eng_jerry_free(heap_fence, heap_fence_size);
	heap_fence = NULL;
	heap_fence_size = 0;
	/* From here finalizers of remaining objects run; what they do with references is a no-op. */
	initialized = false;
	jerry_cleanup();
}

int eng_reset(void)
{
	eng_config_t config = active_config;

	eng_deinit();
	return eng_init(&config);
}

/* ------------------------------------------------------------------ resources */

void eng_mem_stats(eng_mem_stats_t *stats)
{
	jerry_heap_stats_t heap = {0};

	if (jerry_heap_stats(&heap)) {
		stats->total = heap.size - heap_fence_size;
		stats->used = heap.allocated_bytes - heap_fence_size;
		stats->peak = heap.peak_allocated_bytes - heap_fence_size;
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

/* ------------------------------------------------------------------ watchdog */

static jerry_value_t watchdog_check(void *user)
{
	(void)user;
	if (eng_port_real_ms() < watchdog_deadline) {
		return jerry_undefined();
	}
	/* Returned from the halt hook this becomes an abort: JavaScript cannot catch it, so the
	 * callback unwinds completely and reaches C as an exception. The hook fires again on the
	 * next backward jump while the deadline stays passed. */
	return eng_jerry_make_error_text(ENG_ERROR_COMMON, "ESR0104", "Execution interrupted");
}

void eng_watchdog_arm(void)
{
	if (!initialized || active_config.exec_limit_ms == 0) {
		return;
	}
	watchdog_deadline = eng_port_real_ms() + active_config.exec_limit_ms;
	jerry_halt_handler(ENG_JERRY_HALT_INTERVAL, watchdog_check, NULL);
}

void eng_watchdog_disarm(void)
{
	if (initialized) {
		jerry_halt_handler(ENG_JERRY_HALT_INTERVAL, NULL, NULL);
	}
}

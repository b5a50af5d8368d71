/*
 * eng_jerry_private.c: the few things the backend needs from JerryScript 3.0 that its public
 * API does not offer. This file alone includes engine-internal headers, so a JerryScript
 * upgrade is checked here first.
 */
#include "eng_jerry_internal.h"

#include "ecma-helpers.h"
#include "jcontext.h"
#include "jmem.h"

bool eng_jerry_private_pending_jobs(void)
{
	/* jerry_run_jobs() has no "is there anything to run" counterpart. */
	return JERRY_CONTEXT(job_queue_head_p) != NULL;
}

void eng_jerry_private_define_new(jerry_value_t object, jerry_value_t name, jerry_value_t value)
{
	/* What the general [[DefineOwnProperty]] does for a property the object does not have yet,
	 * without the lookup that finds it absent and the descriptor conversion: most of a record's
	 * cost per property. */
	ecma_property_value_t *slot =
		ecma_create_named_data_property(ecma_get_object_from_value(object), ecma_get_prop_name_from_value(name),
						ECMA_PROPERTY_CONFIGURABLE_ENUMERABLE_WRITABLE, NULL);

	slot->value = ecma_copy_value_if_not_object(value);
}

void eng_jerry_private_reset_peak(void)
{
#if JERRY_MEM_STATS
	/* jmem.h declares jmem_heap_stats_reset_peak() but 3.0 never defines it. */
	JERRY_CONTEXT(jmem_heap_stats).peak_allocated_bytes =
		JERRY_CONTEXT(jmem_heap_stats).allocated_bytes;
#endif
}

size_t eng_jerry_private_context_size(void)
{
	return sizeof(jerry_context_t);
}

void eng_jerry_private_stack_mark(uintptr_t frame)
{
#if JERRY_STACK_LIMIT != 0
	if (frame > JERRY_CONTEXT(stack_base)) {
		JERRY_CONTEXT(stack_base) = frame;
	}
#else
	(void)frame;
#endif
}

#define ENG_JERRY_STR2(x) #x
#define ENG_JERRY_STR(x) ENG_JERRY_STR2(x)
#define ENG_JERRY_CFG(name) #name "=" ENG_JERRY_STR(name) ";"

const char *eng_jerry_private_config(void)
{
	/* Switches that change the byte code or the table of built-in strings it refers to (see
	 * lit-magic-strings.inc.h); the values are the effective ones, config.h defaults included.
	 * JERRY_SNAPSHOT_SAVE is not among them: a device build without it runs the host's bytecode.
	 * Heap size, stack limit and diagnostics do not change the format either. */
	static const char config[] =
		ENG_JERRY_CFG(JERRY_BUILTIN_ANNEXB) ENG_JERRY_CFG(JERRY_BUILTIN_ARRAY)
		ENG_JERRY_CFG(JERRY_BUILTIN_BOOLEAN) ENG_JERRY_CFG(JERRY_BUILTIN_DATE)
		ENG_JERRY_CFG(JERRY_BUILTIN_ERRORS) ENG_JERRY_CFG(JERRY_BUILTIN_JSON)
		ENG_JERRY_CFG(JERRY_BUILTIN_MATH) ENG_JERRY_CFG(JERRY_BUILTIN_NUMBER)
		ENG_JERRY_CFG(JERRY_BUILTIN_REGEXP) ENG_JERRY_CFG(JERRY_BUILTIN_STRING)
		ENG_JERRY_CFG(JERRY_BUILTIN_BIGINT) ENG_JERRY_CFG(JERRY_BUILTIN_CONTAINER)
		ENG_JERRY_CFG(JERRY_BUILTIN_DATAVIEW) ENG_JERRY_CFG(JERRY_BUILTIN_GLOBAL_THIS)
		ENG_JERRY_CFG(JERRY_BUILTIN_PROXY) ENG_JERRY_CFG(JERRY_BUILTIN_REALMS)
		ENG_JERRY_CFG(JERRY_BUILTIN_REFLECT) ENG_JERRY_CFG(JERRY_BUILTIN_TYPEDARRAY)
		ENG_JERRY_CFG(JERRY_BUILTIN_SHAREDARRAYBUFFER) ENG_JERRY_CFG(JERRY_BUILTIN_ATOMICS)
		ENG_JERRY_CFG(JERRY_BUILTIN_WEAKREF) ENG_JERRY_CFG(JERRY_MODULE_SYSTEM)
		ENG_JERRY_CFG(JERRY_CPOINTER_32_BIT) ENG_JERRY_CFG(JERRY_NUMBER_TYPE_FLOAT64)
		ENG_JERRY_CFG(JERRY_FUNCTION_TO_STRING) ENG_JERRY_CFG(JERRY_LINE_INFO)
		ENG_JERRY_CFG(JERRY_SOURCE_NAME) ENG_JERRY_CFG(JERRY_PARSER)
		ENG_JERRY_CFG(JERRY_SNAPSHOT_EXEC);

	return config;
}

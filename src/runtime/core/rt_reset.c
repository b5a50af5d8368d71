#include "rt_reset.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "eng_hash.h"

static const char *const names[RT_RESET_CAUSE_COUNT] = {
	"none", "out-of-memory", "engine", "watchdog", "system",
};

const char *rt_reset_cause_name(rt_reset_cause_t cause)
{
	return cause < RT_RESET_CAUSE_COUNT ? names[cause] : "system";
}

rt_reset_cause_t rt_reset_cause_of(const char *message)
{
	if (message == NULL) {
		return RT_RESET_SYSTEM;
	}
	if (strstr(message, "out of memory") != NULL) {
		return RT_RESET_OUT_OF_MEMORY;
	}
	if (strstr(message, "watchdog") != NULL) {
		return RT_RESET_WATCHDOG;
	}
	if (strstr(message, "JerryScript") != NULL || strstr(message, "Duktape") != NULL ||
	    strstr(message, "engine") != NULL) {
		return RT_RESET_ENGINE;
	}
	return RT_RESET_SYSTEM;
}

static uint32_t checksum(const rt_reset_record_t *r)
{
	return eng_fnv1a(ENG_FNV1A_INIT, r, offsetof(rt_reset_record_t, check));
}

void rt_reset_record_check(rt_reset_record_t *record)
{
	if (record->magic != RT_RESET_MAGIC || record->check != checksum(record) ||
	    record->cause >= RT_RESET_CAUSE_COUNT) {
		memset(record, 0, sizeof(*record));
		record->magic = RT_RESET_MAGIC;
		record->check = checksum(record);
	}
}

bool rt_reset_record_fault(rt_reset_record_t *record, rt_reset_cause_t cause, const char *detail,
			   uint64_t uptime_ms)
{
	rt_reset_record_check(record);
	record->cause = cause;
	record->total++;
	snprintf(record->detail, sizeof(record->detail), "%s", detail ? detail : "");
	record->loop_count = uptime_ms < RT_RESET_LOOP_WINDOW_MS ? record->loop_count + 1 : 1;
	record->app_stopped = record->loop_count >= RT_RESET_LOOP_COUNT;
	record->check = checksum(record);
	return record->app_stopped;
}

void rt_reset_record_cleared(rt_reset_record_t *record)
{
	rt_reset_record_check(record);
	record->loop_count = 0;
	record->app_stopped = false;
	record->check = checksum(record);
}

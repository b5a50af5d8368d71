/*
 * storage: the app's records, kept in flash across reboots and power loss, keyed by number.
 *
 * Each record is the JSON text of the saved value in namespace RT_RECORDS_NS_APP of the device's
 * record store (rt_store.h): JSON because the spec makes the same "serializable" promise as
 * cloud.enqueue and preview, and because a record read back by a newer firmware must still parse.
 * The record layer makes every save atomic: after a power cut the old value or the new one is
 * there, never a mix (docs/storage.md). The generated glue has checked the arguments.
 */
#include <stdio.h>

#include "api_types.h"
#include "hal_console.h"
#include "rt_api_version.h"
#include "rt_errors.h"
#include "rt_scratch.h"
#include "rt_store.h"

/* Serialized size limits of the spec's limits table: about 4 kB in 0.0.9, 12 kB later. */
#define RT_STORAGE_MAX_0_0_9 4096u
#define RT_STORAGE_MAX 12288u

/*
 * One record's JSON on its way to or from flash is a view of the runtime's shared scratch
 * (rt_scratch.h): taken after JSON.stringify (the app's toJSON and getters run) and given back
 * before readAll's handler runs; JSON.parse without a reviver runs no app code. 12 kB of stack
 * is more than an app thread has.
 */
_Static_assert(RT_STORAGE_MAX + 1u <= RT_SCRATCH_BYTES, "a record's JSON fits the scratch");

static uint32_t save_limit(void)
{
	return rt_api_version() < RT_API_VERSION(0, 1, 0) ? RT_STORAGE_MAX_0_0_9 : RT_STORAGE_MAX;
}

/* The spec's error for a record-store result, thrown. */
static eng_value_t store_error(const char *fn, rt_records_err_t err)
{
	switch (err) {
	case RT_RECORDS_ENOSPC:
	case RT_RECORDS_EINDEX_FULL:
		return rt_throw_esr(RT_ESR0202_NO_STORAGE_SPACE, "%s: %s", fn, rt_records_strerror(err));
	case RT_RECORDS_ETOOBIG:
		return rt_throw_esr(RT_ESR0204_TOO_BIG, "%s: %s", fn, rt_records_strerror(err));
	case RT_RECORDS_ETIMEDOUT:
		if (rt_api_version() >= RT_API_VERSION(0, 2, 6)) {
			return rt_throw_esr(RT_ESR0205_STORE_TIMEOUT, "%s: %s", fn,
					    rt_records_strerror(err));
		}
		break;
	default:
		break;
	}
	return rt_throw_esr(RT_ESR0201_STORAGE_ERROR, "%s: %s", fn, rt_records_strerror(err));
}

static void trace(const char *op, double id, long bytes)
{
	char fields[96];
	if (bytes >= 0) {
		snprintf(fields, sizeof(fields), "\"op\":\"%s\",\"id\":%.0f,\"bytes\":%ld", op, id, bytes);
	} else if (id >= 0) {
		snprintf(fields, sizeof(fields), "\"op\":\"%s\",\"id\":%.0f", op, id);
	} else {
		snprintf(fields, sizeof(fields), "\"op\":\"%s\"", op);
	}
	hal_console_record("storage", fields);
}

eng_value_t rt_storage_save(const rt_storage_save_args_t *args)
{
	/* The glue has refused data holding a function, promise, handle or cycle (ESR0203). */
	eng_value_t json = eng_json_stringify(args->data);
	if (eng_is_exception(json)) {
		return json;
	}
	if (eng_typeof(json) != ENG_TYPE_STRING) {
		eng_release(json);
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE, "storage.save: data has no JSON form");
	}
	size_t size = eng_string_size(json);
	uint32_t limit = save_limit();
	if (size > limit) {
		eng_release(json);
		return rt_throw_esr(RT_ESR0204_TOO_BIG, "storage.save: %zu bytes serialized (at most %u)",
				    size, (unsigned)limit);
	}
	char *record_text = rt_scratch_take("storage.save");
	eng_string_copy(json, record_text, RT_STORAGE_MAX + 1u);
	eng_release(json);

	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store != NULL) {
		err = rt_records_write(store, RT_RECORDS_NS_APP, (uint32_t)args->id, record_text, size);
	}
	rt_scratch_give(record_text);
	if (err != RT_RECORDS_OK) {
		return store_error("storage.save", err);
	}
	trace("save", args->id, (long)size);
	if (rt_api_version() < RT_API_VERSION(0, 1, 0)) {
		return eng_undefined();
	}
	return eng_number((double)size);
}

/* The record's value; undefined when absent or damaged; an exception on a flash error. */
static eng_value_t read_record(rt_records_t *store, uint32_t id, const char *fn)
{
	size_t len = 0;
	char *record_text = rt_scratch_take("storage.read");
	rt_records_err_t err = rt_records_read(store, RT_RECORDS_NS_APP, id, record_text,
					       RT_STORAGE_MAX, &len);
	eng_value_t value = err == RT_RECORDS_OK ? eng_json_parse(record_text, len) : eng_undefined();
	rt_scratch_give(record_text);
	if (err == RT_RECORDS_ENOTFOUND) {
		return eng_undefined();
	}
	if (err == RT_RECORDS_ECORRUPT) {
		hal_log(HAL_LOG_WARN, "%s: record %u is damaged and was left out", fn, (unsigned)id);
		return eng_undefined();
	}
	if (err != RT_RECORDS_OK) {
		return store_error(fn, err);
	}
	if (eng_is_exception(value)) {
		/* The CRC held but the text is not JSON: written by something else. Same as damaged. */
		eng_release(value);
		hal_log(HAL_LOG_WARN, "%s: record %u holds no JSON and was left out", fn, (unsigned)id);
		return eng_undefined();
	}
	return value;
}

eng_value_t rt_storage_read(const rt_storage_read_args_t *args)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store == NULL) {
		return store_error("storage.read", err);
	}
	return read_record(store, (uint32_t)args->id, "storage.read");
}

eng_value_t rt_storage_remove(const rt_storage_remove_args_t *args)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store != NULL) {
		err = rt_records_delete(store, RT_RECORDS_NS_APP, (uint32_t)args->id);
	}
	if (err == RT_RECORDS_ENOTFOUND) {
		return eng_boolean(false);
	}
	if (err != RT_RECORDS_OK) {
		return store_error("storage.remove", err);
	}
	trace("remove", args->id, -1);
	return eng_boolean(true);
}

eng_value_t rt_storage_readAll(const rt_storage_readAll_args_t *args)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store == NULL) {
		return store_error("storage.readAll", err);
	}
	/* The cursor is an id, not a position: the handler may save or remove records (a record it
	 * adds past the cursor is visited, one it removes ahead is not). */
	rt_records_iter_t iter;
	rt_records_iter_init(&iter, RT_RECORDS_NS_APP);
	for (;;) {
		uint32_t id = 0;
		size_t len = 0;
		err = rt_records_iter_next(store, &iter, &id, &len);
		if (err == RT_RECORDS_ENOTFOUND) {
			break;
		}
		if (err != RT_RECORDS_OK) {
			return store_error("storage.readAll", err);
		}
		eng_value_t data = read_record(store, id, "storage.readAll");
		if (eng_is_exception(data)) {
			return data;
		}
		if (eng_typeof(data) == ENG_TYPE_UNDEFINED) {
			continue; /* damaged: left out, as read() does */
		}
		eng_value_t argv[2] = {eng_number((double)id), data};
		eng_value_t result = eng_call(args->handle, eng_undefined(), argv, 2);
		eng_release(argv[0]);
		eng_release(data);
		if (eng_is_exception(result)) {
			return result; /* the handler's error stops the walk and reaches the caller */
		}
		eng_release(result);
		/* The handler may have remounted the store after a flash error. */
		store = rt_store_open(&err);
		if (store == NULL) {
			return store_error("storage.readAll", err);
		}
	}
	return eng_undefined();
}

eng_value_t rt_storage_clear(void)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store != NULL) {
		/* The app's records only: the cloud's queued events are not the app's to delete. */
		err = rt_records_clear(store, RT_RECORDS_NS_APP);
	}
	if (err != RT_RECORDS_OK) {
		return store_error("storage.clear", err);
	}
	trace("clear", -1, -1);
	return eng_undefined();
}

eng_value_t rt_storage_getStats(void)
{
	rt_records_err_t err = RT_RECORDS_OK;
	rt_records_t *store = rt_store_open(&err);
	if (store == NULL) {
		return store_error("storage.getStats", err);
	}
	/* The whole partition, the queued events included, as the spec says. */
	rt_records_stats_t stats;
	rt_records_stats(store, &stats);
	rt_StorageStats_t value = {
		.total = stats.total,
		.used = stats.used,
		.free = stats.free,
	};
	return api_make_StorageStats(&value);
}

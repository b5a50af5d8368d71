/*
 * world_trace.h: the trace, one JSON object per line for each thing a user would look at (LED
 * changes, button edges, prints, preview data, storage writes, errors, app lifecycle, inputs),
 * each with the world time `t` (ms) and the device `dev`. docs/world.md documents every record.
 *
 * Numbers are written the same way on every host (whole numbers as integers, others with at most
 * six decimals), so traces compare byte for byte.
 */
#ifndef WORLD_TRACE_H
#define WORLD_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct world;
struct world_device;

#define WORLD_TRACE_MAX 8192

typedef struct {
	char buf[WORLD_TRACE_MAX];
	size_t len;
	bool full;
} world_json_t;

/* Start a record {"t":..,"dev":..,"ev":..; device may be NULL for world records. */
void world_trace_begin(world_json_t *j, const struct world *world,
		       const struct world_device *device, const char *ev);
void world_trace_str(world_json_t *j, const char *key, const char *text, size_t len);
void world_trace_strz(world_json_t *j, const char *key, const char *text);
void world_trace_num(world_json_t *j, const char *key, double value);
void world_trace_bool(world_json_t *j, const char *key, bool value);
void world_trace_nums(world_json_t *j, const char *key, const float *values, size_t n);
/* A value that is already JSON text. */
void world_trace_raw(world_json_t *j, const char *key, const char *json, size_t len);
/* Members that are already JSON text ("a":1,"b":"x"), appended as they are. */
void world_trace_fields(world_json_t *j, const char *members);
/* Close the record and hand it to the world's trace output. */
void world_trace_end(world_json_t *j, const struct world *world);

/* Whether anyone reads the trace (records are only built then). */
bool world_tracing(const struct world *world);

/* Write a number as the trace does (also for the verbose summary). Returns its length. */
size_t world_format_num(char *buf, size_t cap, double value);

#endif /* WORLD_TRACE_H */

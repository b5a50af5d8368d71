#include "world_trace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world.h"

static void put(world_json_t *j, const char *text, size_t len)
{
	if (j->full || j->len + len + 2 > sizeof(j->buf)) {
		j->full = true;
		return;
	}
	memcpy(j->buf + j->len, text, len);
	j->len += len;
}

static void puts_z(world_json_t *j, const char *text)
{
	put(j, text, strlen(text));
}

static void put_string(world_json_t *j, const char *text, size_t len)
{
	put(j, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(j, esc, 2);
		} else if (c == '\n') {
			put(j, "\\n", 2);
		} else if (c == '\t') {
			put(j, "\\t", 2);
		} else if (c == '\r') {
			put(j, "\\r", 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(j, esc, 6);
		} else {
			put(j, (const char *)&text[i], 1);
		}
	}
	put(j, "\"", 1);
}

static void put_key(world_json_t *j, const char *key)
{
	put(j, ",", 1);
	put_string(j, key, strlen(key));
	put(j, ":", 1);
}

size_t world_format_num(char *buf, size_t cap, double value)
{
	if (isnan(value) || isinf(value)) {
		return (size_t)snprintf(buf, cap, "null");
	}
	if (value == floor(value) && fabs(value) < 1e15) {
		return (size_t)snprintf(buf, cap, "%.0f", value == 0 ? 0.0 : value);
	}
	int n = snprintf(buf, cap, "%.6f", value);
	if (n <= 0 || (size_t)n >= cap) {
		return n > 0 ? cap - 1 : 0;
	}
	while (n > 1 && buf[n - 1] == '0') {
		buf[--n] = '\0';
	}
	if (buf[n - 1] == '.') {
		buf[--n] = '\0';
	}
	if (strcmp(buf, "-0") == 0) {
		strcpy(buf, "0");
		n = 1;
	}
	return (size_t)n;
}

static void put_num(world_json_t *j, double value)
{
	char text[48];
	size_t n = world_format_num(text, sizeof(text), value);
	put(j, text, n);
}

bool world_tracing(const world_t *world)
{
	return world->io.trace != NULL;
}

void world_trace_begin(world_json_t *j, const world_t *world, const world_device_t *device,
		       const char *ev)
{
	j->len = 0;
	j->full = false;
	put(j, "{\"t\":", 5);
	put_num(j, (double)world->now);
	if (device != NULL) {
		put_key(j, "dev");
		put_string(j, device->name, strlen(device->name));
	}
	put_key(j, "ev");
	put_string(j, ev, strlen(ev));
}

void world_trace_str(world_json_t *j, const char *key, const char *text, size_t len)
{
	put_key(j, key);
	put_string(j, text, len);
}

void world_trace_strz(world_json_t *j, const char *key, const char *text)
{
	world_trace_str(j, key, text, strlen(text));
}

void world_trace_num(world_json_t *j, const char *key, double value)
{
	put_key(j, key);
	put_num(j, value);
}

void world_trace_bool(world_json_t *j, const char *key, bool value)
{
	put_key(j, key);
	puts_z(j, value ? "true" : "false");
}

void world_trace_nums(world_json_t *j, const char *key, const float *values, size_t n)
{
	put_key(j, key);
	put(j, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i) {
			put(j, ",", 1);
		}
		put_num(j, values[i]);
	}
	put(j, "]", 1);
}

void world_trace_raw(world_json_t *j, const char *key, const char *json, size_t len)
{
	put_key(j, key);
	put(j, json, len);
}

void world_trace_fields(world_json_t *j, const char *members)
{
	if (members[0]) {
		put(j, ",", 1);
		puts_z(j, members);
	}
}

void world_trace_end(world_json_t *j, const world_t *world)
{
	if (j->full) {
		/* A record never breaks the trace: an oversized one says so instead. */
		j->len = 0;
		j->full = false;
		puts_z(j, "{\"t\":");
		put_num(j, (double)world->now);
		puts_z(j, ",\"ev\":\"trace-overflow\"");
	}
	put(j, "}", 1);
	if (world->io.trace) {
		world->io.trace(world->io.ctx, j->buf, j->len);
	}
}

/*
 * eng_jerry_code.c: JerryScript backend: source evaluation and bytecode.
 *
 * Bytecode is a regular (not static) JerryScript snapshot of the whole program behind a 16-byte
 * header: "BJSN", eng_config_hash(), the snapshot's length and its CRC-32 (all little-endian).
 * JerryScript trusts a snapshot's contents, so the header is what lets a truncated, corrupted or
 * foreign buffer be refused with an exception instead of crashing the engine.
 *
 * eng_run_bytecode() never writes to the caller's buffer and does not keep it: the snapshot is
 * loaded from a scratch copy in the JS heap (JerryScript patches a snapshot while loading it)
 * with JERRY_SNAPSHOT_EXEC_COPY_DATA, so the functions' byte code lives in the JS heap and the
 * buffer may be freed or reused as soon as the call returns. Loading needs about twice the
 * snapshot's size of free heap for a moment, and the code then stays in the heap; running in
 * place from flash is not possible with JerryScript 3.0's snapshot loader.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "eng_jerry_internal.h"

/* Snapshot buffers grow by doubling from a size fitted to the source up to this bound. */
#define ENG_JERRY_SNAPSHOT_MAX (4u * 1024u * 1024u)

#define ENG_JERRY_BC_HEADER 16u
static const uint8_t bc_magic[4] = {'B', 'J', 'S', 'N'};

static uint32_t crc32(const uint8_t *data, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;

	for (size_t i = 0; i < len; i++) {
		crc ^= data[i];
		for (int bit = 0; bit < 8; bit++) {
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
		}
	}
	return ~crc;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static jerry_value_t parse(const char *source, size_t len, const char *filename)
{
	if (!eng_jerry_utf8_valid(source, len)) {
		return jerry_throw_sz(JERRY_ERROR_SYNTAX, "source is not valid UTF-8");
	}
	jerry_parse_options_t options = {.options = JERRY_PARSE_NO_OPTS};

	if (filename != NULL) {
		options.options = JERRY_PARSE_HAS_SOURCE_NAME;
		options.source_name = eng_jerry_string_from_utf8(filename, strlen(filename));
	}
	jerry_value_t script = jerry_parse((const jerry_char_t *)source, len, &options);

	if (filename != NULL) {
		jerry_value_free(options.source_name);
	}
	if (jerry_value_is_exception(script)) {
		/* The parser reports an exhausted heap by throwing null. */
		jerry_value_t thrown = jerry_exception_value(script, false);

		if (jerry_value_is_null(thrown)) {
			jerry_value_free(script);
			script = jerry_throw_value(
				eng_jerry_make_errorf(ENG_ERROR_RANGE, NULL,
						      "out of memory parsing the program (JS heap %u KB)",
						      (unsigned)JERRY_GLOBAL_HEAP_SIZE),
				true);
		}
		jerry_value_free(thrown);
	}
	return script;
}

eng_value_t eng_eval(const char *source, size_t len, const char *filename)
{
	ENG_JERRY_STACK_MARK();
	jerry_value_t script = parse(source, len, filename);

	if (jerry_value_is_exception(script)) {
		return eng_jerry_track(script);
	}
	jerry_value_t result = jerry_run(script);

	jerry_value_free(script);
	return eng_jerry_track(result);
}

static void error_text(jerry_value_t exception, char *err, size_t err_cap)
{
	if (err != NULL && err_cap > 0) {
		eng_describe(exception, err, err_cap);
	}
}

static int snapshot(jerry_value_t script, size_t source_len, uint8_t **out, size_t *out_len,
		    char *err, size_t err_cap)
{
	size_t cap = 4096;

	while (cap < source_len * 2 + 1024) {
		cap *= 2;
	}
	for (;;) {
		/* The header keeps the snapshot 32-bit aligned, as JerryScript writes it. */
		uint32_t *buf = malloc(ENG_JERRY_BC_HEADER + cap);

		if (buf == NULL) {
			snprintf(err, err_cap, "out of memory");
			return -1;
		}
		jerry_value_t size = jerry_generate_snapshot(
			script, 0, buf + ENG_JERRY_BC_HEADER / sizeof(uint32_t), cap);

		if (!jerry_value_is_exception(size)) {
			uint8_t *bytes = (uint8_t *)buf;
			size_t length = (size_t)jerry_value_as_number(size);

			memcpy(bytes, bc_magic, sizeof(bc_magic));
			put_le32(bytes + 4, eng_config_hash());
			put_le32(bytes + 8, (uint32_t)length);
			put_le32(bytes + 12, crc32(bytes + ENG_JERRY_BC_HEADER, length));
			*out = bytes;
			*out_len = ENG_JERRY_BC_HEADER + length;
			jerry_value_free(size);
			return 0;
		}
		free(buf);
		/* A buffer too small is reported like other snapshot errors (RangeError); only
		 * retrying tells them apart. */
		if (cap >= ENG_JERRY_SNAPSHOT_MAX) {
			error_text(size, err, err_cap);
			jerry_value_free(size);
			return -1;
		}
		jerry_value_free(size);
		cap *= 2;
	}
}

int eng_compile(const char *source, size_t len, const char *filename, uint8_t **out,
		size_t *out_len, char *err, size_t err_cap)
{
	/* The package tool may compile without having started the engine. */
	bool started = false;

	if (err != NULL && err_cap > 0) {
		err[0] = '\0';
	} else {
		err = NULL;
		err_cap = 0;
	}
	*out = NULL;
	*out_len = 0;
	if (!eng_jerry_initialized()) {
		if (eng_init(NULL) != 0) {
			snprintf(err, err_cap, "cannot start the engine");
			return -1;
		}
		started = true;
	}
	ENG_JERRY_STACK_MARK();
	int rc;
	jerry_value_t script = parse(source, len, filename);

	if (jerry_value_is_exception(script)) {
		error_text(script, err, err_cap);
		rc = -1;
	} else {
		rc = snapshot(script, len, out, out_len, err, err_cap);
	}
	jerry_value_free(script);
	if (started) {
		eng_deinit();
	}
	return rc;
}

static jerry_value_t bytecode_error(const char *what)
{
	return jerry_throw_value(eng_jerry_make_errorf(ENG_ERROR_TYPE, NULL, "%s", what), true);
}

eng_value_t eng_run_bytecode(const uint8_t *bytecode, size_t len)
{
	ENG_JERRY_STACK_MARK();
	if (bytecode == NULL || len < ENG_JERRY_BC_HEADER ||
	    memcmp(bytecode, bc_magic, sizeof(bc_magic)) != 0) {
		return eng_jerry_track(bytecode_error("not JerryScript bytecode"));
	}
	if (get_le32(bytecode + 4) != eng_config_hash()) {
		return eng_jerry_track(
			bytecode_error("bytecode made for a differently configured engine"));
	}
	size_t length = get_le32(bytecode + 8);

	if (length != len - ENG_JERRY_BC_HEADER) {
		return eng_jerry_track(bytecode_error("truncated bytecode"));
	}
	const uint8_t *snapshot = bytecode + ENG_JERRY_BC_HEADER;

	if (get_le32(bytecode + 12) != crc32(snapshot, length)) {
		return eng_jerry_track(bytecode_error("corrupt bytecode"));
	}
	/* JerryScript writes into the snapshot while loading it (each function's script pointer)
	 * and reads it as 32-bit words, so it runs from an aligned scratch copy: the caller's
	 * buffer stays untouched and may be read-only. */
	uint32_t *copy = eng_jerry_alloc(length);

	if (copy == NULL) {
		return eng_jerry_track(
			jerry_throw_sz(JERRY_ERROR_RANGE, "out of memory loading bytecode"));
	}
	memcpy(copy, snapshot, length);
	jerry_value_t result =
		jerry_exec_snapshot(copy, length, 0, JERRY_SNAPSHOT_EXEC_COPY_DATA, NULL);

	eng_jerry_free(copy, length);
	return eng_jerry_track(result);
}

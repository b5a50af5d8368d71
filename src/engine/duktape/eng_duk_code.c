/*
 * eng_duk_code.c: JSON, evaluation, compilation to bytecode and loading it.
 *
 * Bytecode is Duktape's function dump wrapped in a small envelope:
 *   "BDUK" | u32 envelope version | u32 eng_config_hash() | u32 dump size | u32 FNV-1a of dump
 * (little-endian). duk_load_function() bounds-checks its input but trusts its content, so the
 * envelope's checksum keeps corrupt or foreign input away from it even when the caller has
 * not checked the package already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eng_duk.h"

#define ENG_DUK_BC_MAGIC "BDUK"
#define ENG_DUK_BC_VERSION 1u
#define ENG_DUK_BC_HEADER 20u

/* ------------------------------------------------------------------ JSON */

static duk_ret_t eng_duk_stringify_safe(duk_context *ctx, void *udata)
{
	(void) udata;
	(void) duk_json_encode(ctx, -1);
	return 1;
}

eng_value_t eng_json_stringify(eng_value_t value)
{
	eng_value_t out;

	if (eng_is_exception(value)) {
		return value;
	}
	(void) eng_duk_safe(eng_duk_stringify_safe, NULL, &value, 1, &out);
	return out;
}

typedef struct {
	const char *text;
	size_t len;
	const char *filename;
} eng_duk_source_t;

static duk_ret_t eng_duk_parse_safe(duk_context *ctx, void *udata)
{
	const eng_duk_source_t *src = udata;

	eng_duk_push_utf8(ctx, src->text, src->len);
	duk_json_decode(ctx, -1);
	return 1;
}

eng_value_t eng_json_parse(const char *utf8, size_t len)
{
	eng_duk_source_t src = { utf8 != NULL ? utf8 : "", utf8 != NULL ? len : 0, NULL };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_parse_safe, &src, NULL, 0, &out);
	return out;
}

/* ------------------------------------------------------------------ eval */

/* [ ] -> [ function ]: global program code, whose call returns its completion value. */
static void eng_duk_compile_source(duk_context *ctx, const eng_duk_source_t *src)
{
	const char *filename = src->filename != NULL ? src->filename : "eval";

	eng_duk_push_utf8(ctx, src->text, src->len);
	eng_duk_push_utf8(ctx, filename, strlen(filename));
	duk_compile(ctx, 0);
}

/* [ function ] -> [ result ], `this` being the global object as for any global code. */
static void eng_duk_run_program(duk_context *ctx)
{
	duk_push_global_object(ctx);
	duk_call_method(ctx, 0);
}

static duk_ret_t eng_duk_eval_safe(duk_context *ctx, void *udata)
{
	eng_duk_compile_source(ctx, udata);
	eng_duk_run_program(ctx);
	return 1;
}

eng_value_t eng_eval(const char *source, size_t len, const char *filename)
{
	eng_duk_source_t src = { source != NULL ? source : "", source != NULL ? len : 0, filename };
	eng_value_t out;

	(void) eng_duk_safe(eng_duk_eval_safe, &src, NULL, 0, &out);
	return out;
}

/* ------------------------------------------------------------------ bytecode */

static uint32_t eng_duk_fnv1a(const uint8_t *data, size_t len)
{
	uint32_t hash = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		hash ^= data[i];
		hash *= 16777619u;
	}
	return hash;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
	       ((uint32_t) p[3] << 24);
}

typedef struct {
	eng_duk_source_t src;
	uint8_t *out;
	size_t out_len;
} eng_duk_compile_args_t;

static duk_ret_t eng_duk_compile_safe(duk_context *ctx, void *udata)
{
	eng_duk_compile_args_t *args = udata;
	duk_size_t size = 0;
	const uint8_t *dump;

	eng_duk_compile_source(ctx, &args->src);
	duk_dump_function(ctx);
	dump = duk_get_buffer_data(ctx, -1, &size);
	if (size > UINT32_MAX - ENG_DUK_BC_HEADER) {
		return DUK_RET_RANGE_ERROR;
	}
	args->out = malloc(ENG_DUK_BC_HEADER + size);
	if (args->out == NULL) {
		(void) duk_range_error(ctx, "out of memory for the bytecode");
	}
	memcpy(args->out, ENG_DUK_BC_MAGIC, 4);
	put_u32(args->out + 4, ENG_DUK_BC_VERSION);
	put_u32(args->out + 8, eng_config_hash());
	put_u32(args->out + 12, (uint32_t) size);
	put_u32(args->out + 16, eng_duk_fnv1a(dump, size));
	memcpy(args->out + ENG_DUK_BC_HEADER, dump, size);
	args->out_len = ENG_DUK_BC_HEADER + size;
	return 0;
}

/* The host tools may compile without eng_init(): a throwaway heap without a size limit. */
int eng_compile(const char *source, size_t len, const char *filename, uint8_t **out,
		size_t *out_len, char *err, size_t err_cap)
{
	eng_duk_compile_args_t args = {
		{ source != NULL ? source : "", source != NULL ? len : 0, filename }, NULL, 0
	};
	eng_duk_mem_t scratch_mem;
	duk_context *ctx = eng_duk_ready() ? eng_duk->exec : NULL;
	duk_context *scratch = NULL;
	int result = 0;

	if (err != NULL && err_cap != 0) {
		err[0] = '\0';
	}
	if (out == NULL || out_len == NULL) {
		if (err != NULL && err_cap != 0) {
			snprintf(err, err_cap, "eng_compile: no output given");
		}
		return -1;
	}
	*out = NULL;
	*out_len = 0;
	if (ctx == NULL) {
		eng_duk_mem_init(&scratch_mem);
		scratch = duk_create_heap(eng_duk_alloc, eng_duk_realloc, eng_duk_free, &scratch_mem,
					  eng_duk_fatal);
		if (scratch == NULL) {
			if (err != NULL && err_cap != 0) {
				snprintf(err, err_cap, "cannot create a Duktape heap");
			}
			return -1;
		}
		ctx = scratch;
	}
	if (!duk_check_stack(ctx, 4)) {
		result = -1;
		if (err != NULL && err_cap != 0) {
			snprintf(err, err_cap, "out of memory");
		}
	} else if (duk_safe_call(ctx, eng_duk_compile_safe, &args, 0, 1) != DUK_EXEC_SUCCESS) {
		result = -1;
		free(args.out);
		args.out = NULL;
		if (err != NULL && err_cap != 0) {
			eng_duk_describe_top(ctx, err, err_cap);
		}
		duk_pop(ctx);
	} else {
		duk_pop(ctx);
		*out = args.out;
		*out_len = args.out_len;
	}
	if (scratch != NULL) {
		duk_destroy_heap(scratch);
		/* The slabs a heap keeps for its next blocks (eng_duk_slab.h). */
		eng_duk_blocks_free_all(&scratch_mem);
	}
	return result;
}

typedef struct {
	const uint8_t *dump;
	size_t size;
} eng_duk_dump_t;

static duk_ret_t eng_duk_load_safe(duk_context *ctx, void *udata)
{
	const eng_duk_dump_t *dump = udata;
	void *copy = duk_push_fixed_buffer(ctx, dump->size);

	memcpy(copy, dump->dump, dump->size);
	duk_load_function(ctx);
	eng_duk_run_program(ctx);
	return 1;
}

eng_value_t eng_run_bytecode(const uint8_t *bytecode, size_t len)
{
	eng_duk_dump_t dump;
	eng_value_t out;

	if (bytecode == NULL || len < ENG_DUK_BC_HEADER) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "bytecode is truncated (%zu bytes)", len);
	}
	if (memcmp(bytecode, ENG_DUK_BC_MAGIC, 4) != 0 || get_u32(bytecode + 4) != ENG_DUK_BC_VERSION) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "not Duktape bytecode");
	}
	if (get_u32(bytecode + 8) != eng_config_hash()) {
		return eng_throw(ENG_ERROR_COMMON, NULL,
				 "bytecode is for another engine configuration (%08x, this is %08x)",
				 (unsigned) get_u32(bytecode + 8), (unsigned) eng_config_hash());
	}
	dump.dump = bytecode + ENG_DUK_BC_HEADER;
	dump.size = get_u32(bytecode + 12);
	if (dump.size > len - ENG_DUK_BC_HEADER) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "bytecode is truncated (%zu of %zu bytes)",
				 len - ENG_DUK_BC_HEADER, dump.size);
	}
	if (dump.size < len - ENG_DUK_BC_HEADER) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "bytecode has %zu trailing bytes",
				 len - ENG_DUK_BC_HEADER - dump.size);
	}
	if (dump.size == 0 || eng_duk_fnv1a(dump.dump, dump.size) != get_u32(bytecode + 16)) {
		return eng_throw(ENG_ERROR_COMMON, NULL, "bytecode is corrupt (checksum mismatch)");
	}
	(void) eng_duk_safe(eng_duk_load_safe, &dump, NULL, 0, &out);
	return out;
}

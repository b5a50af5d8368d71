/* The first boot's split by stage: see qemu_profile.h. */
#include "qemu_profile.h"

#include "engine.h"
#include "glue_core.h"
#include "qemu_port.h"

static qemu_boot_profile_t profile;
static uint8_t seen; /* bit per stage: only the first call of each is the boot's */

eng_context_t *__real_eng_create(const eng_config_t *config);
eng_context_t *__wrap_eng_create(const eng_config_t *config);
int __real_glue_install(void);
int __wrap_glue_install(void);
eng_value_t __real_eng_run_bytecode(const uint8_t *bytecode, size_t len);
eng_value_t __wrap_eng_run_bytecode(const uint8_t *bytecode, size_t len);

eng_context_t *__wrap_eng_create(const eng_config_t *config)
{
	uint64_t start = qemu_instructions();
	eng_context_t *ctx = __real_eng_create(config);
	if (!(seen & 1u)) {
		seen |= 1u;
		profile.first_call_at = start;
		profile.engine_create = qemu_instructions() - start;
	}
	return ctx;
}

int __wrap_glue_install(void)
{
	uint64_t start = qemu_instructions();
	int rc = __real_glue_install();
	if (!(seen & 2u)) {
		seen |= 2u;
		profile.api_install = qemu_instructions() - start;
	}
	return rc;
}

eng_value_t __wrap_eng_run_bytecode(const uint8_t *bytecode, size_t len)
{
	uint64_t start = qemu_instructions();
	eng_value_t v = __real_eng_run_bytecode(bytecode, len);
	if (!(seen & 4u)) {
		seen |= 4u;
		profile.package_run = qemu_instructions() - start;
	}
	return v;
}

#ifdef QEMU_PROFILE_DUKTAPE
#include "duktape/eng_duk.h"

duk_context *__real_duk_create_heap(duk_alloc_function alloc, duk_realloc_function realloc_fn,
				    duk_free_function free_fn, void *udata, duk_fatal_function fatal);
duk_context *__wrap_duk_create_heap(duk_alloc_function alloc, duk_realloc_function realloc_fn,
				    duk_free_function free_fn, void *udata, duk_fatal_function fatal);
void __real_eng_duk_promise_setup(duk_context *ctx);
void __wrap_eng_duk_promise_setup(duk_context *ctx);

duk_context *__wrap_duk_create_heap(duk_alloc_function alloc, duk_realloc_function realloc_fn,
				    duk_free_function free_fn, void *udata, duk_fatal_function fatal)
{
	uint64_t start = qemu_instructions();
	duk_context *ctx = __real_duk_create_heap(alloc, realloc_fn, free_fn, udata, fatal);
	if (!(seen & 8u)) {
		seen |= 8u;
		profile.duk_heap = qemu_instructions() - start;
	}
	return ctx;
}

void __wrap_eng_duk_promise_setup(duk_context *ctx)
{
	uint64_t start = qemu_instructions();
	__real_eng_duk_promise_setup(ctx);
	if (!(seen & 16u)) {
		seen |= 16u;
		profile.duk_promise = qemu_instructions() - start;
	}
}
#endif

const qemu_boot_profile_t *qemu_boot_profile(void)
{
	return &profile;
}

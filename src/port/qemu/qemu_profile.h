/*
 * qemu_profile.h: where the first boot's instructions go, from the image's own counter.
 *
 * The link wraps three calls of the runtime (-Wl,--wrap, CMakeLists.txt) and counts the
 * instructions of their first call: the engine's creation (for Duktape: its heap and built-ins),
 * installing the device API into it (the generated glue) and running the package (loading the
 * bytecode and its top level). The rest of the boot is the port's and the world's. With Duktape
 * the engine's creation is split further (duk_create_heap, the Promise setup). beacon-qemu
 * prints them as figures after the run (instructions.boot.*).
 */
#ifndef QEMU_PROFILE_H
#define QEMU_PROFILE_H

#include <stdint.h>

typedef struct {
	uint64_t engine_create; /* eng_create */
	uint64_t api_install;   /* glue_install */
	uint64_t package_run;   /* eng_run_bytecode: load and run the top level */
	uint64_t first_call_at; /* instructions since reset when eng_create was first called */
	/* Duktape only, inside engine_create: duk_create_heap (the heap and its built-ins, built in
	 * RAM at each start), and the runtime's Promise (promise.js: its bytecode loaded, or the
	 * source compiled while promise.bytecode.h is stale, then run). */
	uint64_t duk_heap;
	uint64_t duk_promise;
} qemu_boot_profile_t;

const qemu_boot_profile_t *qemu_boot_profile(void);

#endif /* QEMU_PROFILE_H */

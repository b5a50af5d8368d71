/*
 * fuzz_api: every function and handle method of every API version, called with random argument
 * lists on the simulator's runtime. CTest runs it in every build; in build/sanitize it runs under
 * AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer.
 *
 *   fuzz_api [--seed N] [--lists N] [--only NAME] [--faults N] [--verbose]
 *
 * For each API version it installs an app as the firmware does, then calls each function and each
 * handle method --lists times (default 2000) with 0 to 6 arguments drawn from awkward values:
 * wrong types; huge, negative and non-finite numbers and -0; long strings, strings that are nearly
 * hex or nearly intervals, invalid UTF-8; nested objects, cycles, getters that throw; arrays,
 * sparse and huge ones; ArrayBuffers and typed arrays; functions, promises, handles, Dates; and
 * what earlier calls returned. Methods are called on a handle of their kind and now and then on
 * something else. Every few calls the event loop runs a few turns of virtual time, so the timers
 * the calls started fire (their callbacks come from the same values).
 *
 * Faults are injected too: with --faults N (default 3000), about one native allocation in N fails
 * (a run of 1 to 12 in a row: the engine's retries, or its running out of memory), and between
 * loop turns the world presses the buttons, moves the device and changes its power, so callbacks
 * of every kind run (many of them throw). A fault the device survives only by resetting (the
 * engine out of memory) resets the simulated device: the fuzz counts it, takes the new engine's
 * values and goes on.
 *
 * Nothing may crash or leak (the sanitizers watch that), and every call must return or throw an
 * Error object (instanceof Error, with a string message). The seed and the function's name decide
 * its lists, so `--seed S --only NAME` replays what a failure report names.
 *
 * Exit status: 0; 1 with a line per call that threw something other than an Error; 2 for usage.
 */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "glue_app.h"
#include "glue_core.h"
#include "hal_clock.h"
#include "rt_app.h"
#include "rt_device.h"
#include "rt_handle.h"
#include "rt_loop.h"
#include "rt_package.h"
#include "world.h"
#include "world_inputs.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_SANITIZED 1
#endif
#endif
#ifdef FUZZ_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

#define FUZZ_MAX_ARGS 6
#define FUZZ_RESULTS 16      /* results of earlier calls kept as arguments */
#define FUZZ_CALLS_PER_TURN 64 /* calls between two runs of the event loop */
#define FUZZ_MAX_CALLABLES 160

/* Where reports go: the real stderr, also when the runtime's own chatter is silenced. */
static FILE *report;
static bool verbose;

/* ------------------------------------------------------------------ random numbers */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: small, fast and the same everywhere, so a seed replays on any host. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

static uint64_t hash_name(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h = (h ^ (uint8_t)*s) * 0x100000001B3ULL;
	}
	return h;
}

/* ------------------------------------------------------------------ the values */

/* The field names of the API's argument records (see api_glue.h) and a few that every object
 * has: random objects draw their keys from here, so they often get as far as the field checks. */
static const char *const keys[] = {
	"lat", "long", "speed", "alt", "head", "prec", "sat", "timeout", "minInterval",
	"minDistance", "maxFixWait", "passive", "scanRequests", "interval", "window", "channels",
	"deduplicate", "volatile", "mode", "panId", "maxDistance", "rssi", "channel",
	"scanResponse", "connectable", "addr", "name", "manufData", "serviceData", "serviceUUIDs",
	"txPower", "flags", "recordType", "text", "uri", "type", "data", "toString", "valueOf",
	"length", "constructor", "0",
};
#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

/* How the app gets a handle of each kind (by prototype name in glue_api.protos). */
static const struct {
	const char *proto;
	const char *make;
} makers[] = {
	{"Advertiser", "ble.advertise(ble.build.eddystoneTlm)"},
	{"LegacyTimer", "setTimeout(noop, 1e9)"},
	{"SingleTimer", "timers.single(1e9, noop)"},
	{"RepeatTimer", "timers.repeat(1e9, noop)"},
	{"AtTimer", "timers.at(Date.now() + 1e9, noop)"},
	{"CountTimer", "timers.count(1e9, 3, noop)"},
};
#define MAKER_COUNT (sizeof(makers) / sizeof(makers[0]))

/* The native pointer of stand-in handles (see collect()). */
static uint64_t stand_in[32];

/* The values every list draws from, made by the app itself. */
static const char pool_source[] =
	"(function () {\n"
	"var G = Function('return this')();\n"
	"function noop() {}\n"
	"function thrower() { throw new Error('thrown by a callback'); }\n"
	"function text(n) { return new Array(n + 1).join('x'); }\n"
	"var keys = KEYS;\n"
	"var evil = {};\n"
	"for (var i = 0; i < keys.length; i++)\n"
	"  Object.defineProperty(evil, keys[i], { get: thrower, enumerable: true });\n"
	"var cycle = { a: [1] }; cycle.a.push(cycle); cycle.self = cycle;\n"
	"var deep = {}; for (var d = deep, j = 0; j < 40; j++) d = d.next = {};\n"
	"var deepArray = []; for (var e = deepArray, k = 0; k < 40; k++) { var n = []; e.push(n); e = n; }\n"
	"var heavy = [];\n"
	"if (!SMALL_HEAP) {\n"
	"  var sparse = []; sparse.length = 4294967295;\n"
	"  var bytes = []; for (var b = 0; b < 3000; b++) bytes.push(b & 255);\n"
	"  heavy.push(sparse, bytes, text(5000), new ArrayBuffer(4096));\n"
	"}\n"
	"var rejected = Promise.reject(new Error('rejected')); rejected['catch'](noop);\n"
	"var handles = {};\n"
	"MAKERS\n"
	"var values = [undefined, null, true, false, 0, -0, NaN, Infinity, -Infinity, 1, -1, 0.5,\n"
	"  -0.5, 7, 20, 21, -40, -41, 37, 38, 39, 40, 99, 100, 119, 120, 255, 256, 1024, 10240,\n"
	"  65535, 65536, 7776000, 4294967295, 4294967296, 9007199254740993, 1e21, -1e21,\n"
	"  Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE,\n"
	"  '', 'x', '0', '-1', '1s', '200ms', '2 min', '1 day', '-5s', '1e400s', 'NaN ms', 'soon',\n"
	"  '00112233445566778899', '0123456789abcdef0123456789abcdef', 'zz', 'abc', '#ff8000',\n"
	"  text(31), text(51), text(1024), text(1025), '\\ud800', '\\u0000x', 'caf\\u00e9',\n"
	"  [], [1, 2, 3], [37, 38, 39], [39, 37], [37, 40], [0.5, 0.5, 0.5], [1, 0, 2], [1, 'x', null],\n"
	"  [noop], deepArray, [cycle],\n"
	"  {}, { lat: 1, long: 2 }, { lat: 91, long: 0 }, { channels: [37] }, { channels: [] },\n"
	"  { timeout: -1 }, { maxFixWait: 39 }, { volatile: false }, { interval: '1s', window: 10241 },\n"
	"  { recordType: 1, text: 'hi' }, { rssi: -60, channel: 37, scanResponse: false,\n"
	"  connectable: true, addr: 'a0b1c2d3e4f5' }, deep, cycle, evil,\n"
	"  { toString: thrower }, { valueOf: thrower, toString: thrower }, { toString: null },\n"
	"  new ArrayBuffer(0), new ArrayBuffer(6), new ArrayBuffer(16), new ArrayBuffer(33),\n"
	"  new Uint8Array(10), new Int16Array(3), new Float64Array(2),\n"
	"  new Uint8Array(20).subarray(3, 9), new Uint8Array([1, 2, 255]),\n"
	"  noop, thrower, function () { return {}; }, function (a) { return a; },\n"
	"  function () { return Promise.reject(new Error('rejected by a callback')); },\n"
	"  function () { app.restart(); }, function () { timers.single(0, noop); },\n"
	"  Promise.resolve(1), new Promise(noop), rejected,\n"
	"  new Date(0), new Date(NaN), new Date(8.64e15), new Error('an error'), new TypeError('t'),\n"
	"  /re/, Math, JSON, G];\n"
	"if (typeof Symbol === 'function') values.push(Symbol('s'), { s: Symbol('t') });\n"
	"if (typeof Proxy === 'function') values.push(new Proxy({}, { get: thrower, ownKeys: thrower,\n"
	"  has: thrower, getOwnPropertyDescriptor: thrower }));\n"
	"if (typeof DataView === 'function') values.push(new DataView(new ArrayBuffer(8)));\n"
	"values = values.concat(heavy);\n"
	"for (var h in handles) values.push(handles[h]);\n"
	"return { values: values, handles: handles,\n"
	"  isError: function (e) { return e instanceof Error && typeof e.message === 'string'; } };\n"
	"})()";

typedef struct {
	char name[64];
	eng_ref_t fn;
	eng_ref_t self; /* the handle of a method, or 0 */
} callable_t;

static struct {
	eng_ref_t values; /* array */
	uint32_t value_count;
	eng_ref_t is_error;
	eng_ref_t results[FUZZ_RESULTS];
	callable_t callables[FUZZ_MAX_CALLABLES];
	size_t callable_count;
} fz;

static struct {
	unsigned long calls, rejections, failures, turns, resets, refused_allocations;
} stats;

/* ------------------------------------------------------------------ allocation failures */

/* The fuzz binary is linked with --wrap=malloc,calloc,realloc,aligned_alloc (and for Duktape
 * eng_duk_slab_alloc, its heaps' small blocks): while injection is on, now and then a run of
 * allocations fails. A generator of its own keeps the argument lists the seed's. */
static unsigned long fault_one_in = 3000;
static bool injecting;
static uint64_t fault_rng = 0x2545F4914F6CDD1DULL;
static unsigned fault_run;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);

static bool inject_failure(void)
{
	if (!injecting || fault_one_in == 0) {
		return false;
	}
	if (fault_run > 0) {
		fault_run--;
		stats.refused_allocations++;
		return true;
	}
	fault_rng ^= fault_rng << 13;
	fault_rng ^= fault_rng >> 7;
	fault_rng ^= fault_rng << 17;
	if (fault_rng % fault_one_in != 0) {
		return false;
	}
	fault_run = (unsigned)(fault_rng >> 32) % 12u;
	stats.refused_allocations++;
	return true;
}

void *__wrap_malloc(size_t size)
{
	return inject_failure() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return inject_failure() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
	return inject_failure() ? NULL : __real_realloc(ptr, size);
}

void *__real_aligned_alloc(size_t alignment, size_t size);

void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
	return inject_failure() ? NULL : __real_aligned_alloc(alignment, size);
}

#if FUZZ_DUK_SLABS
#include "eng_duk_slab.h"

void *__real_eng_duk_slab_alloc(eng_duk_slabs_t *slabs, size_t size);

void *__wrap_eng_duk_slab_alloc(eng_duk_slabs_t *slabs, size_t size)
{
	return inject_failure() ? NULL : __real_eng_duk_slab_alloc(slabs, size);
}
#endif

static eng_value_t pool_value(void)
{
	eng_value_t values = eng_ref_get(fz.values);
	eng_value_t v = eng_get_index(values, below(fz.value_count));
	eng_release(values);
	return v;
}

static eng_value_t random_number(void)
{
	switch (below(4)) {
	case 0: {
		uint64_t bits = rnd();
		double d;
		memcpy(&d, &bits, sizeof(d)); /* any double: NaN payloads, subnormals, huge */
		return eng_number(d);
	}
	case 1: return eng_number((double)((int64_t)below(140000) - 70000));
	case 2: return eng_number((double)((int64_t)below(600) - 300) / (double)(1 + below(8)));
	default: return eng_number(ldexp((double)below(1000), (int)below(80) - 20) * (below(2) ? 1 : -1));
	}
}

static eng_value_t random_string(void)
{
	static const char alphabet[] = "0123456789abcdefABCDEFxyz msdhinutewk:.#-+ \t\n";
	char buf[3200];
	size_t len = below(8) == 0 ? below(sizeof(buf)) : below(48);
	for (size_t i = 0; i < len; i++) {
		uint32_t r = below(40);
		if (r == 0) {
			buf[i] = (char)(0x80 + below(0x80)); /* invalid UTF-8 on its own */
		} else if (r == 1) {
			buf[i] = '\0';
		} else {
			buf[i] = alphabet[below(sizeof(alphabet) - 1)];
		}
	}
	return eng_string(buf, len);
}

static eng_value_t hexish_string(void)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	char buf[96];
	size_t len = 2 * below(42);
	if (below(4) == 0 && len > 0) {
		len--; /* odd: not whole bytes */
	}
	for (size_t i = 0; i < len; i++) {
		buf[i] = hex[below(sizeof(hex) - 1)];
	}
	if (below(4) == 0 && len > 0) {
		buf[below((uint32_t)len)] = "gz :"[below(4)];
	}
	return eng_string(buf, len);
}

static eng_value_t intervalish_string(void)
{
	static const char *const units[] = {"", "ms", "s", " s", "sec", "secs", "m", "min", " mins",
					    "h", "hour", "hours", "d", " day", "days", "w", "week",
					    "weeks", "y", "msec", "  ms  "};
	char buf[64];
	double n = below(3) == 0 ? (double)below(100000) / 7.0 : (double)((int)below(20000) - 100);
	snprintf(buf, sizeof(buf), "%s%g%s", below(10) == 0 ? " " : "", n,
		 units[below(sizeof(units) / sizeof(units[0]))]);
	return eng_string_z(buf);
}

static eng_value_t random_value(int depth);

static eng_value_t random_object(int depth)
{
	eng_value_t o = eng_object();
	uint32_t n = below(6);
	for (uint32_t i = 0; i < n; i++) {
		eng_value_t v = random_value(depth + 1);
		eng_set(o, keys[below(KEY_COUNT)], v);
		eng_release(v);
	}
	return o;
}

static eng_value_t random_array(int depth)
{
	uint32_t n = below(7);
	eng_value_t a = eng_array(n);
	bool numbers = below(2) == 0;
	for (uint32_t i = 0; i < n; i++) {
		eng_value_t v;
		if (numbers) {
			static const double picks[] = {0, 1, 0.5, -0.1, 1.1, 37, 38, 39, 40, 255, 256};
			v = below(3) ? eng_number(picks[below(sizeof(picks) / sizeof(picks[0]))])
				     : random_number();
		} else {
			v = random_value(depth + 1);
		}
		eng_set_index(a, i, v);
		eng_release(v);
	}
	return a;
}

static eng_value_t random_buffer(void)
{
	uint8_t buf[48];
	size_t len = below(sizeof(buf) + 1);
	for (size_t i = 0; i < len; i++) {
		buf[i] = (uint8_t)rnd();
	}
	return eng_arraybuffer(buf, len);
}

static eng_value_t earlier_result(void)
{
	eng_ref_t ref = fz.results[below(FUZZ_RESULTS)];
	return ref ? eng_ref_get(ref) : eng_undefined();
}

static eng_value_t random_value(int depth)
{
	uint32_t pick = below(14);
	if (depth >= 3 && pick >= 9) {
		pick = below(9);
	}
	switch (pick) {
	case 0: case 1: case 2: case 3: return pool_value();
	case 4: return random_number();
	case 5: return random_string();
	case 6: return hexish_string();
	case 7: return intervalish_string();
	case 8: return earlier_result();
	case 9: case 10: return random_object(depth);
	case 11: case 12: return random_array(depth);
	default: return random_buffer();
	}
}

/* ------------------------------------------------------------------ one call */

static void keep_result(eng_value_t v)
{
	if (!eng_is_object(v)) {
		return;
	}
	size_t slot = below(FUZZ_RESULTS);
	if (fz.results[slot]) {
		eng_ref_free(fz.results[slot]);
	}
	fz.results[slot] = eng_ref_new(v);
}

static void describe_args(char *buf, size_t cap, const eng_value_t *argv, uint32_t argc)
{
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < argc && used + 4 < cap; i++) {
		char one[80];
		eng_describe(argv[i], one, sizeof(one));
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", one);
	}
}

static bool is_error(eng_value_t thrown)
{
	eng_value_t check = eng_ref_get(fz.is_error);
	eng_value_t r = eng_call(check, eng_undefined(), &thrown, 1);
	bool ok = !eng_is_exception(r) && eng_get_boolean(r);
	if (eng_is_exception(r)) {
		eng_release(eng_exception_value(r));
	} else {
		eng_release(r);
	}
	eng_release(check);
	return ok;
}

static void call_once(const callable_t *c, const char *version, unsigned long list)
{
	eng_scope_enter();
	eng_value_t fn = eng_ref_get(c->fn);
	eng_value_t self = eng_undefined();
	if (c->self) {
		/* Mostly the method's own handle; now and then anything at all. */
		self = below(8) ? eng_ref_get(c->self) : random_value(0);
	}
	static const uint8_t argc_weights[] = {0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6};
	uint32_t argc = argc_weights[below(sizeof(argc_weights))];
	eng_value_t argv[FUZZ_MAX_ARGS];
	for (uint32_t i = 0; i < argc; i++) {
		argv[i] = random_value(0);
	}
	eng_value_t r = eng_call(fn, self, argv, argc);
	stats.calls++;
	if (eng_is_exception(r)) {
		stats.rejections++;
		eng_value_t thrown = eng_exception_value(r);
		if (!is_error(thrown)) {
			char what[160], args[400];
			eng_describe(thrown, what, sizeof(what));
			describe_args(args, sizeof(args), argv, argc);
			fprintf(report, "fuzz_api: %s (API %s, list %lu) threw something that is not an Error: %s\n"
				"  arguments: (%s)\n", c->name, version, list, what, args);
			stats.failures++;
		}
		eng_release(thrown);
	} else {
		keep_result(r);
		eng_release(r);
	}
	for (uint32_t i = 0; i < argc; i++) {
		eng_release(argv[i]);
	}
	eng_release(self);
	eng_release(fn);
	eng_scope_leave();
}

/* A few turns of the event loop in virtual time: due timers fire, promise jobs run. */
/* One simulated device; the fuzz moves its time itself so that an app.restart() among the calls
 * does not start a new engine under the values it holds. */
static world_t fz_world;

/* An input from the world, so that the callbacks of buttons, motion and power run too. */
static void random_input(void)
{
	world_event_t e = {0};
	e.at = fz_world.now;
	e.device = 0;
	switch (below(4)) {
	case 0:
		e.kind = WORLD_IN_BUTTON;
		e.value[0] = below(2);
		e.value[1] = below(2);
		break;
	case 1:
		e.kind = WORLD_IN_MOTION;
		e.value[0] = below(2);
		e.value[1] = 0.5;
		break;
	case 2:
		e.kind = WORLD_IN_POWER;
		e.value[0] = below(2);
		e.value[1] = below(2);
		break;
	default:
		e.kind = WORLD_IN_IMU_EVENT;
		strcpy(e.text, below(2) ? "double-tap" : "free-fall");
		break;
	}
	world_apply_input(&fz_world, &fz_world.devices[0], &e);
}

static void run_loop(void)
{
	random_input();
	uint64_t until = fz_world.now + 1 + below(40);
	for (int i = 0; i < 4; i++) {
		uint64_t next = HAL_CLOCK_FOREVER;
		rt_run_result_t r = rt_loop_step(&next);
		stats.turns++;
		if (r != RT_RUN_CONTINUE) {
			/* app.stop(), app.remove() or app.restart() asked the loop to return: go on. */
			continue;
		}
		uint64_t at = next == HAL_CLOCK_FOREVER ? until : fz_world.devices[0].boot_at + next;
		if (at >= until) {
			fz_world.now = until;
			break;
		}
		fz_world.now = at;
	}
}

/* ------------------------------------------------------------------ one version */

static uint8_t *empty_app(uint32_t api_version, size_t *len)
{
	eng_config_t config = {.heap_size = 16u * 1024u * 1024u, .exec_budget = 0};
	uint8_t *bytecode = NULL, *package = NULL;
	size_t bytecode_len = 0;
	char err[256];
	if (eng_init(&config) != 0) {
		return NULL;
	}
	eng_scope_enter();
	int rc = eng_compile("", 0, "fuzz.js", &bytecode, &bytecode_len, err, sizeof(err));
	eng_scope_leave();
	eng_deinit();
	if (rc == 0) {
		package = rt_package_build(api_version, bytecode, bytecode_len, 0, len);
	} else {
		fprintf(report, "fuzz_api: %s\n", err);
	}
	free(bytecode);
	return package;
}

static eng_value_t eval(const char *source)
{
	return eng_eval(source, strlen(source), "fuzz.js");
}

static void add_callable(const char *name, eng_value_t fn, eng_value_t self)
{
	if (fz.callable_count >= FUZZ_MAX_CALLABLES || eng_typeof(fn) != ENG_TYPE_FUNCTION) {
		fprintf(report, "fuzz_api: %s is missing or not a function\n", name);
		stats.failures++;
		return;
	}
	callable_t *c = &fz.callables[fz.callable_count++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fn = eng_ref_new(fn);
	c->self = self ? eng_ref_new(self) : 0;
}

/* The values, the Error check and every function and method of the running version. */
static int collect(int bit)
{
	/* The pool's source with the key list and the handle makers filled in. */
	char keys_json[1024] = "[";
	for (size_t i = 0; i < KEY_COUNT; i++) {
		size_t used = strlen(keys_json);
		snprintf(keys_json + used, sizeof(keys_json) - used, "%s'%s'", i ? "," : "", keys[i]);
	}
	strcat(keys_json, "]");
	char make_js[1024] = "";
	for (size_t i = 0; i < MAKER_COUNT; i++) {
		size_t used = strlen(make_js);
		snprintf(make_js + used, sizeof(make_js) - used,
			 "try { handles.%s = %s; } catch (e) {}\n", makers[i].proto, makers[i].make);
	}
	/* JerryScript ends the program when its heap is exhausted (on the device: a reboot), and
	 * its heap is the device's, a quarter of the simulator's Duktape heap: there the pool leaves
	 * out the values whose text alone would fill much of it (the sparse array's text fits no
	 * heap at all; Duktape refuses it with a RangeError, which is what the fuzz checks there). */
	const char *small = eng_id() == ENG_ID_JERRYSCRIPT ? "true" : "false";
	const struct {
		const char *mark, *with;
	} fills[] = {{"KEYS", keys_json}, {"SMALL_HEAP", small}, {"MAKERS", make_js}};
	size_t cap = sizeof(pool_source) + sizeof(keys_json) + sizeof(make_js);
	char *source = malloc(cap);
	if (source == NULL) {
		return -1;
	}
	size_t used = 0;
	const char *from = pool_source;
	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
		const char *at = strstr(from, fills[i].mark);
		size_t head = (size_t)(at - from), with = strlen(fills[i].with);
		memcpy(source + used, from, head);
		memcpy(source + used + head, fills[i].with, with);
		used += head + with;
		from = at + strlen(fills[i].mark);
	}
	memcpy(source + used, from, strlen(from) + 1);

	eng_scope_enter();
	eng_value_t pool = eval(source);
	free(source);
	if (eng_is_exception(pool)) {
		char text[200];
		eng_describe(eng_exception_value(pool), text, sizeof(text));
		fprintf(report, "fuzz_api: the values could not be made: %s\n", text);
		eng_scope_leave();
		return -1;
	}
	eng_value_t values = eng_get(pool, "values");
	fz.values = eng_ref_new(values);
	fz.value_count = eng_array_length(values);
	eng_value_t check = eng_get(pool, "isError");
	fz.is_error = eng_ref_new(check);
	eng_value_t handles = eng_get(pool, "handles");

	uint32_t mask = 1u << bit;
	for (size_t i = 0; i < glue_api.member_count; i++) {
		const glue_member_t *mem = &glue_api.members[i];
		if (!(mem->mask & mask)) {
			continue;
		}
		char path[96];
		snprintf(path, sizeof(path), "%s%s%s", mem->owner, mem->owner[0] ? "." : "", mem->name);
		eng_value_t fn = eval(path);
		add_callable(path, fn, 0);
	}
	for (size_t p = 0; p < glue_api.proto_count; p++) {
		const glue_proto_t *proto = &glue_api.protos[p];
		/* The methods of this prototype, read off an object that has it... */
		eng_value_t carrier = rt_handle_new(p, stand_in);
		/* ...and called on a real handle of the same native type: the kind's own, or another
		 * kind's (a LegacyTimer method on a timers.single handle in 0.2.6, which has no
		 * setTimeout). The stand-in itself only where no call makes a handle of that type (an
		 * advertiser, while ble.advertise has no behaviour): the methods of such a type are not
		 * built either, so they never look behind its pointer. */
		eng_value_t self = eng_get(handles, proto->name);
		for (size_t q = 0; q < MAKER_COUNT && eng_get_native(self, proto->type) == NULL; q++) {
			self = eng_get(handles, makers[q].proto);
		}
		if (eng_get_native(self, proto->type) == NULL) {
			self = carrier;
			if (verbose) {
				fprintf(report, "fuzz_api: API %s: %s methods on a stand-in handle\n",
					glue_api.versions[bit], proto->name);
			}
		}
		for (uint8_t i = 0; i < proto->count; i++) {
			if (!(proto->methods[i].mask & mask)) {
				continue;
			}
			char name[64];
			snprintf(name, sizeof(name), "%s.%s", proto->name, proto->methods[i].name);
			eng_value_t fn = eng_get(carrier, proto->methods[i].name);
			add_callable(name, fn, self);
		}
	}
	eng_scope_leave();
	return 0;
}

static void release_all(void)
{
	for (size_t i = 0; i < fz.callable_count; i++) {
		eng_ref_free(fz.callables[i].fn);
		if (fz.callables[i].self) {
			eng_ref_free(fz.callables[i].self);
		}
	}
	for (size_t i = 0; i < FUZZ_RESULTS; i++) {
		if (fz.results[i]) {
			eng_ref_free(fz.results[i]);
		}
	}
	if (fz.values) {
		eng_ref_free(fz.values);
	}
	if (fz.is_error) {
		eng_ref_free(fz.is_error);
	}
	memset(&fz, 0, sizeof(fz));
}

typedef struct {
	size_t callable;
	const char *version;
	unsigned long list;
} guarded_call_t;

static void guarded_call(void *context)
{
	const guarded_call_t *call = context;
	injecting = true;
	call_once(&fz.callables[call->callable], call->version, call->list);
	injecting = false;
}

static void guarded_loop(void *context)
{
	(void)context;
	injecting = true;
	run_loop();
	injecting = false;
}

/* The device reset: the values and functions the fuzz held belonged to the engine instance it
 * abandoned. Take the new instance's (installing the app again if the reboot-loop guard stopped
 * it) and go on. */
static int after_reset(int bit, const uint8_t *package, size_t len)
{
	injecting = false;
	fault_run = 0;
	stats.resets++;
	memset(&fz, 0, sizeof(fz));
	world_select(&fz_world, &fz_world.devices[0]);
	if (rt_app_state() != RT_APP_RUNNING) {
		char msg[256];
		if (world_install(&fz_world, 0, package, len, msg, sizeof(msg)) != 0) {
			fprintf(report, "fuzz_api: the app could not be installed again after a reset: %s\n", msg);
			return -1;
		}
	}
	world_select(&fz_world, &fz_world.devices[0]);
	return collect(bit);
}

static int fuzz_version(int bit, uint64_t seed, unsigned long lists, const char *only)
{
	const char *version = glue_api.versions[bit];
	unsigned a, b, c;
	if (sscanf(version, "%u.%u.%u", &a, &b, &c) != 3) {
		return -1;
	}
	size_t len;
	uint8_t *package = empty_app(a << 16 | b << 8 | c, &len);
	char msg[256];
	if (package == NULL || world_install(&fz_world, 0, package, len, msg, sizeof(msg)) != 0) {
		fprintf(report, "fuzz_api: API %s: the app could not be installed: %s\n", version,
			package ? msg : "no package");
		free(package);
		return -1;
	}
	rng = hash_name(seed * 0x9E3779B97F4A7C15ULL + 1, version);
	int rc = collect(bit);
	unsigned long done = 0;
	for (size_t i = 0; rc == 0 && i < fz.callable_count; i++) {
		char name[sizeof(fz.callables[i].name)];
		snprintf(name, sizeof(name), "%s", fz.callables[i].name);
		if (only && strcmp(only, name) != 0) {
			continue;
		}
		/* Each function's lists depend on the seed and its name only. */
		rng = hash_name(hash_name(seed * 0x9E3779B97F4A7C15ULL + 1, version), name);
		for (unsigned long list = 0; rc == 0 && list < lists; list++) {
			guarded_call_t call = {i, version, list};
			bool survived = world_guarded(&fz_world, &fz_world.devices[0], guarded_call, &call);
			if (survived && ++done % FUZZ_CALLS_PER_TURN == 0) {
				survived = world_guarded(&fz_world, &fz_world.devices[0], guarded_loop, NULL);
			}
			if (!survived) {
				rc = after_reset(bit, package, len);
			}
		}
		if (rc == 0 && !world_guarded(&fz_world, &fz_world.devices[0], guarded_loop, NULL)) {
			rc = after_reset(bit, package, len);
		}
	}
	eng_scope_enter();
	release_all();
	eng_scope_leave();
	/* The next install tears this app down: its timers, the loop and the engine. */
	free(package);
	return rc;
}

/* ------------------------------------------------------------------ main */

static int usage(const char *why)
{
	fprintf(stderr, "fuzz_api: %s\nusage: fuzz_api [--seed N] [--lists N] [--only NAME] [--faults N] [--verbose]\n", why);
	return 2;
}

/* Send the runtime's own output (print(), log lines) to /dev/null and keep the real stderr for the
 * report and the sanitizers' findings. */
static void silence(void)
{
	int err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY);
	if (err < 0 || null < 0) {
		report = stderr;
		return;
	}
	report = fdopen(err, "w");
	setvbuf(report, NULL, _IOLBF, 0);
#ifdef FUZZ_SANITIZED
	__sanitizer_set_report_fd((void *)(intptr_t)err);
#endif
	fflush(stdout);
	fflush(stderr);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	unsigned long lists = 2000;
	const char *only = NULL;
	for (int i = 1; i < argc; i++) {
		char *end;
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = strtoull(argv[++i], &end, 10);
			if (*end) {
				return usage("--seed takes a number");
			}
		} else if (strcmp(argv[i], "--lists") == 0 && i + 1 < argc) {
			lists = strtoul(argv[++i], &end, 10);
			if (*end) {
				return usage("--lists takes a number");
			}
		} else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			only = argv[++i];
		} else if (strcmp(argv[i], "--faults") == 0 && i + 1 < argc) {
			fault_one_in = strtoul(argv[++i], &end, 10);
			if (*end) {
				return usage("--faults takes a number (0: none)");
			}
		} else if (strcmp(argv[i], "--verbose") == 0) {
			verbose = true;
		} else {
			return usage("unknown option");
		}
	}
	if (verbose) {
		report = stderr;
	} else {
		silence();
	}
	world_io_t io = {0};
	if (world_init(&fz_world, 1, &io) != 0) {
		return 1;
	}
	fz_world.utc_at_start = 1767225600000LL;
	world_select(&fz_world, &fz_world.devices[0]);
	int rc = 0;
	for (size_t bit = 0; bit < glue_api.version_count; bit++) {
		if (fuzz_version((int)bit, seed, lists, only) != 0) {
			rc = 1;
		}
	}
	world_free(&fz_world);
	fprintf(report, "fuzz_api: seed %llu, %zu API versions, %lu calls (%lu rejected), %lu loop turns, "
		"%lu allocations refused, %lu device resets, %lu failures\n", (unsigned long long)seed,
		(size_t)glue_api.version_count, stats.calls, stats.rejections, stats.turns,
		stats.refused_allocations, stats.resets, stats.failures);
	if (stats.failures > 0) {
		rc = 1;
	}
	/* Not closed: the sanitizers' exit-time reports (leaks) go to it. */
	fflush(report);
	return rc;
}

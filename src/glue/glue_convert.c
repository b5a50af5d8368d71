/*
 * glue_convert.c: choosing the form of an overloaded function and converting every argument into
 * the args struct the runtime service receives (each one by glue_value.c).
 */
#include <stdio.h>
#include <string.h>

#include "glue_core.h"
#include "glue_internal.h"
#include "rt_api_version.h"
#include "rt_errors.h"

/* ------------------------------------------------------------------ checks */

static bool is_bytes_like(eng_type_t t)
{
	return t == ENG_TYPE_ARRAYBUFFER || t == ENG_TYPE_TYPEDARRAY;
}

/* Cheap test whether a value could be meant for this parameter: picks between overloads. */
static bool could_match(const glue_param_t *p, eng_value_t v, eng_type_t t)
{
	if (t == ENG_TYPE_UNDEFINED && (p->flags & GLUE_OPTIONAL)) {
		return true;
	}
	if (t == ENG_TYPE_NULL && (p->flags & GLUE_NULLABLE)) {
		return true;
	}
	switch ((glue_kind_t)p->kind) {
	case GLUE_ANY:
	case GLUE_STRINGABLE:
	case GLUE_PURE:
		return true;
	case GLUE_STRING: return t == ENG_TYPE_STRING;
	case GLUE_INTERVAL_MS:
	case GLUE_INTERVAL_S: return t == ENG_TYPE_NUMBER || t == ENG_TYPE_STRING;
	case GLUE_NUMBER:
	case GLUE_INTEGER:
	case GLUE_SNAP_DOWN: return t == ENG_TYPE_NUMBER;
	case GLUE_BOOLEAN: return t == ENG_TYPE_BOOLEAN;
	case GLUE_BYTES: return t == ENG_TYPE_STRING || is_bytes_like(t);
	case GLUE_BYTE_SOURCE: return t == ENG_TYPE_ARRAY || is_bytes_like(t);
	case GLUE_FUNCTION: return t == ENG_TYPE_FUNCTION;
	case GLUE_TIMESTAMP: return t == ENG_TYPE_NUMBER || t == ENG_TYPE_DATE;
	case GLUE_ONE_OF_EACH:
	case GLUE_ARRAY:
	case GLUE_NUM_TUPLE: return t == ENG_TYPE_ARRAY;
	case GLUE_OBJECT:
	case GLUE_RECORD:
	case GLUE_HANDLE: return eng_is_object(v) && t != ENG_TYPE_FUNCTION;
	}
	return false;
}

/* The arguments of one call with their types, each asked of the engine once: choosing the form
 * and converting would otherwise ask again for every argument. */
#define GLUE_TYPED_ARGS 8

#define GLUE_TYPE_UNKNOWN 0xffu

typedef struct {
	const eng_call_t *call;
	uint8_t types[GLUE_TYPED_ARGS]; /* eng_type_t, or GLUE_TYPE_UNKNOWN until first asked */
} glue_args_t;

static eng_type_t arg_type(glue_args_t *a, uint32_t k)
{
	if (k >= GLUE_TYPED_ARGS) {
		return eng_typeof(a->call->argv[k]);
	}
	if (a->types[k] == GLUE_TYPE_UNKNOWN) {
		a->types[k] = (uint8_t)eng_typeof(a->call->argv[k]);
	}
	return (eng_type_t)a->types[k];
}

static bool could_match_arg(const glue_param_t *p, glue_args_t *a, uint32_t k)
{
	return could_match(p, a->call->argv[k], arg_type(a, k));
}

/* Whether a form takes this many arguments: all its required ones and none beyond its last. */
static bool takes(const glue_overload_t *o, uint32_t argc)
{
	return argc >= o->required && argc <= o->count;
}

static bool fits(const glue_overload_t *o, glue_args_t *a)
{
	for (uint8_t k = 0; k < o->count && k < a->call->argc; k++) {
		if (!could_match_arg(&o->params[k], a, k)) {
			return false;
		}
	}
	return true;
}

/*
 * The form of an overloaded function for these arguments, or -1. The first form (in declaration
 * order) that takes exactly as many arguments as were given and fits them wins. Only when no form
 * takes that many may a shorter one that fits the leading arguments do, the rest being ignored as
 * JavaScript ignores extra arguments: io.led(true, 1) is a mistaken io.led(1, true), not "all
 * LEDs on". When no form fits, the form whose error will be the most useful is converted anyway,
 * so the error names the argument that is wrong (and carries the code the declaration gives that
 * argument) rather than only listing what was passed: the one form that takes this many
 * arguments, else the one that fits the most leading arguments.
 */
static int pick_overload(const glue_function_t *fn, glue_args_t *a, uint32_t bit)
{
	const eng_call_t *call = a->call;
	int taking = 0, taking_index = -1;
	for (uint8_t i = 0; i < fn->count; i++) {
		const glue_overload_t *o = &fn->overloads[i];
		if ((o->mask & bit) && takes(o, call->argc)) {
			if (fits(o, a)) {
				return i;
			}
			taking++;
			taking_index = i;
		}
	}
	if (taking == 0) {
		for (uint8_t i = 0; i < fn->count; i++) {
			const glue_overload_t *o = &fn->overloads[i];
			if ((o->mask & bit) && call->argc >= o->required && fits(o, a)) {
				return i;
			}
		}
	}
	if (taking == 1) {
		return taking_index;
	}
	int best = -1, best_score = 0;
	bool tie = false;
	for (uint8_t i = 0; i < fn->count; i++) {
		const glue_overload_t *o = &fn->overloads[i];
		if (!(o->mask & bit) || call->argc < o->required || (taking > 0 && !takes(o, call->argc))) {
			continue;
		}
		int score = 0;
		while (score < o->count && (uint32_t)score < call->argc &&
		       could_match_arg(&o->params[score], a, (uint32_t)score)) {
			score++;
		}
		if (score > best_score) {
			best = i;
			best_score = score;
			tie = false;
		} else if (score == best_score && score > 0) {
			tie = true;
		}
	}
	return tie ? -1 : best;
}

bool glue_convert(const eng_call_t *call, const glue_function_t *fn, void *args,
		  eng_value_t *error)
{
	int version_bit = rt_api_version_bit();
	if (version_bit < 0) {
		*error = eng_throw(ENG_ERROR_COMMON, NULL, "%s: no API is installed", fn->name);
		return false;
	}
	uint32_t bit = 1u << version_bit;
	int candidates = 0, only = -1;
	for (uint8_t i = 0; i < fn->count; i++) {
		if (fn->overloads[i].mask & bit) {
			candidates++;
			only = i;
		}
	}
	glue_args_t a;
	a.call = call;
	if (candidates > 1) {
		memset(a.types, GLUE_TYPE_UNKNOWN, sizeof(a.types));
	}
	/* A function with one form in this version takes it whatever was passed: its checks say
	 * what is wrong, and extra arguments are ignored. */
	int chosen_index = candidates == 1 ? only : pick_overload(fn, &a, bit);
	const glue_overload_t *chosen = chosen_index >= 0 ? &fn->overloads[chosen_index] : NULL;
	if (chosen == NULL) {
		char got[160] = "";
		for (uint32_t k = 0; k < call->argc && k < 4; k++) {
			char what[48];
			glue_describe_value(call->argv[k], what, sizeof(what));
			size_t used = strlen(got);
			snprintf(got + used, sizeof(got) - used, "%s%s", k ? ", " : "", what);
		}
		*error = rt_throw_arg(ENG_ERROR_TYPE, "%s: no form of this function takes (%s)",
				   fn->name, got);
		return false;
	}
	uint8_t *base = args;
	if (fn->variant_offset != GLUE_NO_HAS) {
		base[fn->variant_offset] = (uint8_t)chosen_index;
	}
	eng_value_t undefined = 0;
	bool have_undefined = false;
	for (uint8_t k = 0; k < chosen->count; k++) {
		const glue_param_t *p = &chosen->params[k];
		glue_where_t at = {fn->name, NULL, p->name, p->esr};
		bool given = k < call->argc;
		if (!given && !have_undefined) {
			undefined = eng_undefined(); /* made only when an argument was left out */
			have_undefined = true;
		}
		eng_value_t v = given ? call->argv[k] : undefined;
		/* With one form, each type is asked once anyway; the cache only pays off when forms
		 * were compared first. */
		eng_type_t t = !given ? ENG_TYPE_UNDEFINED
			       : candidates == 1 ? eng_typeof(call->argv[k]) : arg_type(&a, k);
		if (!glue_convert_value(p, &at, v, t, base, error)) {
			return false;
		}
	}
	return true;
}

eng_value_t glue_reject(eng_value_t exception)
{
	eng_value_t reason = eng_exception_value(exception);
	eng_value_t promise = eng_promise_new();
	eng_promise_reject(promise, reason);
	eng_release(reason);
	return promise;
}

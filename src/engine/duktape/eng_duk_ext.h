/*
 * eng_duk_ext.h: side-effect-free object inspection that Duktape's public API lacks, and the two
 * object builders eng_record needs.
 *
 * Implemented in duk_unity.c, next to the amalgamation, because they need Duktape's internal
 * object layout. None of the inspections allocates, runs JavaScript or throws, so the backend can
 * use them on the handle store and inside finalizers; the builders allocate (inside protected
 * calls only).
 */
#ifndef ENG_DUK_EXT_H
#define ENG_DUK_EXT_H

#include <stddef.h>

#include "duktape.h"

/* Internal class numbers the backend distinguishes (Duktape's DUK_HOBJECT_CLASS_*). */
typedef enum {
	ENG_DUK_CLASS_NONE = -1, /* not an object */
	ENG_DUK_CLASS_OTHER = 0,
	ENG_DUK_CLASS_ARRAY,
	ENG_DUK_CLASS_DATE,
	ENG_DUK_CLASS_ERROR,
	ENG_DUK_CLASS_ARRAYBUFFER,
	ENG_DUK_CLASS_VIEW, /* a typed array or a DataView */
} eng_duk_class_t;

eng_duk_class_t eng_duk_class(duk_context *ctx, duk_idx_t idx);

/* The data of a plain buffer stored in an own data property of the object at idx, where key is
 * the heap pointer of a (hidden) key string; NULL when there is none. Inherited properties do
 * not count: a handle's prototype is not a handle. */
void *eng_duk_own_buffer(duk_context *ctx, duk_idx_t idx, void *key, size_t *size);

/* Pushes the value of the own data property of the object at obj_idx whose key is the string at
 * key_idx, or undefined; returns whether there was one. Needs one free value-stack slot. */
int eng_duk_push_own(duk_context *ctx, duk_idx_t obj_idx, duk_idx_t key_idx);

/* Whether the object at idx has an own data property key (a heap pointer of a string). */
int eng_duk_has_own(duk_context *ctx, duk_idx_t idx, void *key);

/* The time value of a Date object; 0 when the value is not a Date. */
int eng_duk_date_value(duk_context *ctx, duk_idx_t idx, double *out);

/* Whether the heap of ctx is in a mark-and-sweep collection now. */
int eng_duk_gc_running(duk_context *ctx);
/* Whether the object at idx has an own property at array index i (as getOwnPropertyDescriptor
 * would find it: no getter runs, the prototype chain is not asked). */
int eng_duk_has_own_index(duk_context *ctx, duk_idx_t idx, duk_uarridx_t i);

/* Pushes a new plain object (prototype Object.prototype) with room for `entries` properties:
 * a record's properties are then added without its property table growing once per property.
 * May throw (allocation). */
void eng_duk_push_object_sized(duk_context *ctx, duk_uint32_t entries);

/* [ ... key value ] -> [ ... ]: defines the string key as an own enumerable, writable,
 * configurable data property of the object at obj_idx, which must be a plain extensible object:
 * Duktape's internal definition (its built-ins' and JSON.parse's), with no descriptor to
 * validate and no setter to look for. May throw (allocation). */
void eng_duk_def_wec(duk_context *ctx, duk_idx_t obj_idx);

#endif /* ENG_DUK_EXT_H */

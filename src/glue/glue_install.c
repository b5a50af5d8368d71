/*
 * glue_install.c: building the API surface of one version in a fresh engine instance: namespace
 * objects, functions, enum constants, and the handle prototypes (registered with rt_handle).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "glue_core.h"
#include "rt_api_version.h"
#include "rt_features.h"
#include "rt_handle.h"

/* ------------------------------------------------------------------ install */

/* The object at a dotted path below the global object (created by an earlier step). */
static eng_value_t lookup_path(const char *path)
{
	eng_value_t obj = eng_global();
	char part[32];
	const char *p = path;
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(part)) {
			n = sizeof(part) - 1;
		}
		memcpy(part, p, n);
		part[n] = '\0';
		eng_value_t next = eng_get(obj, part);
		eng_release(obj);
		obj = next;
		if (eng_is_exception(obj) || !eng_is_object(obj)) {
			return obj;
		}
		p = dot ? dot + 1 : p + n;
	}
	return obj;
}

static const char *last_part(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

/* Whether path is top or lies below it ("ble" and "ble.build" are in "ble"; "blex" is not). */
static bool in_subtree(const char *path, const char *top)
{
	size_t n = strlen(top);
	return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '.');
}

static uint32_t version_mask(void)
{
	return 1u << rt_api_version_bit();
}

/*
 * Build the namespace glue_api.namespaces[index] (a top-level one) with everything below it:
 * nested namespaces, functions, constants; frozen. Called the first time the app reads it.
 */
static eng_value_t build_namespace(const eng_call_t *call)
{
	const char *top = glue_api.namespaces[(uintptr_t)call->data].path;
	uint32_t bit = version_mask();
	eng_value_t global = eng_global();
	eng_value_t obj = eng_object();
	/* The constant replaces the getter before anything below is looked up through it. */
	eng_define_const(global, top, obj);
	eng_release(global);

	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		const glue_namespace_t *ns = &glue_api.namespaces[i];
		if (!(ns->mask & bit) || strchr(ns->path, '.') == NULL || !in_subtree(ns->path, top)) {
			continue;
		}
		const char *dot = strrchr(ns->path, '.');
		char parent_path[64];
		size_t n = (size_t)(dot - ns->path);
		if (n >= sizeof(parent_path)) {
			continue;
		}
		memcpy(parent_path, ns->path, n);
		parent_path[n] = '\0';
		eng_value_t parent = lookup_path(parent_path);
		eng_value_t child = eng_object();
		eng_define_const(parent, last_part(ns->path), child);
		eng_release(child);
		eng_release(parent);
	}
	for (size_t i = 0; i < glue_api.member_count; i++) {
		const glue_member_t *m = &glue_api.members[i];
		if (!(m->mask & bit) || !m->owner[0] || !in_subtree(m->owner, top)) {
			continue;
		}
		eng_value_t owner = lookup_path(m->owner);
		eng_value_t fn = eng_function(m->fn, NULL, m->name);
		eng_define_const(owner, m->name, fn);
		eng_release(fn);
		eng_release(owner);
	}
	for (size_t i = 0; i < glue_api.const_count; i++) {
		const glue_const_t *k = &glue_api.consts[i];
		if (!(k->mask & bit) || !k->owner[0] || !in_subtree(k->owner, top)) {
			continue;
		}
		eng_value_t owner = lookup_path(k->owner);
		eng_value_t value = eng_json_parse(k->json, strlen(k->json));
		if (eng_is_object(value)) {
			eng_freeze(value);
		}
		eng_define_const(owner, k->name, value);
		eng_release(value);
		eng_release(owner);
	}
	/* Frozen, so an app cannot replace an API function by accident. */
	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		const glue_namespace_t *ns = &glue_api.namespaces[i];
		if ((ns->mask & bit) && in_subtree(ns->path, top)) {
			eng_value_t o = lookup_path(ns->path);
			eng_freeze(o);
			eng_release(o);
		}
	}
	return obj;
}

/* The prototype of handle type proto, made when the first handle of that type is (rt_handle). */
static eng_value_t build_proto(size_t proto)
{
	uint32_t bit = version_mask();
	const glue_proto_t *p = &glue_api.protos[proto];
	eng_value_t obj = eng_object();
	for (uint8_t k = 0; k < p->count; k++) {
		if (!(p->methods[k].mask & bit)) {
			continue;
		}
		eng_value_t fn = eng_function(p->methods[k].fn, NULL, p->methods[k].name);
		eng_define_const(obj, p->methods[k].name, fn);
		eng_release(fn);
	}
	eng_freeze(obj);
	return obj;
}

/*
 * The API costs the app's heap only what it uses: global functions are made at once; each
 * namespace is a getter on the global object that builds it (and everything below it) when the
 * app first reads it; a handle type's prototype is made with its first handle. On the device's
 * JerryScript this keeps the installed API within a few kilobytes (bench/RESULTS.md "Faults").
 */
int glue_install(void)
{
	int version_bit = rt_api_version_bit();
	if (version_bit < 0 || (size_t)version_bit >= glue_api.version_count ||
	    glue_api.proto_count != API_PROTO_COUNT) {
		return -1;
	}
	uint32_t bit = 1u << version_bit;
	eng_value_t global = eng_global();
	for (size_t i = 0; i < glue_api.member_count; i++) {
		const glue_member_t *m = &glue_api.members[i];
		if (!(m->mask & bit) || m->owner[0]) {
			continue;
		}
		eng_value_t fn = eng_function(m->fn, NULL, m->name);
		/* Globals stay writable, as built-ins are: an app may wrap print(). */
		eng_set(global, m->name, fn);
		eng_release(fn);
	}
	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		const glue_namespace_t *ns = &glue_api.namespaces[i];
		if (!(ns->mask & bit) || strchr(ns->path, '.') != NULL) {
			continue;
		}
		/* A namespace the hardware cannot have (location without GNSS) is left out. */
		if (!rt_features_namespace_present(ns->path)) {
			continue;
		}
		eng_value_t getter = eng_function(build_namespace, (void *)(uintptr_t)i, ns->path);
		eng_define_getter(global, ns->path, getter);
		eng_release(getter);
	}
	eng_release(global);
	rt_handle_set_builder(build_proto);
	return 0;
}

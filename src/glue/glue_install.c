/*
 * glue_install.c: building the API surface of one version in a fresh engine instance: namespace
 * objects, functions, enum constants, and the handle prototypes (registered with rt_handle).
 */
#include <stdio.h>
#include <string.h>

#include "glue_core.h"
#include "rt_api_version.h"
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

static eng_value_t owner_object(const char *owner_path)
{
	return owner_path[0] ? lookup_path(owner_path) : eng_global();
}

int glue_install(void)
{
	int version_bit = rt_api_version_bit();
	if (version_bit < 0 || (size_t)version_bit >= glue_api.version_count ||
	    glue_api.proto_count != API_PROTO_COUNT) {
		return -1;
	}
	uint32_t bit = 1u << version_bit;

	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		const glue_namespace_t *ns = &glue_api.namespaces[i];
		if (!(ns->mask & bit)) {
			continue;
		}
		const char *dot = strrchr(ns->path, '.');
		eng_value_t parent;
		if (dot) {
			char parent_path[64];
			size_t n = (size_t)(dot - ns->path);
			if (n >= sizeof(parent_path)) {
				return -1;
			}
			memcpy(parent_path, ns->path, n);
			parent_path[n] = '\0';
			parent = lookup_path(parent_path);
		} else {
			parent = eng_global();
		}
		eng_value_t obj = eng_object();
		eng_define_const(parent, last_part(ns->path), obj);
		eng_release(obj);
		eng_release(parent);
	}
	for (size_t i = 0; i < glue_api.member_count; i++) {
		const glue_member_t *m = &glue_api.members[i];
		if (!(m->mask & bit)) {
			continue;
		}
		eng_value_t owner = owner_object(m->owner);
		eng_value_t fn = eng_function(m->fn, NULL, m->name);
		if (m->owner[0]) {
			eng_define_const(owner, m->name, fn);
		} else {
			/* Globals stay writable, as built-ins are: an app may wrap print(). */
			eng_set(owner, m->name, fn);
		}
		eng_release(fn);
		eng_release(owner);
	}
	for (size_t i = 0; i < glue_api.const_count; i++) {
		const glue_const_t *k = &glue_api.consts[i];
		if (!(k->mask & bit)) {
			continue;
		}
		eng_value_t owner = owner_object(k->owner);
		eng_value_t value = eng_json_parse(k->json, strlen(k->json));
		if (eng_is_object(value)) {
			eng_freeze(value);
		}
		eng_define_const(owner, k->name, value);
		eng_release(value);
		eng_release(owner);
	}
	/* Namespaces are frozen so an app cannot replace an API function by accident. */
	for (size_t i = 0; i < glue_api.namespace_count; i++) {
		if (glue_api.namespaces[i].mask & bit) {
			eng_value_t obj = lookup_path(glue_api.namespaces[i].path);
			eng_freeze(obj);
			eng_release(obj);
		}
	}
	for (size_t i = 0; i < glue_api.proto_count; i++) {
		const glue_proto_t *proto = &glue_api.protos[i];
		eng_value_t obj = eng_object();
		for (uint8_t k = 0; k < proto->count; k++) {
			if (!(proto->methods[k].mask & bit)) {
				continue;
			}
			eng_value_t fn = eng_function(proto->methods[k].fn, NULL, proto->methods[k].name);
			eng_define_const(obj, proto->methods[k].name, fn);
			eng_release(fn);
		}
		eng_freeze(obj);
		rt_handle_set_proto(i, obj);
		eng_release(obj);
	}
	return 0;
}

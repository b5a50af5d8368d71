/*
 * rt_scratch.c: see rt_scratch.h.
 */
#include "rt_scratch.h"

#include <stdio.h>

#include "engine.h"

/* 8-byte aligned: users lay structs (a batch's event table) out in it. */
static union {
	uint8_t bytes[RT_SCRATCH_BYTES];
	uint64_t align;
	double align_d;
} scratch;
static const char *holder;

void *rt_scratch_take(const char *who)
{
	if (holder != NULL) {
		char message[160];
		snprintf(message, sizeof(message), "scratch buffer taken by %s while %s holds it", who,
			 holder);
		eng_port_fatal(message);
	}
	holder = who;
	return scratch.bytes;
}

void rt_scratch_give(void *p)
{
	if (p == scratch.bytes) {
		holder = NULL;
	}
}

const char *rt_scratch_holder(void)
{
	return holder;
}

void rt_scratch_reset(void)
{
	holder = NULL;
}

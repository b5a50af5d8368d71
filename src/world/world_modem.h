/*
 * world_modem.h: the LTE modem of a simulated device and the network around it.
 *
 * The scenario gives what the modem finds (operators, the serving cell, neighbouring cells with
 * their signal, the SIM's and modem's identifiers) and how long each query takes; defaults give
 * every LTE device a network. A query started by the runtime (hal_modem_query) answers after its
 * scan duration in world time, through an internal input (WORLD_IN_MODEM_DONE); a query started
 * again, cancelled or cut by airplane mode does not answer.
 */
#ifndef WORLD_MODEM_H
#define WORLD_MODEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hal_modem.h"

struct world;
struct world_device;
struct world_event;

typedef struct {
	hal_modem_operator_t operators[HAL_MODEM_MAX_OPERATORS];
	size_t n_operators;
	bool registered;
	hal_modem_cell_t serving;
	hal_modem_cell_t cells[HAL_MODEM_MAX_CELLS];
	size_t n_cells;
	bool has_sim;
	hal_modem_info_t info;
	uint32_t scan_ms[HAL_MODEM_QUERY_COUNT];
	/* The script replaced the defaults of operators / cells (the first line clears them). */
	bool operators_given, cells_given;

	bool airplane;
	bool running[HAL_MODEM_QUERY_COUNT];
	uint32_t generation[HAL_MODEM_QUERY_COUNT];
} world_modem_t;

/* The default network of device index (identifiers numbered per device). */
void world_modem_defaults(world_modem_t *m, uint32_t index);
/* "operators", "status", "cells", "info" -> query, or -1. */
int world_modem_query_by_name(const char *name);
const char *world_modem_query_name(int query);

/* A query's end (WORLD_IN_MODEM_DONE: value[0] query, value[1] generation). */
void world_modem_done_event(struct world *w, struct world_device *d, const struct world_event *e);
/* The device resets: queries are gone, airplane mode is off (the modem powers up). */
void world_modem_reset(struct world *w, struct world_device *d);

#endif /* WORLD_MODEM_H */

/*
 * sim.h: settings of the host simulator's world, given by beacon-sim's command line.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

/* Virtual time (default) jumps to each deadline; realtime sleeps like a device. */
void sim_clock_configure(bool realtime, bool utc_synced, int64_t utc_at_boot_ms);
/* Device time that has passed, in ms (virtual or real). */
uint64_t sim_clock_elapsed_ms(void);

void sim_console_flush(void);

#endif /* SIM_H */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_device.h"
#include "sim.h"

size_t hal_device_public_id(uint8_t *buf, size_t cap)
{
	/* A fixed identity, so simulator output is reproducible. */
	static const uint8_t id[16] = {0x5e, 0xac, 0x0b, 0x1d, 0x00, 0x00, 0x4d, 0x0c,
				       0xbe, 0xac, 0x05, 0x1a, 0x00, 0x00, 0x00, 0x01};
	size_t n = cap < sizeof(id) ? cap : sizeof(id);
	memcpy(buf, id, n);
	return n;
}

const char *hal_device_hardware(void)
{
	return "sim-1.0";
}

void hal_device_fatal(const char *reason)
{
	sim_console_flush();
	fprintf(stderr, "[beacon fatal] %s\n", reason);
	exit(70);
}

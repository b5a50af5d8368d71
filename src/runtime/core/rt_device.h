/*
 * rt_device.h: everything the runtime keeps for one device, in one structure.
 *
 * The firmware has one device; the host simulator runs many in one process (a world of beacons),
 * each with its own engine instance. No runtime module keeps state of its own outside this
 * structure: each module's state type is declared in its header and lives here, so selecting a
 * device (rt_device_select) switches every module, and the engine, at once. Modules reach the
 * selected device with rt_device().
 */
#ifndef RT_DEVICE_H
#define RT_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "rt_alarm.h"
#include "rt_app.h"
#include "rt_ble.h"
#include "rt_cloud.h"
#include "rt_handle.h"
#include "rt_io.h"
#include "rt_location.h"
#include "rt_loop.h"
#include "rt_modem.h"
#include "rt_nfc.h"
#include "rt_sensors.h"
#include "rt_store.h"
#include "rt_timers.h"
#include "rt_uwb.h"

typedef struct rt_device {
	/* Position in the simulator's world (0 on the device); names the device in traces. */
	uint32_t index;
	/* The engine configuration the app gets (the port may set a device profile's heap). */
	eng_config_t engine_config;
	/* The running app's engine instance, or NULL. */
	eng_context_t *engine;
	/* API version of the running app (packed), and its bit in the generated masks. */
	uint32_t api_version;
	int api_bit;
	/* Order of things scheduled for the same millisecond (timers and alarms): first come,
	 * first served. */
	uint64_t seq;
	/* ESR0005 (time not synced) was logged once. */
	bool utc_warned;
	/* eng_create() is running: Duktape reads the clock while it builds its heap, which is no
	 * use of the time by the app (no ESR0005 then, as on JerryScript). */
	bool engine_starting;

	rt_app_lifecycle_t app;
	rt_loop_state_t loop;
	rt_timers_state_t timers;
	rt_alarm_state_t alarms;
	rt_handle_state_t handles;
	rt_io_state_t io;
	rt_sensors_state_t sensors;
	rt_store_state_t store;
	rt_ble_state_t ble;
	rt_location_state_t location;
	rt_modem_state_t modem;
	rt_nfc_state_t nfc;
	rt_uwb_state_t uwb;
	rt_cloud_state_t cloud;
	/* Apps deployed from the cloud: kept across app instances (the report of an install goes
	 * out in the new app's first sync); its target is the port's. */
	rt_cloud_deploy_t cloud_deploy;

	/* The port's own state for this device (the simulator's view of its hardware). */
	void *port;
} rt_device_t;

/* Clear a device structure and give it its defaults. */
void rt_device_init(rt_device_t *device, uint32_t index);
/* Make this the device the runtime works on, and its engine instance the selected one. */
void rt_device_select(rt_device_t *device);
/* The selected device (never NULL once a device was selected). */
rt_device_t *rt_device(void);

#endif /* RT_DEVICE_H */

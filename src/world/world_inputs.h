/*
 * world_inputs.h: what the world does to a device: button edges, motion and IMU readings, power
 * and battery, temperature, time sync. Each input changes the simulated hardware, is traced, and
 * reaches the runtime the way the device's drivers would report it (after the sensor's detection
 * delay, only when the app listens, ...). See docs/world.md for the models.
 */
#ifndef WORLD_INPUTS_H
#define WORLD_INPUTS_H

#include "world.h"

typedef enum {
	WORLD_IN_BUTTON = 1,  /* value[0]: 0 main, 1 side; value[1]: 1 down, 0 up */
	WORLD_IN_MOTION,      /* value[0]: moving 0/1; value[1]: intensity, g */
	WORLD_IN_ACCEL,       /* value[0..2]: g */
	WORLD_IN_GYRO,        /* value[0..2]: deg/s */
	WORLD_IN_IMU_EVENT,   /* text: event name; value[0] axis, value[1] sign, value[2] count or
			       * duration or output; value[3] intensity, g */
	WORLD_IN_BATTERY,     /* value[0]: percent */
	WORLD_IN_CURRENT,     /* value[0]: mA drawn */
	WORLD_IN_POWER,       /* value[0]: external 0/1; value[1]: charging 0/1 */
	WORLD_IN_TEMPERATURE, /* value[0]: degrees Celsius */
	WORLD_IN_TIME_SYNC,   /* value[0]: synced 0/1 */
	WORLD_IN_IMU_FAULT,   /* value[0]: the sensor refuses to configure events 0/1 */
	WORLD_IN_FAULT,       /* text: "hang" (the next driver call never returns) or "crash" */
	WORLD_IN_MOVE,        /* value[0..2]: latitude, longitude (degrees), altitude (m) */
	WORLD_IN_POWER_CUT,   /* value[0]: 0 now, or n: during the n-th flash operation from now */
	WORLD_IN_STORAGE_FAULT, /* text: "error" or "timeout": the next flash write or erase fails */
	WORLD_IN_NFC_FIELD,   /* value[0]: a reader enters 1 / leaves 0 the field */
	WORLD_IN_NFC_WRITE,   /* value[0]: index of the written bytes (world_nfc_add_write) */
	WORLD_IN_CLOUD_NETWORK, /* value[0]: the device reaches the cloud 0/1 */
	/* Internal: the motion sensor reports after its detection delay. value[0]: moving;
	 * value[1]: the change it belongs to (a later change cancels it). */
	WORLD_IN_MOTION_REPORT,
	/* Internal: an advertising event in the air. device: the source (a device, or device_count
	 * + a beacon's index); value[0]: the set; value[1]: its generation. */
	WORLD_IN_AIR_ADV,
	/* A captured packet reaches the device's radio. value[0]: index in world->captures. */
	WORLD_IN_BLE_CAPTURE,
	/* Internal: the receiver's next fix (value[0]: its generation, world_gnss.h). */
	WORLD_IN_GNSS_FIX,
	/* Internal: a modem query ends (value[0]: query, value[1]: generation, world_modem.h). */
	WORLD_IN_MODEM_DONE,
	/* Internal: a UWB initiator's ranging round (value[0]: generation, world_uwb.h). */
	WORLD_IN_UWB_ROUND,
	/* Internal: the energy model's check (value[0]: battery or RRC release, value[1]: its
	 * time, world_energy.c). */
	WORLD_IN_ENERGY,
	/* The device is switched on (its start time, world_device_t.power_on_at). */
	WORLD_IN_POWER_ON,
} world_input_kind_t;

/* The event name of an imu-event input ("double-tap") as hal_imu_event_t, or -1. */
int world_imu_event_by_name(const char *name);
const char *world_imu_event_name(int event);

/* Apply an input to device d (selected). */
void world_apply_input(world_t *world, world_device_t *d, const world_event_t *e);

/* The app changed the sensor's configuration: detection starts over with the new levels. */
void world_motion_reconsider(world_t *world, world_device_t *d);

/* Motion detection parameters for a sensitivity / responsiveness level (0..4). */
float world_motion_threshold(uint8_t sensitivity);
uint32_t world_motion_start_delay_ms(uint8_t responsiveness);
uint32_t world_motion_stop_delay_ms(uint8_t responsiveness);

#endif /* WORLD_INPUTS_H */

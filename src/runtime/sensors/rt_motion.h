/*
 * rt_motion.h: motion detection levels and the motion/rest decision, shared by the simulator and
 * the firmware.
 *
 * The levels (sensors.imu.setSens / setResp, LOWEST 0 to HIGHEST 4) are those of docs/world.md:
 *
 *   level                     LOWEST  LOW     MEDIUM  HIGH     HIGHEST
 *   threshold (sensitivity)   0.5 g   0.25 g  0.125 g 0.0625 g 0.031 g
 *   delay to report motion    4 s     2 s     1 s     0.5 s    0.1 s
 *   delay to report rest      30 s    20 s    10 s    5 s      2 s
 *
 * The threshold is the accelerometer's: the sensor's activity ("any-motion", "wake-up")
 * interrupt fires when the device moves at least that hard. The delays are longer than any
 * accelerometer's own duration register holds (an LIS2DH counts 127 samples, an LIS2DW12's
 * wake-up duration 4), so they are timed here: the sensor says "moving now" (activity) and,
 * where it can, "still now" (rest); this decides when the app hears that the device started or
 * stopped moving:
 *
 *  - An activity starts an episode. A sensor that keeps firing while the device moves (most
 *    any-motion engines) keeps the episode going for hold_ms after each activity; a sensor that
 *    reports rest itself keeps it going until it does.
 *  - Motion is reported once an episode has lasted the start delay (a shorter shake is not
 *    motion, as in the simulator).
 *  - Rest is reported when the stop delay has passed since the episode ended.
 *  - "Settled": the episode ended (no activity for hold_ms, or the sensor reported rest). A
 *    moment to read how the device now lies, for orientation events.
 *
 * Pure: the state is the caller's struct; the caller supplies the time, calls rt_motion_update()
 * at the time it asks for, and serialises the calls (the sensor's thread and a timer may both
 * drive it).
 */
#ifndef RT_MOTION_H
#define RT_MOTION_H

#include <stdbool.h>
#include <stdint.h>

#define RT_MOTION_LEVELS 5
/* "No need to call rt_motion_update again until the next activity or rest." */
#define RT_MOTION_NEVER UINT64_MAX

/* What rt_motion_update reports (bits). */
#define RT_MOTION_STARTED 0x1u /* report: the device started moving */
#define RT_MOTION_STOPPED 0x2u /* report: the device came to rest */
#define RT_MOTION_SETTLED 0x4u /* the activity episode ended (no report of its own) */

/* Threshold in g and delays in ms of a level (0 LOWEST .. 4 HIGHEST; higher counts as 4). */
float rt_motion_threshold_g(uint8_t sensitivity);
uint32_t rt_motion_start_delay_ms(uint8_t responsiveness);
uint32_t rt_motion_stop_delay_ms(uint8_t responsiveness);

typedef struct {
	uint32_t start_delay_ms, stop_delay_ms;
	uint32_t hold_ms;       /* how long one activity counts as movement going on */
	bool sensor_reports_rest;
	bool moving;            /* what was reported last */
	bool active;            /* an episode is under way or not yet concluded */
	bool settle_pending;    /* the end of the current episode is not yet reported */
	uint64_t active_since;  /* start of the episode */
	uint64_t active_until;  /* its end (RT_MOTION_NEVER: until the sensor reports rest) */
} rt_motion_t;

/* Start at rest with the MEDIUM delays. hold_ms: see above (ignored when the sensor reports
 * rest itself). */
void rt_motion_init(rt_motion_t *m, uint32_t hold_ms, bool sensor_reports_rest);
/* New delays; they apply to what is under way (call rt_motion_update afterwards). */
void rt_motion_set_responsiveness(rt_motion_t *m, uint8_t responsiveness);
/* The sensor saw the device move at least as hard as the threshold at now_ms. */
void rt_motion_activity(rt_motion_t *m, uint64_t now_ms);
/* The sensor reports the device still at now_ms. */
void rt_motion_rest(rt_motion_t *m, uint64_t now_ms);
/* What to report at now_ms (RT_MOTION_* bits, 0: nothing), and in *next_ms when to call again
 * at the latest (RT_MOTION_NEVER: only after the next activity or rest). Times must not go
 * backwards. */
uint32_t rt_motion_update(rt_motion_t *m, uint64_t now_ms, uint64_t *next_ms);

#endif /* RT_MOTION_H */

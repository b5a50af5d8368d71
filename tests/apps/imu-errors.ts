// world: imu-errors.world.json
// The coded errors of sensors.imu.onMotion's event form: ESR0003 without a motion sensor (whose
// readings are then all zeros and whose plain motion callback never runs), ESR1801 for an event
// the sensor cannot detect, ESR1803 when the sensor fails.
const attempt = (what: string, f: () => void) => {
  try {
    f();
    print(`${what}: ok`);
  } catch (e) {
    print(`${what}: ${(e as Error & { code?: string }).code} ${(e as Error).message}`);
  }
};
const a = sensors.imu.getAccel();
print(`accel ${a.x} ${a.y} ${a.z}`);
sensors.imu.onMotion((moving) => print(`motion ${moving}`));
attempt('tap', () => sensors.imu.onMotion(sensors.imu.MotionEvent.SINGLE_TAP, () => {}));
attempt('step', () => sensors.imu.onMotion(sensors.imu.MotionEvent.STEP, () => {}));
timers.single('1500ms', () => attempt('tilt during the fault', () => sensors.imu.onMotion(sensors.imu.MotionEvent.TILT, () => {})));
timers.single('2500ms', () => attempt('tilt after it', () => sensors.imu.onMotion(sensors.imu.MotionEvent.TILT, () => {})));

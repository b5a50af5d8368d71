// world: sensors-imu.world.json
// sensors.imu on a device with a 6-axis IMU: readings, the orientation they imply, the full-scale
// range clipping readings, motion detected after the responsiveness delay and above the
// sensitivity threshold, and typed motion events with their data and options.
const vec = (v: { x: number; y: number; z: number }) => `${v.x} ${v.y} ${v.z}`;
const orient = () => {
  const o = sensors.imu.getOrient();
  return `${o.orient} ${o.side}`;
};
const t = () => `${app.getUptime() / 1000}s`;
print(`start: accel ${vec(sensors.imu.getAccel())}, gyro ${vec(sensors.imu.getGyro())}, ${orient()}`);
timers.single('2s', () => {
  print(`2s: accel ${vec(sensors.imu.getAccel())} (2 g range), gyro ${vec(sensors.imu.getGyro())}`);
  sensors.imu.setRange(sensors.imu.Range.RANGE_4G);
  print(`2s: accel ${vec(sensors.imu.getAccel())} (4 g range)`);
});
timers.single('4s', () => print(`4s: ${orient()}`));
// Medium sensitivity (0.125 g) and responsiveness (1 s to report motion, 10 s to report rest).
sensors.imu.onMotion((moving) => print(`${t()}: ${moving ? 'moving' : 'still'}`));
sensors.imu.onMotion(sensors.imu.MotionEvent.DOUBLE_TAP, (e) => print(`${t()}: ${JSON.stringify(e)}`), { threshold: 1 });
sensors.imu.onMotion(sensors.imu.MotionEvent.STEP, (e) => print(`${t()}: ${JSON.stringify(e)}`));
sensors.imu.onMotion(sensors.imu.MotionEvent.FREE_FALL, (e) => print(`${t()}: ${JSON.stringify(e)}`));
timers.single('33500ms', () => sensors.imu.onMotion(sensors.imu.MotionEvent.FREE_FALL, null));
timers.single('35s', () => {
  // The most sensitive and responsive levels: 0.03 g, 0.1 s to report motion, 2 s for rest.
  sensors.imu.setSens(sensors.imu.Level.HIGHEST);
  sensors.imu.setResp(sensors.imu.Level.HIGHEST);
});

// world: sensors-power.world.json
// sensors.battery and sensors.temp: voltage, level, capacity and average current (negative while
// charging), external power and charging (not charging once full, even plugged in), the power
// listener (called at once on registration in 0.2.6, then on each change), and temperature
// measured every 30 s (every second in fast mode), raised while charging.
const b = sensors.battery;
const state = (when: string) =>
  print(`${when}: ${b.getVoltage()} V, ${b.getPerc()} %, ${b.getAvgCurrent()} mA, ext ${b.isExtPower()}, charging ${b.isCharging()}, ${sensors.temp.get()} C`);
print(`capacity ${b.getCapacity()} mAh`);
b.setPowerListener((ext, charging) => print(`listener at ${app.getUptime() / 1000}s: ext ${ext}, charging ${charging}`));
state('start');
for (const s of [20, 45, 75, 91, 96, 101, 121, 130]) timers.single(s * 1000, () => state(`${s}s`));
timers.single('122s', () => sensors.temp.setFastMode());

// run: --api 0.2.6 --for 30s
// world: ble-two-devices.world.json
// The advertiser rows of the States table, seen from a second device that scans: running ->
// pause() -> paused (nothing on the air) -> resume() -> running -> stop() -> stopped, where
// pause() and resume() have no effect and stop() again is fine. A callback advertiser is called
// for every advertisement with the transmit power (snapped down: 7 becomes 4); the defaults are
// -4 dBm and 500 ms; a fifth advertiser while four run is ESR0004.
const first = sys.getPublicId().slice(-4) === '0001';

function advertiser(): void {
  const packet = ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59);
  // Every 100 ms: the scanner hears it in each second it runs, on a real air too (a 500 ms one
  // through a 100-of-150 ms window is missed in about one second in nine).
  const a = ble.advertise(packet).interval(100);
  print(`pause returns the handle: ${a.pause() === a}; resume too: ${a.resume() === a}`);
  let calls = 0;
  const powers: { [p: number]: boolean } = {};
  const cb = ble.advertise((txPower) => {
    calls++;
    powers[txPower] = true;
    return ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 9, (calls % 65535) + 1, -59);
  });
  timers.single(1000, () => {
    print(`callback at the default 500 ms: ${calls} calls in 1 s, powers ${Object.keys(powers).join(',')}`);
    cb.interval(100).power(7);
    calls = 0;
  });
  timers.single(3000, () => {
    print(`callback at 100 ms and power 7: ${calls} calls in 2 s, powers ${Object.keys(powers).sort().join(',')}`);
    cb.stop();
    const c = calls;
    timers.single(1000, () => print(`after stop: ${calls - c} calls`));
  });
  // Four sets: a, cb and two more; a fifth is refused until one stops.
  const b = ble.advertise({ name: 'two' });
  const c = ble.advertise({ name: 'three' });
  try {
    ble.advertise({ name: 'five' });
  } catch (e) {
    print(`fifth advertiser: ${(e as Error).message}`);
  }
  b.stop();
  c.stop();
  const d = ble.advertise({ name: 'four' });
  print(`after two stopped: a new one starts: ${typeof d.stop === 'function'}`);
  d.stop();
  timers.single(5000, () => {
    a.pause();
    print('paused');
  });
  timers.single(10000, () => {
    a.resume();
    print('resumed');
  });
  timers.single(15000, () => {
    a.stop();
    a.pause();
    a.resume();
    a.stop();
    print('stopped; pause, resume and stop again had no effect');
  });
}

function scanner(): void {
  // Which seconds the iBeacon of the first device was heard in.
  const heard: { [s: number]: boolean } = {};
  ble.startScan(
    (r) => {
      const p = ble.parse(r);
      if (p && p.type === 'iBeacon' && (p as any).minor === 2) heard[Math.floor(app.getUptime() / 1000)] = true;
    },
    20000,
    { passive: true },
  ).then(() => {
    const line: string[] = [];
    for (let s = 0; s < 20; s++) line.push(heard[s] ? 'x' : '.');
    print(`iBeacon heard per second: ${line.join('')}`);
  });
}

if (first) advertiser();
else scanner();

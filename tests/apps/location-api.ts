// world: location-api.world.json
// run: --for 35m
// stderr: location.mock: no location.startUpdates is running
// The location rows of the spec: distance in metres against published geodesic distances; mock
// only while updates run, with mock=1 and the last known position untouched; minInterval greater
// than timeout rejected; timeout 0 runs past the default 900 s; stop() resolves with the last
// known position; a new startUpdates replaces the callback (the replaced session's promise
// resolves with the last known position); stop(false) leaves the promise pending; the default
// timeout of 900 s resolves.
const up = () => `${app.getUptime() / 1000} s`;
const where = (p: Position | undefined) => (p ? `${p.lat.toFixed(4)},${p.long.toFixed(4)} mock ${p.mock}` : 'undefined');

// Flinders Peak to Buninyong (Geoscience Australia's Vincenty example): 54 972.271 m.
const dms = (d: number, m: number, s: number) => (d < 0 ? -1 : 1) * (Math.abs(d) + m / 60 + s / 3600);
print(`Flinders Peak - Buninyong: ${location.distance(
  { lat: dms(-37, 57, 3.7203), long: dms(144, 25, 29.5244) },
  { lat: dms(-37, 39, 10.1561), long: dms(143, 55, 35.3839) },
).toFixed(3)} m`);
// JFK to LHR (GeographicLib's example): 5 551 759.400 m.
print(`JFK - LHR: ${location.distance({ lat: 40.6, long: -73.8 }, { lat: 51.6, long: -0.5 }).toFixed(3)} m`);
print(`same point: ${location.distance({ lat: 10, long: 20 }, { lat: 10, long: 20 })} m`);

location.mock({ lat: 1, long: 2 }); // nothing runs: a warning, no effect

location.startUpdates(() => print('never'), { minInterval: 10, timeout: 5 }).then(
  () => print('never'),
  (e) => print(`minInterval > timeout: rejected (${e.message})`),
);

let mocked = 0;
let real = 0;
const a = location.startUpdates(
  (p) => {
    if (p.mock) mocked++;
    else real++;
    if ((p.mock && mocked <= 2) || (!p.mock && real <= 2)) print(`${up()}: A ${where(p)} sat ${p.sat} diff ${p.diff}`);
  },
  { minInterval: 1, timeout: 0 },
);
a.then((p) => print(`${up()}: A resolved with ${where(p)} after ${real} real positions`));
timers.single(2000, () => location.mock({ lat: 51.5007, long: -0.1246, sat: 5 }));
timers.single(10000, () => {
  location.mock(null);
  print(`${up()}: mocking stopped after ${mocked} mocked positions`);
});
// The first real fix comes at 35 s; timeout 0 keeps A running past the default 900 s.
timers.single(950000, () => {
  location.stop(); // resolvePromise defaults to true
  const b = location.startUpdates((p) => print(`${up()}: B ${where(p)}`), { minInterval: 600, timeout: 0 });
  b.then((p) => print(`${up()}: B replaced, resolved with ${where(p)} (the mock left it alone)`));
  location.mock({ lat: 51.5007, long: -0.1246 });
  timers.single(5000, () => {
    // A new startUpdates replaces B's callback.
    const c = location.startUpdates((p) => print(`${up()}: C ${where(p)}`), { minInterval: 600 });
    c.then(() => print('never: C is stopped with stop(false)'), () => print('never'));
    timers.single(5000, () => {
      location.stop(false);
      print(`${up()}: C stopped, its promise left pending`);
      const d = location.startUpdates((p) => print(`${up()}: D ${where(p)}`), { minDistance: 1 });
      d.then((p) => print(`${up()}: D (default timeout 900 s) resolved with ${where(p)}`));
    });
  });
});

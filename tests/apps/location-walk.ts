// world: location-walk.world.json
// run: --for 6m
// minInterval 10 s and minDistance 20.5 m on a walk at 1 m/s with fixes every second from 5 s:
// a position is delivered 21 m after the one before (5, 26, 47, 68, 89 s), none during the stop
// at 100 m (100..200 s), then again from 210 s (110 m) to 294 s; the timeout (330 s) resolves
// the promise with the last known position, the track's end at 200 m.
const start = Date.now();
location
  .startUpdates(
    (p) => {
      print(`${Math.round((p.ts - start) / 1000)} s: lat ${p.lat.toFixed(6)} long ${p.long.toFixed(6)} alt ${p.alt} diff ${p.diff} m, ${p.speed} km/h head ${p.head}, sat ${p.sat} prec ${p.prec} mock ${p.mock}`);
    },
    { minInterval: 10, minDistance: 20.5, timeout: 330 },
  )
  .then(
    (last) => print(`resolved at ${app.getUptime() / 1000} s: lat ${last ? last.lat.toFixed(6) : last}`),
    (e) => print(`rejected: ${e}`),
  );

// world: location-fixwait.world.json
// run: --for 12m --api 0.2.6
// maxFixWait 40 s with minInterval 60 s (periodic): GNSS goes off after each position and on
// again 60 s later (hot start: 2 s). Indoors (150..400 s) the wait at 152 s lasts 40 s, GNSS is
// off for 60 s, then tries again; outdoors again, positions come back. The trace shows the duty.
// A second session started indoors (600 s) gets no fix within maxFixWait: it is rejected at
// 640 s, and GNSS is off from then on.
let n = 0;
location
  .startUpdates(
    (p) => {
      n++;
      print(`${app.getUptime() / 1000} s: position ${n}, diff ${p.diff} m`);
    },
    { minInterval: 60, maxFixWait: 40, timeout: 600 },
  )
  .then((last) => {
    print(`resolved at ${app.getUptime() / 1000} s with ${last ? 'a position' : last}`);
    return location.startUpdates(() => print('never: no sky'), { minInterval: 60, maxFixWait: 40, timeout: 0 });
  })
  .then(
    () => print('never resolved'),
    (e) => print(`rejected at ${app.getUptime() / 1000} s: ${e.message}`),
  );

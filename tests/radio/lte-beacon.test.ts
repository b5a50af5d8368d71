// The LTE beacon among tags (docs/testing.md): rules that hold on the simulator and on the LTE
// beacon's two chips on BabbleSim, where the scans cross an H:4 UART to the controller chip and
// the fixes come as NMEA sentences through Zephyr's GNSS driver. CI runs it on both:
//
//   npx beacon test tests/radio                                                   # simulator
//   npx beacon test tests/radio --device bsim --air radio --engine jerryscript    # the two chips
import * as assert from 'node:assert/strict';
import { deviceTest } from 'beacon-tools/testing';
import type { World } from 'beacon-tools/testing';

const TAG_UUID = 'e2c56db5dffb48d2b060d0f5a71096e0';
const origin = { lat: 60, long: 24 };

/** A tag advertising an iBeacon every 100 ms, 3 m from where the tracker starts. */
function tag(w: World): void {
  w.device('tag', {
    profile: 'ble-beacon',
    position: { x: 3, y: 0 },
    app: { source: `ble.advertise(ble.build.iBeacon('${TAG_UUID}', 7, 1, -59)).interval(100);` },
  });
}

deviceTest('the tracker hears the tag in a 3 s scan and queues what it heard', async (w) => {
  tag(w);
  w.device('tracker', {
    profile: 'lte-beacon',
    app: {
      source: [
        'let n = 0; let best = -200;',
        "ble.startScan((r) => { const p = ble.parse(r); if (p && p.type === 'iBeacon') { n++; if (r.rssi > best) best = r.rssi; } }, 3000, { passive: true })",
        "  .then(() => { const bytes = cloud.enqueue('assets', { n: n, rssi: best }); print('heard ' + n + ' rssi ' + best + ' queued ' + (bytes > 0)); });",
      ].join('\n'),
    },
  });
  const d = (await w.run('5s')).device('tracker');
  const m = /^heard (\d+) rssi (-?\d+) queued true$/.exec(d.printed(/^heard /));
  assert.ok(m, d.console.join('\n'));
  // Some 30 advertisements in 3 s, each heard on the one channel the scan is on at the time.
  assert.ok(Number(m[1]) >= 5, `heard ${m[1]} packets`);
  // 3 m away: about -50 dBm on the model's path loss, and on BabbleSim's attenuation.
  assert.ok(Number(m[2]) > -70 && Number(m[2]) < -30, `rssi ${m[2]}`);
}, { origin });

deviceTest('the tracker gets a fix a second from its receiver\'s time to first fix, along its track', async (w) => {
  w.device('tracker', {
    profile: 'lte-beacon',
    // Walking north at 1 m/s; the receiver's cold start takes 4 s.
    gnss: { ttff: { cold: '4s' }, satellites: 7, hdop: 1.4, track: [{ at: 0, x: 0, y: 0, z: 20 }, { at: '60s', x: 0, y: 60, z: 20 }] },
    app: { source: "location.startUpdates((p) => print(['fix', app.getUptime(), p.lat, p.long, p.alt, p.speed, p.sat, p.prec].join(' ')), { minInterval: 1 });" },
  });
  const d = (await w.run('12s')).device('tracker');
  const fixes = d.console.filter((l) => l.startsWith('fix ')).map((l) => l.split(' ').slice(1).map(Number));
  // 4 s to 11 s at least (a fix in the run's last moments may come after its end).
  const times = fixes.map((f) => f[0]);
  for (let t = 4000; t <= 11000; t += 1000) assert.ok(times.includes(t), `no fix at ${t} ms: ${times.join(', ')}`);
  for (const [t, lat, long, alt, speed, sat, prec] of fixes) {
    // y metres north of the origin: 1 m of latitude is 1 / 111,412 degree at 60 degrees north.
    assert.ok(Math.abs((lat - origin.lat) * 111412 - t / 1000) < 0.05, `at ${t} ms: lat ${lat}`);
    assert.ok(Math.abs(long - origin.long) < 1e-7, `at ${t} ms: long ${long}`);
    assert.deepEqual([alt, speed, sat], [20, 3.6, 7]);
    assert.ok(Math.abs(prec - 1.4) < 1e-6, `at ${t} ms: prec ${prec}`);
  }
}, { origin });

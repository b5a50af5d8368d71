// run: --api 0.2.6 --for 60s
// world: ble-two-devices.world.json
// Two devices: the first advertises an iBeacon (every 100 ms) and an Eddystone-URL (every 200 ms);
// the second scans once with each option of the spec and says what it saw: an active scan gets
// scan responses (the advertiser's name), a passive one none; deduplicate gives one record per
// address per session (both advertisers share the device's address); the channels option keeps
// to its channels; the duration ends the scan and resolves the promise; stopScan(true) resolves
// it, stopScan(false) leaves it pending and no record arrives after either.
const first = sys.getPublicId().slice(-4) === '0001';

interface Seen {
  records: number;
  responses: number;
  types: { [t: string]: boolean };
  channels: { [c: number]: boolean };
  addrs: { [a: string]: boolean };
  names: { [n: string]: boolean };
  connectable: number;
}

function fresh(): Seen {
  return { records: 0, responses: 0, types: {}, channels: {}, addrs: {}, names: {}, connectable: 0 };
}

function collect(seen: Seen) {
  return (r: ScanRecord) => {
    seen.records++;
    if (r.scanResponse) seen.responses++;
    if (r.connectable) seen.connectable++;
    seen.channels[r.channel] = true;
    seen.addrs[toHex(r.addr)] = true;
    if (r.name !== undefined) seen.names[r.name] = true;
    const p = ble.parse(r);
    if (p) seen.types[p.type] = true;
  };
}

function summary(seen: Seen): string {
  const keys = (o: object) => Object.keys(o).sort().join(',');
  return `records>0 ${seen.records > 0}, responses ${seen.responses > 0 ? 'yes' : 'none'}, types ${keys(seen.types)}, channels ${keys(seen.channels)}, addrs ${keys(seen.addrs)}, names ${keys(seen.names) || '-'}, connectable ${seen.connectable}`;
}

async function scanner(): Promise<void> {
  let seen = fresh();
  let t0 = app.getUptime();
  await ble.startScan(collect(seen), 2000);
  print(`default: ${summary(seen)}; ended after ${app.getUptime() - t0} ms`);

  seen = fresh();
  await ble.startScan(collect(seen), 2000, { passive: true });
  print(`passive: ${summary(seen)}`);

  seen = fresh();
  await ble.startScan(collect(seen), 2000, { channels: [38] });
  print(`channels [38]: ${summary(seen)}`);

  seen = fresh();
  await ble.startScan(collect(seen), 2000, { channels: [37, 39], passive: true });
  print(`channels [37, 39] passive: ${summary(seen)}`);

  seen = fresh();
  await ble.startScan(collect(seen), 2000, { deduplicate: true });
  // Both advertisers share the device's address: the one record is of whichever was heard
  // first, so only the count and the address are printed.
  print(`deduplicate: ${seen.records} record(s), addrs ${Object.keys(seen.addrs).sort().join(',')}`);

  seen = fresh();
  await ble.startScan(collect(seen), 2000, { deduplicate: true, passive: true });
  print(`deduplicate passive: ${seen.records} record(s)`);

  // Listening 10 ms of every second hears far less than 100 ms of every 150.
  const wide = fresh();
  await ble.startScan(collect(wide), 3000, { passive: true });
  const narrow = fresh();
  await ble.startScan(collect(narrow), 3000, { passive: true, interval: 1000, window: 10 });
  print(`window 10 of 1000 ms hears fewer than 100 of 150: ${narrow.records < wide.records / 4}`);

  seen = fresh();
  t0 = app.getUptime();
  const p = ble.startScan(collect(seen), 0);
  timers.single(500, () => ble.stopScan(true));
  await p;
  const after = seen.records;
  await new Promise<void>((resolve) => timers.single(1000, () => resolve()));
  print(`stopScan(true): resolved after ${app.getUptime() - t0 - 1000} ms, records after stop ${seen.records - after}`);

  seen = fresh();
  let settled = false;
  ble.startScan(collect(seen), 0).then(() => (settled = true));
  await new Promise<void>((resolve) => timers.single(500, () => resolve()));
  ble.stopScan(false);
  const atStop = seen.records;
  await new Promise<void>((resolve) => timers.single(2000, () => resolve()));
  print(`stopScan(false): settled ${settled}, records after stop ${seen.records - atStop}`);
  ble.stopScan();
  print('stopScan with no scan: fine');
}

if (first) {
  ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59)).interval(100);
  ble.advertise(ble.build.eddystoneUrl('https://example.com/')).interval(200);
  timers.single('50s', () => app.stop());
} else {
  scanner().then(() => app.stop());
}

// run: --api 0.2.6 --for 20s
// world: ble-two-devices.world.json
// The scanRequests option: the first device advertises and scans; with scanRequests it is told
// of the scan requests the second device's active scan sends it (the requester's address, no
// packet fields), without the option it is not; a passive scanner sends none.
const first = sys.getPublicId().slice(-4) === '0001';

function listen(label: string, options: ScanOptions): Promise<void> {
  const from: { [a: string]: number } = {};
  let fields = 0;
  return ble
    .startScan(
      (r) => {
        const a = toHex(r.addr);
        from[a] = (from[a] ?? 0) + 1;
        if (r.name !== undefined || r.manufData !== undefined || r.flags !== undefined) fields++;
      },
      4000,
      options,
    )
    .then(() => {
      const senders = Object.keys(from).sort();
      print(`${label}: ${senders.length ? senders.join(', ') : 'nothing'}; records with packet fields: ${fields}`);
    });
}

if (first) {
  ble.advertise(ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59)).interval(100);
  listen('with scanRequests, active peer', { passive: true, scanRequests: true })
    .then(() => listen('without scanRequests, active peer', { passive: true }))
    .then(() => listen('with scanRequests, passive peer', { passive: true, scanRequests: true }));
} else {
  ble.startScan(() => undefined, 8000).then(() => ble.startScan(() => undefined, 4000, { passive: true }));
}

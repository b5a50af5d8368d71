// Listens for the telemetry beacon once an hour and prints what ble.parse makes of its packets.
const TELEMETRY = 'c05eac0b0000'; // the simulator's address of device 0

function listen(hour: number): void {
  const seen: { [type: string]: string } = {};
  let records = 0;
  ble
    .startScan(
      (r) => {
        if (toHex(r.addr) !== TELEMETRY) return;
        records++;
        const p = ble.parse(r) as any;
        if (!p) return;
        if (p.type === 'eddystoneTlm') seen[p.type] = `temp ${p.temperature} C, battery ${p.battery} mV, up ${p.uptime} s`;
        else if (p.type === 'iBeacon') seen[p.type] = `major ${p.major} minor ${p.minor} at ${p.measuredPower} dBm`;
        else if (p.type === 'eddystoneUrl') seen[p.type] = p.url;
      },
      '12s',
      { passive: true },
    )
    .then(() => {
      const kinds = Object.keys(seen).sort();
      print(`hour ${hour}: ${records > 0 ? 'heard' : 'nothing'}${kinds.map((k) => `; ${k}: ${seen[k]}`).join('')}`);
    });
}

let hour = 0;
timers.repeat('1h', () => listen(++hour));

// A telemetry beacon: advertises Eddystone-TLM with fresh values, interleaved with an iBeacon
// that carries the battery level in its minor, and an Eddystone-URL for phones. Every hour it
// drops to a slower rate when the battery is low.

const UUID = 'e2c56db5dffb48d2b060d0f5a71096e0';
const MAJOR = 7;

interface Plan {
  interval: string;
  power: number;
}

const NORMAL: Plan = { interval: '1s', power: 0 };
const SAVING: Plan = { interval: '5s', power: -8 };

/** The battery level in the minor, so a receiver sees it without connecting. */
function levelPacket(): BlePacket {
  const level = Math.max(1, Math.min(100, Math.round(sensors.battery.getPerc())));
  return ble.build.iBeacon(UUID, MAJOR, level, -59);
}

const advertisers: Advertiser[] = [
  ble.advertise(ble.build.eddystoneTlm),
  ble.advertise(levelPacket),
  ble.advertise(ble.build.eddystoneUrl('https://example.com/t', -20)),
];

let plan: Plan | undefined;

function apply(next: Plan): void {
  if (plan === next) return;
  plan = next;
  const { interval, power } = next;
  advertisers.forEach((a, i) => a.interval(i === 2 ? '10s' : interval).power(power));
  print(`advertising every ${interval} at ${power} dBm`);
}

function review(): void {
  const low = sensors.battery.getPerc() < 20 && !sensors.battery.isExtPower();
  apply(low ? SAVING : NORMAL);
}

review();
timers.repeat('1h', review);

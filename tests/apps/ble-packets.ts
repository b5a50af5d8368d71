// run: --api 0.2.6
// Every ble.build packet through the JS API, byte for byte against vectors written from the public
// format documents (docs/ble-packets.md names them), then back through ble.parse; ble.parse of
// random, truncated and mangled packets never throws.
function fromHex(hex: string): ArrayBuffer {
  const b = new Uint8Array(hex.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return b.buffer;
}

function record(p: BlePacket): ScanRecord {
  return {
    rssi: -60, channel: 37, scanResponse: false, connectable: false, addr: fromHex('c0ffee000001'),
    name: p.name, manufData: p.manufData, serviceData: p.serviceData, serviceUUIDs: p.serviceUUIDs,
    txPower: p.txPower, flags: p.flags,
  };
}

function show(name: string, p: BlePacket): void {
  const sd = p.serviceData ? Object.keys(p.serviceData).map((k) => `${k}=${toHex(p.serviceData![k])}`).join(' ') : '-';
  const uuids = p.serviceUUIDs ? p.serviceUUIDs.map((u) => toHex(u)).join(',') : '-';
  print(`${name}: flags ${p.flags} manufData ${p.manufData ? toHex(p.manufData) : '-'} serviceData ${sd} uuids ${uuids}`);
  print(`  parse: ${JSON.stringify(ble.parse(record(p)))}`);
}

function expect(name: string, actual: ArrayBuffer | undefined, hex: string): void {
  const got = actual ? toHex(actual) : '-';
  print(`${name}: ${got === hex ? 'matches' : `DIFFERS: ${got}`}`);
}

// Apple Proximity Beacon Specification: 4c 00, type 02, length 15, UUID, major, minor (big-endian), power.
const ib = ble.build.iBeacon('e2c56db5dffb48d2b060d0f5a71096e0', 1, 2, -59);
expect('iBeacon', ib.manufData, '4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5');
expect('iBeacon short uuid padded', ble.build.iBeacon('01', 258, 772).manufData, '4c000215010000000000000000000000000000000102030' + '4ce');
// Eddystone-UID: frame 00, ranging data, 10-byte namespace, 6-byte instance, 2 RFU bytes.
const uid = ble.build.eddystoneUid('edd1ebeac04e5defa017', '0123456789ab', -20);
expect('eddystoneUid', uid.serviceData!['feaa'], '00ecedd1ebeac04e5defa0170123456789ab0000');
// Eddystone-URL: frame 10, tx power, scheme 01 (https://www.), "example", 00 (.com/).
const url = ble.build.eddystoneUrl('https://www.example.com/', -20);
expect('eddystoneUrl', url.serviceData!['feaa'], '10ec016578616d706c6500');
expect('eddystoneUrl uuid list', url.serviceUUIDs![0], 'feaa');
// AltBeacon (AltBeacon/spec): company 0118, beacon code be ac, 20-byte id, reference RSSI, reserved.
const alt = ble.build.altBeacon('2f234454cf6d4a0fadf2f4911ba9ffa600010002', 0x0118, -59, 0);
expect('altBeacon', alt.manufData, '1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c500');
// The vendor's location packet (docs/ble-packets.md): 5d 01, type 02, version 00, device id, power.
expect('vendorLocation', ble.build.vendorLocation(-50).manufData, '5d0102' + '00' + sys.getPublicId() + 'ce');
expect('vendorLocationTrigger', ble.build.vendorLocationTrigger(-4).manufData, '5d0103' + '00' + sys.getPublicId() + 'fc');
// Eddystone-TLM at boot: battery 4200 mV (10 68), 22 degrees (16 00), no PDUs yet, uptime 0.
expect('eddystoneTlm', ble.build.eddystoneTlm().serviceData!['feaa'], '200010681600' + '00000000' + '00000000');

try {
  ble.build.eddystoneUrl('https://www.example.com/a-much-longer-path');
} catch (e) {
  print(`too long: ${(e as Error).name}: ${(e as Error).message}`);
}

show('iBeacon', ib);
show('eddystoneUid', uid);
show('eddystoneUrl', url);
show('altBeacon', alt);
show('vendorTelemetry A', ble.build.vendorTelemetry());
show('vendorTelemetry B', ble.build.vendorTelemetry());
show('vendorNearable', ble.build.vendorNearable());
show('vendorLocation', ble.build.vendorLocation());
show('vendorLocationTrigger', ble.build.vendorLocationTrigger());
print(`not recognised: ${ble.parse(record({ name: 'hello', flags: 6 }))}`);

// Fuzz: a fixed-seed generator, so the run is the same every time.
let seed = 12345;
function rand(n: number): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
}
function bytes(n: number): ArrayBuffer {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rand(256);
  return b.buffer;
}
const built = [ib, uid, url, alt, ble.build.vendorNearable(), ble.build.vendorTelemetry(), ble.build.eddystoneTlm()];
let tries = 0;
let thrown = 0;
let recognised = 0;
function attempt(p: BlePacket): void {
  tries++;
  try {
    if (ble.parse(record(p))) recognised++;
  } catch (e) {
    thrown++;
    print(`threw: ${(e as Error).message}`);
  }
}
for (let i = 0; i < 400; i++) {
  attempt({ manufData: bytes(rand(30)) });
  const sd: { [k: string]: ArrayBuffer } = {};
  sd[rand(2) ? 'feaa' : 'fe9a'] = bytes(rand(24));
  attempt({ serviceData: sd, serviceUUIDs: [fromHex('feaa')] });
}
for (const p of built) {
  // Every truncation of each packet's data, and each one with one byte changed.
  const data = p.manufData ?? p.serviceData!['feaa'] ?? p.serviceData!['fe9a'];
  const key = p.manufData ? '' : p.serviceData!['feaa'] ? 'feaa' : 'fe9a';
  const whole = new Uint8Array(data);
  for (let n = 0; n <= whole.length; n++) {
    const cut = whole.slice(0, n).buffer;
    attempt(key ? { serviceData: { [key]: cut } } : { manufData: cut });
    const mangled = whole.slice(0);
    mangled[rand(whole.length)] = rand(256);
    attempt(key ? { serviceData: { [key]: mangled.buffer } } : { manufData: mangled.buffer });
  }
}
print(`fuzz: ${tries} packets, ${thrown} exceptions, ${recognised > 0 ? 'some' : 'none'} recognised`);

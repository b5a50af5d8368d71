// What the studio's panels take from trace records (src/studio/records.ts): beacon formats
// decoded by their published layouts, the air's advertisers and who heard them, the scripted
// GNSS track and its plot's scale, the cloud's traffic. The page only draws these.
import { strict as assert } from 'node:assert';
import { describe, test } from 'node:test';
import { AirModel, CloudModel, decodeAdvertisement, layoutTrack, LocationModel, scriptTracks, TraceRecord } from '../src/studio/records';

const rec = (r: Partial<TraceRecord> & { ev: string }): TraceRecord => ({ t: 0, ...r });
const fields = (r: TraceRecord): Record<string, string> => Object.fromEntries(decodeAdvertisement(r));

describe('advertisements decoded', () => {
  test('an iBeacon: UUID, major, minor and measured power from the manufacturer data', () => {
    const f = fields(rec({ ev: 'ble-adv', type: 'iBeacon', flags: 6, manufData: '4c000215f7826da64fa24e988024bc5b71e0893e0007002ac5' }));
    assert.equal(f.type, 'iBeacon');
    assert.equal(f.uuid, 'f7826da6-4fa2-4e98-8024-bc5b71e0893e');
    assert.equal(f.major, '7');
    assert.equal(f.minor, '42');
    assert.equal(f['tx at 1 m'], '-59 dBm');
    assert.equal(f.flags, '0x06');
  });

  test('Eddystone URL, UID and TLM frames from the service data of feaa', () => {
    assert.equal(fields(rec({ ev: 'ble-adv', serviceData: { feaa: '10ec036578616d706c650078' } })).url, 'https://example.com/x');
    const uid = fields(rec({ ev: 'ble-adv', serviceData: { feaa: '00e200112233445566778899aabbccddeeff0000' } }));
    assert.equal(uid.namespace, '00112233445566778899');
    assert.equal(uid.instance, 'aabbccddeeff');
    assert.equal(uid['tx at 0 m'], '-30 dBm');
    // Version 0, 3000 mV, 21.5 °C (8.8 fixed point), 1000 advertisements, 360 s (0.1 s units).
    const tlm = fields(rec({ ev: 'ble-adv', serviceData: { feaa: '20000bb81580000003e800000e10' } }));
    assert.equal(tlm.battery, '3000 mV');
    assert.equal(tlm.temperature, '21.50 °C');
    assert.equal(tlm['adv count'], '1000');
    assert.equal(tlm.uptime, '360.0 s');
  });

  test('other manufacturer data by company id, and unknown service data as it is', () => {
    const f = fields(rec({ ev: 'ble-adv', name: 'AT-7', manufData: '5900beef', serviceData: { '180f': '64' }, serviceUUIDs: ['180f'] }));
    assert.equal(f.name, 'AT-7');
    assert.equal(f.company, '0x0059');
    assert.equal(f.manufData, 'beef');
    assert.equal(f['serviceData 180f'], '64');
    assert.equal(f.serviceUUIDs, '180f');
  });
});

describe('the air', () => {
  test('advertisers by beacon or device set, counted, with who heard them; records of other kinds are left', () => {
    const air = new AirModel();
    const ib = { type: 'iBeacon', manufData: '4c000215f7826da64fa24e988024bc5b71e0893e0007002ac5', data: 'aa' };
    assert.equal(air.add(rec({ t: 9, ev: 'ble-adv', beacon: 'door', power: 0, ...ib })), true);
    assert.equal(air.add(rec({ t: 1009, ev: 'ble-adv', beacon: 'door', power: 0, ...ib })), true);
    air.add(rec({ t: 20, ev: 'ble-adv', dev: 'tag', set: 0, power: -4, data: 'bb', serviceData: { feaa: '10ec036578616d706c650078' } }));
    air.add(rec({ t: 21, ev: 'ble-rx', dev: 'phone', from: 'door', ch: 37, rssi: -60, kind: 'adv', data: 'aa' }));
    air.add(rec({ t: 1010, ev: 'ble-rx', dev: 'phone', from: 'door', ch: 38, rssi: -55, kind: 'adv', data: 'aa' }));
    air.add(rec({ t: 22, ev: 'ble-rx', dev: 'phone', from: 'tag', ch: 37, rssi: -50, kind: 'adv', data: 'bb' }));
    air.add(rec({ t: 30, ev: 'ble-adv-stop', dev: 'tag', set: 0 }));
    assert.equal(air.add(rec({ ev: 'print', dev: 'tag', text: 'x' })), false);
    const door = air.advertisers.get('beacon door')!;
    assert.equal(door.events, 2);
    assert.deepEqual(door.heard.get('phone'), { device: 'phone', rssi: -55, ch: 38, kind: 'adv', count: 2, last: 1010 });
    const tag = air.advertisers.get('tag set 0')!;
    assert.equal(tag.on, false);
    assert.equal(Object.fromEntries(tag.fields).url, 'https://example.com/x');
    assert.equal(tag.heard.get('phone')?.rssi, -50);
  });
});

describe('location', () => {
  test("a world script's GNSS tracks by device", () => {
    const script = 'beacon-world 1\ndevice 0 walker lte-beacon\ngnss 0 point 0 60.000000000 24.000000000 0\ngnss 0 receiver sat=9\ngnss 0 point 60000 60.000538540 24.000000000 0\ngnss 1 point 0 1.5 -2.25 3\n';
    const t = scriptTracks(script);
    assert.deepEqual(t.get(0), [
      { t: 0, lat: 60, lon: 24 },
      { t: 60000, lat: 60.00053854, lon: 24 },
    ]);
    assert.deepEqual(t.get(1), [{ t: 0, lat: 1.5, lon: -2.25 }]);
    assert.equal(scriptTracks(undefined).size, 0);
  });

  test('fixes and moves become points; the receiver state follows on, fix and lost', () => {
    const loc = new LocationModel();
    loc.add(rec({ ev: 'gnss', on: true }));
    loc.add(rec({ t: 5000, ev: 'gnss-fix', lat: 60, long: 24, sat: 9, hdop: 1.3 }));
    assert.equal(loc.hasFix, true);
    loc.add(rec({ t: 9000, ev: 'gnss-lost' }));
    loc.add(rec({ t: 9500, ev: 'move', lat: 60.001, long: 24, alt: 0 }));
    loc.add(rec({ t: 10000, ev: 'gnss', on: false, onFor: 10000, onTotal: 10000 }));
    assert.equal(loc.add(rec({ ev: 'led' })), false);
    assert.deepEqual(
      loc.points.map((p) => [p.t, p.from]),
      [
        [5000, 'gnss'],
        [9500, 'move'],
      ],
    );
    assert.deepEqual([loc.fixes, loc.lost, loc.receiverOn, loc.hasFix, loc.onTotalMs], [1, 1, false, false, 10000]);
  });

  test('the plot: the track fitted to the box, north up, and a scale bar of a round length', () => {
    // 100 m north of the first point, at 60° N.
    const lay = layoutTrack([{ lat: 60, lon: 24 }, { lat: 60 + 100 / 111_320, lon: 24 }], 200, 130, 15);
    assert.equal(lay.barMetres, 50);
    assert.ok(Math.abs(lay.scale - 1) < 1e-9, String(lay.scale)); // (130 - 30) px / 100 m
    assert.ok(Math.abs(lay.barPixels - 50) < 1e-6);
    const [[x0, y0], [x1, y1]] = lay.xy;
    assert.ok(Math.abs(x0 - x1) < 1e-9);
    assert.ok(Math.abs(y0 - y1 - 100) < 1e-6, `${y0} ${y1}`);
    // East is to the right, shortened by cos(latitude) in degrees, not in metres.
    // 250 m east in a 200 px box: 0.8 px/m, and a bar of 100 m (the largest round length in
    // half the span).
    const east = layoutTrack([{ lat: 60, lon: 24 }, { lat: 60, lon: 24 + 250 / (111_320 * Math.cos(Math.PI / 3)) }], 230, 230, 15);
    assert.equal(east.barMetres, 100);
    assert.ok(Math.abs(east.barPixels - 80) < 1e-6);
    assert.ok(Math.abs(east.xy[1][0] - east.xy[0][0] - 200) < 1e-6);
  });
});

describe('cloud', () => {
  test('events queued and stored, syncs, messages and the network', () => {
    const c = new CloudModel();
    c.add(rec({ ev: 'cloud', op: 'enqueue', seq: 1, bytes: 20 }));
    c.add(rec({ ev: 'cloud', op: 'enqueue', seq: 2, bytes: 22 }));
    c.add(rec({ ev: 'cloud-sync', phase: 'start' }));
    c.add(rec({ t: 120000, ev: 'cloud-event', stream: 5, seq: 1, type: 'temp', ts: 1, volatile: false, payload: { c: 21 } }));
    c.add(rec({ t: 120000, ev: 'cloud-message', id: '9', type: 'config', handler: true }));
    c.add(rec({ ev: 'cloud-sync', phase: 'end', events: 1, messages: 1 }));
    c.add(rec({ ev: 'cloud-sync', phase: 'end', error: 'no network' }));
    c.add(rec({ ev: 'cloud-network', up: false }));
    assert.equal(c.add(rec({ ev: 'print' })), false);
    assert.deepEqual([c.queued, c.queuedBytes, c.stored, c.syncs, c.syncErrors, c.lastSync, c.network], [2, 42, 1, 2, 1, 'failed: no network', false]);
    assert.deepEqual(c.events, [{ t: 120000, stream: 5, seq: 1, type: 'temp', payload: '{"c":21}' }]);
    assert.deepEqual(c.messages, [{ t: 120000, id: '9', type: 'config', handler: true }]);
  });
});

// The reference device client on its own (its persistent log, queue limits, variables,
// duplicate messages) and the `beacon cloud` command's device subcommands.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import Aedes from 'aedes';
import * as net from 'net';
import * as path from 'path';
import { DeviceClient, FileStorage, MemoryStorage, ReceivedMessage } from '../src/cloud/deviceClient';
import { encodeMessageFrame, topic } from '../src/cloud/protocol';
import { Cloud, startCloud } from '../src/cloud/service';
import { openStore } from '../src/cloud/store';
import { beaconSync, deviceId, tmpDir } from '../src/cloud/testkit';

const dir = tmpDir('beacon-device-test-');
let cloud: Cloud;

before(async () => {
  cloud = await startCloud({ port: 0, httpPort: 0, log: () => undefined });
});
after(async () => {
  await cloud?.stop();
});

test('file log: a torn last record is cut off at load; the queue and counters survive', () => {
  const file = path.join(dir, 'torn.log');
  const storage = new FileStorage(file);
  const a = new DeviceClient({ id: deviceId(), password: 'x', url: 'mqtt://127.0.0.1:1', storage });
  a.enqueue('t', { i: 1 }, { volatile: false });
  a.enqueue('t', { i: 2 }, { volatile: false });
  const seqs = a.pendingSeqs();
  fs.appendFileSync(file, '{"t":"e","seq":3,"type":"t","ts":1,"pay'); // a power cut mid-write
  const b = new DeviceClient({ id: a.id, password: 'x', url: 'mqtt://127.0.0.1:1', storage: new FileStorage(file) });
  assert.deepEqual(b.pendingSeqs(), seqs);
  b.enqueue('t', { i: 3 }, { volatile: false });
  assert.deepEqual(b.pendingSeqs(), [...seqs, seqs[1] + 1]);
  const c = new DeviceClient({ id: a.id, password: 'x', url: 'mqtt://127.0.0.1:1', storage: new FileStorage(file) });
  assert.deepEqual(c.pendingSeqs(), b.pendingSeqs());
  // Damage anywhere but at the end is not silently skipped.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines[1] = 'garbage';
  fs.writeFileSync(file, lines.join('\n'));
  assert.throws(() => new DeviceClient({ id: a.id, password: 'x', url: 'mqtt://127.0.0.1:1', storage: new FileStorage(file) }), /damaged at record 2/);
});

test('queue: volatile events make room, oldest first; without them, No storage space', () => {
  const d = new DeviceClient({ id: deviceId(), password: 'x', url: 'mqtt://127.0.0.1:1', storage: new MemoryStorage(), capacityBytes: 90 }); // each event below takes 25 bytes
  d.enqueue('k', { s: 'a'.repeat(20) }, { volatile: false }); // seq 1
  d.enqueue('v', { s: 'b'.repeat(20) }); // seq 2, volatile
  d.enqueue('v', { s: 'c'.repeat(20) }); // seq 3, volatile
  d.enqueue('k', { s: 'd'.repeat(20) }, { volatile: false }); // seq 4: drops seq 2
  assert.deepEqual(d.pendingSeqs(), [1, 3, 4]);
  d.enqueue('k', { s: 'e'.repeat(20) }, { volatile: false }); // drops seq 3
  assert.deepEqual(d.pendingSeqs(), [1, 4, 5]);
  assert.throws(() => d.enqueue('k', { s: 'f'.repeat(20) }, { volatile: false }), /No storage space/);
  assert.deepEqual(d.pendingSeqs(), [1, 4, 5]);
  assert.throws(() => d.enqueue('k', { s: 'x'.repeat(9000) }), /Message too big/);
  assert.throws(() => d.enqueue('k', { f: () => 1 }), /not a JSON value/);
  assert.throws(() => d.enqueue('t'.repeat(31), {}), /1 to 30/);
});

test('variables: only the latest value, only when changed, as an ordinary event', async () => {
  const id = deviceId();
  const c = await cloud.issueDevice(id);
  const d = new DeviceClient({ id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage() });
  d.setVar('mode', 'a');
  d.setVar('mode', 'b');
  d.setVar('level', 1);
  await d.sync();
  d.setVar('mode', 'b'); // unchanged: not sent again
  await d.sync();
  d.setVar('mode', 'c');
  await d.sync();
  const events = (await cloud.store.events(id, { limit: 100 })).events;
  assert.deepEqual(events.filter((e) => e.type === 'mode').map((e) => e.payload).sort(), ['b', 'c']);
  assert.ok(events.every((e) => e.variable && e.volatile));
  assert.deepEqual((await cloud.store.variables(id)).map((v) => [v.name, v.value]), [['level', 1], ['mode', 'c']]);
  assert.throws(() => d.setVar('big', 'x'.repeat(1100)), /too big/);
  for (let i = 0; i < 28; i++) d.setVar(`v${i}`, i);
  assert.throws(() => d.setVar('one-too-many', 0), /at most 30/);
});

test('messages: a message the device already processed is not handed to the app again', async () => {
  // A stand-in cloud that resends old messages at every sync start (as one restored from an
  // old backup might): the device must skip what it has processed.
  const broker = new Aedes();
  const server = net.createServer((s) => broker.handle(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const id = deviceId();
  const all = [1, 2, 3].map((n) => ({ id: n, type: `m${n}`, ts: 1000 + n, payload: { n } }));
  let offered = 1;
  broker.subscribe(
    topic(id, 's'),
    (_packet, done) => {
      const frame = encodeMessageFrame({ messages: all.slice(0, offered), more: false });
      broker.publish({ cmd: 'publish', topic: topic(id, 'm'), payload: frame, qos: 1, retain: false, dup: false }, () => undefined);
      done();
    },
    () => undefined,
  );
  try {
    const storage = new MemoryStorage();
    const got: ReceivedMessage[] = [];
    let d = new DeviceClient({ id, password: 'x', url, storage });
    d.onReceive((m) => got.push(m));
    await d.sync();
    offered = 2;
    await d.sync();
    // After a reset the device still knows what it processed.
    d = new DeviceClient({ id, password: 'x', url, storage });
    d.onReceive((m) => got.push(m));
    offered = 3;
    await d.sync();
    await d.sync();
    assert.deepEqual(got, all.map((m) => ({ type: m.type, ts: m.ts, payload: m.payload })));
  } finally {
    await new Promise<void>((r) => broker.close(() => r()));
    server.close();
  }
});

test('beacon cloud device: add, list, revoke; bad ids and unknown devices', async () => {
  const db = path.join(dir, 'cli.db');
  const id = deviceId();
  const add = beaconSync(['cloud', 'device', 'add', id.toUpperCase(), '--db', db]);
  assert.equal(add.status, 0, add.stderr);
  assert.match(add.stdout, new RegExp(`^device: +${id}$`, 'm'));
  assert.match(add.stdout, /^password: +\S{32}$/m);
  assert.match(add.stderr, /shown only this once/);
  const list = beaconSync(['cloud', 'device', 'list', '--db', db, '--json']);
  assert.equal(list.status, 0, list.stderr);
  assert.deepEqual((JSON.parse(list.stdout) as { id: string; revoked: boolean }[]).map((d) => [d.id, d.revoked]), [[id, false]]);
  assert.equal(beaconSync(['cloud', 'device', 'revoke', id, '--db', db]).status, 0);
  const store = await openStore(db);
  assert.equal(await store.credential(id), undefined);
  await store.close();
  const bad = beaconSync(['cloud', 'device', 'add', 'not-hex', '--db', db]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /not a device public id/);
  const unknown = beaconSync(['cloud', 'device', 'revoke', deviceId(), '--db', db]);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /no device/);
  assert.equal(beaconSync(['cloud', 'frobnicate']).status, 2);
  assert.equal(beaconSync(['cloud', 'device', 'add']).status, 2);
  assert.equal(beaconSync(['cloud', '--port', 'x']).status, 2);
  const noTls = beaconSync(['cloud', '--host', '0.0.0.0', '--db', db, '--port', '0', '--http-port', '0']);
  assert.equal(noTls.status, 1);
  assert.match(noTls.stderr, /needs TLS/);
});

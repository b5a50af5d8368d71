// `beacon run` of an app that uses the cloud, with no --cloud: the run starts the cloud service
// itself (broker on 127.0.0.1, SQLite store), the simulated device syncs with it over MQTT, and
// afterwards the store holds the device's non-volatile events once each, a message the scenario
// sent was delivered once, and the trace shows what the cloud stored and delivered. A second run
// on the same --cloud-db adds only that run's events. An app without the cloud starts no cloud; a
// busy port or a database that cannot be written is a clear error before anything runs. Skipped
// when the simulator was built without libmosquitto.
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { before, describe, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { openStore } from '../src/cloud';
import type { CloudStore, StoredEvent } from '../src/cloud';
import { POSTGRES_MISSING, postgresBin, startCloudProcess, startPostgres, tmpDir, waitFor } from '../src/cloud/testkit';
import { mergeTrace, packageUsesCloud, simDeviceId } from '../src/cli/runCloud';
import { scriptUsesCloud } from '../src/compiler/cloudUse';
import { lowerScenario, parseScenario, withoutCloudMessages } from '../src/world/scenario';
import { allEvents as eventsOfDevice, runChild } from './childProcess';
import { workspaceMissing } from '../src/firmware/workspace';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = tmpDir('beacon-cloud-run-');
const id = simDeviceId(0);

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

const beacon = (args: string[]): Promise<Result> => runChild(process.execPath, [cli, ...args], 180_000);

const allEvents = (store: CloudStore) => eventsOfDevice(store, id);

async function withDb<T>(file: string, fn: (store: CloudStore) => Promise<T>): Promise<T> {
  const store = await openStore(file);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function traceRecords(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// Each run enqueues five non-volatile readings and one volatile note, sets a variable and syncs;
// the run number comes from storage, so a second run with the same flash says 2.
const app = path.join(dir, 'app.ts');
fs.writeFileSync(
  app,
  `const run = storage.read(1) === undefined ? 1 : 2;
storage.save(1, run);
cloud.onReceive((msg) => print('message ' + msg.type + ' ' + JSON.stringify(msg.payload)));
sync.setEndHandler((error) => print('sync ' + (error === undefined ? 'ok' : error.message)));
for (let i = 1; i <= 5; i++) cloud.enqueue('reading', { run, i }, { volatile: false });
cloud.enqueue('note', { run });
cloud.setVar('mode', run === 1 ? 'eco' : 'full');
sync.now();
`,
);
const world = path.join(dir, 'world.json');
fs.writeFileSync(world, JSON.stringify({ events: [{ at: '0s', cloudMessage: { type: 'config', payload: { period: 600, name: 'desk one' } } }] }));
const plain = path.join(dir, 'plain.ts');
fs.writeFileSync(plain, "print('sync is a word, cloud too');\n");

const engines = [
  { name: 'duktape', skip: false as const },
  { name: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

let noMosquitto: string | false = false;
before(async () => {
  const probe = await beacon(['run', plain, '--cloud', 'mqtt://127.0.0.1:1', '--for', '1s']);
  if (/without libmosquitto/.test(probe.stderr)) noMosquitto = 'beacon-sim built without libmosquitto';
});

for (const engine of engines) {
  describe(`${engine.name}: beacon run with the cloud it starts`, { skip: engine.skip }, () => {
    const db = path.join(dir, `${engine.name}.db`);
    const flash = path.join(dir, `${engine.name}-flash`);
    const run = (trace: string) =>
      beacon(['run', app, '--engine', engine.name, '--world', world, '--for', '10s', '--flash', flash, '--cloud-db', db, '--trace', trace]);

    test('events are stored once, the message is delivered once, the trace shows both', async (t) => {
      if (noMosquitto) return t.skip(noMosquitto);
      fs.mkdirSync(flash, { recursive: true });
      const trace = path.join(dir, `${engine.name}-1.jsonl`);
      const r = await run(trace);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n'), ['message config {"period":600,"name":"desk one"}', 'sync ok']);
      assert.match(r.stderr, new RegExp(`^\\[beacon cloud\\] ${id}: 7 events stored, 1 message delivered$`, 'm'));
      assert.match(r.stderr, new RegExp(`^\\[beacon cloud\\] database: ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'));

      const events = await withDb(db, allEvents);
      const readings = events.filter((e) => e.type === 'reading');
      assert.equal(readings.length, 5);
      assert.deepEqual(readings.map((e) => (e.payload as { i: number }).i).sort(), [1, 2, 3, 4, 5]);
      assert.ok(readings.every((e) => !e.volatile && (e.payload as { run: number }).run === 1));
      assert.equal(new Set(events.map((e) => `${e.stream}:${e.seq}`)).size, events.length);
      const messages = await withDb(db, (s) => s.messages(id));
      assert.equal(messages.length, 1);
      assert.ok(messages[0].delivered != null);

      // The trace: every stored event once, as cloud-event records before the sync's end, and
      // the delivery of the message.
      const records = traceRecords(trace);
      const stored = records.filter((x) => x.ev === 'cloud-event');
      assert.deepEqual(
        stored.map((x) => `${String(x.stream)}:${String(x.seq)}:${String(x.type)}`).sort(),
        events.map((e) => `${e.stream}:${e.seq}:${e.type}`).sort(),
      );
      const end = records.findIndex((x) => x.ev === 'cloud-sync' && x.phase === 'end');
      assert.ok(end > 0 && records.slice(end - stored.length, end).every((x) => x.ev === 'cloud-event' || x.ev === 'cloud-delivered'));
      assert.deepEqual(
        records.filter((x) => x.ev === 'cloud-delivered').map((x) => [x.dev, x.id, x.type]),
        [['d0', messages[0].id, 'config']],
      );
    });

    test('a second run on the same database adds only its own events', async (t) => {
      if (noMosquitto) return t.skip(noMosquitto);
      const earlier = await withDb(db, allEvents);
      const trace = path.join(dir, `${engine.name}-2.jsonl`);
      const r = await run(trace);
      assert.equal(r.status, 0, r.stderr);
      // The scenario sends its message again: a new one, delivered once; the first is not again.
      assert.deepEqual(r.stdout.trim().split('\n'), ['message config {"period":600,"name":"desk one"}', 'sync ok']);
      assert.match(r.stderr, new RegExp(`^\\[beacon cloud\\] ${id}: 7 events stored \\(${earlier.length + 7} in all\\), 1 message delivered$`, 'm'));
      const after = await withDb(db, allEvents);
      assert.equal(after.length, earlier.length + 7);
      const added = after.filter((e) => !earlier.some((b) => b.stream === e.stream && b.seq === e.seq));
      assert.ok(added.filter((e) => e.type === 'reading').every((e) => (e.payload as { run: number }).run === 2));
      assert.equal(added.filter((e) => e.type === 'reading').length, 5);
      const messages = await withDb(db, (s) => s.messages(id));
      assert.deepEqual(messages.map((m) => [m.id, m.delivered != null]), [[1, true], [2, true]]);
      const delivered = traceRecords(trace).filter((x) => x.ev === 'cloud-delivered');
      assert.deepEqual(delivered.map((x) => x.id), [2]);
      assert.equal(traceRecords(trace).filter((x) => x.ev === 'cloud-event').length, 7);
    });

    test('a run without its flash adds its events beside the earlier runs\' (a new stream)', async (t) => {
      if (noMosquitto) return t.skip(noMosquitto);
      const earlier = await withDb(db, allEvents);
      const r = await beacon(['run', app, '--engine', engine.name, '--for', '10s', '--cloud-db', db]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`^\\[beacon cloud\\] ${id}: 7 events stored \\(${earlier.length + 7} in all\\)`, 'm'));
      const added = (await withDb(db, allEvents)).filter((e) => !earlier.some((b) => b.stream === e.stream && b.seq === e.seq));
      assert.equal(added.length, 7);
      assert.equal(new Set(added.map((e) => e.stream)).size, 1);
      assert.ok(!earlier.some((e) => e.stream === added[0].stream));
      assert.deepEqual(added.filter((e) => e.type === 'reading').map((e) => e.seq).sort((x, y) => x - y), [1, 2, 3, 4, 5]);
    });
  });
}

test('beacon cloud says how to run an app against it, and that works as it says', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  const db = path.join(dir, 'served.db');
  const cloud = await startCloudProcess(['--port', '0', '--http-port', '0', '--db', db]);
  try {
    const hint = await waitFor('the hint', () => (/beacon run app\.ts --cloud (\S+) --cloud-secret <password>/.exec(cloud.stderr()) ?? undefined));
    assert.equal(hint[1], cloud.mqttUrl);
    const add = new RegExp(`beacon cloud device add ${id} --db ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `);
    assert.match(cloud.stderr(), add);
    const issued = await beacon(['cloud', 'device', 'add', id, '--db', db, '--json']);
    assert.equal(issued.status, 0, issued.stderr);
    const { password } = JSON.parse(issued.stdout) as { password: string };
    const r = await beacon(['run', app, '--for', '10s', '--cloud', hint[1], '--cloud-secret', password]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['sync ok']);
    assert.doesNotMatch(r.stderr, /\[beacon cloud\]/); // not a cloud of the run's own
    assert.equal((await withDb(db, allEvents)).filter((e) => e.type === 'reading').length, 5);
  } finally {
    await cloud.kill('SIGTERM');
  }
});

test('--cloud-db postgres://: the run\'s cloud keeps its events in PostgreSQL', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  if (postgresBin() === undefined) return t.skip(POSTGRES_MISSING);
  const pg = await startPostgres({ fsync: false });
  try {
    const url = pg.url();
    const r = await beacon(['run', app, '--world', world, '--for', '10s', '--cloud-db', url]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['message config {"period":600,"name":"desk one"}', 'sync ok']);
    assert.match(r.stderr, /^\[beacon cloud\] database: the PostgreSQL database of --cloud-db$/m);
    assert.doesNotMatch(r.stderr, /postgres:\/\//); // its password stays off the terminal
    const events = await withDb(url, allEvents);
    assert.equal(events.filter((e) => e.type === 'reading').length, 5);
    assert.equal((await withDb(url, (s) => s.messages(id))).filter((m) => m.delivered != null).length, 1);
  } finally {
    pg.stop();
  }
});

test('an app that does not use the cloud starts none', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  const db = path.join(dir, 'unused.db');
  const r = await beacon(['run', plain, '--cloud-db', db]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'sync is a word, cloud too\n');
  assert.doesNotMatch(r.stderr, /\[beacon cloud\]/);
  assert.match(r.stderr, /no app uses the cloud, so no cloud was started/);
  assert.equal(fs.existsSync(db), false);
});

test('--cloud loopback keeps the model cloud: same output, the message from the scenario', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  const r = await beacon(['run', app, '--world', world, '--for', '10s', '--cloud', 'loopback']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['message config {"period":600,"name":"desk one"}', 'sync ok']);
  assert.doesNotMatch(r.stderr, /\[beacon cloud\]/);
});

test('a busy port is a clear error, and nothing runs', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const r = await beacon(['run', app, '--for', '1s', '--cloud-port', String(port)]);
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^beacon run: --cloud-port: port ${port} on 127\\.0\\.0\\.1 is in use`, 'm'));
  } finally {
    server.close();
  }
});

test('a database that cannot be written is a clear error, and nothing runs', async () => {
  const notADir = path.join(dir, 'file');
  fs.writeFileSync(notADir, 'x');
  const r = await beacon(['run', app, '--for', '1s', '--cloud-db', path.join(notADir, 'cloud.db')]);
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^beacon run: --cloud-db: cannot write in .*file: not a directory$/m);
  const asDir = await beacon(['run', app, '--for', '1s', '--cloud-db', dir]);
  assert.equal(asDir.status, 2);
  assert.match(asDir.stderr, /--cloud-db: .* is a directory, not a database file/);
  // A file that is not a database is left as it was.
  const text = path.join(dir, 'notes.txt');
  fs.writeFileSync(text, 'my notes, not a database\n'.repeat(100));
  const notDb = await beacon(['run', app, '--for', '1s', '--cloud-db', text]);
  assert.equal(notDb.status, 2);
  assert.match(notDb.stderr, /--cloud-db: cannot use .*notes\.txt as the cloud's database/);
  assert.equal(fs.readFileSync(text, 'utf8'), 'my notes, not a database\n'.repeat(100));
});

test('--cloud-db and --cloud-port belong to the cloud beacon run starts', async () => {
  const r = await beacon(['run', app, '--cloud', 'loopback', '--cloud-db', path.join(dir, 'x.db')]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--cloud-db: only for the cloud beacon run starts \(not with --cloud loopback\)/);
  const s = await beacon(['run', app, '--cloud-secret', 'x']);
  assert.equal(s.status, 2);
  assert.match(s.stderr, /--cloud-secret: only with --cloud mqtt:\/\/HOST:PORT/);
});

test('which apps use the cloud: names in the script, not in strings or as properties', () => {
  assert.equal(scriptUsesCloud("cloud.enqueue('x',{})"), true);
  assert.equal(scriptUsesCloud('var s=sync;s.now()'), true);
  assert.equal(scriptUsesCloud("print('sync ok, cloud up')"), false);
  assert.equal(scriptUsesCloud('var o={cloud:1};o.cloud=2;/sync/.test("a")'), false);
  assert.equal(packageUsesCloud(Buffer.from('\x00\x05cloud\x00')), true);
  assert.equal(packageUsesCloud(Buffer.from('\x00\x05async\x00asynchronous')), false);
});

test('the scenario sends messages: in the script for the loopback cloud, given to a run\'s cloud', () => {
  const lowered = lowerScenario(
    parseScenario(JSON.stringify({ events: [{ at: '2s', cloudMessage: { type: 'cfg', payload: { a: 'x y' } } }, { at: '1s', cloudNetwork: false }] }), 'w.json'),
    'w.json',
  );
  assert.match(lowered.script, /^at 2000 0 cloud-message cfg \{"a":"x\\u0020y"\}$/m);
  assert.match(lowered.script, /^at 1000 0 cloud-network 0$/m);
  assert.deepEqual(lowered.cloudMessages, [{ at: 2000, device: 0, type: 'cfg', payload: { a: 'x y' } }]);
  assert.doesNotMatch(withoutCloudMessages(lowered.script), /cloud-message/);
  assert.match(withoutCloudMessages(lowered.script), /cloud-network/);
  assert.throws(
    () => parseScenario(JSON.stringify({ events: [{ at: 0, cloudMessage: { type: 'has space' } }] }), 'w.json'),
    /events\[0\]\.cloudMessage\.type/,
  );
});

test('the trace merge: events before the end of the sync that sent them, the rest at the end', () => {
  const ev = (seq: number): StoredEvent => ({ deviceId: id, stream: 7, seq, type: 't', ts: 5, payload: { v: 0.1234567 }, volatile: false, variable: false, received: 1 });
  const text = [
    '{"t":0,"dev":"d0","ev":"cloud-sync","phase":"start"}',
    '{"t":0,"dev":"d0","ev":"cloud-message","id":3,"type":"m","handler":true}',
    '{"t":0,"dev":"d0","ev":"cloud-sync","phase":"end","events":1,"batches":1,"messages":1,"bytes":10}',
    '{"t":500,"dev":"d0","ev":"print","text":"x"}',
  ].join('\n') + '\n';
  const merged = mergeTrace(text, ['d0'], [{ events: [ev(1), ev(2)], delivered: [{ deviceId: id, id: 3, type: 'm', ts: 0, payload: null, delivered: 9 }] }]);
  assert.deepEqual(merged.split('\n'), [
    '{"t":0,"dev":"d0","ev":"cloud-sync","phase":"start"}',
    '{"t":0,"dev":"d0","ev":"cloud-message","id":3,"type":"m","handler":true}',
    '{"t":0,"dev":"d0","ev":"cloud-event","stream":7,"seq":1,"type":"t","ts":5,"volatile":false,"payload":{"v":0.123457}}',
    '{"t":0,"dev":"d0","ev":"cloud-delivered","id":3,"type":"m"}',
    '{"t":0,"dev":"d0","ev":"cloud-sync","phase":"end","events":1,"batches":1,"messages":1,"bytes":10}',
    '{"t":500,"dev":"d0","ev":"print","text":"x"}',
    '{"t":500,"dev":"d0","ev":"cloud-event","stream":7,"seq":2,"type":"t","ts":5,"volatile":false,"payload":{"v":0.123457}}',
    '',
  ]);
});

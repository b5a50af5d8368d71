// The firmware's cloud side against the real cloud service: a simulated device (beacon run, the
// runtime's C queue and protocol over libmosquitto) syncs with `beacon cloud` (embedded broker and
// SQLite store). Events it enqueues arrive in the store exactly once, also when the device is run
// again with the same flash (events not yet acknowledged are sent again, acknowledged ones are not);
// a message sent through the cloud reaches cloud.onReceive exactly once; a wrong secret is refused
// and the app's end handler says so. Skipped when the simulator was built without libmosquitto.
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { startCloud } from '../src/cloud';
import type { Cloud, CloudStore } from '../src/cloud';
import { freePort, tmpDir } from '../src/cloud/testkit';
import { allEvents as eventsOfDevice, runChild } from './childProcess';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = tmpDir('beacon-cloud-sim-');
// The simulator's first device (its public id is fixed).
const id = '5eac0b1d00004d0cbeac051a00000001';

// Asynchronous: the embedded broker runs in this process and must answer meanwhile.
const beacon = (args: string[]) => runChild(process.execPath, [cli, ...args], 120_000);

const allEvents = (store: CloudStore) => eventsOfDevice(store, id);

let cloud: Cloud;
let secret = '';
let hasMosquitto = true;

before(async () => {
  cloud = await startCloud({ port: await freePort(), httpPort: 0, db: ':memory:', log: () => {} });
  secret = (await cloud.issueDevice(id)).password;
  const probe = await beacon(['run', path.join(dir, 'none.js'), '--cloud', 'mqtt://127.0.0.1:1', '--for', '1s']);
  hasMosquitto = !/without libmosquitto/.test(probe.stderr);
});
after(async () => {
  await cloud?.stop();
});

fs.writeFileSync(path.join(dir, 'none.js'), '');
const app = path.join(dir, 'app.ts');
fs.writeFileSync(
  app,
  `const run = storage.read(1) === undefined ? 1 : 2;
storage.save(1, run);
cloud.onReceive((msg) => print('message ' + msg.type + ' ' + JSON.stringify(msg.payload)));
sync.setEndHandler((error) => print('sync ' + (error === undefined ? 'ok' : error.message)));
for (let i = 1; i <= 25; i++) cloud.enqueue('reading', { run, i }, { volatile: false });
cloud.setVar('mode', run === 1 ? 'eco' : 'full');
sync.now();
`,
);

test('events reach the cloud exactly once, messages reach onReceive exactly once', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  const flash = path.join(dir, 'flash');
  fs.mkdirSync(flash, { recursive: true });
  await cloud.sendMessage(id, 'config', { period: 600 });
  const url = cloud.mqttUrl;
  const run = () => beacon(['run', app, '--for', '10s', '--flash', flash, '--cloud', url, '--cloud-secret', secret]);

  const first = await run();
  assert.equal(first.status, 0, first.stderr);
  assert.deepEqual(first.stdout.trim().split('\n'), ['message config {"period":600}', 'sync ok']);
  let events = await allEvents(cloud.store);
  assert.equal(events.length, 26);
  const readings = events.filter((e) => e.type === 'reading');
  assert.deepEqual(new Set(readings.map((e) => e.seq)).size, 25);
  assert.ok(readings.every((e) => !e.volatile && (e.payload as { run: number }).run === 1));
  assert.deepEqual((await cloud.store.variables(id)).map((v) => [v.name, v.value]), [['mode', 'eco']]);

  // Again with the same flash: the acknowledged events are gone from the device, the message is
  // not delivered again, the sequence numbers go on.
  const second = await run();
  assert.equal(second.status, 0, second.stderr);
  assert.deepEqual(second.stdout.trim().split('\n'), ['sync ok']);
  events = await allEvents(cloud.store);
  assert.equal(events.length, 52);
  const seqs = events.map((e) => e.seq);
  assert.equal(new Set(seqs).size, 52);
  assert.equal(Math.max(...seqs), 52);
  const messages = await cloud.store.messages(id);
  assert.equal(messages.length, 1);
  assert.ok(messages[0].delivered !== undefined && messages[0].delivered !== null);
});

test('a wrong secret is refused: the end handler gets the error, nothing is stored', async (t) => {
  if (!hasMosquitto) return t.skip('beacon-sim built without libmosquitto');
  const before = (await allEvents(cloud.store)).length;
  const r = await beacon(['run', app, '--for', '2s', '--cloud', cloud.mqttUrl, '--cloud-secret', 'wrong']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^sync ESR0602 Cloud refused the device: sync failed: the cloud refused the device's credentials$/m);
  assert.equal((await allEvents(cloud.store)).length, before);
});

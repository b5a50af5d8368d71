// Cloud code across processes: `beacon cloud webhook add --code` and `webhook logs` on the
// command line, bad --code input named; `beacon cloud --code` killed (SIGKILL) while a call
// holds an event, on SQLite and PostgreSQL, runs the handler for it again after a restart; two
// workers on PostgreSQL behind Mosquitto run the handler for every event with never more than
// one call in flight for one event. The handler forwards each event to a local receiver
// (webhookReceiver.ts), which counts the calls in its hands per event.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { openStore } from '../src/cloud/store';
import {
  beaconSync,
  CloudProcess,
  deviceId,
  freePort,
  MOSQUITTO,
  MOSQUITTO_MISSING,
  MosquittoServer,
  PgServer,
  postgresBin,
  POSTGRES_MISSING,
  startCloudProcess,
  startMosquitto,
  startPostgres,
  tmpDir,
  waitFor,
} from '../src/cloud/testkit';
import { workers, WorkersLayout } from './cloudLayouts';
import { Receiver, startReceiver } from './webhookReceiver';

const dir = tmpDir('beacon-code-proc-');
const TOKEN = 'code-token';

let pg: PgServer | undefined;
before(async () => {
  if (postgresBin()) pg = await startPostgres();
});
after(() => pg?.stop());

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return beaconSync(['cloud', ...args]);
}

/** A handler that POSTs each event to `url` and fails unless the receiver answers 200. */
function forwarder(name: string, url: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `const http = require('http');
module.exports = async function (event) {
  const key = event.deviceId + ':' + event.stream + ':' + event.seq;
  const status = await new Promise((done, fail) => {
    const req = http.request(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json', 'beacon-idempotency-key': key } }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on('error', fail);
    req.end(JSON.stringify(event));
  });
  console.log('forwarded', key, status);
  if (status !== 200) throw new Error('the receiver answered ' + status);
};
`,
  );
  return file;
}

test('beacon cloud webhook add --code, list, logs; bad --code input named', () => {
  const db = path.join(dir, 'cli.db');
  const file = path.join(dir, 'hello.js');
  fs.writeFileSync(file, "module.exports = async (e) => console.log('hello', e.type);\n");
  const add = cli(['webhook', 'add', '--code', file, '--type', 'door', '--retry-for', '1h', '--db', db, '--json']);
  assert.equal(add.status, 0, add.stderr);
  const rule = JSON.parse(add.stdout) as { id: number; kind: string; url: string; types: string[]; retryFor: number };
  assert.deepEqual([rule.kind, rule.url, rule.types, rule.retryFor], ['code', 'code:api', ['door'], 3_600_000]);
  assert.ok(!add.stdout.includes('whsec_'), 'cloud code has no signing secret');
  assert.match(cli(['webhook', 'list', '--db', db]).stdout, /^1 {2}code:api {2}types: door {2}devices: all {2}retry for 1h {2}0 pending {2}0 dead\n$/);
  assert.equal(cli(['webhook', 'logs', '1', '--db', db, '--json']).stdout, '[]\n');

  const bad = path.join(dir, 'bad.js');
  fs.writeFileSync(bad, 'module.exports = async function (event) {');
  const cases: [string[], RegExp][] = [
    [['webhook', 'add', '--code', path.join(dir, 'missing.js')], /--code: cannot read .*missing\.js: ENOENT/],
    [['webhook', 'add', '--code', bad], /--code .*bad\.js: SyntaxError: /],
    [['webhook', 'add', 'https://example.com/x', '--code', file], /webhook add: a receiver URL or --code, not both/],
    [['webhook', 'logs', 'x'], /'x' is not a webhook id/],
    [['--code', bad, '--port', '0', '--http-port', '0'], /--code .*bad\.js: SyntaxError: /],
    [['--code-memory', '3', '--port', '0', '--http-port', '0'], /--code-memory must be a number of megabytes from 16/],
    [['--code-timeout', 'soon', '--port', '0', '--http-port', '0'], /--code-timeout: /],
  ];
  for (const [args, error] of cases) {
    const r = cli([...args, '--db', db]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, error);
  }
});

function killSuite(kind: 'sqlite' | 'postgres'): void {
  const skip = kind === 'postgres' && !postgresBin() ? POSTGRES_MISSING : false;
  test(`${kind}: beacon cloud --code killed while a call holds an event runs the handler for it again after a restart`, { skip }, async () => {
    const db = kind === 'sqlite' ? path.join(dir, 'kill.db') : await (pg as PgServer).createDatabase('code_kill');
    // The first call's POST for each event is held until the cloud is gone; later ones are answered.
    const r = await startReceiver((_, n) => (n === 1 ? 'hang' : 200));
    const file = forwarder(`kill-${kind}.js`, r.url);
    const id = deviceId();
    const password = (JSON.parse(cli(['device', 'add', id, '--db', db, '--json']).stdout) as { password: string }).password;
    const args = ['--db', db, '--port', String(await freePort()), '--http-port', '0', '--token', TOKEN, '--code', file, '--code-timeout', '2s', '--webhook-retry-base', '100ms'];
    let cloud: CloudProcess = await startCloudProcess(args);
    try {
      const dev = new DeviceClient({ id, password, url: cloud.mqttUrl, storage: new MemoryStorage() });
      for (let i = 1; i <= 3; i++) dev.enqueue('temp', { i }, { volatile: false });
      assert.equal((await dev.sync()).acked, 3);
      await waitFor('the first call', () => (r.requests.length >= 1 ? true : undefined), 400, 25);
      await cloud.kill('SIGKILL');
      const held = r.requests[0].key;
      cloud = await startCloudProcess(args);
      // PostgreSQL: the dead process's lease (2 x the call deadline + 5 s) runs out first.
      await waitFor('every event handled after the restart', () => (new Set(r.accepted().map((x) => x.body.seq)).size >= 3 ? true : undefined), 800, 50);
      assert.equal(held, `${id}:${r.requests[0].body.stream}:1`);
      assert.deepEqual(r.accepted().map((x) => x.body.seq), [1, 2, 3]);
      assert.deepEqual(r.invalid, [], 'the handler got the event shape the receiver expects');
      const rules = JSON.parse(cli(['webhook', 'list', '--db', db, '--json']).stdout) as { id: number; url: string }[];
      assert.deepEqual(rules.map((w) => w.url), ['code:cli'], 'a restart with --code keeps one rule');
    } finally {
      await cloud.kill('SIGKILL');
      await r.close();
    }
  });
}

killSuite('sqlite');
killSuite('postgres');

describe('cloud code on two workers on PostgreSQL behind Mosquitto', { skip: !postgresBin() ? POSTGRES_MISSING : !MOSQUITTO ? MOSQUITTO_MISSING : false }, () => {
  let db: string;
  let broker: MosquittoServer;
  let layout: WorkersLayout;
  let r: Receiver;

  before(async () => {
    db = await (pg as PgServer).createDatabase('code_workers');
    const store = await openStore(db);
    broker = await startMosquitto(store);
    await store.close();
    // Every 4th request fails, so the handler throws and events are run again, by either worker.
    let n = 0;
    r = await startReceiver(() => ({ status: ++n % 4 === 0 ? 500 : 200, afterMs: 3 }));
    const add = cli(['webhook', 'add', '--code', forwarder('workers.js', r.url), '--db', db, '--json']);
    assert.equal(add.status, 0, add.stderr);
    layout = await workers(db, TOKEN, broker, 2, ['--webhook-retry-base', '50ms', '--code-timeout', '2s']);
    await layout.start();
  });
  after(async () => {
    await layout?.kill('SIGTERM');
    await broker?.kill();
    await r?.close();
  });

  test('every event handled, never more than one call in flight for one event', async () => {
    const devices: DeviceClient[] = [];
    for (let i = 0; i < 6; i++) {
      const id = deviceId();
      const password = await layout.addDevice(id);
      devices.push(new DeviceClient({ id, password, url: broker.url, storage: new MemoryStorage(), batchEvents: 5, window: 2 }));
    }
    for (const d of devices) for (let i = 0; i < 20; i++) d.enqueue('temp', { i }, { volatile: false });
    const synced = await Promise.all(devices.map((d) => d.sync()));
    assert.deepEqual(synced.map((s) => s.acked), devices.map(() => 20));
    const keys = new Set(devices.flatMap((d) => Array.from({ length: 20 }, (_, i) => `${d.id}:${i + 1}`)));
    await waitFor('120 events handled', () => (new Set(r.accepted().map((x) => `${x.body.deviceId}:${x.body.seq}`)).size >= keys.size ? true : undefined), 800, 50);
    assert.equal(r.maxConcurrentPerKey, 1);
    assert.ok(r.requests.length > r.accepted().length, 'some calls failed and were run again');
    assert.deepEqual(r.invalid, []);
  });
});

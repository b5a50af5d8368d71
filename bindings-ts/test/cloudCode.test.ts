// Cloud code against a cloud in this process, on both stores (SQLite, PostgreSQL): devices sync
// over MQTT and each rule's handler runs in its sandboxed process for every matching event. The
// handler gets the maker's event shape; allowed modules work and others are refused with the
// reason; a handler that loops, allocates without end or throws ends in the dead letters with
// its reason while the device's later events still run (in a restarted process); the handler
// sees no environment, no token and no file; what it prints is kept per event, bounded.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as crypto from 'crypto';
import * as path from 'path';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { Cloud, startCloud } from '../src/cloud/service';
import { deviceId, PgServer, postgresBin, POSTGRES_MISSING, startPostgres, tmpDir, waitFor } from '../src/cloud/testkit';
import { checkCode } from '../src/cloud/codeSandbox';
import type { CodeLog, DeliveryRecord, WebhookRecord } from '../src/cloud/webhooks';

const dir = tmpDir('beacon-cloud-code-test-');
/** Short limits: the tests wait for timeouts and dead letters. */
const TIMEOUT_MS = 1000;
const SECRET = 's3cret-of-the-cloud-process';

let pg: PgServer | undefined;
before(async () => {
  if (postgresBin()) pg = await startPostgres({ fsync: false });
  // Something the handler must not see: the cloud process's environment.
  process.env.BEACON_TEST_SECRET = SECRET;
});
after(() => pg?.stop());

function suite(kind: 'sqlite' | 'postgres'): void {
  const skip = kind === 'postgres' && !postgresBin() ? POSTGRES_MISSING : false;
  describe(`cloud code: ${kind}`, { skip }, () => {
    let cloud: Cloud;
    let db: string;
    const options = { retryBaseMs: 50, pollMs: 100, codeTimeoutMs: TIMEOUT_MS, codeMemoryMb: 32, concurrency: 4 };

    before(async () => {
      db = kind === 'sqlite' ? path.join(dir, 'code.db') : await (pg as PgServer).createDatabase('code');
      cloud = await startCloud({ port: 0, httpPort: 0, db, log: () => undefined, webhooks: options });
    });
    after(async () => {
      await cloud?.stop();
    });

    async function api<T>(p: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
      const res = await fetch(`${cloud.httpUrl}${p}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${cloud.token}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as T };
    }

    /** A cloud-code rule for one event type, through the API. */
    async function rule(code: string, type: string, retryFor = 300): Promise<number> {
      const res = await api<WebhookRecord>('/api/webhooks', { method: 'POST', body: { code, types: [type], retryFor } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.kind, 'code');
      return res.body.id;
    }

    async function device(): Promise<DeviceClient> {
      const id = deviceId();
      const cred = await cloud.issueDevice(id);
      return new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage(), batchEvents: 10 });
    }

    /** The rule's log, oldest first, once `done` says it is complete. */
    async function logs(id: number, done: (l: CodeLog[]) => boolean): Promise<CodeLog[]> {
      return waitFor(`the log of rule ${id}`, async () => {
        const l = (await api<{ logs: CodeLog[] }>(`/api/webhooks/${id}/logs?limit=1000`)).body.logs.reverse();
        return done(l) ? l : undefined;
      }, 400, 50);
    }

    async function dead(id: number, n: number): Promise<DeliveryRecord[]> {
      return waitFor(`${n} dead letters of rule ${id}`, async () => {
        const d = (await api<{ deliveries: DeliveryRecord[] }>(`/api/webhooks/${id}/deliveries?status=dead`)).body.deliveries;
        return d.length >= n ? d : undefined;
      }, 400, 50);
    }

    test('the handler gets the maker\'s event shape, for events and variable updates; its output is kept per event', async () => {
      const id = await rule('module.exports = async function (event) { console.log(JSON.stringify(event)); print("seq", event.seq); };', 'shape');
      const varRule = await rule('module.exports = async (event) => console.log(event.type, JSON.stringify(event.payload), event.variable);', 'mode');
      const d = await device();
      d.enqueue('shape', { celsius: 21.5 }, { volatile: false });
      d.enqueue('shape', { celsius: 22 }, { volatile: false });
      d.setVar('mode', 'eco');
      await d.sync();
      const l = await logs(id, (x) => x.length >= 2);
      assert.deepEqual(l.map((x) => [x.seq, x.ok, x.attempt]), [[1, true, 1], [2, true, 1]]);
      const stored = (await cloud.store.events(d.id, { limit: 10 })).events.find((e) => e.seq === 1);
      const [json, printed] = l[0].output.split('\n');
      const event = JSON.parse(json) as Record<string, unknown>;
      assert.deepEqual(Object.keys(event).sort(), ['deviceId', 'enqueuedAt', 'identifier', 'payload', 'seq', 'stream', 'type', 'variable']);
      assert.deepEqual(event, {
        type: 'shape',
        payload: { celsius: 21.5 },
        enqueuedAt: new Date(stored?.ts ?? 0).toISOString(),
        identifier: d.id,
        deviceId: d.id,
        stream: stored?.stream,
        seq: 1,
        variable: false,
      });
      assert.equal(printed, 'seq 1');
      assert.equal(l[1].deviceId, d.id);
      assert.match(l[1].output, /"celsius":22/);
      const v = await logs(varRule, (x) => x.length >= 1);
      assert.equal(v[0].output, 'mode "eco" true');
    });

    test('an allowed module works: crypto hashes the payload', async () => {
      const id = await rule("const crypto = require('node:crypto');\nmodule.exports = async (e) => console.log(crypto.createHash('sha256').update(JSON.stringify(e.payload)).digest('hex'));", 'hash');
      const d = await device();
      d.enqueue('hash', { n: 7 }, { volatile: false });
      await d.sync();
      const [l] = await logs(id, (x) => x.length >= 1);
      assert.equal(l.output, crypto.createHash('sha256').update('{"n":7}').digest('hex'));
    });

    test('a module not on the list: a clear reason, retried, then a dead letter; ingest goes on', async () => {
      const id = await rule("module.exports = async (e) => { require('fs').readFileSync('/etc/passwd'); };", 'fs');
      const d = await device();
      d.enqueue('fs', {}, { volatile: false });
      d.enqueue('fs', {}, { volatile: false });
      assert.equal((await d.sync()).acked, 2, 'ingest goes on');
      const letters = await dead(id, 2);
      assert.match(letters[0].lastError ?? '', /^Error: require\('fs'\): not a module cloud code may use \(it may use .*crypto.*http, https/);
      assert.deepEqual(letters.map((x) => x.seq), [1, 2]);
      assert.ok(letters.every((x) => x.attempts >= 1));
    });

    test('a thrown error is retried with backoff, then dead-lettered with the error; each attempt is in the log', async () => {
      const id = await rule("module.exports = async (e) => { console.log('trying', e.seq); throw new Error('no ' + e.payload.n); };", 'throw', 600);
      const d = await device();
      d.enqueue('throw', { n: 7 }, { volatile: false });
      await d.sync();
      const [letter] = await dead(id, 1);
      assert.match(letter.lastError ?? '', /^Error: no 7 \(at module\.exports \(rule-\d+\.js:1:\d+\)\) \(after \d+ attempts in \d+ s\)$/);
      assert.ok(letter.attempts >= 2, `${letter.attempts} attempts`);
      const l = await logs(id, (x) => x.length >= letter.attempts);
      assert.deepEqual(l.map((x) => x.attempt), Array.from({ length: letter.attempts }, (_, i) => i + 1));
      assert.ok(l.every((x) => !x.ok && x.output === 'trying 1' && /^Error: no 7/.test(x.error ?? '')));
    });

    test('a handler that loops is ended at its deadline and its process restarted; the device\'s later events still run', async () => {
      const id = await rule(
        "const crypto = require('crypto');\nconst boot = crypto.randomBytes(6).toString('hex');\n" +
          "module.exports = async (e) => { if (e.payload.loop) { console.log('looping from now on'); for (;;) {} } console.log('handled', e.seq, 'in', boot); };",
        'loop',
      );
      const d = await device();
      d.enqueue('loop', { loop: false }, { volatile: false });
      d.enqueue('loop', { loop: true }, { volatile: false });
      d.enqueue('loop', { loop: false }, { volatile: false });
      await d.sync();
      const [letter] = await dead(id, 1);
      assert.equal(letter.seq, 2);
      assert.match(letter.lastError ?? '', new RegExp(`^timeout: the handler did not finish within ${TIMEOUT_MS} ms; its process was ended and is started again`));
      const l = await logs(id, (x) => x.some((y) => y.seq === 3 && y.ok));
      const handled = l.filter((x) => x.ok).map((x) => /^handled (\d) in ([0-9a-f]+)$/.exec(x.output));
      assert.deepEqual(handled.map((m) => m?.[1]), ['1', '3'], 'in order, the loop\'s event dead between');
      assert.notEqual(handled[0]?.[2], handled[1]?.[2], 'the event after the loop ran in a new process');
      // What the looping call printed before its process was ended is kept with the reason.
      const looped = l.find((x) => x.seq === 2);
      assert.deepEqual([looped?.ok, looped?.output], [false, 'looping from now on']);
      assert.match(looped?.error ?? '', /^timeout: /);
    });

    test('a handler that allocates without end: a memory reason, a dead letter, the next event runs', async () => {
      const id = await rule("module.exports = async (e) => { if (e.payload.grow) { const a = []; for (;;) a.push(new Array(1e5).fill(e.seq)); } console.log('fine', e.seq); };", 'grow');
      const d = await device();
      d.enqueue('grow', { grow: true }, { volatile: false });
      d.enqueue('grow', { grow: false }, { volatile: false });
      await d.sync();
      const [letter] = await dead(id, 1);
      assert.match(letter.lastError ?? '', /^memory: the handler used more than its limit \(its heap of 32 MB is full|its process reached \d+ MB/);
      const l = await logs(id, (x) => x.some((y) => y.ok));
      assert.equal(l.find((x) => x.ok)?.output, 'fine 2');
      assert.ok(l.some((x) => !x.ok && /^memory:/.test(x.error ?? '')), 'the failure is in the log too');
    });

    test('the handler sees no environment, no token and no file, even out of its vm context', async () => {
      const id = await rule(
        [
          'module.exports = async () => {',
          "  console.log('process in context:', typeof process);",
          "  const proc = print.constructor('return process')();",
          '  console.log(JSON.stringify(proc.env));',
          "  const fs = proc.mainModule.require('fs');",
          "  for (const [what, f] of [['read', () => fs.readFileSync(DB)], ['write', () => fs.writeFileSync('/tmp/escaped', 'x')], ['binding', () => proc.binding('fs')], ['dlopen', () => proc.dlopen({}, '/x.node')], ['spawn', () => proc.mainModule.require('child_process').execSync('id')]]) {",
          "    try { f(); console.log(what, 'allowed'); } catch (err) { console.log(what, err.code); }",
          '  }',
          '};',
        ].join('\n').replace('DB', JSON.stringify(kind === 'sqlite' ? db : '/etc/hostname')),
        'escape',
      );
      const d = await device();
      d.enqueue('escape', {}, { volatile: false });
      await d.sync();
      const [l] = await logs(id, (x) => x.length >= 1);
      assert.equal(l.error, undefined);
      const lines = l.output.split('\n');
      assert.deepEqual(lines.slice(0, 2), ['process in context: undefined', '{}']);
      // Node names a refused native addon differently from one version to the next.
      const refused = /^(read|write|binding|dlopen|spawn) ERR_(ACCESS_DENIED|DLOPEN_DISABLED)$/;
      assert.deepEqual(lines.slice(2).map((x) => refused.test(x) ? x.split(' ')[0] : x), ['read', 'write', 'binding', 'dlopen', 'spawn']);
      assert.ok(!l.output.includes(SECRET) && !l.output.includes(cloud.token));
    });

    test('output is bounded per event', async () => {
      const id = await rule("module.exports = async (e) => { for (let i = 0; i < 200; i++) console.log(String(i).padStart(3, '0') + 'x'.repeat(96)); };", 'chatty');
      const d = await device();
      d.enqueue('chatty', {}, { volatile: false });
      await d.sync();
      const [l] = await logs(id, (x) => x.length >= 1);
      const lines = l.output.split('\n');
      // 4096 bytes hold 40 lines of 99 characters and their newlines.
      assert.equal(lines.length, 41);
      assert.equal(lines[0], '000' + 'x'.repeat(96));
      assert.equal(lines[40], `... (${160 * 100} more bytes of output not kept)`);
    });

    test('bad cloud code through the API: refused with the argument named', async () => {
      const cases: [unknown, RegExp][] = [
        [{ code: 'module.exports = function (' }, /^code: SyntaxError: /],
        [{ code: '' }, /^code: the handler's JavaScript source/],
        [{ code: 42 }, /^code: the handler's JavaScript source/],
        [{ code: 'module.exports = () => 1;', url: 'https://example.com/x' }, /^url: a rule has a receiver URL or cloud code, not both/],
      ];
      for (const [body, error] of cases) {
        const res = await api<{ error: string }>('/api/webhooks', { method: 'POST', body });
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 100));
        assert.match(res.body.error, error);
      }
      assert.match((await api<{ error: string }>('/api/webhooks/1/logs?limit=0')).body.error, /^limit must be a whole number/);
      // A --code file may be larger than an API body.
      assert.throws(() => checkCode('x'.repeat(256 * 1024 + 1), '--code big.js'), /^RangeError: --code big\.js: 262145 bytes, over the 262144-byte limit$/);
    });

    test('--code: one rule in the store, its code replaced when the cloud starts with another', async () => {
      await cloud.stop();
      cloud = await startCloud({ port: 0, httpPort: 0, db, log: () => undefined, webhooks: options, code: 'module.exports = async (e) => console.log("first", e.seq);' });
      await cloud.stop();
      cloud = await startCloud({ port: 0, httpPort: 0, db, log: () => undefined, webhooks: options, code: 'module.exports = async (e) => console.log("second", e.type);' });
      const rules = (await api<{ webhooks: WebhookRecord[] }>('/api/webhooks')).body.webhooks.filter((w) => w.url === 'code:cli');
      assert.equal(rules.length, 1);
      assert.equal(rules[0].kind, 'code');
      const d = await device();
      d.enqueue('anything', {}, { volatile: false });
      await d.sync();
      const l = await logs(rules[0].id, (x) => x.some((y) => y.deviceId === d.id));
      assert.equal(l.find((y) => y.deviceId === d.id)?.output, 'second anything');
    });
  });
}

suite('sqlite');
suite('postgres');

test('a store made before cloud code opens with its webhooks, which are URL webhooks (SQLite and PostgreSQL)', async () => {
  const oldTable = 'CREATE TABLE webhooks (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL, secret TEXT NOT NULL, types TEXT, devices TEXT, retry_for INTEGER NOT NULL, created INTEGER NOT NULL)';
  const insert = "INSERT INTO webhooks (url, secret, retry_for, created) VALUES ('https://example.com/old', 'whsec_x', 1000, 1)";
  const file = path.join(dir, 'old.db');
  const Database = (await import('better-sqlite3')).default;
  const raw = new Database(file);
  raw.exec(`${oldTable}; ${insert}`);
  raw.close();
  const dbs = [file];
  if (pg) {
    const url = await pg.createDatabase('old_webhooks');
    const { Client } = await import('pg');
    const c = new Client({ connectionString: url });
    await c.connect();
    await c.query(`${oldTable.replace('INTEGER PRIMARY KEY AUTOINCREMENT', 'BIGSERIAL PRIMARY KEY').replace(/types TEXT, devices TEXT/, 'types TEXT[], devices TEXT[]')}; ${insert}`);
    await c.end();
    dbs.push(url);
  }
  const { openStore } = await import('../src/cloud/store');
  for (const db of dbs) {
    const store = await openStore(db);
    try {
      const [w] = await store.webhooks.listWebhooks();
      assert.deepEqual([w.url, w.kind], ['https://example.com/old', 'url']);
      const id = await store.webhooks.putCliCode('module.exports = async () => {};', 1000, 2);
      assert.equal((await store.webhooks.webhook(id))?.kind, 'code');
    } finally {
      await store.close();
    }
  }
});

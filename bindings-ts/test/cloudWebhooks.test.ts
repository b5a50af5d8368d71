// Webhooks against a cloud in this process, on both stores (SQLite, PostgreSQL): devices sync
// over MQTT, local receivers (webhookReceiver.ts) check every POST's signature and shape. Every
// event reaches every matching receiver once, in order per device; failures are retried and end
// in the dead letters with their reason, which replay sends again; a receiver that never answers
// holds only its own deliveries. The cloud killed mid-delivery and two workers sharing one
// PostgreSQL are in cloudWebhooksProcess.test.ts.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as http from 'http';
import * as path from 'path';
import { DeviceClient, MemoryStorage } from '../src/cloud/deviceClient';
import { Cloud, startCloud } from '../src/cloud/service';
import { deviceId, freePort, PgServer, postgresBin, POSTGRES_MISSING, startPostgres, tmpDir, waitFor } from '../src/cloud/testkit';
import type { DeliveryRecord, WebhookRecord } from '../src/cloud/webhooks';
import { Receiver, startReceiver } from './webhookReceiver';

const dir = tmpDir('beacon-webhooks-test-');
/** Small enough that a test event can exceed it (the default is 64 KiB). */
const BODY_LIMIT = 4096;

let pg: PgServer | undefined;
before(async () => {
  if (postgresBin()) pg = await startPostgres({ fsync: false });
});
after(() => pg?.stop());

function suite(kind: 'sqlite' | 'postgres'): void {
  const skip = kind === 'postgres' && !postgresBin() ? POSTGRES_MISSING : false;
  describe(`webhooks: ${kind}`, { skip }, () => {
    let cloud: Cloud;
    const receivers: Receiver[] = [];
    const log: string[] = [];

    before(async () => {
      const db = kind === 'sqlite' ? path.join(dir, 'hooks.db') : await (pg as PgServer).createDatabase('hooks');
      // A fast retry schedule: the tests wait for retries and dead letters.
      cloud = await startCloud({ port: 0, httpPort: 0, db, log: (l) => log.push(l), webhooks: { retryBaseMs: 50, timeoutMs: 1500, pollMs: 100, bodyLimit: BODY_LIMIT, concurrency: 4 } });
    });
    after(async () => {
      await cloud?.stop();
      for (const r of receivers) await r.close();
    });

    async function api<T>(p: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
      const res = await fetch(`${cloud.httpUrl}${p}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${cloud.token}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as T };
    }

    async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
      const r = await startReceiver(answer);
      receivers.push(r);
      return r;
    }

    /** Register a webhook for a receiver through the API; the receiver learns the secret. */
    async function hook(r: Receiver | string, extra: Record<string, unknown> = {}): Promise<number> {
      const res = await api<WebhookRecord & { secret: string }>('/api/webhooks', { method: 'POST', body: { url: typeof r === 'string' ? r : r.url, ...extra } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.body.secret, /^whsec_[0-9a-f]{64}$/);
      if (typeof r !== 'string') r.secret = res.body.secret;
      return res.body.id;
    }

    async function device(): Promise<DeviceClient> {
      const id = deviceId();
      const cred = await cloud.issueDevice(id);
      return new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage(), batchEvents: 10 });
    }

    async function dead(id: number, n: number): Promise<DeliveryRecord[]> {
      return waitFor(`${n} dead letters of webhook ${id}`, async () => {
        const d = (await api<{ deliveries: DeliveryRecord[] }>(`/api/webhooks/${id}/deliveries?status=dead`)).body.deliveries;
        return d.length >= n ? d : undefined;
      }, 400, 50);
    }

    async function removeAll(): Promise<void> {
      for (const w of (await api<{ webhooks: WebhookRecord[] }>('/api/webhooks')).body.webhooks) await api(`/api/webhooks/${w.id}`, { method: 'DELETE' });
    }

    test('every event and variable update reaches the receiver once, in order per device, signed; the secret is shown once', async () => {
      await removeAll();
      const r = await receiver();
      const id = await hook(r);
      const devices = [await device(), await device()];
      for (const d of devices) {
        for (let i = 1; i <= 23; i++) d.enqueue('temp', { celsius: i }, { volatile: false });
        d.setVar('mode', 'eco');
      }
      await Promise.all(devices.map((d) => d.sync()));
      await waitFor('48 deliveries', () => (r.accepted().length >= 48 ? true : undefined), 400, 50);
      assert.deepEqual(r.invalid, []);
      assert.ok(r.requests.every((x) => x.signatureOk && x.age >= 0 && x.age < 300), 'every request carries a valid, fresh signature');
      for (const d of devices) {
        const got = r.accepted().filter((x) => x.body.deviceId === d.id);
        assert.deepEqual(got.map((x) => x.body.seq), Array.from({ length: 24 }, (_, i) => i + 1), 'each event once, in order');
        assert.ok(got.every((x) => x.key === `${d.id}:${x.body.stream}:${x.body.seq}` && x.body.identifier === d.id && x.webhookId === String(id)));
        assert.deepEqual(got[0].body.payload, { celsius: 1 });
        const v = got[23].body;
        assert.equal(v.variable, true);
        assert.equal(v.type, 'mode');
        assert.deepEqual(v.payload, 'eco');
        // enqueuedAt is the device's time of the event, as stored.
        const stored = (await cloud.store.events(d.id, { limit: 100 })).events.find((e) => e.seq === 1);
        assert.equal(got[0].body.enqueuedAt, new Date(stored?.ts ?? 0).toISOString());
      }
      const list = await api<{ webhooks: (WebhookRecord & { secret?: string })[] }>('/api/webhooks');
      const w = list.body.webhooks.find((x) => x.id === id);
      assert.equal(w?.url, r.url);
      assert.equal(w?.pending, 0);
      assert.ok(!('secret' in (w ?? {})), 'the list does not show the secret');
      assert.ok(!JSON.stringify(await api(`/api/webhooks/${id}`)).includes(r.secret), 'nor does the webhook itself');
    });

    test('filters: by type, by device', async () => {
      await removeAll();
      const [byType, byDevice] = [await receiver(), await receiver()];
      const [d1, d2] = [await device(), await device()];
      await hook(byType, { types: ['temp', 'door'] });
      await hook(byDevice, { devices: [d2.id.toUpperCase()] });
      for (const d of [d1, d2]) {
        d.enqueue('temp', { n: 1 }, { volatile: false });
        d.enqueue('noise', { n: 2 }, { volatile: false });
        d.enqueue('door', { n: 3 }, { volatile: false });
      }
      await d1.sync();
      await d2.sync();
      await waitFor('filtered deliveries', () => (byType.accepted().length >= 4 && byDevice.accepted().length >= 3 ? true : undefined), 400, 50);
      // Everything that matched came, so nothing else can still be on its way behind it: a
      // device's events go out in order, and d2's last one (door) was delivered to both.
      assert.deepEqual(byType.accepted().map((x) => `${x.body.deviceId === d1.id ? 1 : 2}:${x.body.type}`).sort(), ['1:door', '1:temp', '2:door', '2:temp']);
      assert.deepEqual(byDevice.accepted().map((x) => x.body.type), ['temp', 'noise', 'door']);
      assert.ok(byDevice.accepted().every((x) => x.body.deviceId === d2.id));
    });

    test('a receiver answering 500 gets the event again until it answers 200, and the order holds', async () => {
      await removeAll();
      const r = await receiver((_, n) => (n <= 2 ? 500 : 200));
      await hook(r);
      const d = await device();
      for (let i = 1; i <= 3; i++) d.enqueue('temp', { i }, { volatile: false });
      await d.sync();
      await waitFor('3 deliveries', () => (r.accepted().length >= 3 ? true : undefined), 400, 50);
      assert.deepEqual(r.requests.map((x) => `${x.body.seq}#${x.attempt}`), ['1#1', '1#2', '1#3', '2#1', '2#2', '2#3', '3#1', '3#2', '3#3']);
      assert.deepEqual(r.accepted().map((x) => x.body.seq), [1, 2, 3]);
    });

    test('a redirect, an unreachable receiver, one that always answers 500: dead letters with the reason; replay delivers them', async () => {
      await removeAll();
      const target = await receiver();
      const redirecting = await receiver(() => ({ redirect: target.url }));
      let failing = true;
      const erroring = await receiver(() => (failing ? 503 : 200));
      const port = await freePort();
      const retryFor = 300;
      const ids = {
        redirect: await hook(redirecting, { retryFor }),
        refused: await hook(`http://127.0.0.1:${port}/hook`, { retryFor }),
        status: await hook(erroring, { retryFor }),
      };
      const d = await device();
      d.enqueue('temp', { a: 1 }, { volatile: false });
      d.enqueue('temp', { a: 2 }, { volatile: false });
      const synced = await d.sync();
      assert.equal(synced.acked, 2, 'ingest goes on');
      const reasons = {
        redirect: await dead(ids.redirect, 2),
        refused: await dead(ids.refused, 2),
        status: await dead(ids.status, 2),
      };
      assert.match(reasons.redirect[0].lastError ?? '', new RegExp(`^redirect not followed: HTTP 302 to ${target.url.replace(/[.]/g, '\\.')}`));
      assert.match(reasons.refused[0].lastError ?? '', /^connection refused/);
      assert.match(reasons.status[0].lastError ?? '', /^HTTP 503: receiver says no \(503\) \(after \d+ attempts/);
      assert.ok(reasons.status.every((x) => x.attempts >= 2 && x.status === 'dead'), 'retried before giving up');
      assert.deepEqual(reasons.status.map((x) => x.seq), [1, 2]);
      assert.equal(target.requests.length, 0, 'the redirect was not followed');
      const listed = (await api<{ webhooks: WebhookRecord[] }>('/api/webhooks')).body.webhooks;
      assert.deepEqual(listed.map((w) => [w.dead, w.pending]), [[2, 0], [2, 0], [2, 0]]);

      // The receivers are fixed; replay sends the dead letters again, in their order.
      failing = false;
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      });
      await new Promise<void>((done) => server.listen(port, '127.0.0.1', () => done()));
      try {
        const replayed = await api<{ replayed: number }>(`/api/webhooks/${ids.status}/replay`, { method: 'POST' });
        assert.deepEqual(replayed.body, { id: ids.status, replayed: 2 });
        assert.equal((await api<{ replayed: number }>(`/api/webhooks/${ids.refused}/replay`, { method: 'POST' })).body.replayed, 2);
        await waitFor('replayed deliveries', () => (erroring.accepted().length >= 2 ? true : undefined), 400, 50);
        assert.deepEqual(erroring.accepted().map((x) => x.body.seq), [1, 2]);
        await waitFor('the other webhook emptied', async () => {
          const w = (await api<WebhookRecord>(`/api/webhooks/${ids.refused}`)).body;
          return w.dead === 0 && w.pending === 0 ? true : undefined;
        }, 400, 50);
        assert.deepEqual((await dead(ids.status, 0)).length, 0);
      } finally {
        await new Promise<void>((done) => server.close(() => done()));
      }
    });

    test('an event whose body is over the limit is dead-lettered at once; the device\'s next event still goes', async () => {
      await removeAll();
      const r = await receiver();
      const id = await hook(r);
      const d = await device();
      d.enqueue('blob', { text: 'x'.repeat(BODY_LIMIT) }, { volatile: false });
      d.enqueue('temp', { after: true }, { volatile: false });
      await d.sync();
      const [letter] = await dead(id, 1);
      assert.match(letter.lastError ?? '', new RegExp(`^body of \\d+ bytes over the ${BODY_LIMIT}-byte limit$`));
      assert.equal(letter.attempts, 0);
      await waitFor('the next event', () => (r.accepted().length >= 1 ? true : undefined), 400, 50);
      assert.deepEqual(r.accepted().map((x) => x.body.seq), [2]);
    });

    test('a receiver that never answers holds only its own deliveries: ingest and another receiver go on', async () => {
      await removeAll();
      const silent = await receiver(() => 'hang');
      const healthy = await receiver();
      await hook(silent);
      await hook(healthy);
      const devices = [await device(), await device(), await device(), await device(), await device(), await device()];
      for (const d of devices) for (let i = 0; i < 12; i++) d.enqueue('temp', { i }, { volatile: false });
      const results = await Promise.all(devices.map((d) => d.sync()));
      assert.deepEqual(results.map((x) => x.acked), devices.map(() => 12), 'every event acknowledged');
      await waitFor('72 deliveries to the healthy receiver', () => (healthy.accepted().length >= 72 ? true : undefined), 400, 50);
      assert.ok(silent.requests.length >= 1 && silent.accepted().length === 0);
      // The silent receiver never holds more than its own limit of requests.
      assert.ok(silent.requests.length <= 4 * 2, `${silent.requests.length} requests to the silent receiver`);
      const h = await cloud.health();
      assert.ok(h.webhooks.delivered >= 72);
    });

    test('bad input to the API: each refused with the argument named', async () => {
      const cases: [unknown, RegExp][] = [
        [{}, /^url: a webhook needs the receiver's URL/],
        [{ url: 'not a url' }, /^url: 'not a url' is not a URL/],
        [{ url: 'ftp://example.com/x' }, /^url: only http and https receivers, not 'ftp'/],
        [{ url: 'http://example.com/hook' }, /^url: plain http:\/\/ only to a loopback receiver/],
        [{ url: 'https://user:pw@example.com/hook' }, /^url: no user name or password/],
        [{ url: 'https://example.com/hook', types: [] }, /^types: a list of 1 to 100 values/],
        [{ url: 'https://example.com/hook', types: ['x'.repeat(31)] }, /^types: '.*' is not an event type/],
        [{ url: 'https://example.com/hook', devices: ['xyz'] }, /^devices: 'xyz' is not a device public id/],
        [{ url: 'https://example.com/hook', retryFor: -5 }, /^retryFor: how long to retry, in ms/],
        [{ url: 'https://example.com/hook', retryFor: '1h' }, /^retryFor: how long to retry, in ms/],
        [{ url: 'https://example.com/hook', secret: 'mine' }, /^unknown field 'secret'/],
        [{ url: 'https://example.com/hook', allowHttp: 'yes' }, /^allowHttp must be true or false/],
      ];
      for (const [body, error] of cases) {
        const res = await api<{ error: string }>('/api/webhooks', { method: 'POST', body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match(res.body.error, error);
      }
      const http1 = await api<{ id: number; url: string }>('/api/webhooks', { method: 'POST', body: { url: 'http://example.com/hook', allowHttp: true } });
      assert.equal(http1.status, 201);
      assert.match((await api<{ error: string }>(`/api/webhooks/${http1.body.id}/deliveries?status=done`)).body.error, /^status must be dead or pending/);
      assert.equal((await api('/api/webhooks/99999')).status, 404);
      assert.equal((await api('/api/webhooks/abc')).status, 400);
      assert.equal((await api('/api/webhooks/99999', { method: 'DELETE' })).status, 404);
      const noToken = await fetch(`${cloud.httpUrl}/api/webhooks`);
      assert.equal(noToken.status, 401);
    });

    test('removing a webhook removes its pending deliveries', async () => {
      await removeAll();
      const silent = await receiver(() => 503);
      const gone = await hook(silent, { retryFor: 3_600_000 });
      const d = await device();
      for (let i = 0; i < 3; i++) d.enqueue('temp', { i }, { volatile: false });
      await d.sync();
      await waitFor('a failed attempt', () => (silent.requests.length >= 1 ? true : undefined), 400, 50);
      const pending = (await api<{ deliveries: DeliveryRecord[] }>(`/api/webhooks/${gone}/deliveries?status=pending`)).body.deliveries;
      assert.deepEqual(pending.map((x) => x.seq), [1, 2, 3]);
      assert.match(pending[0].lastError ?? '', /^HTTP 503/);
      assert.deepEqual((await api(`/api/webhooks/${gone}`, { method: 'DELETE' })).body, { id: gone, removed: true });
      assert.equal((await api(`/api/webhooks/${gone}/deliveries?status=pending`)).status, 404);
    });
  });
}

suite('sqlite');
suite('postgres');

// The PostgreSQL store's own behaviour, beyond the suite both stores share
// (cloudStore.test.ts): a group of batches in one statement, the events table partitioned by
// day with a default partition for wild clocks, two workers on one database, the migration from
// the unpartitioned table, retention (the store and `beacon cloud prune`), a hung server.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as net from 'net';
import { Client } from 'pg';
import { DAY_MS, partitionName } from '../src/cloud/pgEvents';
import { PgStore, PgStoreOptions } from '../src/cloud/pgStore';
import type { WireEvent } from '../src/cloud/protocol';
import { beaconSync, deviceId, PgServer, postgresBin, POSTGRES_MISSING, startPostgres } from '../src/cloud/testkit';

// The server's clock in these tests (a Saturday noon, UTC): partitions are made for days from
// 400 before to 2 after it.
const NOW = Date.UTC(2026, 10, 28, 12);
const day = (n: number): number => Date.UTC(2026, 10, 28) + n * DAY_MS;

function ev(seq: number, ts: number, extra: Partial<WireEvent> = {}): WireEvent {
  return { seq, type: 'temp', ts, payload: { n: seq }, volatile: false, variable: false, ...extra };
}

/** The batches a GroupCommitter hands over together: the store runs 4 groups at once, so after 4
 * fillers (each a group of its own, issued in the same turn) every further batch waits and
 * all of them form the next group. */
async function inOneGroup(store: PgStore, batches: { id: string; stream: number; events: WireEvent[] }[]): Promise<number[]> {
  const fillers = Array.from({ length: 4 }, async () => {
    const id = deviceId();
    await store.putCredential(id, 'h', 1);
    return id;
  });
  const ids = await Promise.all(fillers);
  const calls = [...ids.map((id) => store.storeEvents(id, 1, [ev(1, NOW)], NOW)), ...batches.map((b) => store.storeEvents(b.id, b.stream, b.events, NOW))];
  return (await Promise.all(calls)).slice(4);
}

const pgBin = postgresBin();
if (!pgBin) {
  test('store: postgres partitions', { skip: POSTGRES_MISSING }, () => undefined);
} else {
  describe('store: postgres, partitioned by day', () => {
    let pg: PgServer;
    let n = 0;
    const open: PgStore[] = [];
    const clients: Client[] = [];
    before(async () => {
      pg = await startPostgres({ fsync: false });
    });
    after(async () => {
      for (const s of open) await s.close().catch(() => undefined);
      for (const c of clients) await c.end().catch(() => undefined);
      pg?.stop();
    });
    async function database(): Promise<{ url: string; sql: Client }> {
      const url = await pg.createDatabase(`parts_${++n}`);
      const sql = new Client({ connectionString: url });
      await sql.connect();
      clients.push(sql);
      return { url, sql };
    }
    async function store(url: string, options: PgStoreOptions = { clock: () => NOW }): Promise<PgStore> {
      const s = new PgStore(url, options);
      open.push(s);
      await s.init();
      return s;
    }
    async function partitions(sql: Client): Promise<string[]> {
      const r = await sql.query<{ relname: string }>(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`);
      return r.rows.map((x) => x.relname);
    }
    async function whereStored(sql: Client, id: string): Promise<string[]> {
      const r = await sql.query<{ at: string; seq: string }>('SELECT tableoid::regclass::text AS at, seq FROM events WHERE device_id = $1 ORDER BY seq', [id]);
      return r.rows.map((x) => `${x.seq}@${x.at}`);
    }

    test('a group is one statement: per-batch counts with duplicates across and within it', async () => {
      const { url, sql } = await database();
      const s = await store(url);
      const id = deviceId();
      const other = deviceId();
      await s.putCredential(id, 'h', 1);
      await s.putCredential(other, 'h', 1);
      assert.equal(await s.storeEvents(id, 1, [ev(100, NOW)], NOW), 1);
      const a = [1, 2, 3, 4, 5].map((q) => ev(q, NOW + q));
      const counts = await inOneGroup(s, [
        { id, stream: 1, events: a },
        { id, stream: 1, events: [4, 5, 6, 7, 8].map((q) => ev(q, NOW + q)) }, // 4 and 5 are a's
        { id, stream: 1, events: a }, // a retransmitted while a waited
        { id, stream: 1, events: [ev(9, NOW + 9), ev(9, NOW + 9)] }, // one event twice in a batch
        { id, stream: 1, events: [ev(100, NOW), ev(101, NOW + 101)] }, // 100 was stored before
        { id, stream: 2, events: [ev(1, NOW + 1)] }, // another stream: another event
        { id: other, stream: 1, events: a }, // another device: other events
      ]);
      assert.deepEqual(counts, [5, 3, 0, 1, 1, 1, 5]);
      assert.equal((await s.device(id))?.events, 12);
      assert.equal((await s.device(other))?.events, 5);
      // One statement, so one transaction: every row of the group has the same xmin.
      const x = await sql.query(`SELECT DISTINCT xmin::text FROM events WHERE (device_id = $1 AND seq <> 100) OR device_id = $2`, [id, other]);
      assert.equal(x.rows.length, 1);
    });

    test('variables: in one group only the newest value per variable is applied', async () => {
      const { url, sql } = await database();
      const s = await store(url);
      const id = deviceId();
      await s.putCredential(id, 'h', 1);
      const v = (seq: number, name: string, ts: number, value: string): WireEvent => ev(seq, ts, { type: name, payload: value, variable: true, volatile: true });
      assert.equal(await s.storeEvents(id, 1, [v(1, 'speed', NOW + 50, 'fast')], NOW), 1);
      const counts = await inOneGroup(s, [
        { id, stream: 1, events: [v(2, 'mode', NOW + 20, 'b'), v(3, 'level', NOW + 5, 'x')] },
        { id, stream: 1, events: [v(4, 'mode', NOW + 30, 'c'), v(5, 'level', NOW + 5, 'y')] }, // same time: the later seq
        { id, stream: 1, events: [v(6, 'mode', NOW + 10, 'a')] }, // older than b and c
        { id, stream: 1, events: [v(7, 'speed', NOW + 40, 'slow')] }, // older than the stored value
        { id, stream: 1, events: [v(4, 'mode', NOW + 30, 'c')] }, // a duplicate
      ]);
      assert.deepEqual(counts, [2, 2, 1, 1, 0]);
      assert.deepEqual(await s.variables(id), [
        { name: 'level', value: 'y', ts: NOW + 5 },
        { name: 'mode', value: 'c', ts: NOW + 30 },
        { name: 'speed', value: 'fast', ts: NOW + 50 },
      ]);
      // The variables changed in the group's own transaction.
      const ev6 = await sql.query(`SELECT xmin::text AS x FROM events WHERE device_id = $1 AND seq = 6`, [id]);
      const mode = await sql.query(`SELECT xmin::text AS x FROM variables WHERE device_id = $1 AND name = 'mode'`, [id]);
      assert.equal(mode.rows[0].x, ev6.rows[0].x);
    });

    test('a partition for each day present, in the window; wild clocks go to the default one, deduplicated too', async () => {
      const { url, sql } = await database();
      const s = await store(url);
      const id = deviceId();
      await s.putCredential(id, 'h', 1);
      const far = NOW + 10 * 365 * DAY_MS;
      const batch = [ev(1, day(-1) + 5), ev(2, day(0)), ev(3, day(1) - 1), ev(4, day(2) + 7), ev(5, 0), ev(6, far), ev(7, day(-400)), ev(8, day(-401) + 1)];
      assert.equal(await s.storeEvents(id, 1, batch, NOW), 8);
      const first = partitionName(Math.floor(day(-400) / DAY_MS)); // 400 days back: the window's first
      assert.equal(first, 'events_20251024');
      assert.deepEqual(await partitions(sql), [first, 'events_20261127', 'events_20261128', 'events_20261130', 'events_default']);
      assert.deepEqual(await whereStored(sql, id), [
        '1@events_20261127',
        '2@events_20261128',
        '3@events_20261128',
        '4@events_20261130',
        '5@events_default',
        '6@events_default',
        '7@events_20251024',
        '8@events_default',
      ]);
      // Retransmitted, also by a second worker that has not seen these days yet: stored once.
      assert.equal(await s.storeEvents(id, 1, batch, NOW), 0);
      const s2 = await store(url);
      assert.equal(await s2.storeEvents(id, 1, [ev(5, 0), ev(6, far), ev(1, day(-1) + 5)], NOW), 0);
      assert.equal((await s.device(id))?.events, 8);
      // Pages run across partitions, newest first.
      assert.deepEqual((await s.events(id, { limit: 100 })).events.map((e) => e.seq), [6, 4, 3, 2, 1, 7, 8, 5]);
    });

    test('a day whose events went to the default partition gets them when its partition is made', async () => {
      const { url, sql } = await database();
      let clock = NOW;
      const s = await store(url, { clock: () => clock });
      const id = deviceId();
      await s.putCredential(id, 'h', 1);
      // A device clock a week ahead: beyond the window, so into the default partition.
      const ahead = day(7) + 1000;
      assert.equal(await s.storeEvents(id, 1, [ev(1, ahead), ev(2, ahead + 1), ev(3, ahead + 2), ev(10, 0)], NOW), 4);
      assert.deepEqual(await whereStored(sql, id), ['1@events_default', '2@events_default', '3@events_default', '10@events_default']);
      const rows = (await sql.query('SELECT row::text FROM events WHERE device_id = $1 ORDER BY seq', [id])).rows;
      // Six days later the day is in the window: two workers want its partition at once.
      clock = NOW + 6 * DAY_MS;
      const s2 = await store(url, { clock: () => clock });
      const added = await Promise.all([s.storeEvents(id, 1, [ev(2, ahead + 1), ev(4, ahead + 3)], clock), s2.storeEvents(id, 1, [ev(3, ahead + 2), ev(4, ahead + 3)], clock)]);
      assert.equal(added[0] + added[1], 1);
      assert.ok((await partitions(sql)).includes('events_20261205'));
      assert.deepEqual(await whereStored(sql, id), ['1@events_20261205', '2@events_20261205', '3@events_20261205', '4@events_20261205', '10@events_default']);
      // Moved with their row ids, so page cursors given out before stay valid.
      assert.deepEqual((await sql.query('SELECT row::text FROM events WHERE device_id = $1 AND seq <> 4 ORDER BY seq', [id])).rows, rows);
    });

    test('two workers storing the same batches at once store each event once', async () => {
      const { url, sql } = await database();
      // Both start on an empty database at once: schema creation under the advisory lock.
      const [w1, w2] = await Promise.all([store(url), store(url)]);
      const ids = Array.from({ length: 20 }, () => deviceId());
      for (const id of ids) await w1.putCredential(id, 'h', 1);
      const batches = ids.flatMap((id, d) => Array.from({ length: 10 }, (_, b) => ({ id, events: Array.from({ length: 10 }, (_, i) => ev(b * 10 + i + 1, day(-(b % 4)) + d * 1000 + i)) })));
      const counts = await Promise.all([...batches.map((b) => w1.storeEvents(b.id, 1, b.events, NOW)), ...[...batches].reverse().map((b) => w2.storeEvents(b.id, 1, b.events, NOW))]);
      assert.equal(counts.reduce((a, b) => a + b, 0), 2000);
      assert.equal(Number((await sql.query('SELECT count(*) FROM events')).rows[0].count), 2000);
      assert.equal(Number((await sql.query('SELECT count(DISTINCT (device_id, seq)) FROM events')).rows[0].count), 2000);
      assert.deepEqual(await partitions(sql), ['events_20261125', 'events_20261126', 'events_20261127', 'events_20261128', 'events_default']);
    });

    test('an unpartitioned events table of an earlier version is migrated in init', async () => {
      const { url, sql } = await database();
      // The schema as earlier versions made it (pgStore.ts before partitioning).
      await sql.query(`
        CREATE TABLE IF NOT EXISTS devices (id TEXT PRIMARY KEY, secret_hash TEXT, revoked BOOLEAN NOT NULL DEFAULT false,
          created BIGINT NOT NULL, last_seen BIGINT, next_msg_id BIGINT NOT NULL DEFAULT 1);
        CREATE TABLE IF NOT EXISTS events (
          row BIGSERIAL PRIMARY KEY,
          device_id TEXT NOT NULL REFERENCES devices(id),
          stream BIGINT NOT NULL,
          seq BIGINT NOT NULL,
          type TEXT NOT NULL,
          ts BIGINT NOT NULL,
          payload TEXT NOT NULL,
          volatile BOOLEAN NOT NULL,
          variable BOOLEAN NOT NULL,
          received BIGINT NOT NULL,
          UNIQUE (device_id, stream, seq)
        );
        CREATE INDEX IF NOT EXISTS events_by_time ON events (device_id, ts DESC, row DESC);
        CREATE INDEX IF NOT EXISTS events_by_type ON events (device_id, type, ts DESC, row DESC);
        CREATE TABLE IF NOT EXISTS variables (device_id TEXT NOT NULL REFERENCES devices(id), name TEXT NOT NULL, value TEXT NOT NULL,
          ts BIGINT NOT NULL, PRIMARY KEY (device_id, name));
        CREATE TABLE IF NOT EXISTS messages (device_id TEXT NOT NULL REFERENCES devices(id), id BIGINT NOT NULL, type TEXT NOT NULL,
          ts BIGINT NOT NULL, payload TEXT NOT NULL, delivered BIGINT, PRIMARY KEY (device_id, id));
        CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      const id = deviceId();
      await sql.query(`INSERT INTO devices (id, secret_hash, created) VALUES ($1, 'h', 1)`, [id]);
      const old = [ev(1, day(-3)), ev(2, day(-3) + 1), ev(3, day(0)), ev(4, 1_700_000_000_000), ev(5, NOW + 5 * 365 * DAY_MS), ev(6, day(-1), { type: 'mode', variable: true, payload: 'eco' })];
      for (const e of old) {
        await sql.query(`INSERT INTO events (device_id, stream, seq, type, ts, payload, volatile, variable, received) VALUES ($1, 1, $2, $3, $4, $5, false, $6, 7)`, [id, e.seq, e.type, e.ts, JSON.stringify(e.payload), e.variable]);
      }
      const before = (await sql.query('SELECT * FROM events ORDER BY row')).rows;
      const s = await store(url);
      assert.equal((await sql.query(`SELECT relkind FROM pg_class WHERE relname = 'events'`)).rows[0].relkind, 'p');
      assert.deepEqual((await sql.query('SELECT * FROM events ORDER BY row')).rows, before);
      assert.deepEqual(await partitions(sql), ['events_20261125', 'events_20261127', 'events_20261128', 'events_default']);
      assert.equal((await sql.query(`SELECT to_regclass('events_unpartitioned') AS t`)).rows[0].t, null);
      // What was stored before is still deduplicated; new events go on numbering rows after it.
      assert.equal(await s.storeEvents(id, 1, old, NOW), 0);
      assert.equal(await s.storeEvents(id, 1, [ev(7, day(0) + 1)], NOW), 1);
      const page = await s.events(id, { limit: 3 });
      assert.deepEqual(page.events.map((e) => e.seq), [5, 7, 3]);
      // (Not before.length + 1: an insert skipped by ON CONFLICT has taken a number too.)
      const rows = (await sql.query('SELECT row::int AS r FROM events WHERE seq = 7')).rows;
      assert.ok(rows[0].r > before.length, `row ${rows[0].r}`);
      assert.equal((await s.device(id))?.events, 7);
      // A second worker's init (and any later one) finds it done.
      await store(url);
      assert.equal(Number((await sql.query('SELECT count(*) FROM events')).rows[0].count), 7);
    });

    test('prune drops whole old partitions, deletes old rows of the default one, keeps the rest', async () => {
      const { url, sql } = await database();
      const s = await store(url);
      const id = deviceId();
      await s.putCredential(id, 'h', 1);
      const cutoff = NOW - 90 * DAY_MS; // 2026-08-30 12:00
      const events = [
        ev(1, day(-100)),
        ev(2, day(-100) + 1),
        ev(3, day(-95)),
        ev(4, cutoff - 3_600_000), // before the cutoff, but on the cutoff's day: kept with its day
        ev(5, day(-10)),
        ev(6, NOW),
        ev(7, 1000), // 1970: default partition, deleted
        ev(8, NOW + 1000 * DAY_MS), // far ahead: default partition, kept
      ];
      assert.equal(await s.storeEvents(id, 1, events, NOW), 8);
      const r = await s.prune(cutoff);
      assert.deepEqual(r, { partitions: ['events_20260820', 'events_20260825'], events: 4 });
      assert.deepEqual(await partitions(sql), ['events_20260830', 'events_20261118', 'events_20261128', 'events_default']);
      assert.deepEqual((await s.events(id, { limit: 100 })).events.map((e) => e.seq), [8, 6, 5, 4]);
      assert.deepEqual(await s.prune(cutoff), { partitions: [], events: 0 });
      // A late event of a pruned day makes its partition again (it is inside the window).
      assert.equal(await s.storeEvents(id, 1, [ev(1, day(-100))], NOW), 1);
      assert.ok((await partitions(sql)).includes('events_20260820'));
    });

    test('beacon cloud prune --older-than: end to end, and refused durations', async () => {
      const { url } = await database();
      // The command uses the real clock: events relative to now.
      const s = await store(url, {});
      const id = deviceId();
      await s.putCredential(id, 'h', 1);
      const now = Date.now();
      await s.storeEvents(id, 1, [ev(1, now - 100 * DAY_MS), ev(2, now - 100 * DAY_MS + 1), ev(3, 7), ev(4, now - 3 * DAY_MS), ev(5, now)], now);
      const json = beaconSync(['cloud', 'prune', '--older-than', '90d', '--db', url, '--json']);
      assert.equal(json.status, 0, json.stderr);
      const r = JSON.parse(json.stdout) as { olderThan: number; partitions: string[]; events: number };
      assert.deepEqual(r.partitions, [partitionName(Math.floor((now - 100 * DAY_MS) / DAY_MS))]);
      assert.equal(r.events, 3);
      assert.ok(Math.abs(r.olderThan - (now - 90 * DAY_MS)) < 60_000);
      assert.deepEqual((await s.events(id)).events.map((e) => e.seq), [5, 4]);
      // 36 hours: the day of 3 days ago has ended by then, today has not.
      const text = beaconSync(['cloud', 'prune', '--older-than', '36h', '--db', url]);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`^1 partitions dropped: ${partitionName(Math.floor((now - 3 * DAY_MS) / DAY_MS))}$`, 'm'));
      assert.match(text.stdout, /^1 events removed \(device time before \d{4}-\d\d-\d\dT/m);
      assert.deepEqual((await s.events(id)).events.map((e) => e.seq), [5]);
      for (const bad of [[], ['--older-than', '0d'], ['--older-than', 'soon'], ['--older-than', '90'], ['--older-than', '-3d'], ['--older-than', '2 fortnights']]) {
        const r2 = beaconSync(['cloud', 'prune', ...bad, '--db', url]);
        assert.equal(r2.status, 2, `${bad.join(' ')}: ${r2.stderr}`);
        assert.match(r2.stderr, /--older-than/);
      }
      assert.equal(beaconSync(['cloud', 'prune', 'now', '--older-than', '1d', '--db', url]).status, 2);
      assert.deepEqual((await s.events(id)).events.map((e) => e.seq), [5]);
    });

    test('a server that never answers fails ping and queries in bounded time', async () => {
      // Accepts connections and says nothing: a hung server, or a network that drops packets.
      const sockets: net.Socket[] = [];
      const silent = net.createServer((c) => sockets.push(c));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as net.AddressInfo).port;
      try {
        const s = new PgStore(`postgres://postgres@127.0.0.1:${port}/x`, { connectionTimeoutMillis: 300 });
        const t0 = Date.now();
        await assert.rejects(s.ping(), /timeout/i);
        await assert.rejects(s.storeEvents(deviceId(), 1, [ev(1, NOW)], NOW), /timeout/i);
        assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
        await s.close();
      } finally {
        for (const c of sockets) c.destroy();
        silent.close();
      }
      assert.throws(() => new PgStore('postgres://x/y', { statementTimeoutMillis: 0 }), /statementTimeoutMillis must be a positive integer/);
    });
  });
}

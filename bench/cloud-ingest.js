// The PostgreSQL store's write path alone (bench/cloud-ingest.sh runs this after building the
// tools): simulated devices call storeEvents concurrently, no broker in between, on a throwaway
// server with fsync on and synchronous_commit at its default (on), so every commit is a flush.
//
// Each worker is a process of its own with its own PgStore (its own pool and group committer),
// as the cloud's stateless workers are; the devices are split between them. Each device stores
// BATCHES batches of 10 events of 200-byte payloads one after the other (a device waits for its
// acknowledgement), all devices at once. Figures, one a line:
//
//   cloud_pg_store_events_per_s_<variant>    events stored per second, all workers together
//
// Variants: new (this store: one statement a group, partitioned by day), new_fk (the same with a
// foreign key from events to devices, which the store leaves out), old (the store before: one
// INSERT a batch and one a variable, in a transaction a group, into the unpartitioned table).
'use strict';
const { fork } = require('child_process');
const path = require('path');
const dist = path.join(__dirname, '..', 'bindings-ts', 'dist', 'src', 'cloud');

const DEVICES = Number(process.env.CLOUD_INGEST_DEVICES || 200);
const BATCHES = Number(process.env.CLOUD_INGEST_BATCHES || 100);
const WORKERS = Number(process.env.CLOUD_INGEST_WORKERS || 2);
const VARIANTS = (process.env.CLOUD_INGEST_VARIANTS || 'old,new,new_fk').split(',');
const BATCH = 10;
const PAYLOAD = 200;

// The schema and write path of the store before partitioning, for the 'old' variant.
const OLD_SCHEMA = `
CREATE TABLE devices (id TEXT PRIMARY KEY, secret_hash TEXT, revoked BOOLEAN NOT NULL DEFAULT false,
  created BIGINT NOT NULL, last_seen BIGINT, next_msg_id BIGINT NOT NULL DEFAULT 1);
CREATE TABLE events (row BIGSERIAL PRIMARY KEY, device_id TEXT NOT NULL REFERENCES devices(id),
  stream BIGINT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, ts BIGINT NOT NULL, payload TEXT NOT NULL,
  volatile BOOLEAN NOT NULL, variable BOOLEAN NOT NULL, received BIGINT NOT NULL, UNIQUE (device_id, stream, seq));
CREATE INDEX events_by_time ON events (device_id, ts DESC, row DESC);
CREATE INDEX events_by_type ON events (device_id, type, ts DESC, row DESC);
CREATE TABLE variables (device_id TEXT NOT NULL REFERENCES devices(id), name TEXT NOT NULL, value TEXT NOT NULL,
  ts BIGINT NOT NULL, PRIMARY KEY (device_id, name));`;

function oldStore(url) {
  const { Pool } = require('pg');
  const { GroupCommitter } = require(path.join(dist, 'groupCommit.js'));
  const pool = new Pool({ connectionString: url, max: 10 });
  const commit = async (batches) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const counts = [];
      for (const b of batches) {
        const values = [];
        const rows = [];
        for (const e of b.events) {
          const n = values.length;
          rows.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7}, $${n + 8}, $${n + 9})`);
          values.push(b.deviceId, b.stream, e.seq, e.type, e.ts, JSON.stringify(e.payload), e.volatile, e.variable, b.now);
        }
        const r = await c.query(
          `INSERT INTO events (device_id, stream, seq, type, ts, payload, volatile, variable, received)
           VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING RETURNING seq, type, ts, payload, variable`,
          values,
        );
        for (const v of r.rows.filter((x) => x.variable).sort((x, y) => x.seq - y.seq)) {
          await c.query(
            `INSERT INTO variables (device_id, name, value, ts) VALUES ($1, $2, $3, $4)
             ON CONFLICT (device_id, name) DO UPDATE SET value = excluded.value, ts = excluded.ts WHERE excluded.ts >= variables.ts`,
            [b.deviceId, v.type, v.payload, v.ts],
          );
        }
        counts.push(r.rowCount);
      }
      await c.query('COMMIT');
      return counts;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  };
  const committer = new GroupCommitter(commit, 4);
  return {
    storeEvents: (deviceId, stream, events, now) => committer.store({ deviceId, stream, events, now }),
    close: () => pool.end(),
  };
}

function deviceIds(first, count) {
  return Array.from({ length: count }, (_, i) => `5eac0b1d${(first + i).toString(16).padStart(8, '0')}beac051a00000001`);
}

/** A worker process: its own store, its share of the devices, told when to start. */
async function worker() {
  const { variant, url, first, count } = JSON.parse(process.env.CLOUD_INGEST_WORKER);
  let store;
  if (variant === 'old') store = oldStore(url);
  else {
    const { PgStore } = require(path.join(dist, 'pgStore.js'));
    store = new PgStore(url);
    await store.init();
  }
  const payload = { d: 'x'.repeat(PAYLOAD - 8) }; // {"d":"..."}: 200 bytes of JSON
  const ids = deviceIds(first, count);
  const go = new Promise((resolve) => process.once('message', resolve));
  process.send({ ready: true });
  await go;
  const t0 = Date.now();
  let stored = 0;
  await Promise.all(
    ids.map(async (id, d) => {
      let ts = t0 - 3_600_000 + d;
      for (let b = 0; b < BATCHES; b++) {
        const events = Array.from({ length: BATCH }, (_, i) => ({ seq: b * BATCH + i + 1, type: 'telemetry', ts: (ts += 1000), payload, volatile: false, variable: false }));
        const added = await store.storeEvents(id, 0x2a7f19c3, events, Date.now());
        stored += added; // not `stored += await`: that reads stored before waiting
      }
    }),
  );
  const t1 = Date.now();
  await store.close();
  process.send({ t0, t1, stored }, () => process.disconnect());
}

let runs = 0;

async function run(pg, variant) {
  const url = await pg.createDatabase(`ingest_${variant}_${++runs}`);
  const { Client } = require('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    if (variant === 'old') await c.query(OLD_SCHEMA);
    else {
      const { PgStore } = require(path.join(dist, 'pgStore.js'));
      const s = new PgStore(url);
      await s.init();
      await s.close();
      if (variant === 'new_fk') await c.query('ALTER TABLE events ADD FOREIGN KEY (device_id) REFERENCES devices(id)');
    }
    const ids = deviceIds(0, DEVICES);
    await c.query(`INSERT INTO devices (id, secret_hash, revoked, created) SELECT unnest($1::text[]), 'h', false, 1`, [ids]);
  } finally {
    await c.end();
  }
  const per = Math.ceil(DEVICES / WORKERS);
  const children = [];
  for (let w = 0; w < WORKERS; w++) {
    const first = w * per;
    const count = Math.min(per, DEVICES - first);
    const env = { ...process.env, CLOUD_INGEST_WORKER: JSON.stringify({ variant, url, first, count }) };
    const child = fork(__filename, [], { env });
    const messages = [];
    const waiting = [];
    child.on('message', (m) => (waiting.length > 0 ? waiting.shift()(m) : messages.push(m)));
    const exited = new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${variant} worker exited with ${code}`)))));
    const next = () => Promise.race([new Promise((resolve) => (messages.length > 0 ? resolve(messages.shift()) : waiting.push(resolve))), exited.then(() => Promise.reject(new Error('worker ended early')))]);
    children.push({ child, next });
  }
  // Workers open their pools first; then all start together.
  for (const w of children) await w.next();
  for (const w of children) w.child.send('go');
  const results = await Promise.all(children.map((w) => w.next()));
  const t0 = Math.min(...results.map((r) => r.t0));
  const t1 = Math.max(...results.map((r) => r.t1));
  const stored = results.reduce((n, r) => n + r.stored, 0);
  if (stored !== DEVICES * BATCHES * BATCH) throw new Error(`${variant}: ${stored} events stored, expected ${DEVICES * BATCHES * BATCH}`);
  process.stdout.write(`cloud_pg_store_events_per_s_${variant}: ${Math.round(stored / ((t1 - t0) / 1000))} events/s (${WORKERS} workers, ${DEVICES} devices x ${BATCHES} batches of ${BATCH})\n`);
}

module.exports = { deviceIds };

if (process.env.CLOUD_INGEST_WORKER) {
  worker().catch((err) => {
    process.stderr.write(`cloud-ingest worker: ${err.stack || err}\n`);
    process.exit(1);
  });
} else if (require.main === module) {
  (async () => {
    const helpers = require(path.join(dist, 'testkit.js'));
    if (!helpers.postgresBin()) {
      process.stderr.write(`cloud-ingest bench: ${helpers.POSTGRES_MISSING}\n`);
      process.exit(1);
    }
    const pg = await helpers.startPostgres({ fsync: true });
    try {
      for (const v of VARIANTS) await run(pg, v);
    } finally {
      pg.stop();
    }
  })().catch((err) => {
    process.stderr.write(`cloud-ingest bench: ${err.stack || err}\n`);
    process.exit(1);
  });
}

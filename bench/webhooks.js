// Webhook figures (bench/webhooks.sh runs this after building the tools), on a throwaway
// PostgreSQL with fsync on and `beacon cloud` as a process of its own. One line per figure:
//
//   cloud_webhook_commit_to_post_ms_p50 / _p99   from a batch handed to the store (its events'
//       `received` time, taken just before the commit) to the POST of each of its events
//       arriving at a local receiver, while WH_LAT_DEVICES devices sync WH_LAT_EVENTS events each
//       over MQTT, all at once
//   cloud_webhook_deliveries_per_s   a backlog of WH_BACKLOG events (stored while no cloud ran)
//       POSTed to a local receiver that answers 200 at once: events over the span from the first
//       POST to the last (one webhook, its default 8 requests in flight)
//   cloud_webhook_ingest_events_per_s_<none|silent>   the store's write path as in
//       bench/cloud-ingest.js (2 processes, 200 devices x 100 batches of 10 events of 200 bytes),
//       with a cloud process running beside it, without a webhook and with one whose receiver
//       never answers; WH_ROUNDS interleaved rounds, the median of each
//   cloud_webhook_ingest_ratio   silent / none
//   cloud_webhook_ingest_ratio_paired   the median of each round's own silent / none
//   cloud_webhook_ingest_wal_bytes_per_event_<variant>   WAL the server wrote per event stored
//       during those runs (median): the write path's cost without the machine's noise
//   cloud_webhook_ingest_events_per_s_<answering|silent>, cloud_webhook_ingest_ratio_silent_answering
//       the same with a receiver that answers 200 at once against one that never answers (part
//       `deadlive`): what a dead receiver costs beyond having a webhook
//   cloud_code_calls_per_s   a backlog of WH_CODE_BACKLOG events (stored while no cloud ran) run
//       through a cloud-code rule whose handler returns at once (`beacon cloud webhook add --code`):
//       events over the span from the first one done to the last, as the outbox empties (its
//       pending count read every 20 ms); one rule, its default 8 calls in flight, one sandbox
//       process
//   cloud_code_ingest_events_per_s_<none|loop>, cloud_code_ingest_ratio   as the webhook ingest
//       figures, with a cloud-code rule whose handler loops forever (each call ended at its 30 s
//       deadline, the next one looping again) instead of the silent receiver
'use strict';
const { fork } = require('child_process');
const http = require('http');
const path = require('path');
const dist = path.join(__dirname, '..', 'bindings-ts', 'dist', 'src', 'cloud');
const { startPostgres, startCloudProcess, postgresBin, POSTGRES_MISSING, beaconSync } = require(path.join(dist, 'testkit.js'));

const LAT_DEVICES = Number(process.env.WH_LAT_DEVICES || 50);
const LAT_EVENTS = Number(process.env.WH_LAT_EVENTS || 100);
const BACKLOG = Number(process.env.WH_BACKLOG || 20000);
const ROUNDS = Number(process.env.WH_ROUNDS || 3);
const CODE_BACKLOG = Number(process.env.WH_CODE_BACKLOG || 20000);
const INGEST_DEVICES = 200;

function receiver(mode) {
  const arrivals = new Map();
  const server = http.createServer((req, res) => {
    const key = req.headers['beacon-idempotency-key'];
    const at = Date.now();
    req.resume();
    req.on('end', () => {
      if (mode === 'silent') return; // never answers
      if (!arrivals.has(key)) arrivals.set(key, at);
      res.end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/hook`, arrivals, close: () => { server.closeAllConnections(); server.close(); } })));
}

function addWebhook(db, url) {
  const r = beaconSync(['cloud', 'webhook', 'add', url, '--db', db, '--json']);
  if (r.status !== 0) throw new Error(r.stderr);
}

async function until(what, fn, ms = 600_000) {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(pg) {
  const db = await pg.createDatabase('wh_latency');
  const rx = await receiver('ok');
  addWebhook(db, rx.url);
  const { DeviceClient, MemoryStorage } = require(path.join(dist, 'deviceClient.js'));
  const cloud = await startCloudProcess(['--db', db, '--port', '0', '--http-port', '0']);
  try {
    const devices = [];
    for (let i = 0; i < LAT_DEVICES; i++) {
      const id = `5eac0b1d${i.toString(16).padStart(8, '0')}beac051a0000aaaa`;
      const add = beaconSync(['cloud', 'device', 'add', id, '--db', db, '--json']);
      const d = new DeviceClient({ id, password: JSON.parse(add.stdout).password, url: cloud.mqttUrl, storage: new MemoryStorage(), batchEvents: 10, timeoutMs: 60_000 });
      for (let e = 0; e < LAT_EVENTS; e++) d.enqueue('telemetry', { d: 'x'.repeat(192) }, { volatile: false });
      devices.push(d);
    }
    await Promise.all(devices.map((d) => d.sync()));
    const total = LAT_DEVICES * LAT_EVENTS;
    await until('every event delivered', () => rx.arrivals.size >= total);
    const { Client } = require('pg');
    const c = new Client({ connectionString: db });
    await c.connect();
    const rows = (await c.query('SELECT device_id, stream, seq, received FROM events')).rows;
    await c.end();
    const lat = rows.map((r) => rx.arrivals.get(`${r.device_id}:${r.stream}:${r.seq}`) - Number(r.received)).sort((a, b) => a - b);
    process.stdout.write(`cloud_webhook_commit_to_post_ms_p50: ${pct(lat, 50)} ms (${total} events, ${LAT_DEVICES} devices syncing at once)\n`);
    process.stdout.write(`cloud_webhook_commit_to_post_ms_p99: ${pct(lat, 99)} ms\n`);
  } finally {
    await cloud.kill('SIGTERM');
    rx.close();
  }
}

/** A backlog of `total` events of 100 devices, stored straight into the store (no cloud running). */
async function storeBacklog(db, total) {
  const { PgStore } = require(path.join(dist, 'pgStore.js'));
  const store = new PgStore(db);
  await store.init();
  const now = Date.now();
  const perDevice = total / 100;
  await Promise.all(
    Array.from({ length: 100 }, async (_, d) => {
      const id = `5eac0b1d${d.toString(16).padStart(8, '0')}beac051a0000bbbb`;
      for (let b = 0; b < perDevice / 10; b++) {
        const events = Array.from({ length: 10 }, (_, i) => ({ seq: b * 10 + i + 1, type: 'telemetry', ts: now - 3_600_000 + b * 10 + i, payload: { d: 'x'.repeat(192) }, volatile: false, variable: false }));
        await store.storeEvents(id, 7, events, Date.now());
      }
    }),
  );
  await store.close();
}

async function throughput(pg) {
  const db = await pg.createDatabase('wh_backlog');
  const rx = await receiver('ok');
  addWebhook(db, rx.url);
  await storeBacklog(db, BACKLOG);
  const cloud = await startCloudProcess(['--db', db, '--port', '0', '--http-port', '0']);
  try {
    await until('the backlog delivered', () => rx.arrivals.size >= BACKLOG);
    const times = [...rx.arrivals.values()];
    const span = (Math.max(...times) - Math.min(...times)) / 1000;
    process.stdout.write(`cloud_webhook_deliveries_per_s: ${Math.round(BACKLOG / span)} deliveries/s (a backlog of ${BACKLOG} events from 100 devices, one webhook, 8 in flight)\n`);
  } finally {
    await cloud.kill('SIGTERM');
    rx.close();
  }
}

async function codeCalls(pg) {
  const db = await pg.createDatabase('wh_code');
  const fs = require('fs');
  const os = require('os');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wh-code-')), 'handlers.js');
  fs.writeFileSync(file, 'module.exports = async function (event) {};\n');
  // The rule first: the outbox rows are written with the events.
  const r = beaconSync(['cloud', 'webhook', 'add', '--code', file, '--db', db, '--json']);
  if (r.status !== 0) throw new Error(r.stderr);
  await storeBacklog(db, CODE_BACKLOG);
  const { Client } = require('pg');
  const c = new Client({ connectionString: db });
  await c.connect();
  const pending = async () => Number((await c.query('SELECT coalesce(sum(cardinality(seqs) - pos), 0) AS n FROM outbox')).rows[0].n);
  const cloud = await startCloudProcess(['--db', db, '--port', '0', '--http-port', '0']);
  try {
    let first;
    let left = await pending();
    while (left > 0) {
      await new Promise((res) => setTimeout(res, 20));
      left = await pending();
      if (first === undefined && left < CODE_BACKLOG) first = { at: Date.now(), left };
    }
    const span = (Date.now() - first.at) / 1000;
    const dead = Number((await c.query('SELECT count(*) AS n FROM dead_letters')).rows[0].n);
    if (dead > 0) throw new Error(`${dead} cloud-code calls failed`);
    process.stdout.write(`cloud_code_calls_per_s: ${Math.round(first.left / span)} calls/s (a backlog of ${CODE_BACKLOG} events from 100 devices, a handler that returns at once, 8 in flight)\n`);
  } finally {
    await c.end();
    await cloud.kill('SIGTERM');
  }
}

let runs = 0;
async function ingestOnce(pg, variant) {
  const db = await pg.createDatabase(`wh_ingest_${variant}_${++runs}`);
  const { PgStore } = require(path.join(dist, 'pgStore.js'));
  const s = new PgStore(db);
  await s.init();
  // The devices are registered, as a cloud's are (an ingest with webhooks locks their rows).
  const { deviceIds } = require('./cloud-ingest.js');
  for (const id of deviceIds(0, INGEST_DEVICES)) await s.putCredential(id, 'h', 1);
  await s.close();
  const rx = variant === 'silent' || variant === 'answering' ? await receiver(variant) : undefined;
  if (rx) addWebhook(db, rx.url);
  if (variant === 'loop') {
    const fs = require('fs');
    const os = require('os');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wh-loop-')), 'handlers.js');
    fs.writeFileSync(file, 'module.exports = async function (event) { for (;;) {} };\n');
    const r = beaconSync(['cloud', 'webhook', 'add', '--code', file, '--db', db, '--json']);
    if (r.status !== 0) throw new Error(r.stderr);
  }
  const cloud = await startCloudProcess(['--db', db, '--port', '0', '--http-port', '0']);
  const wal = new (require('pg').Client)({ connectionString: db });
  await wal.connect();
  try {
    const per = INGEST_DEVICES / 2;
    const children = [0, 1].map((w) => {
      const env = { ...process.env, CLOUD_INGEST_WORKER: JSON.stringify({ variant: 'new', url: db, first: w * per, count: per }) };
      const child = fork(path.join(__dirname, 'cloud-ingest.js'), [], { env });
      const inbox = [];
      const waiting = [];
      child.on('message', (m) => (waiting.length > 0 ? waiting.shift()(m) : inbox.push(m)));
      return { child, next: () => new Promise((r) => (inbox.length > 0 ? r(inbox.shift()) : waiting.push(r))) };
    });
    for (const c of children) await c.next();
    const lsn = async () => (await wal.query('SELECT pg_current_wal_lsn() AS l')).rows[0].l;
    const before = await lsn();
    for (const c of children) c.child.send('go');
    const results = await Promise.all(children.map((c) => c.next()));
    const walBytes = Number((await wal.query('SELECT pg_wal_lsn_diff($1, $2) AS d', [await lsn(), before])).rows[0].d);
    const t0 = Math.min(...results.map((r) => r.t0));
    const t1 = Math.max(...results.map((r) => r.t1));
    const stored = results.reduce((n, r) => n + r.stored, 0);
    return { rate: stored / ((t1 - t0) / 1000), wal: walBytes / stored };
  } finally {
    await wal.end();
    await cloud.kill('SIGTERM');
    rx?.close();
  }
}

/** Ingest with `base` and with `other`, in interleaved rounds: the median of each and their ratio. */
async function compareIngest(pg, base, other, prefix, what) {
  const rates = { [base]: [], [other]: [] };
  const wals = { [base]: [], [other]: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const v of i % 2 === 0 ? [base, other] : [other, base]) {
      const r = await ingestOnce(pg, v);
      rates[v].push(r.rate);
      wals[v].push(r.wal);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const v of [base, other]) process.stdout.write(`${prefix}_ingest_events_per_s_${v}: ${Math.round(median(rates[v]))} events/s (runs: ${rates[v].map(Math.round).join(', ')})\n`);
  // WAL written per event stored (the whole server's, nothing else runs on it): what the write
  // path costs, free of this machine's run-to-run noise.
  for (const v of [base, other]) process.stdout.write(`${prefix}_ingest_wal_bytes_per_event_${v}: ${Math.round(median(wals[v]))} bytes\n`);
  process.stdout.write(`${prefix}_ingest_ratio${base === 'none' ? '' : `_${other}_${base}`}: ${(median(rates[other]) / median(rates[base])).toFixed(3)} (${what})\n`);
  // Each round runs both back to back: the ratio within a round is freer of the machine's drift
  // (other work starting or stopping) than the ratio of the two medians.
  const paired = rates[other].map((r, i) => r / rates[base][i]);
  process.stdout.write(`${prefix}_ingest_ratio_paired${base === 'none' ? '' : `_${other}_${base}`}: ${median(paired).toFixed(3)} (median of the ${ROUNDS} rounds' own ratios: ${paired.map((x) => x.toFixed(3)).join(', ')})\n`);
}

const ingest = (pg) => compareIngest(pg, 'none', 'silent', 'cloud_webhook', 'silent receiver / no webhook');
// A receiver that never answers against one that answers at once: what a dead receiver costs
// ingest beyond having a webhook at all (its outbox rows are written either way).
const deadLive = (pg) => compareIngest(pg, 'answering', 'silent', 'cloud_webhook', 'silent receiver / answering receiver');
const codeIngest = (pg) => compareIngest(pg, 'none', 'loop', 'cloud_code', 'a cloud-code handler that loops forever / none');

(async () => {
  if (!postgresBin()) throw new Error(POSTGRES_MISSING);
  const pg = await startPostgres({ fsync: true });
  try {
    const only = (process.env.WH_PARTS || 'latency,throughput,ingest,deadlive,code,codeingest').split(',');
    if (only.includes('latency')) await latency(pg);
    if (only.includes('throughput')) await throughput(pg);
    if (only.includes('ingest')) await ingest(pg);
    if (only.includes('deadlive')) await deadLive(pg);
    if (only.includes('code')) await codeCalls(pg);
    if (only.includes('codeingest')) await codeIngest(pg);
  } finally {
    pg.stop();
  }
})().catch((err) => {
  process.stderr.write(`webhooks bench: ${err.stack || err}\n`);
  process.exit(1);
});

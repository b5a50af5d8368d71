// The cloud benchmarks (bench/cloud.sh runs this after building the tools).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const dist = path.join(__dirname, '..', 'bindings-ts', 'dist');
const { DeviceClient, MemoryStorage } = require(path.join(dist, 'src/cloud/deviceClient.js'));
const { encodeBatch, payloadSize, topic } = require(path.join(dist, 'src/cloud/protocol.js'));
const { startCloud, issueCredentials } = require(path.join(dist, 'src/cloud/service.js'));
const { openStore } = require(path.join(dist, 'src/cloud/store.js'));
const helpers = require(path.join(dist, 'src/cloud/testkit.js'));

const DEVICES = Number(process.env.CLOUD_BENCH_DEVICES || 1000);
const EVENTS = Number(process.env.CLOUD_BENCH_EVENTS || 20);
const PAYLOAD = 200;

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

/** A payload of exactly PAYLOAD bytes of CBOR: {"d": "<text>"}. */
function payload(i) {
  let text = String(i).padEnd(PAYLOAD - 5, 'x');
  while (payloadSize({ d: text }) > PAYLOAD) text = text.slice(0, -1);
  if (payloadSize({ d: text }) !== PAYLOAD) throw new Error('payload size');
  return { d: text };
}

function mqttPublishSize(topicName, body) {
  let remaining = 2 + Buffer.byteLength(topicName) + 2 + body.length;
  const header = 1 + (remaining < 128 ? 1 : remaining < 16384 ? 2 : 3);
  return header + remaining;
}

async function wire() {
  const cloud = await startCloud({ port: 0, httpPort: 0, log: () => undefined });
  try {
    const id = '5eac0b1d00004d0cbeac051a00000001';
    const cred = await cloud.issueDevice(id);
    const syncBytes = async (n) => {
      let clock = Date.UTC(2026, 0, 1);
      const d = new DeviceClient({ id, password: cred.password, url: cloud.mqttUrl, storage: new MemoryStorage(), batchEvents: Math.max(n, 1), now: () => (clock += 1000) });
      for (let i = 0; i < n; i++) d.enqueue('telemetry', payload(i), { volatile: false });
      const r = await d.sync();
      if (r.batches !== (n > 0 ? 1 : 0)) throw new Error(`expected one batch, got ${r.batches}`);
      return r.bytesSent + r.bytesReceived;
    };
    const empty = await syncBytes(0);
    figure('cloud_wire_empty_sync', empty, 'bytes');
    for (const n of [1, 10, 100]) {
      const total = await syncBytes(n);
      let clock = Date.UTC(2026, 0, 1);
      const events = Array.from({ length: n }, (_, i) => ({ seq: 1000 + i, type: 'telemetry', ts: (clock += 1000), payload: payload(i), volatile: false, variable: false }));
      const publish = mqttPublishSize(topic(id, 'u'), encodeBatch({ stream: 0x2a7f19c3, events }));
      const payloadBytes = n * PAYLOAD;
      figure(`cloud_wire_batch${n}_publish_per_payload`, (publish / payloadBytes).toFixed(3), 'x');
      figure(`cloud_wire_batch${n}_exchange_per_event`, ((total - empty) / n).toFixed(1), 'bytes/event');
      figure(`cloud_wire_batch${n}_exchange_per_payload`, ((total - empty) / payloadBytes).toFixed(3), 'x');
      figure(`cloud_wire_batch${n}_sync`, total, 'bytes');
      figure(`cloud_wire_batch${n}_sync_per_payload`, (total / payloadBytes).toFixed(3), 'x');
    }
  } finally {
    await cloud.stop();
  }
}

async function throughput(kind, db) {
  // Credentials first, straight into the store the cloud will use.
  const store = await openStore(db);
  const creds = [];
  for (let i = 0; i < DEVICES; i++) {
    creds.push(await issueCredentials(store, `5eac0b1d${i.toString(16).padStart(8, '0')}beac051a00000001`));
  }
  await store.close();
  const port = await helpers.freePort();
  const cloud = await helpers.startCloudProcess(['--db', db, '--port', String(port), '--http-port', '0', '--token', 'bench']);
  try {
    const devices = creds.map((c) => {
      const d = new DeviceClient({ id: c.id, password: c.password, url: cloud.mqttUrl, storage: new MemoryStorage(), batchEvents: 10, window: 2, timeoutMs: 120_000 });
      for (let i = 0; i < EVENTS; i++) d.enqueue('telemetry', payload(i), { volatile: false });
      return d;
    });
    const t0 = process.hrtime.bigint();
    const results = await Promise.allSettled(devices.map((d) => d.sync()));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length > 0) throw new Error(`${failed.length} syncs failed: ${failed[0].reason}`);
    const acked = results.reduce((n, r) => n + r.value.acked, 0);
    if (acked !== DEVICES * EVENTS) throw new Error(`only ${acked} events acknowledged`);
    figure(`cloud_${kind}_events_per_s`, Math.round(acked / seconds), 'events/s');
    figure(`cloud_${kind}_sync_wall`, seconds.toFixed(2), `s (${DEVICES} devices x ${EVENTS} events)`);
  } finally {
    await cloud.kill('SIGTERM');
  }
  // The store's own pace: events over the span between the first and the last commit.
  const check = await openStore(db);
  try {
    let first = Infinity;
    let last = -Infinity;
    let count = 0;
    for (const c of creds) {
      for (const e of (await check.events(c.id, { limit: 1000 })).events) {
        first = Math.min(first, e.received);
        last = Math.max(last, e.received);
        count++;
      }
    }
    if (count !== DEVICES * EVENTS) throw new Error(`${count} events stored, expected ${DEVICES * EVENTS}`);
    figure(`cloud_${kind}_ingest_events_per_s`, Math.round(count / Math.max((last - first) / 1000, 0.001)), 'events/s (first to last commit)');
  } finally {
    await check.close();
  }
}

(async () => {
  await wire();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-cloud-bench-'));
  try {
    await throughput('sqlite', path.join(dir, 'bench.db'));
    if (helpers.postgresBin()) {
      const pg = await helpers.startPostgres({ fsync: true });
      try {
        await throughput('postgres', await pg.createDatabase('bench'));
      } finally {
        pg.stop();
      }
    } else {
      process.stderr.write(`cloud bench: ${helpers.POSTGRES_MISSING}; PostgreSQL figures skipped\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
})().catch((err) => {
  process.stderr.write(`cloud bench: ${err.stack || err}\n`);
  process.exit(1);
});

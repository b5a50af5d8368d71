// The cloud under a fleet (bench/cloud-fleet.sh says what each figure is). Everything runs on
// this machine: PostgreSQL, Mosquitto, the cloud workers and the load generator share its cores.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist', 'src', 'cloud');
const { startPostgres, startMosquitto, startCloudProcess, BEACON } = require(path.join(dist, 'testkit.js'));
const { openStore } = require(path.join(dist, 'store.js'));

const DEVICES = Number(process.env.CLOUD_FLEET_DEVICES || 1000);
const EVENTS = Number(process.env.CLOUD_FLEET_EVENTS || 200);
const HELD = Number(process.env.CLOUD_FLEET_HELD || 10000);
const BACKLOG = Number(process.env.CLOUD_FLEET_BACKLOG || 100000);

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

function note(line) {
  process.stderr.write(`cloud-fleet: ${line}\n`);
}

/** Resident set of a process now, MB (0 once it is gone). */
function rssMb(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Established TCP connections to a port on this machine, counted on the connecting side (the
 * devices', and the cloud's own): a socket the generator closed leaves ESTABLISHED at once,
 * while the broker's end may stay there until it has read the close.
 */
function established(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[3] === '01' && f[2] && f[2].endsWith(`:${hex}`)) n++;
  }
  return n;
}

/** `beacon cloud load` in a child process (not spawnSync: this process reads the broker's log pipe). */
function load(args, m, url) {
  const all = ['cloud', 'load', '--broker', m.url, '--db', url, '--mosquitto-dir', m.dir, '--mosquitto-pid', m.pidFile, '--json', ...args];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BEACON, ...all], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(d);
    });
    child.on('exit', (status) => {
      try {
        const report = JSON.parse(out);
        if (!report.ok) note(`the run did not complete: ${report.failure}`);
        note(`${args.join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s in all (credentials ${report.credentials.issued} issued), ${report.eventsAcked} events in ${report.spanS?.toFixed(1)} s, ${report.syncs} syncs, ${report.reconnects} reconnects, errors ${JSON.stringify(report.errors)}, peak ${report.peakConnections} connections`);
        resolve(report);
      } catch {
        reject(new Error(`beacon cloud load exited with ${status}:\n${err}`));
      }
    });
  });
}

async function workers(n, m, url) {
  const list = [];
  for (let i = 0; i < n; i++) list.push(await startCloudProcess(['--broker', m.serviceUrl, '--db', url, '--http-port', '0']));
  return list;
}

async function main() {
  const counts = [1, 2, 4];
  const pg = await startPostgres(); // fsync on: an acknowledged event is on disk
  const url = await pg.createDatabase('fleet');
  const store = await openStore(url);
  const m = await startMosquitto(store);
  await store.close();
  try {
    for (const w of counts) {
      const ws = await workers(w, m, url);
      try {
        const r = await load(['--devices', String(DEVICES), '--events', String(EVENTS), '--batch', '10', '--payload', '200'], m, url);
        figure(`cloud_fleet_w${w}_events_per_s`, r.eventsPerS.toFixed(0), 'events/s');
        figure(`cloud_fleet_w${w}_ack_p50_ms`, r.ackLatencyMs.p50.toFixed(1), 'ms');
        figure(`cloud_fleet_w${w}_ack_p99_ms`, r.ackLatencyMs.p99.toFixed(1), 'ms');
        figure(`cloud_fleet_w${w}_reconnects`, r.reconnects, 'syncs');
        figure(`cloud_fleet_w${w}_generator_cpu_us_per_event`, ((r.generatorCpuS * 1e6) / r.eventsAcked).toFixed(1), 'us');
      } finally {
        for (const c of ws) await c.kill('SIGTERM');
      }
    }

    // The deployment's layout for the last two figures: two workers on the shared subscription.
    const W = 2;
    {
      const ws = await workers(W, m, url);
      const peak = { broker: rssMb(m.pid()), workers: ws.map((w) => rssMb(w.child.pid)), held: 0 };
      note(`before the connections: broker ${peak.broker.toFixed(1)} MB, workers ${peak.workers.map((x) => x.toFixed(1)).join(', ')} MB`);
      const sample = setInterval(() => {
        peak.broker = Math.max(peak.broker, rssMb(m.pid()));
        ws.forEach((w, i) => (peak.workers[i] = Math.max(peak.workers[i], rssMb(w.child.pid))));
        peak.held = Math.max(peak.held, established(m.port));
      }, 500);
      try {
        const tag = HELD >= 1000 && HELD % 1000 === 0 ? `${HELD / 1000}k` : String(HELD);
        const r = await load(['--devices', String(HELD), '--events', '1', '--batch', '1', '--hold', '60s'], m, url);
        figure(`cloud_fleet_${tag}_connections_held`, peak.held, 'connections');
        figure(`cloud_fleet_${tag}_connections_broker_rss_mb`, peak.broker.toFixed(1), 'MB');
        figure(`cloud_fleet_${tag}_connections_worker_rss_mb`, Math.max(...peak.workers).toFixed(1), 'MB (the larger of the workers)');
        figure(`cloud_fleet_${tag}_connections_generator_rss_mb`, r.peakRssMb.toFixed(1), 'MB');
      } finally {
        clearInterval(sample);
        for (const c of ws) await c.kill('SIGTERM');
      }
    }

    {
      const ws = await workers(W, m, url);
      try {
        const r = await load(['--devices', String(BACKLOG), '--events', '12', '--batch', '12', '--payload', '200'], m, url);
        figure(`cloud_fleet_backlog_${BACKLOG}_devices_s`, r.spanS.toFixed(1), `s (${W} workers)`);
        figure(`cloud_fleet_backlog_${BACKLOG}_events_per_s`, r.eventsPerS.toFixed(0), 'events/s');
        figure(`cloud_fleet_backlog_${BACKLOG}_reconnects`, r.reconnects, 'syncs');
      } finally {
        for (const c of ws) await c.kill('SIGTERM');
      }
    }
  } finally {
    await m.kill();
    pg.stop();
  }
}

process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));
main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});

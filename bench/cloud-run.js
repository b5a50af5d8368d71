// `beacon run` with the cloud it starts against `--cloud loopback` (bench/cloud-run.sh runs
// this after building the tools). Each figure is the median of RUNS runs of a prebuilt package,
// so the app's build is not counted; the runs alternate so that the machine's load falls on both.
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const root = path.join(__dirname, '..');
const dist = path.join(root, 'bindings-ts', 'dist');
const cli = path.join(root, 'bindings-ts', 'bin', 'beacon.js');
const { startCloud } = require(path.join(dist, 'src/cloud/service.js'));

const RUNS = Number(process.env.CLOUD_RUN_BENCH_RUNS || 5);

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function beacon(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`beacon ${args.join(' ')} failed:\n${r.stderr}`);
  return { ms, stderr: r.stderr };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-cloud-run-bench-'));
  try {
    const pkg = path.join(work, 'cloud-report.bapp');
    beacon(['build', path.join(root, 'examples', 'cloud-report.ts'), '-o', pkg]);
    const world = path.join(root, 'examples', 'cloud-report.world.json');
    const embedded = [];
    const loopback = [];
    const starts = [];
    // The simulator's own part, as it reports it ("after ... of device time, N ms real").
    const simEmbedded = [];
    const simLoopback = [];
    const simReal = (stderr) => Number(/ of device time, (\d+) ms real/.exec(stderr)?.[1] ?? NaN);
    for (let i = 0; i < RUNS; i++) {
      const e = beacon(['run', pkg, '--world', world, '--verbose']);
      embedded.push(e.ms);
      const m = /^cloud: started in (\d+) ms/m.exec(e.stderr);
      if (m) starts.push(Number(m[1]));
      simEmbedded.push(simReal(e.stderr));
      const l = beacon(['run', pkg, '--world', world, '--cloud', 'loopback']);
      loopback.push(l.ms);
      simLoopback.push(simReal(l.stderr));
    }
    const emb = median(embedded);
    const loop = median(loopback);
    figure('cloud_run_embedded_wall', emb.toFixed(0), 'ms');
    figure('cloud_run_loopback_wall', loop.toFixed(0), 'ms');
    figure('cloud_run_embedded_vs_loopback', (emb / loop).toFixed(2), 'x');
    figure('cloud_run_service_start', median(starts), 'ms');
    figure('cloud_run_sim_embedded_real', median(simEmbedded), 'ms');
    figure('cloud_run_sim_loopback_real', median(simLoopback), 'ms');

    // The service alone, in this process: startCloud to ready and stop, SQLite in a file.
    const inProcess = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      const cloud = await startCloud({ port: 0, httpPort: 0, db: path.join(work, `s${i}.db`), log: () => {} });
      inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await cloud.stop();
    }
    figure('cloud_service_start_in_process', median(inProcess).toFixed(1), 'ms');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});

// The cloud fuzz benchmark (bench/cloud-fuzz.sh runs this after building the tools).
'use strict';
const path = require('path');
const { runCloudFuzz } = require(path.join(__dirname, '..', 'bindings-ts', 'dist', 'src', 'cloud', 'fuzz', 'run.js'));

const SEED = Number(process.env.CLOUD_FUZZ_SEED || 35);
const SCALE = Number(process.env.CLOUD_FUZZ_SCALE || 5);

function figure(name, value, unit) {
  process.stdout.write(`${name}: ${value} ${unit}\n`);
}

async function main() {
  const counts = { httpBatches: 60 * SCALE, mutatedHttpBatches: 40 * SCALE, modelRuns: 80 * SCALE, sessionBatches: 40 * SCALE, mutatedSessionBatches: 40 * SCALE, perBatch: 10 };
  const t0 = process.hrtime.bigint();
  const figures = await runCloudFuzz(SEED, counts);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  let total = 0;
  for (const f of figures) {
    const name = `cloud_fuzz_${f.part.replace(/ /g, '_')}`;
    figure(`${name}_count`, f.count, f.unit);
    figure(`${name}_per_s`, Math.round(f.count / f.seconds), `${f.unit}/s`);
    total += f.count;
  }
  figure('cloud_fuzz_total_count', total, `requests and sessions (seed ${SEED})`);
  figure('cloud_fuzz_total_s', seconds.toFixed(1), 's');
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});

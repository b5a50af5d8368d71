// The cloud's fuzz suite in CI: the HTTP API and the MQTT side driven by fast-check (requests
// from the routes' grammar, mutations of recorded good requests and sessions, and model-based
// command sequences), bounded in count, with the invariants checked after every batch (the
// service alive, every answer well-formed and no 5xx, nothing stored from a refused request,
// no (stream, seq) twice). Seeded: BEACON_FUZZ_SEED=<n> replays a run; the figures it prints
// are the run's count and requests per second (bench/cloud-fuzz.sh runs it longer).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runCloudFuzz } from '../src/cloud/fuzz/run';

const seed = Number(process.env.BEACON_FUZZ_SEED ?? 35);

test(`cloud fuzz (seed ${seed}): HTTP grammar, HTTP mutation, API model, MQTT grammar, MQTT mutation`, async (t) => {
  const figures = await runCloudFuzz(seed, { httpBatches: 60, mutatedHttpBatches: 40, modelRuns: 80, sessionBatches: 40, mutatedSessionBatches: 40, perBatch: 10 }, (line) => t.diagnostic(line));
  for (const f of figures) {
    console.log(`fuzz ${f.part}: ${f.count} ${f.unit}, ${(f.count / f.seconds).toFixed(0)}/s (seed ${seed})`);
    assert.ok(f.count > 0, `${f.part} sent nothing`);
  }
});

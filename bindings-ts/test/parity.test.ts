// Engine parity as a tested property (docs/compiler.md, "Two engines, one language"):
//  - the probes of tests/parity (and the regressions kept in tests/parity/regressions) print the
//    same lines on Duktape and JerryScript, and the same lines on a second run;
//  - generated programs (programGenerator.ts), a fixed set per run, print the same lines on both;
//    a program that does not is cut down to the lines that show it and written out, to be kept as
//    a regression probe once the engines agree again.
// JerryScript needs JERRYSCRIPT_DIR; without it the comparisons are reported skipped.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { compileApp, Engine, ensureHostTools } from '../src/compiler';
import { FLAG_PARITY } from '../src/compiler/appPackage';
import { toolsRoot } from '../src/codegen/versions';
import { generateProgram, minimise, programSource } from './programGenerator';
import { workspaceMissing } from '../src/firmware/workspace';

const repo = path.dirname(toolsRoot());
const parityDir = path.join(repo, 'tests', 'parity');
const skip = workspaceMissing('jerryscript');
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-parity-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/** How many generated programs a run tries, and from which seed (the same ones every CI run). */
const PROGRAMS = Number(process.env.BEACON_PARITY_PROGRAMS ?? 200);
const FIRST_SEED = Number(process.env.BEACON_PARITY_SEED ?? 1);
/** Generated programs per app: one build per batch and engine, not one per program. */
const BATCH = 10;

let counter = 0;

interface Run {
  stdout: string;
  stderr: string;
  status: number | null;
}

async function runSource(source: string, engine: Engine, times = 1): Promise<Run[]> {
  const dir = path.join(tmpRoot, `a${++counter}`);
  fs.mkdirSync(dir);
  const entry = path.join(dir, 'app.js');
  fs.writeFileSync(entry, source);
  const pkg = path.join(dir, `app-${engine}.bapp`);
  await compileApp({ entry, apiVersion: '0.2.6', engine, outFile: pkg });
  const [sim] = await ensureHostTools(['beacon-sim'], engine);
  const runs: Run[] = [];
  for (let i = 0; i < times; i++) {
    const r = spawnSync(sim, ['--utc', '1767225600000', '--heap', '524288', pkg], { encoding: 'utf8', timeout: 60_000 });
    runs.push({ stdout: r.stdout, stderr: r.stderr, status: r.status });
  }
  return runs;
}

function probes(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => path.join(dir, f));
}

for (const file of [...probes(parityDir), ...probes(path.join(parityDir, 'regressions'))]) {
  test(`probe ${path.relative(parityDir, file)}: the same on both engines, and on every run`, { skip }, async () => {
    const source = fs.readFileSync(file, 'utf8');
    const [duk1, duk2] = await runSource(source, 'duktape', 2);
    const [jerry1, jerry2] = await runSource(source, 'jerryscript', 2);
    assert.equal(duk1.status, 0, duk1.stderr);
    assert.equal(jerry1.status, 0, jerry1.stderr);
    assert.ok(duk1.stdout.trim().length > 0, 'the probe printed its lines');
    assert.equal(duk2.stdout, duk1.stdout, 'Duktape: a second run prints the same');
    assert.equal(jerry2.stdout, jerry1.stdout, 'JerryScript: a second run prints the same');
    assert.equal(jerry1.stdout, duk1.stdout, 'JerryScript (expected) against Duktape (actual)');
  });
}

async function diverges(lines: string[]): Promise<boolean> {
  const source = programSource(lines);
  const [[duk], [jerry]] = await Promise.all([runSource(source, 'duktape'), runSource(source, 'jerryscript')]);
  return duk.stdout !== jerry.stdout;
}

for (let first = FIRST_SEED; first < FIRST_SEED + PROGRAMS; first += BATCH) {
  const seeds = Array.from({ length: Math.min(BATCH, FIRST_SEED + PROGRAMS - first) }, (_, i) => first + i);
  test(`generated programs ${seeds[0]}..${seeds[seeds.length - 1]}: the same on both engines`, { skip }, async () => {
    // One app for the batch: each program in a function of its own, its lines headed by its seed.
    const source = seeds
      .map((s) => `print('program ${s}');\n(function () {\n${programSource(generateProgram(s))}})();\n`)
      .join('');
    const [[duk], [jerry]] = await Promise.all([runSource(source, 'duktape'), runSource(source, 'jerryscript')]);
    assert.equal(duk.status, 0, duk.stderr);
    assert.equal(jerry.status, 0, jerry.stderr);
    if (duk.stdout === jerry.stdout) return;
    // Which programs differ, each cut down to the lines that show it.
    const found: string[] = [];
    for (const s of seeds) {
      const lines = generateProgram(s);
      if (!(await diverges(lines))) continue;
      const small = await minimise(lines, diverges);
      const file = path.join(tmpRoot, `gen-${s}.js`);
      fs.writeFileSync(file, `// Generated program ${s} (bindings-ts/test/programGenerator.ts), minimised.\n${programSource(small)}`);
      const [[d], [j]] = await Promise.all([runSource(programSource(small), 'duktape'), runSource(programSource(small), 'jerryscript')]);
      found.push(`program ${s}, minimised (${file}):\n${small.join('\n')}\n  Duktape:     ${d.stdout.trim()}\n  JerryScript: ${j.stdout.trim()}`);
    }
    assert.fail(`the engines differ; fix the engine layer or the compiler, then keep the program in tests/parity/regressions:\n\n${found.join('\n\n')}`);
  });
}

// A package built before engine parity is one without flag bit 1 (src/runtime/core/rt_package.h): the
// same format and bytecode. It still runs, and behaves as a new one, because the behaviour is the
// engine layer's. Made here from a new package by clearing the bit and the CRC after it.
for (const engine of ['duktape', 'jerryscript'] as const) {
  test(`${engine}: a package built before engine parity runs, sorting and drawing as a new one`, { skip: engine === 'jerryscript' ? skip : false }, async () => {
    const dir = path.join(tmpRoot, `old-${engine}`);
    fs.mkdirSync(dir);
    const entry = path.join(dir, 'app.js');
    fs.copyFileSync(path.join(parityDir, 'sort.js'), entry);
    const pkg = path.join(dir, 'new.bapp');
    await compileApp({ entry, apiVersion: '0.2.6', engine, outFile: pkg });
    const bytes = fs.readFileSync(pkg);
    assert.equal(bytes.readUInt32LE(32) & FLAG_PARITY, FLAG_PARITY, 'beacon-pack marks new packages (flag bit 1)');
    const old = Buffer.from(bytes);
    old.writeUInt32LE(bytes.readUInt32LE(32) & ~FLAG_PARITY, 32);
    old.writeUInt32LE(zlib.crc32(old.subarray(40), zlib.crc32(old.subarray(0, 36))) >>> 0, 36);
    const oldFile = path.join(dir, 'old.bapp');
    fs.writeFileSync(oldFile, old);
    const [sim] = await ensureHostTools(['beacon-sim'], engine);
    const now = spawnSync(sim, [pkg], { encoding: 'utf8' });
    const before = spawnSync(sim, [oldFile], { encoding: 'utf8' });
    assert.equal(before.status, 0, before.stderr);
    assert.match(before.stdout, /^ties kept in order: 0,3,6,9,1,4,7,10,2,5,8,11$/m);
    assert.equal(before.stdout, now.stdout);
  });
}

// Runs every micro-app of tests/apps on the simulator through the `beacon` CLI, on each engine
// that is built, and compares what it prints with <name>.expected and, where <name>.trace exists,
// what its trace holds (see tests/apps/README.md). Then the engines against each other: every
// app's output and whole trace must be the same on Duktape and JerryScript, byte for byte, and
// a set of apps run a second time must repeat their first run exactly.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';

const repo = path.dirname(toolsRoot());
const appsDir = path.join(repo, 'tests', 'apps');
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');

interface AppSpec {
  file: string;
  args: string[];
  /** The scenario's file, if any. */
  world?: string;
  exit: number;
  stderr: string[];
  expected: string;
  /** Lines the trace must contain, in this order (others may come between them). */
  trace?: string[];
}

function readSpec(file: string): AppSpec {
  const text = fs.readFileSync(file, 'utf8');
  const spec: AppSpec = { file, args: [], exit: 0, stderr: [], expected: '' };
  for (const line of text.split('\n')) {
    const m = /^\/\/ (run|exit|stderr|world): (.*)$/.exec(line);
    if (!m) {
      if (line.startsWith('//')) continue;
      break;
    }
    if (m[1] === 'run') spec.args.push(...m[2].trim().split(/\s+/));
    else if (m[1] === 'exit') spec.exit = Number(m[2]);
    else if (m[1] === 'world') {
      spec.world = path.join(path.dirname(file), m[2].trim());
      spec.args.push('--world', spec.world);
    }
    else spec.stderr.push(m[2].trim());
  }
  spec.expected = fs.readFileSync(file.replace(/\.(ts|js)$/, '.expected'), 'utf8');
  const traceFile = file.replace(/\.(ts|js)$/, '.trace');
  if (fs.existsSync(traceFile)) {
    spec.trace = fs.readFileSync(traceFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
  }
  return spec;
}

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-apps-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** Where each expected line stops matching: the first one not found after the previous match. */
function missingTraceLine(actual: string[], expected: string[]): string | undefined {
  let at = 0;
  for (const line of expected) {
    const found = actual.indexOf(line, at);
    if (found < 0) return line;
    at = found + 1;
  }
  return undefined;
}

// JerryScript needs a source tree (JERRYSCRIPT_DIR); without one its runs are reported skipped.
const engines: { name: string; skip: string | false }[] = [
  { name: 'duktape', skip: false },
  { name: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

const apps = fs
  .readdirSync(appsDir)
  .filter((f) => /\.(ts|js)$/.test(f))
  .sort()
  .map((f) => readSpec(path.join(appsDir, f)));

/** What one run printed and traced. */
interface Outcome {
  stdout: string;
  status: number | null;
  trace: string;
}

/** UTC for runs whose scenario gives none (otherwise the host's clock would be in the trace). */
const FIXED_UTC = '1767225600000';

function runApp(app: AppSpec, engine: string, tag: string): Outcome & { stderr: string } {
  const traceFile = path.join(tempDir, `${engine}-${tag}-${path.basename(app.file)}.trace`);
  // The expected output is the loopback cloud's (deterministic), not the one beacon run
  // would otherwise start for an app using the cloud.
  const cloudArgs = app.args.includes('--cloud') ? [] : ['--cloud', 'loopback'];
  const scenarioUtc = app.world !== undefined && /"utc"\s*:/.test(fs.readFileSync(app.world, 'utf8'));
  const utcArgs = app.args.includes('--utc') || scenarioUtc ? [] : ['--utc', FIXED_UTC];
  const r = spawnSync(process.execPath, [cli, 'run', app.file, '--engine', engine, ...cloudArgs, ...utcArgs, ...app.args, '--trace', traceFile], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const trace = fs.existsSync(traceFile) ? fs.readFileSync(traceFile, 'utf8') : '';
  return { stdout: r.stdout, stderr: r.stderr, status: r.status, trace };
}

/** Each engine's outcome per app, for the comparisons after both ran. */
const outcomes = new Map<string, Outcome>();
const key = (engine: string, app: AppSpec): string => `${engine} ${app.file}`;

/** Run a second time on each engine: the apps whose behaviour depends most on order and chance
 * (the air's noise, several devices, cloud retries, power cuts, GNSS noise, random numbers). */
const RUN_TWICE = ['two-devices.ts', 'cloud-faults.ts', 'storage-power-cut.ts', 'location-walk.ts', 'uwb-ranging.ts', 'ble-scan-options.ts', 'random.ts'];

/** The one difference allowed between the engines' traces (docs/compiler.md, "What still
 * differs"): the location Duktape adds to an uncaught error's text, which JerryScript's bytecode
 * cannot give. */
const withoutLocations = (trace: string): string => trace.replace(/ \(app\.min\.js:\d+(?::\d+)?\)/g, '');

for (const { name: engine, skip } of engines) {
  for (const app of apps) {
    test(`${engine}: ${path.basename(app.file)}`, { skip }, () => {
      const r = runApp(app, engine, 'first');
      outcomes.set(key(engine, app), r);
      const context = `\n--- stderr ---\n${r.stderr}`;
      assert.equal(r.stdout, app.expected, `stdout differs${context}`);
      assert.equal(r.status, app.exit, `exit status${context}`);
      for (const line of app.stderr) {
        assert.ok(r.stderr.includes(line), `stderr lacks '${line}'${context}`);
      }
      if (app.trace) {
        const actual = r.trace.split('\n');
        const missing = missingTraceLine(actual, app.trace);
        assert.equal(missing, undefined, `the trace lacks, in order:\n${missing}\n--- trace ---\n${actual.join('\n')}`);
      }
    });
  }
}


for (const app of apps) {
  const name = path.basename(app.file);
  test(`both engines: ${name} prints and traces the same`, { skip: engines[1].skip }, () => {
    const duk = outcomes.get(key('duktape', app));
    const jerry = outcomes.get(key('jerryscript', app));
    assert.ok(duk && jerry, 'both engines ran the app');
    assert.equal(jerry.stdout, duk.stdout, 'stdout: JerryScript (expected) against Duktape (actual)');
    assert.equal(jerry.status, duk.status, 'exit status');
    assert.equal(withoutLocations(jerry.trace), withoutLocations(duk.trace), 'trace: JerryScript (expected) against Duktape (actual)');
  });
}

for (const { name: engine, skip } of engines) {
  for (const app of apps.filter((a) => RUN_TWICE.includes(path.basename(a.file)))) {
    test(`${engine}: ${path.basename(app.file)} run again repeats itself byte for byte`, { skip }, () => {
      const first = outcomes.get(key(engine, app));
      assert.ok(first, 'the first run happened');
      const again = runApp(app, engine, 'again');
      assert.equal(again.stdout, first.stdout);
      assert.equal(again.trace, first.trace);
      assert.ok(again.trace.length > 0, 'the run traced');
    });
  }
}

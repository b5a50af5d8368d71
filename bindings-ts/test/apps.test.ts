// Runs every micro-app of tests/apps on the simulator through the `beacon` CLI, on each engine
// that is built, and compares what it prints with <name>.expected and, where <name>.trace exists,
// what its trace holds (see tests/apps/README.md).
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';

const repo = path.dirname(toolsRoot());
const appsDir = path.join(repo, 'tests', 'apps');
const cli = path.join(toolsRoot(), 'bin', 'beacon.js');

interface AppSpec {
  file: string;
  args: string[];
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
    else if (m[1] === 'world') spec.args.push('--world', path.join(path.dirname(file), m[2].trim()));
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
  { name: 'jerryscript', skip: process.env.JERRYSCRIPT_DIR ? false : 'JERRYSCRIPT_DIR is not set' },
];

const apps = fs
  .readdirSync(appsDir)
  .filter((f) => /\.(ts|js)$/.test(f))
  .sort()
  .map((f) => readSpec(path.join(appsDir, f)));

for (const { name: engine, skip } of engines) {
  for (const app of apps) {
    test(`${engine}: ${path.basename(app.file)}`, { skip }, () => {
      const traceFile = path.join(tempDir, `${engine}-${path.basename(app.file)}.trace`);
      const traceArgs = app.trace ? ['--trace', traceFile] : [];
      // The expected output is the loopback cloud's (deterministic), not the one beacon run
      // would otherwise start for an app using the cloud.
      const cloudArgs = app.args.includes('--cloud') ? [] : ['--cloud', 'loopback'];
      const r = spawnSync(process.execPath, [cli, 'run', app.file, '--engine', engine, ...cloudArgs, ...app.args, ...traceArgs], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const context = `\n--- stderr ---\n${r.stderr}`;
      assert.equal(r.stdout, app.expected, `stdout differs${context}`);
      assert.equal(r.status, app.exit, `exit status${context}`);
      for (const line of app.stderr) {
        assert.ok(r.stderr.includes(line), `stderr lacks '${line}'${context}`);
      }
      if (app.trace) {
        const actual = fs.readFileSync(traceFile, 'utf8').split('\n');
        const missing = missingTraceLine(actual, app.trace);
        assert.equal(missing, undefined, `the trace lacks, in order:\n${missing}\n--- trace ---\n${actual.join('\n')}`);
      }
    });
  }
}


// Runs every micro-app of tests/apps on the simulator through the `beacon` CLI, on each engine
// that is built, and compares what it prints with <name>.expected (see tests/apps/README.md).
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { test } from 'node:test';
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
}

function readSpec(file: string): AppSpec {
  const text = fs.readFileSync(file, 'utf8');
  const spec: AppSpec = { file, args: [], exit: 0, stderr: [], expected: '' };
  for (const line of text.split('\n')) {
    const m = /^\/\/ (run|exit|stderr): (.*)$/.exec(line);
    if (!m) {
      if (line.startsWith('//')) continue;
      break;
    }
    if (m[1] === 'run') spec.args.push(...m[2].trim().split(/\s+/));
    else if (m[1] === 'exit') spec.exit = Number(m[2]);
    else spec.stderr.push(m[2].trim());
  }
  spec.expected = fs.readFileSync(file.replace(/\.(ts|js)$/, '.expected'), 'utf8');
  return spec;
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
      const r = spawnSync(process.execPath, [cli, 'run', app.file, '--engine', engine, ...app.args], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const context = `\n--- stderr ---\n${r.stderr}`;
      assert.equal(r.stdout, app.expected, `stdout differs${context}`);
      assert.equal(r.status, app.exit, `exit status${context}`);
      for (const line of app.stderr) {
        assert.ok(r.stderr.includes(line), `stderr lacks '${line}'${context}`);
      }
    });
  }
}


// The compiler is loaded only to compile: a run of a prebuilt package, and a run or build of an
// app the build cache has current, load neither TypeScript nor rollup nor terser (which alone
// take a process several tenths of a second). Checked on the modules the CLI's process loaded.
import * as assert from 'assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-loading-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));
const BIN = path.join(toolsRoot(), 'bin', 'beacon.js');

// Preloaded into the CLI's process: at exit, writes every module file it loaded.
const HOOK = path.join(tmpRoot, 'loaded-hook.js');
fs.writeFileSync(HOOK, "process.on('exit', () => require('fs').writeFileSync(process.env.BEACON_LOADED_OUT, Object.keys(require.cache).join('\\n')));\n");

// The compiler's packages, and ajv's schema compiler (not the runtime its compiled code uses).
const COMPILER = /[\\/]node_modules[\\/](typescript|rollup|terser|@rollup[\\/][^\\/]+|ajv(?=[\\/]dist[\\/](?!runtime[\\/])))[\\/]/;

/** Run the CLI; returns its status, output and the compiler packages it loaded. */
function beacon(args: string[]): { status: number | null; stderr: string; stdout: string; compiler: string[] } {
  const out = path.join(tmpRoot, 'loaded.txt');
  fs.rmSync(out, { force: true });
  const r = spawnSync(process.execPath, ['-r', HOOK, BIN, ...args], {
    cwd: tmpRoot,
    encoding: 'utf8',
    env: { ...process.env, BEACON_LOADED_OUT: out, BEACON_CACHE_DIR: path.join(tmpRoot, 'cache') },
  });
  const loaded = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n') : [];
  const compiler = [...new Set(loaded.map((m) => COMPILER.exec(m)?.[1]).filter((m): m is string => m !== undefined))].sort();
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, compiler };
}

const APP = path.join(tmpRoot, 'app.ts');
fs.writeFileSync(APP, "const greeting: string = 'loaded';\nprint(greeting);\n");
const WORLD = path.join(tmpRoot, 'app.world.json');
fs.writeFileSync(WORLD, JSON.stringify({ devices: [{ name: 'd0' }], events: [{ at: '1s', device: 'd0', press: { hold: '200ms' } }], duration: '2s' }));

test('building compiles (the check that the hook sees the compiler)', () => {
  const r = beacon(['build', APP, '-o', path.join(tmpRoot, 'app.bapp')]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.compiler.includes('typescript') && r.compiler.includes('terser'), `loaded: ${r.compiler.join(', ')}`);
});

test('a run of a prebuilt package loads no compiler', () => {
  const r = beacon(['run', path.join(tmpRoot, 'app.bapp')]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'loaded\n');
  assert.deepEqual(r.compiler, []);
});

test('a build and a run of an app the cache has current load no compiler', () => {
  const b = beacon(['build', APP, '-o', path.join(tmpRoot, 'again.bapp'), '--json']);
  assert.equal(b.status, 0, b.stderr);
  assert.equal((JSON.parse(b.stdout) as { cached: boolean }).cached, true);
  assert.deepEqual(b.compiler, []);
  const r = beacon(['run', APP]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'loaded\n');
  assert.deepEqual(r.compiler, []);
});

test('a run in a world loads the scenario schema compiled once, not ajv', () => {
  const first = beacon(['run', APP, '--world', WORLD]);
  assert.equal(first.status, 0, first.stderr);
  const r = beacon(['run', APP, '--world', WORLD]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'loaded\n');
  assert.deepEqual(r.compiler, []);
});

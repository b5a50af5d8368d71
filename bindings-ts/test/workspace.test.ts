// Where the firmware's toolchain is looked for (scripts/lib/workspace.sh, docs/firmware.md "The
// workspace"): the variables when set, else the west workspace around the repository, else
// ~/zephyrproject; ZEPHYR_MODULES from the module folders without west metadata; and, for each
// missing part, one line saying what is missing, where it was looked for and how to get it, which
// the scripts and the `beacon` commands stop with (a non-zero status, never a stack trace).
// Every case runs in a made-up HOME, so the machine's own workspace, if any, plays no part.
import { spawnSync } from 'child_process';
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { repo } from './boardRuns';

const script = path.join(repo, 'scripts', 'lib', 'workspace.sh');
const cli = path.join(repo, 'bindings-ts', 'bin', 'beacon.js');
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-workspace-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** The environment with none of the workspace's variables, and HOME at `home`. */
function bareEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(ZEPHYR_BASE|ZEPHYR_MODULES|JERRYSCRIPT_DIR|BSIM_OUT_PATH|BSIM_COMPONENTS_PATH)$/.test(k)) env[k] = v;
  }
  return { ...env, HOME: home, ...extra };
}

interface Found { env: Record<string, string>; missing: Record<string, string> }

function lookFor(env: Record<string, string>): Found {
  const r = spawnSync('bash', [script, '--print'], { encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stderr);
  const found: Found = { env: {}, missing: {} };
  for (const line of r.stdout.split('\n')) {
    const e = /^export (\w+)=(.*)$/.exec(line);
    if (e) found.env[e[1]] = e[2];
    const m = /^missing (\w+): (.*)$/.exec(line);
    if (m) found.missing[m[1]] = m[2];
  }
  return found;
}

/** A workspace laid out by hand: Zephyr's VERSION, some module folders, JerryScript's header,
 * BabbleSim's phy. Only the files the rules look at. */
function makeWorkspace(root: string, opts: { version?: string; modules?: string[]; west?: boolean } = {}): string {
  const [major, minor, patch] = (opts.version ?? '3.7.1').split('.');
  fs.mkdirSync(path.join(root, 'zephyr', 'cmake'), { recursive: true });
  fs.writeFileSync(path.join(root, 'zephyr', 'VERSION'), `VERSION_MAJOR = ${major}\nVERSION_MINOR = ${minor}\nPATCHLEVEL = ${patch}\nVERSION_TWEAK = 0\nEXTRAVERSION =\n`);
  for (const m of opts.modules ?? ['hal/cmsis', 'hal/nordic', 'lib/picolibc']) fs.mkdirSync(path.join(root, 'modules', m), { recursive: true });
  fs.mkdirSync(path.join(root, 'modules', 'lib', 'jerryscript', 'jerry-core', 'include'), { recursive: true });
  fs.writeFileSync(path.join(root, 'modules', 'lib', 'jerryscript', 'jerry-core', 'include', 'jerryscript.h'), '');
  for (const d of ['bin', 'lib', 'components']) fs.mkdirSync(path.join(root, 'tools', 'bsim', d), { recursive: true });
  fs.writeFileSync(path.join(root, 'tools', 'bsim', 'bin', 'bs_2G4_phy_v1'), '#!/bin/sh\n', { mode: 0o755 });
  if (opts.west) fs.mkdirSync(path.join(root, '.west'));
  return root;
}

test('no workspace anywhere: each part is missing, with where it was looked for and how to get it', () => {
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  const found = lookFor(bareEnv(home));
  assert.deepEqual(found.env, {});
  assert.match(found.missing.zephyr, new RegExp(`ZEPHYR_BASE is not set; looked in ${home}/zephyrproject/zephyr`));
  assert.match(found.missing.jerryscript, new RegExp(`looked in ${home}/zephyrproject/modules/lib/jerryscript`));
  assert.match(found.missing.bsim, new RegExp(`no bin/bs_2G4_phy_v1 in ${home}/zephyrproject/tools/bsim`));
  for (const why of Object.values(found.missing)) assert.match(why, /west init -l \. && west update/);
});

test('~/zephyrproject laid out by hand: every part found, ZEPHYR_MODULES from the module folders that exist', () => {
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  const ws = makeWorkspace(path.join(home, 'zephyrproject'), { modules: ['hal/cmsis', 'hal/nordic', 'bsim_hw_models/nrf_hw_models'] });
  const found = lookFor(bareEnv(home));
  assert.deepEqual(found.missing, {});
  assert.equal(found.env.ZEPHYR_BASE, path.join(ws, 'zephyr'));
  assert.equal(found.env.JERRYSCRIPT_DIR, path.join(ws, 'modules', 'lib', 'jerryscript'));
  assert.equal(found.env.BSIM_OUT_PATH, path.join(ws, 'tools', 'bsim'));
  assert.equal(found.env.BSIM_COMPONENTS_PATH, path.join(ws, 'tools', 'bsim', 'components'));
  assert.deepEqual(found.env.ZEPHYR_MODULES.split(';'), ['hal/cmsis', 'hal/nordic', 'bsim_hw_models/nrf_hw_models'].map((m) => path.join(ws, 'modules', m)));
});

test('a west workspace: west lists the modules, so ZEPHYR_MODULES is left to it', () => {
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  makeWorkspace(path.join(home, 'zephyrproject'), { west: true });
  const found = lookFor(bareEnv(home));
  assert.deepEqual(found.missing, {});
  assert.equal(found.env.ZEPHYR_MODULES, undefined);
});

test('the variables win over ~/zephyrproject, part by part', () => {
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  makeWorkspace(path.join(home, 'zephyrproject'));
  const other = makeWorkspace(path.join(tempDir, 'elsewhere'));
  const found = lookFor(bareEnv(home, { ZEPHYR_BASE: path.join(other, 'zephyr'), JERRYSCRIPT_DIR: path.join(home, 'zephyrproject', 'modules', 'lib', 'jerryscript') }));
  assert.deepEqual(found.missing, {});
  assert.equal(found.env.ZEPHYR_BASE, path.join(other, 'zephyr'));
  // The rest of the workspace comes from ZEPHYR_BASE's, JerryScript from its own variable.
  assert.equal(found.env.BSIM_OUT_PATH, path.join(other, 'tools', 'bsim'));
  assert.equal(found.env.JERRYSCRIPT_DIR, path.join(home, 'zephyrproject', 'modules', 'lib', 'jerryscript'));
});

test('a Zephyr of another release, or a JERRYSCRIPT_DIR that is no JerryScript tree, is missing and says so', () => {
  const home = fs.mkdtempSync(path.join(tempDir, 'home-'));
  makeWorkspace(path.join(home, 'zephyrproject'), { version: '3.6.0' });
  const found = lookFor(bareEnv(home, { JERRYSCRIPT_DIR: home }));
  assert.match(found.missing.zephyr, /is 3\.6\.0, the firmware is pinned to 3\.7\.1/);
  assert.match(found.missing.jerryscript, new RegExp(`no JerryScript 3\\.0 source tree \\(JERRYSCRIPT_DIR=${home}\\)`));
  assert.equal(found.env.ZEPHYR_BASE, undefined);
  assert.equal(found.env.JERRYSCRIPT_DIR, undefined);
});

// The commands that need a missing part: that line and a non-zero status, no stack trace. A host
// build of their own for the JerryScript tools, since the repository's may have been configured
// with this machine's JerryScript tree.
const noWorkspace = (ownHostBuild = false): Record<string, string> =>
  bareEnv(fs.mkdtempSync(path.join(tempDir, 'home-')), ownHostBuild ? { BEACON_HOST_BUILD: fs.mkdtempSync(path.join(tempDir, 'host-')) } : {});

function assertRefusal(r: { status: number | null; stderr: string }, part: RegExp): void {
  assert.notEqual(r.status, 0, r.stderr);
  assert.match(r.stderr, part);
  assert.match(r.stderr, /west init -l \. && west update/);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.doesNotMatch(r.stderr, /CMake Error/);
}

test('beacon run --target bsim and --target zephyr-qemu without a workspace: the missing part, exit 1', () => {
  const app = path.join(tempDir, 'hello.js');
  fs.writeFileSync(app, "print('hello');\n");
  for (const target of ['bsim', 'zephyr-qemu']) {
    const r = spawnSync(process.execPath, [cli, 'run', app, '--target', target, '--engine', 'duktape'], { encoding: 'utf8', env: noWorkspace(), timeout: 120_000 });
    assertRefusal(r, /beacon run: no Zephyr 3\.7 workspace \(ZEPHYR_BASE is not set; looked in .*\/zephyrproject\/zephyr\)/);
    assert.equal(r.status, 1);
  }
});

test('beacon build --engine jerryscript without JerryScript: the missing part, exit 1', () => {
  const app = path.join(tempDir, 'hello-jerry.js');
  fs.writeFileSync(app, "print('hello');\n");
  const r = spawnSync(process.execPath, [cli, 'build', app, '--engine', 'jerryscript', '--no-cache', '-o', path.join(tempDir, 'hello.bapp')], { encoding: 'utf8', env: noWorkspace(true), timeout: 120_000 });
  assertRefusal(r, /no JerryScript 3\.0 source tree \(JERRYSCRIPT_DIR is not set; looked in .*\/zephyrproject\/modules\/lib\/jerryscript\)/);
  assert.equal(r.status, 1);
});

test('scripts/firmware.sh without a workspace: the missing part, exit 3, nothing configured', () => {
  const dir = path.join(tempDir, 'fw-build');
  const r = spawnSync('bash', [path.join(repo, 'scripts', 'firmware.sh'), 'nrf52_bsim', '--build-dir', dir], { encoding: 'utf8', env: noWorkspace() });
  assertRefusal(r, /^firmware: no Zephyr 3\.7 workspace/m);
  assert.equal(r.status, 3);
  assert.equal(fs.existsSync(dir), false);
});

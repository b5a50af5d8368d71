// The author's loop, timed as a user sees it: whole `beacon` processes, run as the installed bin
// (node_modules/.bin/beacon), against `node -e 0` and DeviceScript's `devs build` in the same run.
// One line per figure, "name: value unit"; times are medians of several runs (wall time is noisy
// on a shared machine: compare the ratios, which come from one run).
//
//   node bench/loop.js            (bench/loop.sh runs it after the setup)
//
// Figures:
//   loop_node_e0_time                   node -e 0: the floor of any node command
//   loop_run_prebuilt_time              beacon run hello.bapp (a package built before)
//   loop_run_prebuilt_per_node          its ratio to node -e 0
//   loop_run_source_cached_time         beacon run examples/hello.ts, unchanged since the last build
//   loop_run_source_edited_time         beacon run hello.ts edited before each run (a real build)
//   loop_run_world_cached_time          beacon run examples/button-led.ts --world ... (the demo)
//   loop_build_<app>_cached_time        beacon build of an unchanged example (build cache hit)
//   loop_build_<app>_edited_time        beacon build of the example edited before each build, in a
//                                       process of its own (a script, CI: no compile server)
//   loop_build_<app>_edited_server_time the same with the compile server up (as in a terminal,
//                                       where the first build starts it)
//   loop_run_source_edited_server_time  beacon run hello.ts edited before each run, server up
//   loop_build_first_time               beacon build hello.ts with an empty cache directory
//   loop_hosttools_check_stamp_time     the host tools' freshness check (the stamp), in-process
//   loop_hosttools_check_cmake_time     what it replaces: cmake --build of beacon-sim with nothing to do
//   devicescript_<app>_build_time       devs build of the same app written for DeviceScript
//   loop_build_<app>_edited_per_devs    beacon build (edited) / devs build
'use strict';
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'node_modules', '.bin', 'beacon');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bench-loop-'));
// A cache of the bench's own: the first build below starts it empty.
const env = { ...process.env, BEACON_CACHE_DIR: path.join(work, 'cache'), BEACON_COMPILE_SERVER: 'off' };
delete env.BEACON_BUILD_CACHE;
// The same, with the compile server a terminal session would have (started below, ended at exit,
// before the work directory with its pid file goes).
const serverEnv = { ...env, BEACON_COMPILE_SERVER: 'on' };
process.on('exit', () => {
  const dir = path.join(work, 'cache', 'server');
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!f.endsWith('.pid')) continue;
    try {
      process.kill(Number(fs.readFileSync(path.join(dir, f), 'utf8')), 'SIGTERM');
    } catch {
      // ended already
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
});
const APPS = ['hello', 'timers', 'asset-tracker', 'button-led', 'telemetry', 'cloud-report'];

function line(name, value, unit) {
  console.log(`${name}: ${value} ${unit}`);
}

/** Wall time of one process, ms; fails loudly if the command fails. */
function timed(cmd, args, opts = {}) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? root, env: opts.env ?? env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return ms;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median of n runs of `run` (each returns ms), after `before` (untimed) each time. */
function medianOf(n, run, before = () => {}) {
  const xs = [];
  for (let i = 0; i < n; i++) {
    before(i);
    xs.push(run());
  }
  return median(xs);
}

const ms = (x) => Math.round(x);
const ratio = (a, b) => (a / b).toFixed(2);

// Warm-up, untimed: the host tools built and stamped, the first build of the cache.
const helloPkg = path.join(work, 'hello.bapp');
const first = timed(bin, ['build', 'examples/hello.ts', '-o', helloPkg]);

const nodeE0 = medianOf(9, () => timed(process.execPath, ['-e', '0']));
line('loop_node_e0_time', ms(nodeE0), 'ms');

const prebuilt = medianOf(9, () => timed(bin, ['run', helloPkg]));
line('loop_run_prebuilt_time', ms(prebuilt), 'ms');
line('loop_run_prebuilt_per_node', ratio(prebuilt, nodeE0), 'x');

line('loop_run_source_cached_time', ms(medianOf(7, () => timed(bin, ['run', 'examples/hello.ts']))), 'ms');

const editDir = path.join(work, 'edit');
fs.mkdirSync(editDir);
let edits = 0;
/** The example copied to editDir with a comment that differs at every call: no cache entry fits. */
function edited(app) {
  const file = path.join(editDir, `${app}.ts`);
  fs.writeFileSync(file, fs.readFileSync(path.join(root, 'examples', `${app}.ts`), 'utf8') + `\n// edit ${++edits}\n`);
  return file;
}
line('loop_run_source_edited_time', ms(medianOf(5, () => timed(bin, ['run', path.join(editDir, 'hello.ts')]), () => edited('hello'))), 'ms');

const world = ['run', 'examples/button-led.ts', '--world', 'examples/button-led.world.json'];
timed(bin, world);
line('loop_run_world_cached_time', ms(medianOf(5, () => timed(bin, world))), 'ms');

const editedBuild = {};
for (const app of APPS) {
  const out = path.join(work, `${app}.bapp`);
  timed(bin, ['build', `examples/${app}.ts`, '-o', out]);
  line(`loop_build_${app}_cached_time`, ms(medianOf(5, () => timed(bin, ['build', `examples/${app}.ts`, '-o', out]))), 'ms');
  editedBuild[app] = medianOf(5, () => timed(bin, ['build', path.join(editDir, `${app}.ts`), '-o', out]), () => edited(app));
  line(`loop_build_${app}_edited_time`, ms(editedBuild[app]), 'ms');
}

// The compile server: started by a first build, then warm (its first builds warm it further).
timed(bin, ['build', edited('hello'), '-o', path.join(work, 'hello.bapp')], { env: serverEnv });
const socketDir = path.join(work, 'cache', 'server');
for (let i = 0; i < 600 && !(fs.existsSync(socketDir) && fs.readdirSync(socketDir).some((f) => f.endsWith('.pid'))); i++) {
  spawnSync('sleep', ['0.1']);
}
for (const app of APPS) timed(bin, ['build', edited(app), '-o', path.join(work, `${app}.bapp`)], { env: serverEnv });
for (const app of APPS) {
  const out = path.join(work, `${app}.bapp`);
  const t = medianOf(5, () => timed(bin, ['build', path.join(editDir, `${app}.ts`), '-o', out], { env: serverEnv }), () => edited(app));
  line(`loop_build_${app}_edited_server_time`, ms(t), 'ms');
}
line('loop_run_source_edited_server_time', ms(medianOf(5, () => timed(bin, ['run', path.join(editDir, 'hello.ts')], { env: serverEnv }), () => edited('hello'))), 'ms');
line('loop_build_first_time', ms(first), 'ms');

// The host tools' freshness check: the stamp, against the cmake run it replaces.
const { stampSaysCurrent } = require(path.join(root, 'bindings-ts', 'dist', 'src', 'compiler', 'hostToolsStamp.js'));
const { hostBuildDir } = require(path.join(root, 'bindings-ts', 'dist', 'src', 'compiler', 'hostTools.js'));
const buildDir = hostBuildDir();
if (!stampSaysCurrent(buildDir, 'beacon-sim')) throw new Error('the host tools are not stamped after a run');
line('loop_hosttools_check_stamp_time', medianOf(9, () => {
  const t = process.hrtime.bigint();
  stampSaysCurrent(buildDir, 'beacon-sim');
  return Number(process.hrtime.bigint() - t) / 1e6;
}).toFixed(1), 'ms');
line('loop_hosttools_check_cmake_time', ms(medianOf(5, () => timed('cmake', ['--build', buildDir, '-j2', '--target', 'beacon-sim']))), 'ms');

// ---------------------------------------------------------------------------------- DeviceScript

const devsDir = path.join(work, 'devicescript');
fs.mkdirSync(path.join(devsDir, 'src'), { recursive: true });
fs.writeFileSync(path.join(devsDir, 'package.json'), '{ "name": "beacon-bench-devicescript", "private": true }\n');
try {
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '@devicescript/cli'], { cwd: devsDir, stdio: 'pipe' });
} catch (err) {
  const text = String(err.stderr || err.message).split('\n').find((l) => /err/i.test(l)) || 'npm install failed';
  line('devicescript_install', 'failed', `(npm install @devicescript/cli: ${text.trim()})`);
  process.exit(0);
}
const devs = path.join(devsDir, 'node_modules', '.bin', 'devs');
const version = spawnSync(devs, ['--version'], { encoding: 'utf8' }).stdout.match(/v([\d.]+)/);
line('devicescript_version', version ? version[1] : '?', '(cli)');
fs.writeFileSync(path.join(devsDir, 'devsconfig.json'), '{}\n');
for (const app of APPS) {
  const src = path.join(root, 'bench', 'devicescript', `${app}.ts`);
  if (fs.existsSync(src)) fs.copyFileSync(src, path.join(devsDir, 'src', `${app}.ts`));
}
try {
  // The first build unpacks DeviceScript's libraries into the project: not counted.
  timed(devs, ['build', '--no-colors', 'src/hello.ts'], { cwd: devsDir, env: process.env });
} catch (err) {
  line('devicescript_setup', 'failed', `(${err.message.split('\n').slice(0, 2).join(' ')})`);
  process.exit(0);
}
for (const app of APPS) {
  if (!fs.existsSync(path.join(devsDir, 'src', `${app}.ts`))) continue;
  const t = medianOf(3, () => timed(devs, ['build', '--no-colors', `src/${app}.ts`], { cwd: devsDir, env: process.env }));
  line(`devicescript_${app}_build_time`, ms(t), 'ms');
  line(`loop_build_${app}_edited_per_devs`, ratio(editedBuild[app], t), 'x');
}

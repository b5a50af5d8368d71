// The beacon command line: argument and interval parsing, usage errors (one line, exit 2), help,
// and the real thing end to end (the bin script building and running apps on the simulator).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs, ParsedArgs, UsageError } from '../src/cli/args';
import { defaultOutput } from '../src/cli/build';
import { parseInterval, parseUtc } from '../src/cli/interval';
import { CliIo } from '../src/cli/io';
import { main } from '../src/cli/main';
import { simArgs } from '../src/cli/run';
import { buildSpec, runSpec } from '../src/cli/specs';
import { ensureHostTools, readPackageHeader } from '../src/compiler';
import { toolsRoot } from '../src/codegen/versions';
import { workspaceMissing } from '../src/firmware/workspace';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-cli-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

function write(name: string, text: string | Buffer): string {
  const file = path.join(tmpRoot, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}

function options(args: ParsedArgs): Record<string, string | true> {
  return Object.fromEntries(args.options);
}

// ---------------------------------------------------------------------------------------------
// Argument parsing

const PARSE_OK: { argv: string[]; positionals: string[]; options: Record<string, string | true>; help?: boolean }[] = [
  { argv: ['app.ts'], positionals: ['app.ts'], options: {} },
  {
    argv: ['app.ts', '-o', 'x.bapp', '--api', '0.1.5'],
    positionals: ['app.ts'],
    options: { output: 'x.bapp', api: '0.1.5' },
  },
  { argv: ['--api=0.0.9', 'app.ts'], positionals: ['app.ts'], options: { api: '0.0.9' } },
  { argv: ['-ox.bapp', 'app.ts'], positionals: ['app.ts'], options: { output: 'x.bapp' } },
  { argv: ['--output', '--odd-name.bapp', 'app.ts'], positionals: ['app.ts'], options: { output: '--odd-name.bapp' } },
  { argv: ['app.ts', '--keep'], positionals: ['app.ts'], options: { keep: true } },
  { argv: ['--', '-dash.ts'], positionals: ['-dash.ts'], options: {} },
  { argv: ['app.ts', '--api', '0.1.5', '--api', '0.2.6'], positionals: ['app.ts'], options: { api: '0.2.6' } },
  { argv: ['app.ts', '--sign', 'k.pem', '--json', '--minify=dense'], positionals: ['app.ts'], options: { sign: 'k.pem', json: true, minify: 'dense' } },
  { argv: ['--help'], positionals: [], options: {}, help: true },
  { argv: ['a.ts', 'b.ts', '-h'], positionals: ['a.ts', 'b.ts'], options: {}, help: true },
];

for (const c of PARSE_OK) {
  test(`parseArgs: build ${c.argv.join(' ')}`, () => {
    const args = parseArgs(buildSpec, c.argv);
    assert.deepEqual(args.positionals, c.positionals);
    assert.deepEqual(options(args), c.options);
    assert.equal(args.help, c.help ?? false);
  });
}

const PARSE_ERRORS: [string[], string][] = [
  [[], 'missing source'],
  [['a.ts', 'b.ts'], "unexpected argument 'b.ts'"],
  [['a.ts', '--frob'], "unknown option '--frob'"],
  [['a.ts', '--frob=1'], "unknown option '--frob'"],
  [['a.ts', '-x'], "unknown option '-x'"],
  [['a.ts', '--api'], "option '--api' needs a value (<version>)"],
  [['a.ts', '-o'], "option '-o' needs a value (<file>)"],
  [['a.ts', '--keep=yes'], "option '--keep' takes no value"],
  [['a.ts', '--for', '1s'], "unknown option '--for'"], // a run option, not a build one
];

for (const [argv, message] of PARSE_ERRORS) {
  test(`parseArgs rejects: build ${argv.join(' ')}`, () => {
    assert.throws(() => parseArgs(buildSpec, argv), (e: unknown) => e instanceof UsageError && e.message === message);
  });
}

test('parseArgs: run takes its own options', () => {
  const args = parseArgs(runSpec, ['app.bapp', '--for', '10 mins', '--realtime', '--utc=2024-05-01']);
  assert.deepEqual(options(args), { for: '10 mins', realtime: true, utc: '2024-05-01' });
});

test('parseArgs: a repeatable option keeps every value', () => {
  const args = parseArgs(runSpec, ['app.bapp', '--trust', 'a.pub', '--trust=b.pub']);
  assert.deepEqual(args.lists.get('trust'), ['a.pub', 'b.pub']);
  assert.deepEqual(simArgs('app.bapp', { realtime: false, trust: ['a.pub', 'b.pub'] }), ['--trust', 'a.pub', '--trust', 'b.pub', 'app.bapp']);
});

// ---------------------------------------------------------------------------------------------
// Intervals and times

const INTERVALS: [string, number][] = [
  ['200ms', 200],
  ['200 ms', 200],
  ['30s', 30_000],
  ['10 sec', 10_000],
  ['10 secs', 10_000],
  ['10m', 600_000],
  ['1 min', 60_000],
  ['5 mins', 300_000],
  ['1h', 3_600_000],
  ['1 hour', 3_600_000],
  ['12 hours', 43_200_000],
  ['1.5h', 5_400_000],
  ['1d', 86_400_000],
  ['1 day', 86_400_000],
  ['2 days', 172_800_000],
  ['1w', 604_800_000],
  ['1 week', 604_800_000],
  ['2 weeks', 1_209_600_000],
  ['.5s', 500],
  ['1500', 1500], // a bare number is milliseconds
];

for (const [text, ms] of INTERVALS) {
  test(`parseInterval('${text}') is ${ms} ms`, () => {
    assert.equal(parseInterval(text), ms);
  });
}

const BAD_INTERVALS: [string, RegExp][] = [
  ['', /is not an interval/],
  ['10x', /is not an interval/],
  ['10 parsecs', /is not an interval/],
  ['10  s', /is not an interval/], // one optional space, not two
  ['10 S', /is not an interval/], // units are lower case, as on the device
  ['s', /is not an interval/],
  ['-5s', /is not an interval/],
  ['1e3ms', /is not an interval/],
  ['10s ', /is not an interval/],
  ['0', /shorter than 1 ms/],
  ['0.4ms', /shorter than 1 ms/],
  ['99999999999 weeks', /too long/],
];

for (const [text, message] of BAD_INTERVALS) {
  test(`parseInterval rejects '${text}'`, () => {
    assert.throws(() => parseInterval(text), (e: unknown) => e instanceof RangeError && message.test(e.message));
  });
}

const TIMES: [string, number][] = [
  ['0', 0],
  ['1714564800000', 1714564800000],
  ['2024-05-01', Date.UTC(2024, 4, 1)],
  ['2024-05-01T12:00:00Z', Date.UTC(2024, 4, 1, 12)],
  ['2024-05-01T12:00', Date.UTC(2024, 4, 1, 12)], // no zone: UTC, not local time
  ['2024-05-01T12:00:00.250Z', Date.UTC(2024, 4, 1, 12, 0, 0, 250)],
  ['2024-05-01T12:00:00+02:00', Date.UTC(2024, 4, 1, 10)],
  ['2024-02-29T23:59:59Z', Date.UTC(2024, 1, 29, 23, 59, 59)],
];

for (const [text, ms] of TIMES) {
  test(`parseUtc('${text}')`, () => {
    assert.equal(parseUtc(text), ms);
  });
}

for (const text of ['yesterday', '2024-02-30', '2023-02-29', '2024-13-01', '2024-05-01T24:00', '2024-5-1', '-5', '1969-12-31', '2024-05-01 12:00']) {
  test(`parseUtc rejects '${text}'`, () => {
    assert.throws(() => parseUtc(text), RangeError);
  });
}

test('simulator arguments carry the parsed values', () => {
  assert.deepEqual(simArgs('a.bapp', { forMs: 600_000, realtime: true, utcMs: 5 }), [
    '--for',
    '600000',
    '--realtime',
    '--utc',
    '5',
    'a.bapp',
  ]);
  assert.deepEqual(simArgs('a.bapp', { realtime: false }), ['a.bapp']);
});

test('the default package is next to the source', () => {
  assert.equal(defaultOutput('/x/app.ts'), '/x/app.bapp');
  assert.equal(defaultOutput('/x/app.js'), '/x/app.bapp');
  assert.equal(defaultOutput('/x/my.app.ts'), '/x/my.app.bapp');
});

// ---------------------------------------------------------------------------------------------
// main(): help and usage errors

test('beacon with no command prints usage and exits 2', async () => {
  const r = await cli([]);
  assert.equal(r.code, 2);
  assert.match(r.err, /^usage: beacon <command>/);
  assert.equal(r.out, '');
});

test('beacon --help lists the commands', async () => {
  for (const argv of [['--help'], ['-h'], ['help']]) {
    const r = await cli(argv);
    assert.equal(r.code, 0);
    for (const cmd of ['build', 'run', 'codegen']) assert.match(r.out, new RegExp(`^  ${cmd} `, 'm'));
  }
});

test('beacon <cmd> --help shows the options of the command', async () => {
  const build = await cli(['build', '--help']);
  assert.equal(build.code, 0);
  assert.match(build.out, /^usage: beacon build <source> \[options\]/);
  for (const opt of ['-o, --output <file>', '--api <version>', '--engine <duktape|jerryscript>', '--keep']) {
    assert.ok(build.out.includes(opt), opt);
  }
  const run = await cli(['help', 'run']);
  assert.equal(run.code, 0);
  assert.match(run.out, /^usage: beacon run \[<app>...\] \[options\]/);
  assert.match(run.out, /--world <scenario.json>/);
  assert.match(run.out, /--for <interval>/);
  assert.match(run.out, /ms; s, sec, secs; m, min, mins; h, hour, hours; d, day, days; w, week, weeks/);
  const codegen = await cli(['codegen', '-h']);
  assert.equal(codegen.code, 0);
  assert.match(codegen.out, /--check/);
});

test('beacon --version', async () => {
  const r = await cli(['--version']);
  const pkg = JSON.parse(fs.readFileSync(path.join(toolsRoot(), 'package.json'), 'utf8')) as { version: string };
  assert.equal(r.out, `beacon ${pkg.version}\n`);
});

const app = write('usage/app.ts', 'print(1);\n');
const notes = write('usage/notes.txt', 'not an app\n');

const USAGE_ERRORS: [string[], string][] = [
  [['frob'], "beacon: unknown command 'frob' (see 'beacon --help')"],
  [['--frob'], "beacon: unknown option '--frob' (see 'beacon --help')"],
  [['help', 'frob'], "beacon: unknown command 'frob' (see 'beacon --help')"],
  [['build'], "beacon build: missing source (see 'beacon build --help')"],
  [['build', path.join(tmpRoot, 'nope.ts')], `beacon build: no such file: ${path.join(tmpRoot, 'nope.ts')}`],
  [['build', path.dirname(app)], `beacon build: not a file: ${path.dirname(app)}`],
  [['build', notes], `beacon build: ${notes}: expected a .ts or .js source file (see 'beacon build --help')`],
  [
    ['build', app, '--api', '0.3.0'],
    "beacon build: unknown API version '0.3.0' (known: 0.0.9, 0.1.5, 0.2.6) (see 'beacon build --help')",
  ],
  [['build', app, '--engine', 'v8'], "beacon build: unknown engine 'v8' (known: duktape, jerryscript) (see 'beacon build --help')"],
  [['build', app, '--frob'], "beacon build: unknown option '--frob' (see 'beacon build --help')"],
  [['build', app, '--minify', 'max'], "beacon build: unknown --minify mode 'max' (known: lines, dense, none) (see 'beacon build --help')"],
  [['build', app, '--sign', path.join(tmpRoot, 'nokey.pem')], `beacon build: no such file: ${path.join(tmpRoot, 'nokey.pem')}`],
  [['run', app, '--trust', path.join(tmpRoot, 'nokey.pub')], `beacon run: no such file: ${path.join(tmpRoot, 'nokey.pub')}`],
  [['trace'], "beacon trace: missing package (see 'beacon trace --help')"],
  [['keygen'], "beacon keygen: missing name (see 'beacon keygen --help')"],
  [
    ['build', app, '-o', path.join(tmpRoot, 'no', 'dir', 'x.bapp')],
    `beacon build: output directory does not exist: ${path.join(tmpRoot, 'no', 'dir')}`,
  ],
  [['build', app, '-o', app], 'beacon build: the output would overwrite the source'],
  [['run'], "beacon run: missing app (see 'beacon run --help')"],
  [['run', notes], `beacon run: ${notes}: expected a .ts or .js source or a .bapp package (see 'beacon run --help')`],
  [['run', app, '--api', '1.0'], "beacon run: unknown API version '1.0' (known: 0.0.9, 0.1.5, 0.2.6) (see 'beacon run --help')"],
  [['run', app, '--for'], "beacon run: option '--for' needs a value (<interval>) (see 'beacon run --help')"],
  [['run', app, '--for', '0'], "beacon run: --for: interval '0' is shorter than 1 ms (see 'beacon run --help')"],
  [['run', app, '--utc', 'tomorrow'], /^beacon run: --utc: 'tomorrow' is not a UTC time .*\(see 'beacon run --help'\)$/.source],
  [['run', app, '--for', '10 parsecs'], /^beacon run: --for: '10 parsecs' is not an interval .*\(see 'beacon run --help'\)$/.source],
  [['codegen', 'extra'], "beacon codegen: unexpected argument 'extra' (see 'beacon codegen --help')"],
];

for (const [argv, expected] of USAGE_ERRORS) {
  test(`usage error, exit 2: beacon ${argv.map((a) => path.basename(a)).join(' ')}`, async () => {
    const r = await cli(argv);
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.equal(r.err.split('\n').length, 2, `one line: ${JSON.stringify(r.err)}`);
    const line = r.err.trimEnd();
    if (expected.startsWith('^')) assert.match(line, new RegExp(expected));
    else assert.equal(line, expected);
  });
}

test('beacon build lists type errors with positions, exits 1 and writes nothing', async () => {
  const src = write('typeerr/app.ts', "// line 1\nconst n: number = 'x';\nprint(n);\n");
  const r = await cli(['build', src]);
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(r.err, /app\.ts:2:7: error TS2322: Type 'string' is not assignable to type 'number'\./);
  assert.match(r.err, /^beacon build: 1 error; no package written$/m);
  assert.equal(fs.existsSync(defaultOutput(src)), false);
});

test('beacon run with a type error runs nothing and exits 1', async () => {
  const src = write('typeerr/run.ts', "const n: number = 'x';\nprint(n);\n");
  const r = await cli(['run', src]);
  assert.equal(r.code, 1);
  assert.match(r.err, /run\.ts:1:7: error TS2322/);
  assert.match(r.err, /^beacon run: 1 error; nothing was run$/m);
});

test('beacon codegen --check exits 1 exactly when something is out of date', async () => {
  const r = await cli(['codegen', '--check']);
  assert.ok(r.code === 0 || r.code === 1);
  assert.equal(r.code === 1, /out of date/.test(r.err), r.err);
});

// ---------------------------------------------------------------------------------------------
// End to end through the bin script (native tools built on demand)

const BIN = path.join(toolsRoot(), 'bin', 'beacon.js');

function beacon(args: string[], cwd = tmpRoot): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('end to end: beacon build then beacon run of the package', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  const src = write('e2e/hello.ts', "const greet = (who: string): string => `hello from ${who}`;\nprint(greet('beacon'));\n");
  const built = beacon(['build', 'e2e/hello.ts']);
  assert.equal(built.status, 0, built.stderr);
  const pkg = defaultOutput(src);
  // Nothing on stdout without --json; the size report is on stderr.
  assert.equal(built.stdout, '');
  assert.match(built.stderr, /^e2e\/hello\.bapp: API 0\.2\.6, Duktape [\d.]+\n/);
  const header = readPackageHeader(fs.readFileSync(pkg));
  assert.ok(typeof header !== 'string', String(header));
  assert.equal(header.apiVersion, '0.2.6');

  const ran = beacon(['run', 'e2e/hello.bapp']);
  assert.equal(ran.status, 0, ran.stderr);
  assert.equal(ran.stdout, 'hello from beacon\n');
});

test('end to end: beacon run builds a source and streams only the app output', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('e2e/direct.js', "var parts = ['one', 'two'];\nprint(parts.join(' '));\n");
  const ran = beacon(['run', 'e2e/direct.js', '--api', '0.1.5']);
  assert.equal(ran.status, 0, ran.stderr);
  assert.equal(ran.stdout, 'one two\n');
  assert.equal(fs.existsSync(path.join(tmpRoot, 'e2e', 'direct.bapp')), false, 'no package left next to the source');
});

test('end to end: --for bounds simulated time', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('e2e/ticker.ts', "let n = 0;\ntimers.repeat('1s', () => print('tick ' + ++n));\n");
  const ran = beacon(['run', 'e2e/ticker.ts', '--for', '3500 ms']);
  assert.equal(ran.status, 0, ran.stderr);
  assert.equal(ran.stdout, 'tick 1\ntick 2\ntick 3\n');
});

test('end to end: --utc sets the simulated clock', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('e2e/clock.ts', 'print(new Date().toISOString());\n');
  const ran = beacon(['run', 'e2e/clock.ts', '--utc', '2024-05-01T12:00:00Z']);
  assert.equal(ran.status, 0, ran.stderr);
  assert.equal(ran.stdout, '2024-05-01T12:00:00.000Z\n');
});

test('end to end: an app whose top level throws exits 1', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('e2e/throws.ts', "print('before');\nthrow new Error('boom');\n");
  const ran = beacon(['run', 'e2e/throws.ts']);
  assert.equal(ran.status, 1);
  assert.equal(ran.stdout, 'before\n');
  assert.match(ran.stderr, /boom/);
});

test('end to end: a corrupt package is refused with exit 1', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  const src = write('e2e/ok.ts', "print('fine');\n");
  assert.equal(beacon(['build', src]).status, 0);
  const pkg = fs.readFileSync(defaultOutput(src));
  pkg[pkg.length - 1] ^= 0x01;
  write('e2e/corrupt.bapp', pkg);
  const ran = beacon(['run', 'e2e/corrupt.bapp']);
  assert.equal(ran.status, 1);
  assert.equal(ran.stdout, '');
  assert.notEqual(ran.stderr, '');
});

test('end to end: --api must match the API a package was built for', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('e2e/v015.ts', "print('old api');\n");
  assert.equal(beacon(['build', 'e2e/v015.ts', '--api', '0.1.5']).status, 0);
  const wrong = beacon(['run', 'e2e/v015.bapp', '--api', '0.2.6']);
  assert.equal(wrong.status, 2);
  assert.equal(wrong.stderr, 'beacon run: e2e/v015.bapp was built for API 0.1.5, not 0.2.6\n');
  const right = beacon(['run', 'e2e/v015.bapp', '--api', '0.1.5']);
  assert.equal(right.status, 0, right.stderr);
  assert.equal(right.stdout, 'old api\n');
});

// The JerryScript tools need a JerryScript source tree, like the JerryScript app runs.
test(
  'end to end: a JerryScript package runs on the JerryScript simulator by itself',
  { skip: workspaceMissing('jerryscript') },
  async () => {
    await ensureHostTools(['beacon-pack', 'beacon-sim'], 'jerryscript');
    write('e2e/jerry.ts', "const engine = 'jerryscript';\nprint(`built for ${engine}`);\n");
    const built = beacon(['build', 'e2e/jerry.ts', '--engine', 'jerryscript']);
    assert.equal(built.status, 0, built.stderr);
    assert.match(built.stderr, /^e2e\/jerry\.bapp: API 0\.2\.6, JerryScript [\d.]+\n/);
    const header = readPackageHeader(fs.readFileSync(path.join(tmpRoot, 'e2e', 'jerry.bapp')));
    assert.ok(typeof header !== 'string', String(header));
    assert.equal(header.engine, 'jerryscript');
    const ran = beacon(['run', 'e2e/jerry.bapp']);
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout, 'built for jerryscript\n');
    // Asked to run it on Duktape, the simulator refuses the package.
    const refused = beacon(['run', 'e2e/jerry.bapp', '--engine', 'duktape']);
    assert.equal(refused.status, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /JerryScript/);
  },
);

// ---------------------------------------------------------------------------------------------
// Size report, source maps, trace, keys

test('beacon --help lists trace and keygen; build --help lists --sign and --json', async () => {
  const r = await cli(['--help']);
  for (const cmd of ['trace', 'keygen']) assert.match(r.out, new RegExp(`^  ${cmd} `, 'm'));
  const build = await cli(['build', '--help']);
  for (const opt of ['--sign <key.pem>', '--json']) assert.ok(build.out.includes(opt), opt);
  const run = await cli(['run', '--help']);
  assert.ok(run.out.includes('--trust <key.pub>...'));
});

test('end to end: beacon build reports every stage on stderr, and --json on stdout', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('size/lib.ts', 'export function label(n: number): string {\n  return `n=${n}`;\n}\n');
  write('size/app.ts', "import { label } from './lib';\nconst xs = [1, 2, 3].map((x) => x * 2);\nprint(label(xs.length));\n");
  const built = beacon(['build', 'size/app.ts', '--json']);
  assert.equal(built.status, 0, built.stderr);
  const report = JSON.parse(built.stdout) as {
    package: string;
    map: string;
    apiVersion: string;
    engine: string;
    sizes: { source: number; es5: number; minified: number; bytecode: number; package: number };
  };
  const pkg = fs.readFileSync(report.package);
  assert.equal(report.package, path.join(tmpRoot, 'size', 'app.bapp'));
  assert.equal(report.map, `${report.package}.map`);
  assert.ok(fs.existsSync(report.map));
  assert.equal(report.engine, 'duktape');
  assert.equal(report.sizes.package, pkg.length);
  const header = readPackageHeader(pkg);
  assert.ok(typeof header !== 'string', String(header));
  assert.equal(report.sizes.bytecode, header.bytecodeSize);
  assert.equal(report.sizes.minified, header.sourceSize);
  const sources = ['size/lib.ts', 'size/app.ts'].map((f) => fs.statSync(path.join(tmpRoot, f)).size);
  assert.equal(report.sizes.source, sources[0] + sources[1]);
  assert.ok(report.sizes.minified < report.sizes.es5, 'minifying makes it smaller');
  for (const [stage, bytes] of [
    ['source', report.sizes.source],
    ['ES5', report.sizes.es5],
    ['minified', report.sizes.minified],
    ['bytecode', report.sizes.bytecode],
    ['package', report.sizes.package],
  ] as const) {
    assert.match(built.stderr, new RegExp(`^  ${stage} +${bytes} bytes`, 'm'), stage);
  }
  assert.match(built.stderr, /^  source +\d+ bytes  2 modules$/m);
});

test('end to end: errors on the simulator name the TypeScript file and line', async () => {
  await ensureHostTools(['beacon-pack', 'beacon-sim'], 'duktape');
  write('maps/util/check.ts', "export function check(n: number): number {\n  if (n > 2) {\n    throw new Error('too big: ' + n);\n  }\n  return n;\n}\n");
  write(
    'maps/app.ts',
    "import { check } from './util/check';\nprint(check(1));\ntimers.single('1s', () => {\n  print('tick');\n  check(7);\n});\nprint(check(2));\n",
  );
  // A source: built into a temporary package with its map.
  const ran = beacon(['run', 'maps/app.ts']);
  assert.equal(ran.stdout, '1\n2\ntick\n');
  assert.match(ran.stderr, /Error: too big: 7 \(maps\/util\/check\.ts:3:5\)/);
  assert.doesNotMatch(ran.stderr, /\.min\.js/);
  // A package: its map is beside it.
  assert.equal(beacon(['build', 'maps/app.ts']).status, 0);
  const again = beacon(['run', 'maps/app.bapp']);
  assert.match(again.stderr, /Error: too big: 7 \(maps\/util\/check\.ts:3:5\)/);
  // Without the map the run is the same, with the location in the minified script.
  fs.renameSync(path.join(tmpRoot, 'maps/app.bapp.map'), path.join(tmpRoot, 'maps/elsewhere.map'));
  const bare = beacon(['run', 'maps/app.bapp']);
  assert.equal(bare.stdout, '1\n2\ntick\n');
  const loc = /Error: too big: 7 \((app\.min\.js:\d+)\)/.exec(bare.stderr);
  assert.ok(loc, bare.stderr);

  // beacon trace maps a device log the same way, from stdin or a file, with --map.
  const log = `00:01 [error] uncaught error in callback: Error: too big: 7 (${loc[1]})\nunrelated line app.min.js\n`;
  const traced = spawnSync(process.execPath, [BIN, 'trace', 'maps/app.bapp', '--map', 'maps/elsewhere.map'], {
    cwd: tmpRoot,
    input: log,
    encoding: 'utf8',
  });
  assert.equal(traced.status, 0, traced.stderr);
  assert.equal(traced.stdout, '00:01 [error] uncaught error in callback: Error: too big: 7 (maps/util/check.ts:3:5)\nunrelated line app.min.js\n');
  write('maps/device.log', log);
  fs.renameSync(path.join(tmpRoot, 'maps/elsewhere.map'), path.join(tmpRoot, 'maps/app.bapp.map'));
  const fromFile = beacon(['trace', 'maps/app.bapp', '--log', 'maps/device.log']);
  assert.equal(fromFile.stdout, traced.stdout);
});

test('beacon trace without a map says so and exits 2', async () => {
  const pkg = write('maps/lonely.bapp', 'BAPP');
  const r = await cli(['trace', pkg, '--log', pkg]);
  assert.equal(r.code, 2);
  assert.equal(r.err, `beacon trace: no source map beside the package (${pkg}.map)\n`);
});

test('beacon keygen writes a key pair and never overwrites one', async () => {
  const base = path.join(tmpRoot, 'keys', 'dev');
  fs.mkdirSync(path.dirname(base), { recursive: true });
  const r = await cli(['keygen', base]);
  assert.equal(r.code, 0, r.err);
  const priv = fs.readFileSync(`${base}.pem`, 'utf8');
  const pub = fs.readFileSync(`${base}.pub`, 'utf8');
  assert.match(priv, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.match(pub, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.equal(fs.statSync(`${base}.pem`).mode & 0o777, 0o600);
  const id = /public key ([0-9a-f]{16})/.exec(r.err)?.[1];
  assert.ok(id, r.err);
  // An ECDSA P-256 key pair; the firmware's form of the public key is its uncompressed point.
  const privateKey = crypto.createPrivateKey(priv);
  assert.equal(privateKey.asymmetricKeyType, 'ec');
  assert.equal(privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const point = crypto.createPublicKey(pub).export({ type: 'spki', format: 'der' }).subarray(26).toString('hex');
  assert.ok(r.err.includes(`firmware: CONFIG_BEACON_TRUSTED_KEYS="${point}"\n`), r.err);
  assert.equal(point.slice(2, 18), id);
  assert.deepEqual(crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'der' }), crypto.createPublicKey(pub).export({ type: 'spki', format: 'der' }));
  const again = await cli(['keygen', base]);
  assert.equal(again.code, 2);
  assert.match(again.err, /dev\.pem exists; not overwriting a key/);
  assert.equal(fs.readFileSync(`${base}.pem`, 'utf8'), priv);
});

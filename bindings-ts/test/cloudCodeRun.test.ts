// `beacon run --cloud-code handlers.js`: the run's cloud stores the app's events, then the handler
// is called for each, in simulated-time order, in the cloud's sandbox with the clock at the
// event's device time. Two runs print the same and write the same cloud-code records; each
// record follows its event's cloud-event record; a handler that throws shows the reason and the
// run goes on. Bad --cloud-code input is refused before anything runs. Skipped when the
// simulator was built without libmosquitto (no cloud of its own for the run).
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { before, test } from 'node:test';
import { toolsRoot } from '../src/codegen/versions';
import { tmpDir } from '../src/cloud/testkit';
import { runChild } from './childProcess';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');
const dir = tmpDir('beacon-cloud-code-run-');
const beacon = (args: string[]) => runChild(process.execPath, [cli, ...args], 180_000);

const app = path.join(dir, 'app.ts');
fs.writeFileSync(
  app,
  `for (let i = 1; i <= 3; i++) cloud.enqueue('reading', { i }, { volatile: false });
cloud.enqueue('boom', { why: 'on purpose' }, { volatile: false });
cloud.setVar('mode', 'eco');
sync.now();
`,
);
const handlers = path.join(dir, 'handlers.js');
fs.writeFileSync(
  handlers,
  `const crypto = require('crypto');
module.exports = async function (event) {
  if (event.type === 'boom') throw new Error('boom: ' + event.payload.why);
  const h = crypto.createHash('sha256').update(JSON.stringify(event.payload)).digest('hex').slice(0, 8);
  console.log(event.type, JSON.stringify(event.payload), event.enqueuedAt, Date.now(), Math.random().toFixed(6), h, event.identifier === event.deviceId);
};
`,
);

interface Rec {
  t: number;
  ev: string;
  dev: string;
  seq: number;
  type: string;
  ts: number;
  ok?: boolean;
  output?: string;
  error?: string;
}

function records(file: string): Rec[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Rec);
}

let noMosquitto: string | false = false;
before(async () => {
  const probe = await beacon(['run', app, '--cloud', 'mqtt://127.0.0.1:1', '--for', '1s']);
  if (/without libmosquitto/.test(probe.stderr)) noMosquitto = 'beacon-sim built without libmosquitto';
});

test('the handler runs for each stored event in simulated-time order; two runs print the same', async (t) => {
  if (noMosquitto) return t.skip(noMosquitto);
  const runs = [];
  for (const n of [1, 2]) {
    const trace = path.join(dir, `run${n}.jsonl`);
    const r = await beacon(['run', app, '--for', '10s', '--cloud-code', handlers, '--trace', trace]);
    assert.equal(r.status, 0, r.stderr);
    runs.push({ r, trace: records(trace) });
  }
  const [a, b] = runs;
  assert.equal(a.r.stdout, b.r.stdout, 'the same output');
  const code = (x: typeof a) => x.trace.filter((y) => y.ev === 'cloud-code');
  assert.deepEqual(code(a), code(b), 'the same cloud-code records');
  assert.match(a.r.stderr, /^\[beacon cloud\] cloud code: 5 calls, 1 failed$/m);

  // Each cloud-code record just after its event's, at the same simulated time.
  const events = a.trace.filter((y) => y.ev === 'cloud-event');
  assert.deepEqual(code(a).map((y) => `${y.type}#${y.seq}`), events.map((y) => `${y.type}#${y.seq}`));
  a.trace.forEach((y, i) => {
    if (y.ev !== 'cloud-code') return;
    const e = a.trace[i - 1];
    assert.deepEqual([e.ev, e.seq, e.t], ['cloud-event', y.seq, y.t]);
  });
  const first = events[0];
  // No --utc: the clock starts at 2026-01-01T00:00:00Z; Date.now() in the handler is the event's time.
  assert.ok(first.ts >= Date.UTC(2026, 0, 1) && first.ts < Date.UTC(2026, 0, 1) + 10_000, String(first.ts));
  const [line] = a.r.stdout.split('\n').filter((l) => l.startsWith('[cloud code'));
  const m = /^\[cloud code (\d+\.\d{3}) s d0\] reading \{"i":1\} (\S+) (\d+) (0\.\d{6}) ([0-9a-f]{8}) true$/.exec(line);
  assert.ok(m, line);
  assert.equal(Number(m[1]) * 1000, first.t);
  assert.equal(m[2], new Date(first.ts).toISOString());
  assert.equal(Number(m[3]), first.ts);
  const boom = code(a).find((y) => y.type === 'boom');
  assert.equal(boom?.ok, false);
  assert.match(boom?.error ?? '', /^Error: boom: on purpose \(at module\.exports \(handlers\.js:3:\d+\)\)$/);
  assert.match(a.r.stdout, /^\[cloud code \d+\.\d{3} s d0\] boom #4 failed: Error: boom: on purpose/m);
  assert.match(a.r.stdout, /^\[cloud code \d+\.\d{3} s d0\] mode "eco" /m);
});

test('bad --cloud-code input is refused before anything runs, naming the option', async () => {
  const bad = path.join(dir, 'bad.js');
  fs.writeFileSync(bad, 'module.exports = async function (event) {');
  const cases: [string[], RegExp][] = [
    [['--cloud-code', path.join(dir, 'missing.js')], /--cloud-code: cannot read .*missing\.js: ENOENT/],
    [['--cloud-code', bad], /--cloud-code .*bad\.js: SyntaxError: /],
    [['--cloud', 'loopback', '--cloud-code', handlers], /--cloud-code: only for the cloud beacon run starts \(not with --cloud loopback\)/],
  ];
  for (const [args, error] of cases) {
    const r = await beacon(['run', app, '--for', '1s', ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, error);
    assert.equal(r.stdout, '');
  }
});

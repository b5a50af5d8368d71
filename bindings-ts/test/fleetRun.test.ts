// What a run of a fleet tells its user (docs/world.md, "Several devices"): a world too large for
// the memory it may have is refused before it starts, with the estimate and the limit; a large
// world ends with what it cost (memory per device, what went over the air, counted as the trace
// counts it); a long run shows its progress; and each app's error locations are mapped with its
// own package when the world runs several.
import * as assert from 'assert/strict';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon } from './boardRuns';
import { ensureHostTools } from '../src/compiler';
import { formatProgress, parseProgress, ProgressLine, PROGRESS_AFTER_MS } from '../src/cli/progress';
import { deviceClock, speedText } from '../src/world/progress';

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-fleet-run-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const f = path.join(tempDir, name);
  fs.writeFileSync(f, text);
  return f;
}

const advertiser = file('tag.ts', "ble.advertise(ble.build.iBeacon('f7826da64fa24e988024bc5b71e0893e', 7, 1, -59)).interval(500).power(-4);\n");
const scanner = file('scanner.ts', "ble.startScan(() => {}, '1h', { deduplicate: false, passive: true });\n");

/** A world of n devices in a 5 m grid, every tenth a scanner. */
function fleet(name: string, n: number): string {
  const devices = Array.from({ length: n }, (_, i) => ({
    name: `d${i}`,
    profile: 'ble-beacon',
    app: i % 10 === 0 ? 'scanner.ts' : 'tag.ts',
    position: { x: (i % 10) * 5, y: Math.floor(i / 10) * 5 },
  }));
  return file(name, JSON.stringify({ devices }));
}

test('a world that may need more memory than it may have is refused before it starts, with the estimate and the limit', async () => {
  const world = fleet('big.json', 200);
  const r = await beacon(['run', '--world', world, '--for', '1 min', '--memory-limit', '10']);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '', 'no app ran');
  const m = /this world may need (\d+) MB \(200 devices at up to (\d+) KB each with Duktape\) and --memory-limit is 10 MB/.exec(r.stderr);
  assert.ok(m, r.stderr);
  // The estimate is the devices' sum.
  assert.ok(Math.abs(Number(m[1]) - (200 * Number(m[2])) / 1024) <= 1, r.stderr);
  assert.doesNotMatch(r.stderr, /run ended/);
  // With room it runs.
  const ok = await beacon(['run', '--world', world, '--for', '1s', '--memory-limit', '4000']);
  assert.equal(ok.status, 0, ok.stderr);
  const bad = await beacon(['run', '--world', world, '--memory-limit', 'lots']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--memory-limit: 'lots' is not a number of megabytes/);
});

test('a fleet ends with its memory per device and what went over the air, as many receptions as the trace has', async () => {
  const world = fleet('fleet.json', 100);
  const trace = path.join(tempDir, 'fleet.jsonl');
  const r = await beacon(['run', '--world', world, '--for', '20s', '--trace', trace]);
  assert.equal(r.status, 0, r.stderr);
  const m = /\[beacon info\] memory: (\d+) MB at the peak, (\d+) KB a device \(its JS heap (\d+) KB of it\); air: (\d+) advertising events, (\d+) receptions/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const [peakMb, perDevice, heap, events, receptions] = m.slice(1).map(Number);
  assert.ok(perDevice > heap && heap > 0, r.stderr);
  assert.ok(Math.abs(peakMb * 1024 - perDevice * 100) <= 1024 + 100, r.stderr);
  const records = fs.readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { ev: string });
  assert.equal(receptions, records.filter((x) => x.ev === 'ble-rx').length);
  assert.equal(events, records.filter((x) => x.ev === 'ble-adv').length);
  assert.ok(receptions > 0);
});

test('beacon-sim --progress-fd writes device time, real time and the devices alive, from the first step on', async () => {
  const [sim] = await ensureHostTools(['beacon-sim'], 'duktape');
  const pkg = path.join(tempDir, 'tag.bapp');
  const built = await beacon(['build', advertiser, '-o', pkg]);
  assert.equal(built.status, 0, built.stderr);
  const lines = await new Promise<string>((resolve, reject) => {
    const child = spawn(sim, ['--progress-fd', '3', '--for', '600000', pkg], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let text = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (b: Buffer) => (text += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
  });
  const figures = lines.trim().split('\n').map(parseProgress);
  assert.ok(figures.length >= 1 && figures.every((p) => p !== undefined), lines);
  let last = -1;
  for (const p of figures) {
    assert.ok(p!.deviceMs >= last && p!.deviceMs <= 600000, lines);
    last = p!.deviceMs;
    assert.deepEqual([p!.alive, p!.devices], [1, 1]);
  }
});

test('the progress line: shown after a second, wiped before other output, in the figures beacon-sim gives', () => {
  assert.deepEqual(parseProgress('progress 3723000 1000 9 10'), { deviceMs: 3723000, realMs: 1000, alive: 9, devices: 10 });
  assert.equal(parseProgress('[beacon info] progress 1 2 3 4'), undefined);
  assert.equal(deviceClock(3723000), '01:02:03');
  assert.equal(deviceClock(2 * 86400000 + 3723000), '2d 01:02:03');
  assert.equal(formatProgress({ deviceMs: 3723000, realMs: 1000, alive: 9, devices: 10 }), 'device time 01:02:03, 3723× real time, 9 of 10 devices alive');
  // Slower than ×10 the decimal says something; far slower than real time is not shown as 0.
  assert.deepEqual([12.6, 9.96, 2.46, 1, 0.046, 0].map(speedText), ['13', '10', '2.5', '1', '0.046', '0']);
  let now = 0;
  const written: string[] = [];
  const line = new ProgressLine({ write: (t: string) => written.push(t) }, () => now);
  line.feed(Buffer.from('progress 1000 10 1 1\n'));
  assert.deepEqual(written, [], 'nothing in the first second');
  now = PROGRESS_AFTER_MS;
  line.feed(Buffer.from('progress 2000 20 1 1\nprogress 3000 30 1 1\nprogr'));
  assert.deepEqual(written, ['\r\x1b[Kdevice time 00:00:03, 100× real time, 1 of 1 device alive']);
  line.clear();
  line.clear();
  assert.deepEqual(written.slice(1), ['\r\x1b[K'], 'wiped once');
  line.feed(Buffer.from('ess 4000 40 0 1\n'));
  assert.equal(written[2], '\r\x1b[Kdevice time 00:00:04, 100× real time, 0 of 1 device alive');
});

test("with several apps, each error's location is in its own app's source", async () => {
  const good = file('good.ts', "const a: number[] = [1, 2];\nprint(`sum ${a.reduce((x, y) => x + y, 0)}`);\n");
  const bad = file('bad.ts', "print('starting');\nble.build.iBeacon('f7826da64fa24e988024bc5b71e0893e', 0, 1, -59);\n");
  const world = file('two.json', JSON.stringify({ devices: [{ name: 'g', app: 'good.ts' }, { name: 'b', app: 'bad.ts' }] }));
  const r = await beacon(['run', '--world', world, '--for', '1s']);
  assert.match(r.stderr, /major must be a whole number from 1 to 65535 \(got 0\) \([^)]*bad\.ts:2:1\)/, r.stderr);
});

// Uploads over BLE to the firmware, on BabbleSim's air: the beacon firmware built by Zephyr for
// nrf52_bsim (its flash in a file) and the rig's phone (tests/rig-bsim), a second firmware that
// finds the beacon's upload service, connects, uploads over SMP through Zephyr's MCUmgr Bluetooth
// transport and installs. The asset tracker arrives and runs as on the simulator; a link lost
// half way resumes at the device's offset; a power cut at any point of the upload leaves the old
// app running with its records; refused packages get the answer the simulator's UDP server gives.
// Skipped, saying why, without Zephyr, JerryScript or BabbleSim (scripts/lib/workspace.sh).
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, test } from 'node:test';
import { beacon, repo, storeApp } from './boardRuns';
import { cli } from './uploadFixtures';
import { workspaceMissing } from '../src/firmware/workspace';

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-bsim-upload-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

let beaconImage = '';
let rigImage = '';
const built: Record<string, string> = {};


before(async () => {
  if (missing) return;
  const fw = await import('../src/firmware/zephyr');
  beaconImage = await fw.ensureZephyrImage('bsim', 'jerryscript');
  rigImage = await fw.ensureRigImage();
  const sources: [string, string, string][] = [
    ['tracker', path.join(repo, 'examples', 'asset-tracker.ts'), 'jerryscript'],
    ['a', 'a.js', 'jerryscript'],
    ['b', 'b.js', 'jerryscript'],
    ['b-duktape', 'b.js', 'duktape'],
  ];
  fs.writeFileSync(path.join(tempDir, 'a.js'), storeApp('a'));
  fs.writeFileSync(path.join(tempDir, 'b.js'), storeApp('b'));
  for (const [name, src, engine] of sources) {
    built[name] = path.join(tempDir, `${name}.bapp`);
    const r = await beacon(['build', path.isAbsolute(src) ? src : path.join(tempDir, src), '--engine', engine, '-o', built[name]]);
    assert.equal(r.status, 0, r.stderr);
  }
});

async function upload(o: { flash: string; pkg?: string; forMs?: number; beaconArgs?: string[]; rigArgs?: string[] }) {
  const { bsimUpload } = await import('../src/firmware/bsimUpload');
  return bsimUpload({ beaconImage, rigImage, flashFile: o.flash, package: o.pkg, forMs: o.forMs ?? 20000, beaconArgs: o.beaconArgs, rigArgs: o.rigArgs });
}

/** The beacon alone, booting what its store holds (or installing a package given). */
async function boot(flash: string, args: string[] = []) {
  const { runZephyrFirmware } = await import('../src/firmware/zephyr');
  return runZephyrFirmware('bsim', beaconImage, ['--storage', 'board', '--utc', '1767225600000', ...args], { flashFile: flash });
}

test('the asset tracker uploaded over BLE runs on the firmware as on the simulator', { skip: missing }, async () => {
  const flash = path.join(tempDir, 'tracker.flash');
  const forMs = 16 * 60 * 1000;
  const run = await upload({ flash, pkg: built.tracker, forMs });
  const connected = run.rig.find((e) => e.event === 'connected');
  assert.ok(connected, JSON.stringify(run.rig));
  assert.equal(connected.mtu, 247);
  assert.equal(connected.interval_ms, 30);
  const install = run.rig.find((e) => e.event === 'install');
  assert.ok(install, JSON.stringify(run.rig));
  assert.equal(install.rc, 0);
  assert.match(String(install.msg), /^installed: API 0\.2\.6, \d+ bytes of bytecode, CRC [0-9a-f]{8}$/);
  // The app's rounds, as the simulator prints them for the same time since the app started.
  const startedAt = Number(install.t);
  const sim = await beacon(['run', built.tracker, '--utc', '1767225600000', '--cloud', 'loopback', '--for', String(forMs - startedAt)]);
  assert.equal(sim.status, 0, sim.stderr);
  assert.equal(run.beacon.stdout, sim.stdout, run.beacon.stderr);
  assert.match(run.beacon.stdout, /^round 1: 0 assets, \d+ bytes queued\n/);
  // It survives a reboot: the store holds it.
  const again = await boot(flash, ['--for', '20000']);
  assert.match(again.stdout, /^round 1: /, again.stderr);
});

test('a BLE link lost half way: a new connection resumes at the offset the device holds', { skip: missing }, async () => {
  const flash = path.join(tempDir, 'resume.flash');
  const len = fs.statSync(built.tracker).size;
  const dropAt = Math.floor(len / 2);
  const run = await upload({ flash, pkg: built.tracker, rigArgs: ['--chunk', '256', '--drop-at', String(dropAt)] });
  const dropped = run.rig.find((e) => e.event === 'dropped');
  const resumed = run.rig.find((e) => e.event === 'resumed');
  assert.ok(dropped && resumed, JSON.stringify(run.rig));
  assert.ok(Number(dropped.off) >= dropAt && Number(dropped.off) < len, JSON.stringify(dropped));
  // The device named where it was, not 0: the bytes before were not sent again.
  assert.equal(resumed.off, dropped.off);
  const install = run.rig.find((e) => e.event === 'install');
  assert.equal(install?.rc, 0, JSON.stringify(run.rig));
  assert.match(run.beacon.stdout, /^round 1: /, run.beacon.stderr);
});

test('a power cut at any point of a BLE upload: the old app runs after the reboot, its records intact', { skip: missing }, async () => {
  const base = path.join(tempDir, 'cut-base.flash');
  const flash = path.join(tempDir, 'cut.flash');
  fs.rmSync(base, { force: true });
  // A installed from the host and booted once: it leaves its records.
  const first = await boot(base, [built.a]);
  assert.equal(first.stdout, 'a boot 1, note: none\n', first.stderr);
  // How many flash operations B's upload and install make.
  fs.copyFileSync(base, flash);
  const whole = await upload({ flash, pkg: built.b, beaconArgs: ['--storage', 'board', '--power-cut-after', '1000000'] });
  assert.equal(whole.rig.find((e) => e.event === 'install')?.rc, 0, JSON.stringify(whole.rig));
  assert.equal(whole.beacon.stdout, 'a boot 2, note: left by a\nb boot 3, note: left by a\n', whole.beacon.stderr);
  const ops = Number(/the app store made (\d+) flash operations/.exec(whole.beacon.stderr)?.[1]);
  assert.ok(ops > 20, whole.beacon.stderr);
  // Cut before the first, the last, the ones around the commit, and a spread through the data.
  const points = new Set<number>([1, 2, 3, ops - 3, ops - 2, ops - 1, ops]);
  for (let i = 1; i <= 8; i++) points.add(Math.max(1, Math.floor((ops * i) / 9)));
  for (const n of [...points].sort((x, y) => x - y)) {
    fs.copyFileSync(base, flash);
    const cut = await upload({ flash, pkg: built.b, beaconArgs: ['--storage', 'board', '--power-cut-after', String(n)] });
    assert.equal(cut.beacon.status, 75, `cut ${n}: ${cut.beacon.stderr}`);
    const after = await boot(flash);
    assert.equal(after.status, 0, `boot after cut ${n}: ${after.stderr}`);
    assert.equal(cut.beacon.stdout, 'a boot 2, note: left by a\n', `cut ${n}: ${cut.beacon.stderr}`);
    // The cut comes before write n, and the commit marker is the last write: every cut leaves
    // the old app, whole, with the records it had, its third boot counted (the install without
    // a cut runs b: above).
    assert.equal(after.stdout, 'a boot 3, note: left by a\n', `boot after cut ${n} of ${ops}: ${after.stderr}`);
  }
});

test('a damaged or wrong-engine package is refused over BLE with the answer the UDP server gives', { skip: missing }, async () => {
  const damaged = path.join(tempDir, 'damaged.bapp');
  const bytes = fs.readFileSync(built.b);
  bytes[bytes.length - 3] ^= 0x20;
  fs.writeFileSync(damaged, bytes);
  const { startListen } = await import('../src/testing/listen');
  const udp = await startListen({ engine: 'jerryscript', port: 0 });
  try {
    for (const pkg of [damaged, built['b-duktape']]) {
      const flash = path.join(tempDir, `refuse-${path.basename(pkg)}.flash`);
      fs.rmSync(flash, { force: true });
      const ble = await upload({ flash, pkg });
      const install = ble.rig.find((e) => e.event === 'install');
      assert.ok(install, JSON.stringify(ble.rig));
      assert.notEqual(install.rc, 0);
      assert.equal(install.err, 1); // group 77, 1: refused
      const viaUdp = await cli(['upload', pkg, '--device', `udp:127.0.0.1:${udp.udpPort}`]);
      assert.notEqual(viaUdp.code, 0);
      const refusal = /the device refused the package: (.*)$/m.exec(viaUdp.err)?.[1];
      assert.ok(refusal, viaUdp.err);
      assert.equal(install.msg, refusal);
      assert.equal(ble.beacon.stdout, '', 'nothing may run');
    }
  } finally {
    await udp.stop();
  }
});

test('a stranger on the air: hostile requests and a second client get their answers, the app runs on, the slot is freed when its holder goes quiet', { skip: missing }, async () => {
  const { runBsim } = await import('../src/firmware/zephyr');
  const { packageSha } = await import('../src/firmware/bsimUpload');
  const ticker = path.join(tempDir, 'ticker.js');
  fs.writeFileSync(ticker, `storage.save(7, { by: 'ticker' });\nvar n = 0;\ntimers.repeat('5s', function () { n++; print('tick ' + n); });\n`);
  const tickerPkg = path.join(tempDir, 'ticker.bapp');
  // (350 letters: 'word0'..'word9' are 5 letters, 'word10'..'word59' 6.)
  assert.equal((await beacon(['build', ticker, '--engine', 'jerryscript', '-o', tickerPkg])).status, 0);
  const reader = path.join(tempDir, 'reader.js');
  // Between 512 and 1,000 bytes of package, so that the stranger's upload has a first chunk and
  // a rest, and a chunk 64 bytes too long still fits one request.
  const words = Array.from({ length: 60 }, (_, i) => `'word${i}'`).join(', ');
  fs.writeFileSync(reader, `var words = [${words}];\nvar letters = 0;\nwords.forEach(function (w) { letters += w.length; });\nprint('reader sees ' + JSON.stringify(storage.read(7)) + ' and ' + letters + ' letters');\n`);
  const readerPkg = path.join(tempDir, 'reader.bapp');
  assert.equal((await beacon(['build', reader, '--engine', 'jerryscript', '-o', readerPkg])).status, 0);
  const flash = path.join(tempDir, 'stranger.flash');
  fs.rmSync(flash, { force: true });
  const out = (n: string): string => path.join(tempDir, `stranger-${n}`);
  const sha = packageSha(readerPkg);
  const results = await runBsim([
    { image: beaconImage, flashFile: flash,
      args: ['--stdout', out('beacon.out'), '--stderr', out('beacon.err'), '--listen', '--for', '50000', '--utc', '1767225600000', '--storage', 'board', tickerPkg] },
    // Takes the slot with half of another package, then says nothing more.
    { image: rigImage, args: ['--out', out('holder.jsonl'), 'hold', built.tracker, '--sha', packageSha(built.tracker), '--bytes', '512'] },
    // Comes 3 s later; retries once the holder has been silent for the server's 30 s.
    { image: rigImage, args: ['--out', out('stranger.jsonl'), 'stranger', readerPkg, '--sha', sha, '--delay-ms', '3000', '--retry-after-ms', '32000'] },
  ], 51000);
  const read = (n: string): string => (fs.existsSync(out(n)) ? fs.readFileSync(out(n), 'utf8') : '');
  const lines = (n: string) => read(n).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  const context = `\n${read('beacon.err')}\n${read('holder.jsonl')}\n${read('stranger.jsonl')}\n${results.map((r) => r.stderr).join('\n')}`;
  assert.equal(lines('holder.jsonl').find((e) => e.event === 'holding')?.off, 512, context);
  const answers = new Map(lines('stranger.jsonl').filter((e) => e.event === 'answer').map((e) => [String(e.step), e]));
  const step = (name: string): Record<string, unknown> => {
    const a = answers.get(name);
    assert.ok(a, `no answer to ${name}${context}`);
    return a;
  };
  assert.equal(step('unknown-group').rc, 8, context);                      // not supported
  assert.equal(step('not-cbor').rc, 3, context);                           // invalid
  assert.equal(step('oversized-len').rc, 2, context);                      // no room for it
  assert.equal(step('other-sha-while-held').rc, 10, context);              // busy: someone else's upload
  assert.equal(step('chunk-of-held-upload').rc, 10, context);
  assert.equal(step('install-not-owner').err_group, 77, context);
  assert.equal(step('install-not-owner').err, 4, context);                 // not the owner
  assert.equal(step('first-chunk-after-idle').off, 256, context);          // the holder idled out
  assert.equal(step('offset-past-end').off, 256, context);                 // not written; where to go on
  assert.equal(step('data-past-end').rc, 3, context);
  assert.equal(step('install-incomplete').err, 3, context);                // incomplete
  assert.match(String(step('install-incomplete').msg), /^the upload is incomplete: 256 of \d+ bytes$/, context);
  assert.equal(step('install').rc, 0, context);
  // The app ticked on through all of it, and the one installed at the end read its record.
  const printed = read('beacon.out');
  assert.match(printed, /^tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\ntick 7\n/, context);
  assert.match(printed, /\nreader sees \{"by":"ticker"\} and 350 letters\n$/, context);
});

test('beacon upload --device bsim:FLASH: over BLE into the firmware, its answer and what the app printed', { skip: missing }, async () => {
  const flash = path.join(tempDir, 'cli.flash');
  fs.rmSync(flash, { force: true });
  const r = await cli(['upload', built.a, '--device', `bsim:${flash}`, '--for', '5s']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^installed: API 0\.2\.6, \d+ bytes of bytecode, CRC [0-9a-f]{8}\na boot 1, note: none\n$/);
  assert.match(r.err, /bytes to nrf52_bsim over BLE \(ATT MTU 247, 30 ms interval\) in \d+ ms of simulated time/);
  // The flash file keeps the store: the next upload is the second install, the records the first's.
  const again = await cli(['upload', built.b, '--device', `bsim:${flash}`, '--for', '5s']);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /\na boot 2, note: left by a\nb boot 3, note: left by a\n$/);
  const damaged = path.join(tempDir, 'cli-damaged.bapp');
  const bytes = fs.readFileSync(built.b);
  bytes[bytes.length - 3] ^= 0x01;
  fs.writeFileSync(damaged, bytes);
  const refused = await cli(['upload', damaged, '--device', `bsim:${flash}`, '--for', '5s']);
  assert.equal(refused.code, 1, refused.err);
  assert.match(refused.err, /the device refused the package: package is damaged: CRC-32 is [0-9a-f]{8}, header says [0-9a-f]{8}\n/);
});

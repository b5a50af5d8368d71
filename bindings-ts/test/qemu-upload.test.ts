// `beacon upload` into the firmware image on QEMU's emulated Cortex-M: the image's own SMP server
// and serial framing on UART0, which QEMU puts behind a pseudo-terminal (beacon-qemu --listen).
// The same cases as the host simulator's (sim-listen.test.ts): an upload switches the running
// app and keeps its storage; a damaged package, or one built for another engine, is refused and
// the old app goes on, not restarted, storage as it was; a transfer cut half way leaves the old
// app running and a new run resumes it. On the nRF52840's core (mps2-an386). Skipped without
// qemu-system-arm or the Arm toolchain.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { compileApp } from '../src/compiler';
import { deviceStatus, openSerial, SmpClient, uploadPackage } from '../src/smp';
import { ListenDevice } from '../src/testing/listen';
import { startQemuListen } from '../src/testing/qemuListen';
import { APP_A, APP_B, cli, uploadLosingLinkHalfWay, uploadScratch, withCrc } from './uploadFixtures';

function have(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}
const skip = !have('qemu-system-arm', ['--version'])
  ? 'qemu-system-arm is not installed'
  : !have('arm-none-eabi-gcc', ['--version'])
    ? 'arm-none-eabi-gcc is not installed'
    : false;

const { root: tmpRoot, devices, write } = uploadScratch('beacon-qemu-upload-');

let built: Promise<{ aFile: string; a: Buffer; bFile: string; b: Buffer }> | undefined;
function packages(): Promise<{ aFile: string; a: Buffer; bFile: string; b: Buffer }> {
  built ??= (async () => {
    const build = async (name: string, source: string): Promise<string> => {
      const file = path.join(tmpRoot, `${name}.bapp`);
      await compileApp({ entry: write(`${name}.ts`, source), apiVersion: '0.2.6', engine: 'duktape', outFile: file });
      return file;
    };
    const aFile = await build('a', APP_A);
    const bFile = await build('b', APP_B);
    return { aFile, a: fs.readFileSync(aFile), bFile, b: fs.readFileSync(bFile) };
  })();
  return built;
}

async function start(pkg: string): Promise<ListenDevice> {
  const d = await startQemuListen({ engine: 'duktape', pkg, utcMs: 1767225600000 });
  devices.push(d);
  return d;
}

// Virtual time runs at about a third of real time under -icount shift=0 on a busy machine: the
// app's 50 ms ticks come every 150 ms or so; waits are generous.
const WAIT = 60_000;

test('mps2-an386: an upload over the emulated UART switches the running app and keeps its storage', { skip }, async () => {
  const p = await packages();
  const d = await start(p.aFile);
  try {
    await d.console.waitFor(/^a tick, record 1$/, 0, WAIT);
    const up = await cli(['upload', p.bFile, '--device', `serial:${d.pty}`]);
    assert.equal(up.code, 0, up.err);
    assert.match(up.out, /^installed: API 0\.2\.6/);
    // b reads the record a left: the switch keeps the device's storage.
    await d.console.waitFor(/^b started, record 1, 900 words, w7$/, 0, WAIT);
    const client = new SmpClient(await openSerial(d.pty!), { timeoutMs: 5000 });
    try {
      const st = await deviceStatus(client);
      assert.equal(st.installed, true);
      assert.equal(st.crc, p.b.readUInt32LE(36));
    } finally {
      await client.close();
    }
    assert.match(d.stderr(), /\[beacon info\] installed: API 0\.2\.6/);
  } finally {
    await d.stop();
  }
});

test('mps2-an386: a damaged package or one for another engine is refused; the old app goes on with its storage', { skip }, async () => {
  const p = await packages();
  const d = await start(p.aFile);
  try {
    await d.console.waitFor(/^a tick, record 1$/, 0, WAIT);
    const damaged = Buffer.from(p.b);
    damaged[damaged.length - 80] ^= 0x01;
    const otherEngine = withCrc(Buffer.from(p.b));
    otherEngine.writeUInt32LE(2, 12);
    withCrc(otherEngine);
    const cases: [string, Buffer, RegExp][] = [
      ['damaged', damaged, /the device refused the package: package is damaged: CRC-32 is [0-9a-f]+, header says [0-9a-f]+/],
      ['other-engine', otherEngine, /the device refused the package: package was built for JerryScript/],
    ];
    for (const [name, data, says] of cases) {
      const r = await cli(['upload', write(`${name}.bapp`, data), '--device', `serial:${d.pty}`]);
      assert.equal(r.code, 1, `${name}: ${r.err}`);
      assert.match(r.err, says, name);
      // Still a, not restarted (the record would be 2), storage as it was.
      const mark = d.console.lines.length;
      await d.console.waitFor(/^a tick, record 1$/, mark, WAIT);
      assert.deepEqual(d.console.lines.filter((l) => !l.startsWith('a tick')), ['a started, record 1'], name);
    }
    assert.match(d.stderr(), /\[beacon info\] refused: package is damaged/);
    assert.match(d.stderr(), /\[beacon info\] refused: package was built for JerryScript/);
  } finally {
    await d.stop();
  }
});

test('mps2-an386: a transfer cut half way leaves the app running; a new run resumes it', { skip }, async () => {
  const p = await packages();
  const d = await start(p.aFile);
  try {
    await d.console.waitFor(/^a tick, record 1$/, 0, WAIT);
    await uploadLosingLinkHalfWay(new SmpClient(await openSerial(d.pty!), { timeoutMs: 5000 }), p.b);
    const mark = d.console.lines.length;
    await d.console.waitFor(/^a tick, record 1$/, mark, WAIT);
    assert.ok(!d.console.lines.some((l) => l.startsWith('b started')));
    const resumed = await cli(['upload', p.bFile, '--device', `serial:${d.pty}`]);
    assert.equal(resumed.code, 0, resumed.err);
    assert.match(resumed.err, /resuming at byte \d+/);
    await d.console.waitFor(/^b started, record 1, 900 words, w7$/, 0, WAIT);
  } finally {
    await d.stop();
  }
});

test('beacon sim --listen --target qemu: the host simulator\'s options are usage errors', async () => {
  const flash = await cli(['sim', '--listen', '--target', 'qemu', '--flash', tmpRoot]);
  assert.equal(flash.code, 2);
  assert.match(flash.err, /--target qemu serves SMP on the emulated UART only: --flash is the host simulator's/);
  // The Cortex-M33 image (mps2-an505) is retired: the Zephyr firmware on mps2/an521 is the M33's.
  const board = await cli(['sim', '--listen', '--target', 'qemu', '--board', 'mps2-an505']);
  assert.equal(board.code, 2);
  assert.match(board.err, /--board: the emulated image has one board, mps2-an386 .*--target zephyr-qemu/);
});

// `beacon upload` and the SMP client against beacon-smp-testd (the C server with a RAM staging
// area), over UDP and over a pseudo-terminal: whole uploads, transfers cut in the middle and
// resumed (in the same run and by a new run), refused packages (damaged, another engine, an
// untrusted signer) that leave the installed app as it was, and two uploaders at once.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';
import * as zlib from 'zlib';
import { CliIo } from '../src/cli/io';
import { main } from '../src/cli/main';
import { compileApp, ensureHostTools, generateKeyPair } from '../src/compiler';
import { signPackage } from '../src/compiler/sign';
import { deviceStatus, installPackage, openSerial, openUdp, SmpClient, SmpError, uploadPackage } from '../src/smp';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-smp-upload-'));
const servers: ChildProcess[] = [];
process.on('exit', () => {
  for (const s of servers) s.kill('SIGKILL');
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

interface Testd {
  port: number;
  pty: string;
  log(): string;
  stop(): Promise<void>;
}

async function startTestd(args: string[] = []): Promise<Testd> {
  const [testd] = await ensureHostTools(['beacon-smp-testd'], 'duktape');
  const proc = spawn(testd, ['--udp-port', '0', '--exit-on-stdin-eof', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  servers.push(proc);
  let log = '';
  proc.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  const lines = readline.createInterface({ input: proc.stdout! });
  let port = 0;
  let pty = '';
  for await (const line of lines) {
    if (line.startsWith('udp: ')) port = Number(line.slice(line.lastIndexOf(':') + 1));
    if (line.startsWith('pty: ')) pty = line.slice(5);
    if (line === 'ready') break;
  }
  assert.ok(port > 0 && pty, `beacon-smp-testd did not start: ${log}`);
  return {
    port,
    pty,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t) };
  const code = await main(argv, io);
  return { code, out, err };
}

/** The packages, built once: two apps, and variants of the first made as a tool would. */
interface Packages {
  a: Buffer;
  b: Buffer;
  aFile: string;
  bFile: string;
  trustedPub: string;
  signedTrusted: Buffer;
  signedUntrusted: Buffer;
}

let built: Promise<Packages> | undefined;

function withCrc(pkg: Buffer): Buffer {
  let crc = zlib.crc32(pkg.subarray(0, 36));
  crc = zlib.crc32(pkg.subarray(40), crc);
  pkg.writeUInt32LE(crc >>> 0, 36);
  return pkg;
}

function crcOf(pkg: Buffer): number {
  return pkg.readUInt32LE(36);
}

function write(name: string, data: Buffer | string): string {
  const f = path.join(tmpRoot, name);
  fs.writeFileSync(f, data);
  return f;
}

function packages(): Promise<Packages> {
  built ??= (async () => {
    const build = async (name: string, source: string): Promise<{ file: string; data: Buffer }> => {
      const entry = write(`${name}.ts`, source);
      const file = path.join(tmpRoot, `${name}.bapp`);
      await compileApp({ entry, apiVersion: '0.2.6', engine: 'duktape', outFile: file });
      return { file, data: fs.readFileSync(file) };
    };
    // Large enough for several chunks at the small buffer sizes used below.
    const body = Array.from({ length: 120 }, (_, i) => `timers.single('${i + 1}s', () => print('tick ${i}'));`).join('\n');
    const a = await build('a', `print('app a');\n${body}\n`);
    const b = await build('b', `print('app b');\n${body}\nprint('b again');\n`);
    const trusted = generateKeyPair();
    const untrusted = generateKeyPair();
    const trustedPub = write('trusted.pub', trusted.publicPem);
    return {
      a: a.data,
      b: b.data,
      aFile: a.file,
      bFile: b.file,
      trustedPub,
      signedTrusted: signPackage(a.data, crypto.createPrivateKey(trusted.privatePem)),
      signedUntrusted: signPackage(a.data, crypto.createPrivateKey(untrusted.privatePem)),
    };
  })();
  return built;
}

async function statusOver(port: number): Promise<{ installed: boolean; crc: number; upload: string }> {
  const client = new SmpClient(await openUdp('127.0.0.1', port), { timeoutMs: 1000 });
  try {
    return await deviceStatus(client);
  } finally {
    await client.close();
  }
}

test('UDP: upload, switch, and the device reports the package', async () => {
  const p = await packages();
  const d = await startTestd();
  try {
    const r = await cli(['upload', p.aFile, '--device', `udp:127.0.0.1:${d.port}`]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^installed: API 0\.2\.6, \d+ bytes of bytecode, CRC [0-9a-f]{8}\n$/);
    assert.match(r.err, /upload: 100% \(\d+ of \d+ bytes\)/);
    const st = await statusOver(d.port);
    assert.equal(st.installed, true);
    assert.equal(st.crc, crcOf(p.a));
    assert.equal(st.upload, 'idle');
  } finally {
    await d.stop();
  }
});

test('UDP: answers lost in the middle; the same run retries and goes on from the acknowledged offset', async () => {
  const p = await packages();
  const d = await startTestd(['--buf-size', '256', '--drop-after', '4', '--drop-count', '2']);
  try {
    const r = await cli(['upload', p.aFile, '--device', `udp:127.0.0.1:${d.port}`, '--timeout', '300', '--retries', '3']);
    assert.equal(r.code, 0, r.err);
    assert.equal((d.log().match(/answer dropped/g) ?? []).length, 2);
    assert.equal((await statusOver(d.port)).crc, crcOf(p.a));
  } finally {
    await d.stop();
  }
});

test('UDP: a link lost for longer than the retries; a new run resumes where the device is', async () => {
  const p = await packages();
  const d = await startTestd(['--buf-size', '256', '--drop-after', '5', '--drop-count', '3']);
  try {
    const dev = `udp:127.0.0.1:${d.port}`;
    const first = await cli(['upload', p.aFile, '--device', dev, '--timeout', '200', '--retries', '1']);
    assert.equal(first.code, 1);
    const m = /^beacon upload: no answer from udp:127\.0\.0\.1:\d+ after 2 tries of 200 ms \((\d+) of (\d+) bytes acknowledged\): run the same command again to resume\n$/m.exec(
      first.err,
    );
    assert.ok(m, first.err);
    const acknowledged = Number(m[1]);
    assert.ok(acknowledged > 0 && acknowledged < p.a.length);
    assert.equal((await statusOver(d.port)).installed, false);

    const second = await cli(['upload', p.aFile, '--device', dev, '--timeout', '300', '--retries', '3']);
    assert.equal(second.code, 0, second.err);
    const resumed = /resuming at byte (\d+)/.exec(second.err);
    assert.ok(resumed, second.err);
    assert.ok(Number(resumed[1]) >= acknowledged);
    assert.match(second.err, new RegExp(`resumed at byte ${resumed[1]}\\)`));
    assert.equal((await statusOver(d.port)).crc, crcOf(p.a));
  } finally {
    await d.stop();
  }
});

test('serial (pty): upload and switch, with an answer lost on the way', async () => {
  const p = await packages();
  const d = await startTestd(['--buf-size', '512', '--drop-after', '3', '--drop-count', '1']);
  try {
    const r = await cli(['upload', p.bFile, '--device', `serial:${d.pty}`, '--timeout', '500', '--retries', '3']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^installed: /);
    assert.match(d.log(), /answer dropped/);
    assert.equal((await statusOver(d.port)).crc, crcOf(p.b));
  } finally {
    await d.stop();
  }
});

test('serial (pty): cut off, then resumed by a new run', async () => {
  const p = await packages();
  const d = await startTestd(['--buf-size', '256', '--drop-after', '4', '--drop-count', '3']);
  try {
    const dev = `serial:${d.pty}`;
    const first = await cli(['upload', p.bFile, '--device', dev, '--timeout', '300', '--retries', '1']);
    assert.equal(first.code, 1);
    assert.match(first.err, /no answer from serial:.* bytes acknowledged\): run the same command again to resume/);
    const second = await cli(['upload', p.bFile, '--device', dev, '--timeout', '500', '--retries', '3']);
    assert.equal(second.code, 0, second.err);
    assert.match(second.err, /resuming at byte \d+/);
    assert.equal((await statusOver(d.port)).crc, crcOf(p.b));
  } finally {
    await d.stop();
  }
});

test('refused packages leave the installed app as it was', async () => {
  const p = await packages();
  const d = await startTestd(['--trust', p.trustedPub]);
  try {
    const dev = `udp:127.0.0.1:${d.port}`;
    const good = await cli(['upload', write('good.bapp', p.signedTrusted), '--device', dev]);
    assert.equal(good.code, 0, good.err);
    const installedCrc = crcOf(p.signedTrusted);

    const damaged = Buffer.from(p.signedTrusted);
    damaged[100] ^= 0x01;
    const otherEngine = withCrc(Buffer.from(p.signedTrusted));
    otherEngine.writeUInt32LE(2, 12); // JerryScript's engine id
    withCrc(otherEngine);
    const cases: [string, Buffer, RegExp][] = [
      ['damaged', damaged, /^beacon upload: the device refused the package: package is damaged: CRC-32 is [0-9a-f]{8}, header says [0-9a-f]{8}\n$/m],
      ['other-engine', otherEngine, /^beacon upload: the device refused the package: package was built for JerryScript[^;]*; this firmware runs Duktape/m],
      ['untrusted', p.signedUntrusted, /^beacon upload: the device refused the package: package is signed with key [0-9a-f]+, which this device does not trust\n$/m],
      ['unsigned', p.a, /^beacon upload: the device refused the package: package is not signed/m],
    ];
    for (const [name, data, says] of cases) {
      const r = await cli(['upload', write(`${name}.bapp`, data), '--device', dev]);
      assert.equal(r.code, 1, `${name}: ${r.err}`);
      assert.equal(r.out, '', name);
      assert.match(r.err, says, name);
      const st = await statusOver(d.port);
      assert.equal(st.installed, true, name);
      assert.equal(st.crc, installedCrc, `${name}: the installed package changed`);
      assert.equal(st.upload, 'idle', `${name}: the staging area is free again`);
    }
  } finally {
    await d.stop();
  }
});

test('two uploaders at once: the second is told the device is busy, nothing mixes', async () => {
  const p = await packages();
  const d = await startTestd(['--buf-size', '128']);
  const first = new SmpClient(await openUdp('127.0.0.1', d.port), { timeoutMs: 1000 });
  const second = new SmpClient(await openSerial(d.pty), { timeoutMs: 1000 });
  try {
    let secondTry: Promise<unknown> | undefined;
    await uploadPackage(first, p.a, {
      onProgress: (done, total) => {
        // Halfway through the first upload, the second starts its own.
        if (!secondTry && done > total / 2) {
          secondTry = uploadPackage(second, p.b).then(
            () => 'uploaded',
            (e: unknown) => e,
          );
        }
      },
    });
    assert.ok(secondTry);
    const outcome = await secondTry;
    assert.ok(outcome instanceof Error && /busy with another upload/.test(outcome.message), String(outcome));
    // The second cannot switch the device to the first one's package either.
    await assert.rejects(installPackage(second, p.b), (e: unknown) => e instanceof SmpError && /belongs to another upload/.test(e.message));
    assert.match(await installPackage(first, p.a), /^installed: /);
    assert.equal((await deviceStatus(first)).crc, crcOf(p.a));
    // Now the device is free: the second goes through, whole.
    await uploadPackage(second, p.b);
    await installPackage(second, p.b);
    assert.equal((await deviceStatus(first)).crc, crcOf(p.b));
  } finally {
    await first.close();
    await second.close();
    await d.stop();
  }
});

test('a flash write that fails once is sent again', async () => {
  const p = await packages();
  const d = await startTestd(['--fail-once']);
  try {
    const r = await cli(['upload', p.aFile, '--device', `udp:127.0.0.1:${d.port}`]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /the device could not write at byte 0; sending it again/);
    assert.equal((await statusOver(d.port)).crc, crcOf(p.a));
  } finally {
    await d.stop();
  }
});

test('nothing listening: one clear line and exit 1', async () => {
  const p = await packages();
  const d = await startTestd();
  const port = d.port;
  await d.stop();
  const r = await cli(['upload', p.aFile, '--device', `udp:127.0.0.1:${port}`, '--timeout', '300', '--retries', '1']);
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.equal(r.err.trim().split('\n').length, 1);
  assert.match(r.err, /^beacon upload: (udp:127\.0\.0\.1:\d+: nothing answers there \(connection refused\)|no answer from udp:127\.0\.0\.1:\d+ after 2 tries of 300 ms[^\n]*)\n$/);
});

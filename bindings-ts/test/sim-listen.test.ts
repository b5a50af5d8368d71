// `beacon sim --listen`: the long-lived simulated device, taking apps over SMP from `beacon upload`
// over UDP and over its pseudo-terminal. The device's console (its stdout) shows what runs: a
// refused, cut or concurrent upload must leave the running app printing, with its storage as it
// was; an installed one replaces it; the flash directory brings the app back after a restart.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { compileApp, Engine, generateKeyPair } from '../src/compiler';
import { signPackage } from '../src/compiler/sign';
import { deviceStatus, installPackage, openSerial, openUdp, SmpClient, uploadPackage } from '../src/smp';
import { ListenDevice, startListen } from '../src/testing/listen';
import { runChild } from './childProcess';
import { ed25519Signed, RESIGN_PATTERN } from './retiredSignature';
import { APP_A, APP_B, cli, uploadLosingLinkHalfWay, uploadScratch, withCrc } from './uploadFixtures';
import { workspaceMissing } from '../src/firmware/workspace';

const beaconJs = path.resolve(__dirname, '../../bin/beacon.js');

const { root: tmpRoot, devices, write } = uploadScratch('beacon-sim-listen-');

interface Packages {
  a: Buffer;
  aFile: string;
  b: Buffer;
  bFile: string;
  trustedPub: string;
  aTrusted: Buffer;
  bTrusted: Buffer;
  bUntrusted: Buffer;
}

const built = new Map<Engine, Promise<Packages>>();
function packages(engine: Engine): Promise<Packages> {
  let p = built.get(engine);
  if (!p) {
    p = (async () => {
      const build = async (name: string, source: string): Promise<{ file: string; data: Buffer }> => {
        const entry = write(`${engine}-${name}.ts`, source);
        const file = path.join(tmpRoot, `${engine}-${name}.bapp`);
        await compileApp({ entry, apiVersion: '0.2.6', engine, outFile: file });
        return { file, data: fs.readFileSync(file) };
      };
      const a = await build('a', APP_A);
      const b = await build('b', APP_B);
      const trusted = generateKeyPair();
      const untrusted = generateKeyPair();
      return {
        a: a.data,
        aFile: a.file,
        b: b.data,
        bFile: b.file,
        trustedPub: write(`${engine}-trusted.pub`, trusted.publicPem),
        aTrusted: signPackage(a.data, crypto.createPrivateKey(trusted.privatePem)),
        bTrusted: signPackage(b.data, crypto.createPrivateKey(trusted.privatePem)),
        bUntrusted: signPackage(b.data, crypto.createPrivateKey(untrusted.privatePem)),
      };
    })();
    built.set(engine, p);
  }
  return p;
}

async function start(engine: Engine, args: { pkg?: string; flash?: string; trust?: string[]; control?: boolean; virtual?: boolean }): Promise<ListenDevice> {
  const d = await startListen({ engine, port: 0, ...args });
  devices.push(d);
  return d;
}

const engines: { engine: Engine; skip: string | false }[] = [
  { engine: 'duktape', skip: false },
  { engine: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

for (const { engine, skip } of engines) {
  test(`${engine}: upload over UDP and over serial switches the running app`, { skip }, async () => {
    const p = await packages(engine);
    const d = await start(engine, { pkg: p.aFile });
    try {
      await d.console.waitFor(/^a tick, record 1$/);
      const udp = await cli(['upload', p.bFile, '--device', `udp:127.0.0.1:${d.udpPort}`]);
      assert.equal(udp.code, 0, udp.err);
      assert.match(udp.out, /^installed: API 0\.2\.6/);
      // b reads the record a left: the switch keeps the device's storage.
      await d.console.waitFor(/^b started, record 1, 900 words, w7$/);
      const serial = await cli(['upload', p.aFile, '--device', `serial:${d.pty}`]);
      assert.equal(serial.code, 0, serial.err);
      await d.console.waitFor(/^a started, record 2$/);
      const client = new SmpClient(await openUdp('127.0.0.1', d.udpPort!), { timeoutMs: 1000 });
      try {
        const st = await deviceStatus(client);
        assert.equal(st.installed, true);
        assert.equal(st.crc, p.a.readUInt32LE(36));
      } finally {
        await client.close();
      }
    } finally {
      await d.stop();
    }
  });

  test(`${engine}: a transfer cut in the middle leaves the app running; a new run resumes it`, { skip }, async () => {
    const p = await packages(engine);
    const d = await start(engine, { pkg: p.aFile });
    try {
      await d.console.waitFor(/^a tick, record 1$/);
      await uploadLosingLinkHalfWay(new SmpClient(await openSerial(d.pty!), { timeoutMs: 1000 }), p.b);
      // The old app goes on, not restarted.
      const mark = d.console.lines.length;
      await d.console.waitFor(/^a tick, record 1$/, mark);
      assert.ok(!d.console.lines.some((l) => l.startsWith('b started')));
      const resumed = await cli(['upload', p.bFile, '--device', `serial:${d.pty}`]);
      assert.equal(resumed.code, 0, resumed.err);
      assert.match(resumed.err, /resuming at byte \d+/);
      await d.console.waitFor(/^b started, record 1, 900 words, w7$/);
    } finally {
      await d.stop();
    }
  });

  test(`${engine}: refused packages leave the app running with its storage`, { skip }, async () => {
    const p = await packages(engine);
    const good = write(`${engine}-a-trusted.bapp`, p.aTrusted);
    const d = await start(engine, { pkg: good, trust: [p.trustedPub] });
    try {
      await d.console.waitFor(/^a tick, record 1$/);
      const damaged = Buffer.from(p.bTrusted);
      damaged[damaged.length - 80] ^= 0x01;
      const otherEngine = Buffer.from(p.bTrusted);
      otherEngine.writeUInt32LE(engine === 'duktape' ? 2 : 1, 12);
      withCrc(otherEngine);
      const cases: [string, Buffer, RegExp][] = [
        ['damaged', damaged, /the device refused the package: package is damaged/],
        ['other-engine', otherEngine, /the device refused the package: package was built for (JerryScript|Duktape)/],
        ['untrusted', p.bUntrusted, /the device refused the package: package is signed with key [0-9a-f]+, which this device does not trust/],
        ['ed25519', ed25519Signed(p.b), new RegExp(`the device refused the package: ${RESIGN_PATTERN}`)],
      ];
      for (const [name, data, says] of cases) {
        const r = await cli(['upload', write(`${engine}-${name}.bapp`, data), '--device', `udp:127.0.0.1:${d.udpPort}`]);
        assert.equal(r.code, 1, `${name}: ${r.err}`);
        assert.match(r.err, says, name);
        // Still a, not restarted (the record would be 2), storage as it was.
        const mark = d.console.lines.length;
        await d.console.waitFor(/^a tick, record 1$/, mark);
        assert.deepEqual(d.console.lines.filter((l) => !l.startsWith('a tick')), ['a started, record 1'], name);
      }
      await waitForText(d, /\[beacon info\] refused: package is signed with key/);
    } finally {
      await d.stop();
    }
  });

  test(`${engine}: two uploaders at once do not mix their packages`, { skip }, async () => {
    const p = await packages(engine);
    const d = await start(engine, { pkg: p.aFile });
    try {
      await d.console.waitFor(/^a tick, record 1$/);
      const first = new SmpClient(await openUdp('127.0.0.1', d.udpPort!), { timeoutMs: 1000 });
      const second = new SmpClient(await openSerial(d.pty!), { timeoutMs: 1000 });
      const other = Buffer.from(p.b);
      try {
        let secondTry: Promise<unknown> | undefined;
        await uploadPackage(first, p.b, {
          chunkSize: 128,
          onProgress: (done, total) => {
            if (!secondTry && done > total / 2) {
              secondTry = uploadPackage(second, p.a, { chunkSize: 128 }).then(() => 'uploaded', (e: unknown) => e);
            }
          },
        });
        const outcome = await secondTry;
        assert.ok(outcome instanceof Error && /busy with another upload/.test(outcome.message), String(outcome));
        assert.match(await installPackage(first, other), /^installed: /);
        await d.console.waitFor(/^b started, record 1, 900 words, w7$/);
        assert.equal((await deviceStatus(first)).crc, p.b.readUInt32LE(36));
      } finally {
        await first.close();
        await second.close();
      }
    } finally {
      await d.stop();
    }
  });

  test(`${engine}: the flash directory keeps the installed app and its storage across restarts`, { skip }, async () => {
    const p = await packages(engine);
    const flash = fs.mkdtempSync(path.join(tmpRoot, `${engine}-flash-`));
    const first = await start(engine, { flash });
    const up = await cli(['upload', p.aFile, '--device', `udp:127.0.0.1:${first.udpPort}`]);
    assert.equal(up.code, 0, up.err);
    await first.console.waitFor(/^a started, record 1$/);
    await first.stop();
    const again = await start(engine, { flash });
    try {
      // The same app, started from flash, finds the record its first run saved.
      await again.console.waitFor(/^a started, record 2$/);
    } finally {
      await again.stop();
    }
  });

  test(`${engine}: a newer app damaged in the flash directory is refused at boot with beacon run's message; the one before runs`, { skip }, async () => {
    const p = await packages(engine);
    const flash = fs.mkdtempSync(path.join(tmpRoot, `${engine}-store-`));
    const first = await start(engine, { pkg: p.aFile, flash });
    await first.console.waitFor(/^a started, record 1$/);
    const up = await cli(['upload', p.bFile, '--device', `udp:127.0.0.1:${first.udpPort}`]);
    assert.equal(up.code, 0, up.err);
    await first.console.waitFor(/^b started, record 1, 900 words, w7$/);
    await first.stop();
    // The app store's file: a 32-byte file header, then the two 512 KB slots; a went into the
    // first, b into the second, each 32 bytes after its slot's start (docs/upload.md).
    const file = path.join(flash, 'd0.apps.flash');
    const image = fs.readFileSync(file);
    const bAt = 32 + 512 * 1024 + 32;
    assert.deepEqual(image.subarray(bAt, bAt + p.b.length), p.b);
    assert.deepEqual(image.subarray(32 + 32, 32 + 32 + p.a.length), p.a);
    image[bAt + 100] ^= 0x04;
    fs.writeFileSync(file, image);
    // What beacon run says of the same damaged bytes.
    const damaged = Buffer.from(p.b);
    damaged[100] ^= 0x04;
    const damagedFile = path.join(tmpRoot, `${engine}-b-damaged.bapp`);
    fs.writeFileSync(damagedFile, damaged);
    const run = await runChild(process.execPath, [beaconJs, 'run', damagedFile], 60000);
    assert.equal(run.status, 1, run.stderr);
    const said = /^beacon-sim: [^\n]*?\.bapp: (package is damaged: [^\n]*)$/m.exec(run.stderr)?.[1];
    assert.ok(said, run.stderr);

    const again = await start(engine, { flash });
    try {
      await again.console.waitFor(/^a started, record 2$/);
      // stderr and the console are two pipes: the refusal may be read after the app's line.
      await waitForText(again, new RegExp(`beacon-sim: app store: ${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
      assert.ok(!again.console.lines.some((l) => l.startsWith('b started')));
    } finally {
      await again.stop();
    }
  });
}

test('the control channel: inputs reach the app in real time; --virtual time moves only when advanced', async () => {
  const app = write('raw.ts', `io.onRawPress((down) => print((down ? 'down' : 'up') + ' at ' + app.getUptime()));\ntimers.single(60000, () => print('a minute'));\n`);
  const pkg = path.join(tmpRoot, 'raw.bapp');
  await compileApp({ entry: app, apiVersion: '0.2.6', engine: 'duktape', outFile: pkg });
  const live = await start('duktape', { pkg, control: true });
  try {
    live.command('input button main down');
    live.command('input +300 button main up');
    const down = Number((await live.console.waitFor(/^down at \d+$/)).split(' at ')[1]);
    const up = Number((await live.console.waitFor(/^up at \d+$/)).split(' at ')[1]);
    assert.ok(up - down >= 300, `released ${up - down} ms after the press, scheduled 300 ms later`);
    live.command('input button sideways down');
    await waitForText(live, /\[beacon error\] input: button takes main\|side and down\|up/);
  } finally {
    await live.stop();
  }
  const virtual = await start('duktape', { pkg, control: true, virtual: true });
  try {
    virtual.command('advance 59999');
    virtual.command('sync');
    await waitForText(virtual, /\[beacon sync\] 59999\n/);
    assert.ok(!virtual.console.lines.includes('a minute'));
    virtual.command('advance 1');
    await virtual.console.waitFor('a minute');
  } finally {
    await virtual.stop();
  }
});

test('beacon sim: bad usage is one line and exit 2', async () => {
  const none = await cli(['sim']);
  assert.equal(none.code, 2);
  assert.match(none.err, /^beacon sim: beacon sim serves a device over SMP: give --listen/);
  const virtual = await cli(['sim', '--listen', '--virtual']);
  assert.equal(virtual.code, 2);
  assert.match(virtual.err, /--virtual needs --control/);
  const both = await cli(['sim', '--listen', '--no-udp', '--no-pty']);
  assert.equal(both.code, 2);
  assert.match(both.err, /leave nothing to serve/);
});

async function waitForText(d: ListenDevice, re: RegExp): Promise<void> {
  for (let i = 0; i < 100 && !re.test(d.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(d.stderr(), re);
}

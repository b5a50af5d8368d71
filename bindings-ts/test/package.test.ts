// Packages at the simulator, as a device would get them: every single-bit flip, every truncation
// and every wrong header field is refused with a clear message and nothing of the app runs; signed
// packages run only with a trusted key and an intact signature. (tests/c/test_package.c holds the
// same properties for the C check alone.)
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { compileApp, Engine, ensureHostTools, readSignatureBlock } from '../src/compiler';
import { generateKeyPair } from '../src/compiler/sign';
import { toolsRoot } from '../src/codegen/versions';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-package-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const ENGINES: { engine: Engine; skip: string | false }[] = [
  { engine: 'duktape', skip: false },
  { engine: 'jerryscript', skip: process.env.JERRYSCRIPT_DIR ? false : 'JERRYSCRIPT_DIR is not set' },
];

// The app prints at its top level, so any run of it would show.
const APP = "print('the app ran');\ntimers.single('1s', () => print('and a timer fired'));\n";
const RAN = 'the app ran\nand a timer fired\n';

// How the simulator refuses a package: one line naming the file, then the run summary.
const REFUSAL =
  /^beacon-sim: [^\n]+\.bapp: (not an app package|package is damaged|package format \d+ is not supported|package was built for|package needs API|package uses features|package is signed with algorithm|package is not signed|package is signed with key|package signature does not verify)[^\n]*\n/;

async function buildApp(engine: Engine, name: string, sign?: string): Promise<{ sim: string; pkg: Buffer; file: string }> {
  const [, sim] = await ensureHostTools(['beacon-pack', 'beacon-sim'], engine);
  const dir = path.join(tmpRoot, `${engine}-${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'app.ts'), APP);
  const file = path.join(dir, 'app.bapp');
  await compileApp({ entry: path.join(dir, 'app.ts'), apiVersion: '0.2.6', engine, outFile: file, ...(sign ? { signKey: sign } : {}) });
  return { sim, pkg: fs.readFileSync(file), file };
}

function runSim(sim: string, file: string, extra: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(sim, [...extra, file], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertRefused(r: { status: number | null; stdout: string; stderr: string }, what: string, says?: RegExp): void {
  assert.equal(r.stdout, '', `${what}: nothing of the app may run`);
  assert.equal(r.status, 1, `${what}: exit status (stderr: ${r.stderr})`);
  assert.match(r.stderr, REFUSAL, what);
  if (says) assert.match(r.stderr, says, what);
}

/** Set a 32-bit header field and recompute the CRC, as a tool that meant it would. */
function withField(pkg: Buffer, offset: number, value: number): Buffer {
  const out = Buffer.from(pkg);
  out.writeUInt32LE(value >>> 0, offset);
  return withCrc(out);
}

function withCrc(pkg: Buffer): Buffer {
  const out = Buffer.from(pkg);
  out.writeUInt32LE(zlib.crc32(out.subarray(40), zlib.crc32(out.subarray(0, 36))) >>> 0, 36);
  return out;
}

for (const { engine, skip } of ENGINES) {
  test(`${engine}: an intact package runs`, { skip }, async () => {
    const { sim, file } = await buildApp(engine, 'intact');
    const r = runSim(sim, file);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, RAN);
  });

  test(`${engine}: every single-bit flip is refused by the simulator, and nothing runs`, { skip }, async () => {
    const { sim, pkg } = await buildApp(engine, 'flips');
    const file = path.join(tmpRoot, `${engine}-flipped.bapp`);
    for (let bit = 0; bit < pkg.length * 8; bit++) {
      const bad = Buffer.from(pkg);
      bad[bit >> 3] ^= 1 << (bit & 7);
      fs.writeFileSync(file, bad);
      assertRefused(runSim(sim, file), `bit ${bit} of ${pkg.length * 8} flipped`);
    }
  });

  test(`${engine}: every truncation is refused, and nothing runs`, { skip }, async () => {
    const { sim, pkg } = await buildApp(engine, 'cuts');
    const file = path.join(tmpRoot, `${engine}-cut.bapp`);
    for (let n = 0; n < pkg.length; n++) {
      fs.writeFileSync(file, pkg.subarray(0, n));
      assertRefused(runSim(sim, file), `cut to ${n} of ${pkg.length} bytes`, n < 40 ? /not an app package/ : /package is damaged/);
    }
    // A byte too many is damage as well.
    fs.writeFileSync(file, Buffer.concat([pkg, Buffer.from([0])]));
    assertRefused(runSim(sim, file), 'one byte appended', /package is damaged/);
  });

  test(`${engine}: wrong header fields are refused with a message that says which`, { skip }, async () => {
    const { sim, pkg } = await buildApp(engine, 'fields');
    const other = engine === 'duktape' ? 'JerryScript' : 'Duktape';
    const otherId = engine === 'duktape' ? 2 : 1;
    const cases: [string, Buffer, RegExp][] = [
      ['another engine', withField(pkg, 12, otherId), new RegExp(`package was built for ${other}; this firmware runs`)],
      ['an unknown engine', withField(pkg, 12, 0x77), /package was built for an unknown engine/],
      ['another engine version', withField(pkg, 16, 99999), /package was built for \w+ 9\.99\.99; this firmware runs \d+\.\d+\.\d+/],
      ['another engine configuration', withField(pkg, 20, pkg.readUInt32LE(20) ^ 1), /configured differently \(config [0-9a-f]{8}, firmware [0-9a-f]{8}\)/],
      ['an unknown API version', withField(pkg, 8, 0x000301), /package needs API 0\.3\.1, which this firmware does not have/],
      ['a newer package format', withCrc(Buffer.concat([pkg.subarray(0, 4), Buffer.from([2, 0]), pkg.subarray(6)])), /package format 2 is not supported \(this firmware reads format 1\)/],
      ['another header size', withCrc(Buffer.concat([pkg.subarray(0, 6), Buffer.from([48, 0]), pkg.subarray(8)])), /header size 48, format 1 has 40/],
      ['unknown flags', withField(pkg, 32, 0x4), /package uses features this firmware does not know \(flags 00000004\)/],
      ['a bytecode size that does not match', withField(pkg, 24, pkg.readUInt32LE(24) - 1), /header says \d+ bytes of code, file has \d+/],
      ['no magic', Buffer.concat([Buffer.from('PAPP'), pkg.subarray(4)]), /not an app package \(no BAPP magic\)/],
      ['a CRC that does not match', Buffer.concat([pkg.subarray(0, 36), Buffer.from([0, 0, 0, 0]), pkg.subarray(40)]), /CRC-32 is [0-9a-f]{8}, header says 00000000/],
    ];
    const file = path.join(tmpRoot, `${engine}-field.bapp`);
    for (const [what, bad, says] of cases) {
      fs.writeFileSync(file, bad);
      assertRefused(runSim(sim, file), what, says);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Signatures

function keyFiles(name: string): { pem: string; pub: string; id: string } {
  const k = generateKeyPair();
  const pem = path.join(tmpRoot, `${name}.pem`);
  const pub = path.join(tmpRoot, `${name}.pub`);
  fs.writeFileSync(pem, k.privatePem);
  fs.writeFileSync(pub, k.publicPem);
  return { pem, pub, id: k.id };
}

for (const { engine, skip } of ENGINES) {
  test(`${engine}: signed packages run with a trusted key and are refused otherwise`, { skip }, async () => {
    const good = keyFiles(`${engine}-good`);
    const other = keyFiles(`${engine}-other`);
    const signed = await buildApp(engine, 'signed', good.pem);
    const unsigned = await buildApp(engine, 'unsigned');
    const { sim } = signed;
    assert.equal(signed.pkg.length, unsigned.pkg.length + 104, 'the signature block is 104 bytes');
    const block = readSignatureBlock(signed.pkg);
    assert.ok(block && typeof block !== 'string', String(block));
    const goodRaw = crypto.createPublicKey(fs.readFileSync(good.pub, 'utf8')).export({ type: 'spki', format: 'der' }).subarray(12);
    assert.deepEqual(Buffer.from(block.publicKey), goodRaw, 'the block names the signer');
    assert.equal(block.algorithm, 1);
    assert.equal(readSignatureBlock(unsigned.pkg), undefined);

    // Trusted: runs. No key trusted: every intact package runs, signed or not.
    for (const extra of [['--trust', good.pub], ['--trust', other.pub, '--trust', good.pub], []]) {
      const r = runSim(sim, signed.file, extra);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, RAN);
    }
    assert.equal(runSim(sim, unsigned.file).stdout, RAN);

    const file = path.join(tmpRoot, `${engine}-sig.bapp`);
    const trustGood = ['--trust', good.pub];
    // Signed with a key the device does not trust.
    assertRefused(runSim(sim, signed.file, ['--trust', other.pub]), 'wrong key', new RegExp(`package is signed with key ${good.id}, which this device does not trust`));
    // Unsigned while a key is trusted.
    assertRefused(runSim(sim, unsigned.file, trustGood), 'unsigned', /package is not signed; this device runs only packages signed with a trusted key/);
    // A signature that was tampered with (the CRC made to match, as an attacker would).
    const sigOff = signed.pkg.length - 64;
    const badSig = Buffer.from(signed.pkg);
    badSig[sigOff + 10] ^= 0x01;
    fs.writeFileSync(file, withCrc(badSig));
    assertRefused(runSim(sim, file, trustGood), 'tampered signature', /package signature does not verify with key [0-9a-f]{16}: the package was altered after it was signed/);
    // Bytecode changed after signing, CRC made to match.
    const badCode = Buffer.from(signed.pkg);
    badCode[45] ^= 0x20;
    fs.writeFileSync(file, withCrc(badCode));
    assertRefused(runSim(sim, file, trustGood), 'tampered bytecode', /package signature does not verify/);
    // The header's API version changed after signing: the signature covers the header.
    fs.writeFileSync(file, withField(signed.pkg, 8, 0x000105));
    assertRefused(runSim(sim, file, trustGood), 'tampered header', /package signature does not verify/);
    // The signature stripped and the flag cleared: an unsigned package, refused.
    const stripped = withField(signed.pkg.subarray(0, signed.pkg.length - 104), 32, 0);
    fs.writeFileSync(file, stripped);
    assertRefused(runSim(sim, file, trustGood), 'signature stripped', /package is not signed/);
    // Another signer's key swapped into the block: not trusted... and with it trusted, invalid.
    const swapped = Buffer.from(signed.pkg);
    const otherRaw = crypto.createPublicKey(fs.readFileSync(other.pub, 'utf8')).export({ type: 'spki', format: 'der' }).subarray(12);
    otherRaw.copy(swapped, signed.pkg.length - 104 + 8);
    fs.writeFileSync(file, withCrc(swapped));
    assertRefused(runSim(sim, file, ['--trust', other.pub]), 'key swapped', /package signature does not verify/);
  });
}

test('the simulator refuses a --trust file that is not an Ed25519 public key', async () => {
  const [sim] = await ensureHostTools(['beacon-sim'], 'duktape');
  const notPem = path.join(tmpRoot, 'not-a-key.pub');
  fs.writeFileSync(notPem, 'hello\n');
  const rsa = path.join(tmpRoot, 'rsa.pub');
  fs.writeFileSync(rsa, crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }));
  const priv = path.join(tmpRoot, 'private-as-public.pub');
  fs.writeFileSync(priv, generateKeyPair().privatePem);
  const pkg = path.join(tmpRoot, 'any.bapp');
  fs.writeFileSync(pkg, 'x');
  for (const [file, says] of [
    [notPem, /is not a PEM public key/],
    [rsa, /is not an Ed25519 public key/],
    [priv, /is not a PEM public key/],
    [path.join(tmpRoot, 'missing.pub'), /cannot read .*missing\.pub/],
  ] as const) {
    const r = runSim(sim, pkg, ['--trust', file]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^beacon-sim: --trust: /);
    assert.match(r.stderr, says);
  }
});

test('beacon build --sign refuses a key that is not an Ed25519 private key, writing nothing', async () => {
  const dir = path.join(tmpRoot, 'badkey');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'app.ts'), APP);
  const rsa = path.join(dir, 'rsa.pem');
  fs.writeFileSync(rsa, crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const pub = path.join(dir, 'k.pub');
  fs.writeFileSync(pub, generateKeyPair().publicPem);
  const bin = path.join(toolsRoot(), 'bin', 'beacon.js');
  for (const [key, says] of [
    [rsa, /rsa\.pem is a rsa key; packages are signed with Ed25519 keys/],
    [pub, /k\.pub is not a private key in PEM form/],
  ] as const) {
    const r = spawnSync(process.execPath, [bin, 'build', 'app.ts', '--sign', key], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, says);
    assert.equal(fs.existsSync(path.join(dir, 'app.bapp')), false);
  }
});

test('beacon run --trust runs a signed package and refuses an unsigned one', async () => {
  const key = keyFiles('cli');
  const signed = await buildApp('duktape', 'cli-signed', key.pem);
  const unsigned = await buildApp('duktape', 'cli-unsigned');
  const bin = path.join(toolsRoot(), 'bin', 'beacon.js');
  const ok = spawnSync(process.execPath, [bin, 'run', signed.file, '--trust', key.pub], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, RAN);
  const refused = spawnSync(process.execPath, [bin, 'run', unsigned.file, '--trust', key.pub], { encoding: 'utf8' });
  assert.equal(refused.status, 1);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /package is not signed/);
});

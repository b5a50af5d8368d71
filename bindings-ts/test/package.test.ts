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
import { ed25519Signed, RESIGN_PATTERN } from './retiredSignature';
import { workspaceMissing } from '../src/firmware/workspace';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-package-test-'));
process.on('exit', () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const ENGINES: { engine: Engine; skip: string | false }[] = [
  { engine: 'duktape', skip: false },
  { engine: 'jerryscript', skip: workspaceMissing('jerryscript') },
];

// The app prints at its top level, so any run of it would show.
const APP = "print('the app ran');\ntimers.single('1s', () => print('and a timer fired'));\n";
const RAN = 'the app ran\nand a timer fired\n';

// How the simulator refuses a package: one line naming the file, then the run summary.
const REFUSAL =
  /^beacon-sim: [^\n]+\.bapp: (not an app package|package is damaged|package format \d+ is not supported|package was built for|package needs API|package uses features|package is signed with algorithm|package is signed with Ed25519|package is not signed|package is signed with key|package signature does not verify)[^\n]*\n/;

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

function keyFiles(name: string): { pem: string; pub: string; hex: string; id: string } {
  const k = generateKeyPair();
  const pem = path.join(tmpRoot, `${name}.pem`);
  const pub = path.join(tmpRoot, `${name}.pub`);
  const hex = path.join(tmpRoot, `${name}.hex`);
  fs.writeFileSync(pem, k.privatePem);
  fs.writeFileSync(pub, k.publicPem);
  // The firmware's form (CONFIG_BEACON_TRUSTED_KEYS), which --trust reads too.
  fs.writeFileSync(hex, `${k.trustedKeyHex}\n`);
  return { pem, pub, hex, id: k.id };
}

/** X || Y of a PEM public key (what the package's block holds). */
function rawOf(pubFile: string): Buffer {
  const der = crypto.createPublicKey(fs.readFileSync(pubFile, 'utf8')).export({ type: 'spki', format: 'der' });
  // SPKI of a P-256 key: 26 bytes of algorithm and curve, then the uncompressed point 04 || X || Y.
  assert.equal(der.length, 91);
  assert.equal(der[26], 0x04);
  return der.subarray(27);
}

const RESIGN = new RegExp(RESIGN_PATTERN);

for (const { engine, skip } of ENGINES) {
  test(`${engine}: signed packages run with a trusted key and are refused otherwise`, { skip }, async () => {
    const good = keyFiles(`${engine}-good`);
    const other = keyFiles(`${engine}-other`);
    const signed = await buildApp(engine, 'signed', good.pem);
    const unsigned = await buildApp(engine, 'unsigned');
    const { sim } = signed;
    assert.equal(signed.pkg.length, unsigned.pkg.length + 136, 'the signature block is 136 bytes');
    const block = readSignatureBlock(signed.pkg);
    assert.ok(block && typeof block !== 'string', String(block));
    assert.deepEqual(Buffer.from(block.publicKey), rawOf(good.pub), 'the block names the signer');
    assert.equal(block.algorithm, 2);
    assert.equal(readSignatureBlock(unsigned.pkg), undefined);
    // The signature is ECDSA P-256 over SHA-256 of header bytes 0..35 and the bytecode, r || s:
    // OpenSSL (node) verifies it with the public key file alone.
    const bytecode = signed.pkg.readUInt32LE(24);
    const covered = Buffer.concat([signed.pkg.subarray(0, 36), signed.pkg.subarray(40, 40 + bytecode)]);
    const pubKey = crypto.createPublicKey(fs.readFileSync(good.pub, 'utf8'));
    assert.ok(crypto.verify('sha256', covered, { key: pubKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(block.signature)));
    // The header and bytecode are the unsigned package's, but for the flag.
    assert.deepEqual(signed.pkg.subarray(40, 40 + bytecode), unsigned.pkg.subarray(40));
    assert.equal(signed.pkg.readUInt32LE(32), unsigned.pkg.readUInt32LE(32) | 1);

    // Trusted: runs. No key trusted: every intact package runs, signed or not.
    for (const extra of [['--trust', good.pub], ['--trust', other.pub, '--trust', good.pub], ['--trust', good.hex], []]) {
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
    // A signature that was tampered with (the CRC made to match, as an attacker would): r and s.
    for (const at of [signed.pkg.length - 64 + 10, signed.pkg.length - 1]) {
      const badSig = Buffer.from(signed.pkg);
      badSig[at] ^= 0x01;
      fs.writeFileSync(file, withCrc(badSig));
      assertRefused(runSim(sim, file, trustGood), 'tampered signature', new RegExp(`package signature does not verify with key ${good.id}: the package was altered after it was signed`));
    }
    // Bytecode changed after signing, CRC made to match.
    const badCode = Buffer.from(signed.pkg);
    badCode[45] ^= 0x20;
    fs.writeFileSync(file, withCrc(badCode));
    assertRefused(runSim(sim, file, trustGood), 'tampered bytecode', /package signature does not verify/);
    // The header's source size changed after signing (no other check reads it): the signature
    // covers the header.
    fs.writeFileSync(file, withField(signed.pkg, 28, signed.pkg.readUInt32LE(28) + 1));
    assertRefused(runSim(sim, file, trustGood), 'tampered header', /package signature does not verify/);
    // The signature stripped and the flag cleared: an unsigned package, refused.
    const stripped = withField(signed.pkg.subarray(0, signed.pkg.length - 136), 32, signed.pkg.readUInt32LE(32) & ~1);
    fs.writeFileSync(file, stripped);
    assertRefused(runSim(sim, file, trustGood), 'signature stripped', /package is not signed/);
    // Another signer's key swapped into the block: not trusted... and with it trusted, invalid.
    const swapped = Buffer.from(signed.pkg);
    rawOf(other.pub).copy(swapped, signed.pkg.length - 136 + 8);
    fs.writeFileSync(file, withCrc(swapped));
    assertRefused(runSim(sim, file, ['--trust', other.pub]), 'key swapped', /package signature does not verify/);
    // Signed the old way (Ed25519): refused, trusted keys or not, with the message to sign again.
    fs.writeFileSync(file, ed25519Signed(unsigned.pkg));
    assertRefused(runSim(sim, file), 'Ed25519, no key trusted', RESIGN);
    assertRefused(runSim(sim, file, trustGood), 'Ed25519, a key trusted', RESIGN);
  });
}

test('the simulator refuses a --trust file that is not a P-256 public key, an Ed25519 key with a message to make a new one', async () => {
  const [sim] = await ensureHostTools(['beacon-sim'], 'duktape');
  const notPem = path.join(tmpRoot, 'not-a-key.pub');
  fs.writeFileSync(notPem, 'hello\n');
  const rsa = path.join(tmpRoot, 'rsa.pub');
  fs.writeFileSync(rsa, crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }));
  const p384 = path.join(tmpRoot, 'p384.pub');
  fs.writeFileSync(p384, crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' }));
  const ed = crypto.generateKeyPairSync('ed25519').publicKey;
  const edPem = path.join(tmpRoot, 'ed25519.pub');
  fs.writeFileSync(edPem, ed.export({ type: 'spki', format: 'pem' }));
  const edHex = path.join(tmpRoot, 'ed25519.hex');
  fs.writeFileSync(edHex, `${ed.export({ type: 'spki', format: 'der' }).subarray(12).toString('hex')}\n`);
  const priv = path.join(tmpRoot, 'private-as-public.pub');
  fs.writeFileSync(priv, generateKeyPair().privatePem);
  // A point off the curve: a real key's Y changed in its last bit.
  const offCurve = path.join(tmpRoot, 'off-curve.hex');
  const hex = generateKeyPair().trustedKeyHex;
  fs.writeFileSync(offCurve, hex.slice(0, -1) + (parseInt(hex.slice(-1), 16) ^ 1).toString(16));
  const pkg = path.join(tmpRoot, 'any.bapp');
  fs.writeFileSync(pkg, 'x');
  for (const [file, says] of [
    [notPem, /is not a PEM public key nor 130 hex digits/],
    [rsa, /is not an ECDSA P-256 public key/],
    [p384, /is not an ECDSA P-256 public key/],
    [edPem, /ed25519\.pub is an Ed25519 key, which packages are no longer signed with: make a P-256 key with 'beacon keygen' and sign the packages again with it/],
    [edHex, /ed25519\.hex holds an Ed25519 key \(64 hex digits\), which is no longer used: make a P-256 key with 'beacon keygen'/],
    [priv, /is a private key; devices trust the public key/],
    [offCurve, /the key is not a point of the P-256 curve/],
    [path.join(tmpRoot, 'missing.pub'), /cannot read .*missing\.pub/],
  ] as const) {
    const r = runSim(sim, pkg, ['--trust', file]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^beacon-sim: --trust: /);
    assert.match(r.stderr, says);
  }
});

test('beacon build --sign refuses a key that is not a P-256 private key, an Ed25519 one with a message to make a new one, writing nothing', async () => {
  const dir = path.join(tmpRoot, 'badkey');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'app.ts'), APP);
  const rsa = path.join(dir, 'rsa.pem');
  fs.writeFileSync(rsa, crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const ed = path.join(dir, 'old.pem');
  fs.writeFileSync(ed, crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const k1 = path.join(dir, 'k1.pem');
  fs.writeFileSync(k1, crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const pub = path.join(dir, 'k.pub');
  fs.writeFileSync(pub, generateKeyPair().publicPem);
  const bin = path.join(toolsRoot(), 'bin', 'beacon.js');
  for (const [key, says] of [
    [rsa, /rsa\.pem is an RSA key; packages are signed with ECDSA P-256 keys \(make a P-256 key with 'beacon keygen'\)/],
    [ed, /old\.pem is an Ed25519 key, which packages are no longer signed with: make a P-256 key with 'beacon keygen' and sign again/],
    [k1, /k1\.pem is an EC key on secp256k1; packages are signed with P-256 keys/],
    [pub, /k\.pub is not a private key in PEM form/],
  ] as const) {
    const r = spawnSync(process.execPath, [bin, 'build', 'app.ts', '--sign', key], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, says);
    assert.equal(fs.existsSync(path.join(dir, 'app.bapp')), false);
  }
});

test('beacon keygen, build --sign and run --trust: a signed app runs on a device that trusts its key, and only there', async () => {
  const dir = path.join(tmpRoot, 'e2e');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'app.ts'), APP);
  const bin = path.join(toolsRoot(), 'bin', 'beacon.js');
  const beacon = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8' });
  for (const name of ['author', 'stranger']) {
    const k = beacon('keygen', name);
    assert.equal(k.status, 0, k.stderr);
  }
  const kg = beacon('keygen', 'third');
  // What keygen prints for the firmware is the .pub's point in hex, and the id is its X.
  const hex = /CONFIG_BEACON_TRUSTED_KEYS="(04[0-9a-f]{128})"/.exec(kg.stderr)?.[1];
  assert.ok(hex, kg.stderr);
  assert.equal(hex.slice(2), rawOf(path.join(dir, 'third.pub')).toString('hex'));
  assert.match(kg.stderr, new RegExp(`third\\.pub: public key ${hex.slice(2, 18)} `));
  const built = beacon('build', 'app.ts', '--sign', 'author.pem', '--json', '--no-cache');
  assert.equal(built.status, 0, built.stderr);
  const again = beacon('keygen', 'author');
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /author\.pem exists; not overwriting a key/);
  const report = JSON.parse(built.stdout) as { signedBy: string };
  assert.equal(report.signedBy, rawOf(path.join(dir, 'author.pub')).subarray(0, 8).toString('hex'));
  const ok = beacon('run', 'app.bapp', '--trust', 'author.pub');
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, RAN);
  const both = beacon('run', 'app.bapp', '--trust', 'stranger.pub', '--trust', 'author.pub');
  assert.equal(both.stdout, RAN, both.stderr);
  const refused = beacon('run', 'app.bapp', '--trust', 'stranger.pub');
  assert.equal(refused.status, 1);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, new RegExp(`package is signed with key ${report.signedBy}, which this device does not trust`));
  // The same source built unsigned.
  const unsigned = beacon('build', 'app.ts', '-o', 'plain.bapp');
  assert.equal(unsigned.status, 0, unsigned.stderr);
  const plain = beacon('run', 'plain.bapp', '--trust', 'author.pub');
  assert.equal(plain.status, 1);
  assert.match(plain.stderr, /package is not signed/);
});

// Package signing with Ed25519 (node:crypto). Layout and what is signed are defined in
// src/runtime/core/rt_package.h:
//
//   the package's flags get bit 0; after the bytecode comes a 104-byte block
//     "BSIG", algorithm 1 (u16), block size 104 (u16), the signer's public key (32 bytes),
//     the Ed25519 signature (64 bytes) of SHA-256(header bytes 0..35 || bytecode);
//   the header's CRC-32 is then recomputed (it covers the block too).
//
// Signing a digest rather than the package lets the device verify a package where it lies (in
// flash) without copying it together, as MCUboot does for Ed25519 images.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as zlib from 'zlib';
import { BuildError } from './diagnostics';

export const PACKAGE_HEADER_SIZE = 40;
export const SIGNATURE_MAGIC = 'BSIG';
export const SIGNATURE_ALG_ED25519_SHA256 = 1;
export const SIGNATURE_BLOCK_SIZE = 104;
export const FLAG_SIGNED = 0x1;

// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The raw 32 bytes of an Ed25519 public key. */
export function rawPublicKey(key: crypto.KeyObject): Buffer {
  const der = key.export({ type: 'spki', format: 'der' });
  if (der.length !== ED25519_SPKI_PREFIX.length + 32 || !der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX)) {
    throw new BuildError('not an Ed25519 key');
  }
  return der.subarray(ED25519_SPKI_PREFIX.length);
}

/** Short form of a public key for messages: its first 8 bytes in hex (the runtime says the same). */
export function keyId(raw: Uint8Array): string {
  return Buffer.from(raw.subarray(0, 8)).toString('hex');
}

/** Read an Ed25519 private key (PKCS#8 PEM, as `beacon keygen` writes). */
export function readPrivateKey(file: string): crypto.KeyObject {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new BuildError(`cannot read the signing key ${file}: ${(err as Error).message}`);
  }
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(text);
  } catch {
    throw new BuildError(`${file} is not a private key in PEM form (make one with 'beacon keygen')`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new BuildError(`${file} is a ${key.asymmetricKeyType ?? 'symmetric'} key; packages are signed with Ed25519 keys ('beacon keygen')`);
  }
  return key;
}

/** A new key pair as PEM texts: PKCS#8 private key, SPKI public key. */
export function generateKeyPair(): { privatePem: string; publicPem: string; id: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    id: keyId(rawPublicKey(publicKey)),
  };
}

function packageCrc(pkg: Buffer): number {
  const c = zlib.crc32(pkg.subarray(0, 36));
  return zlib.crc32(pkg.subarray(PACKAGE_HEADER_SIZE), c);
}

/** The digest a package's signature is made over: SHA-256(header bytes 0..35 || bytecode). */
export function signedDigest(pkg: Buffer, bytecodeSize: number): Buffer {
  return crypto
    .createHash('sha256')
    .update(pkg.subarray(0, 36))
    .update(pkg.subarray(PACKAGE_HEADER_SIZE, PACKAGE_HEADER_SIZE + bytecodeSize))
    .digest();
}

/** An unsigned package, signed with `key`. */
export function signPackage(unsigned: Buffer, key: crypto.KeyObject): Buffer {
  if (unsigned.length < PACKAGE_HEADER_SIZE || unsigned.toString('latin1', 0, 4) !== 'BAPP') {
    throw new BuildError('cannot sign: not an app package');
  }
  const flags = unsigned.readUInt32LE(32);
  const bytecodeSize = unsigned.readUInt32LE(24);
  if (flags & FLAG_SIGNED || unsigned.length !== PACKAGE_HEADER_SIZE + bytecodeSize) {
    throw new BuildError('cannot sign: the package is already signed or damaged');
  }
  const pkg = Buffer.alloc(unsigned.length + SIGNATURE_BLOCK_SIZE);
  unsigned.copy(pkg);
  pkg.writeUInt32LE((flags | FLAG_SIGNED) >>> 0, 32);
  const pub = rawPublicKey(crypto.createPublicKey(key));
  const signature = crypto.sign(null, signedDigest(pkg, bytecodeSize), key);
  const off = unsigned.length;
  pkg.write(SIGNATURE_MAGIC, off, 'latin1');
  pkg.writeUInt16LE(SIGNATURE_ALG_ED25519_SHA256, off + 4);
  pkg.writeUInt16LE(SIGNATURE_BLOCK_SIZE, off + 6);
  pub.copy(pkg, off + 8);
  signature.copy(pkg, off + 40);
  pkg.writeUInt32LE(packageCrc(pkg) >>> 0, 36);
  return pkg;
}

// Package signing with ECDSA on P-256 and SHA-256 (node:crypto). Layout and what is signed are
// defined in src/runtime/core/rt_package.h:
//
//   the package's flags get bit 0; after the bytecode comes a 136-byte block
//     "BSIG", algorithm 2 (u16), block size 136 (u16), the signer's public key (X || Y, 64 bytes),
//     the signature r || s (64 bytes, IEEE P1363: the PSA Crypto API's form, not DER) of
//     header bytes 0..35 || bytecode, hashed with SHA-256;
//   the header's CRC-32 is then recomputed (it covers the block too).
//
// Keys: the private key is PKCS#8 PEM (OpenSSL reads it: `openssl pkey -in key.pem`), the public
// key SubjectPublicKeyInfo PEM (the .pub that `--trust` takes), and the firmware's
// CONFIG_BEACON_TRUSTED_KEYS takes it as SEC1's uncompressed point in hex: "04", X, Y (130 hex
// digits), what `openssl ec -pubin -text` prints as "pub:". A key is named by the first 8 bytes of
// X in hex, as the device names it.
//
// Ed25519 keys (the retired algorithm 1) are refused with a message to make a new key.
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as zlib from 'zlib';
import { BuildError } from './diagnostics';

export const PACKAGE_HEADER_SIZE = 40;
export const SIGNATURE_MAGIC = 'BSIG';
export const SIGNATURE_ALG_ECDSA_P256_SHA256 = 2;
export const SIGNATURE_BLOCK_SIZE = 136;
export const FLAG_SIGNED = 0x1;

const NEW_KEY = "make a P-256 key with 'beacon keygen'";

/** The public key as X || Y (64 bytes), what the package's signature block holds. */
export function rawPublicKey(key: crypto.KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw new BuildError('not an ECDSA P-256 key');
  }
  const xy = Buffer.concat([Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]);
  if (xy.length !== 64) throw new BuildError('not an ECDSA P-256 key');
  return xy;
}

/** The key as the firmware's CONFIG_BEACON_TRUSTED_KEYS takes it: "04", X and Y in hex. */
export function trustedKeyHex(key: crypto.KeyObject): string {
  return `04${rawPublicKey(key).toString('hex')}`;
}

/** Short form of a public key for messages: the first 8 bytes of X in hex (the runtime says the same). */
export function keyId(raw: Uint8Array): string {
  return Buffer.from(raw.subarray(0, 8)).toString('hex');
}

/** Why a key object is not a P-256 key, or undefined when it is one. */
function notP256(key: crypto.KeyObject, file: string): string | undefined {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return `${file} is an Ed25519 key, which packages are no longer signed with: ${NEW_KEY} and sign again`;
  if (type !== 'ec') return `${file} is a${type === 'rsa' ? 'n RSA' : ` ${type ?? 'symmetric'}`} key; packages are signed with ECDSA P-256 keys (${NEW_KEY})`;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve !== 'prime256v1') return `${file} is an EC key on ${curve ?? 'an unnamed curve'}; packages are signed with P-256 keys (${NEW_KEY})`;
  return undefined;
}

/** Read a P-256 private key (PKCS#8 or SEC1 PEM, as `beacon keygen` and OpenSSL write them). */
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
  const why = notP256(key, file);
  if (why !== undefined) throw new BuildError(why);
  return key;
}

/** A new key pair: PKCS#8 PEM private key, SPKI PEM public key, the firmware's hex form, the id. */
export function generateKeyPair(): { privatePem: string; publicPem: string; trustedKeyHex: string; id: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    trustedKeyHex: trustedKeyHex(publicKey),
    id: keyId(rawPublicKey(publicKey)),
  };
}

function packageCrc(pkg: Buffer): number {
  const c = zlib.crc32(pkg.subarray(0, 36));
  return zlib.crc32(pkg.subarray(PACKAGE_HEADER_SIZE), c);
}

/** The bytes a package's signature is made over: header bytes 0..35, then the bytecode. */
export function signedBytes(pkg: Buffer, bytecodeSize: number): Buffer {
  return Buffer.concat([pkg.subarray(0, 36), pkg.subarray(PACKAGE_HEADER_SIZE, PACKAGE_HEADER_SIZE + bytecodeSize)]);
}

/** An unsigned package, signed with `key` (a P-256 private key). */
export function signPackage(unsigned: Buffer, key: crypto.KeyObject): Buffer {
  if (unsigned.length < PACKAGE_HEADER_SIZE || unsigned.toString('latin1', 0, 4) !== 'BAPP') {
    throw new BuildError('cannot sign: not an app package');
  }
  const why = notP256(key, 'the signing key');
  if (why !== undefined) throw new BuildError(why);
  const flags = unsigned.readUInt32LE(32);
  const bytecodeSize = unsigned.readUInt32LE(24);
  if (flags & FLAG_SIGNED || unsigned.length !== PACKAGE_HEADER_SIZE + bytecodeSize) {
    throw new BuildError('cannot sign: the package is already signed or damaged');
  }
  const pkg = Buffer.alloc(unsigned.length + SIGNATURE_BLOCK_SIZE);
  unsigned.copy(pkg);
  pkg.writeUInt32LE((flags | FLAG_SIGNED) >>> 0, 32);
  const pub = rawPublicKey(crypto.createPublicKey(key));
  const signature = crypto.sign('sha256', signedBytes(pkg, bytecodeSize), { key, dsaEncoding: 'ieee-p1363' });
  const off = unsigned.length;
  pkg.write(SIGNATURE_MAGIC, off, 'latin1');
  pkg.writeUInt16LE(SIGNATURE_ALG_ECDSA_P256_SHA256, off + 4);
  pkg.writeUInt16LE(SIGNATURE_BLOCK_SIZE, off + 6);
  pub.copy(pkg, off + 8);
  signature.copy(pkg, off + 72);
  pkg.writeUInt32LE(packageCrc(pkg) >>> 0, 36);
  return pkg;
}

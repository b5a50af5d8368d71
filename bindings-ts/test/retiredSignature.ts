// A package signed the way `beacon build --sign` signed before ECDSA P-256: the retired Ed25519
// block (src/runtime/core/rt_package.h, algorithm 1: 104 bytes, the 32-byte key and the Ed25519
// signature of SHA-256(header bytes 0..35 || bytecode)). Devices refuse it with a message to sign
// the package again; the tests check they do.
import * as crypto from 'crypto';
import * as zlib from 'zlib';

export const RESIGN_MESSAGE =
  'package is signed with Ed25519, which devices no longer accept: re-sign it with a new P-256 key (beacon keygen)';

export function ed25519Signed(unsigned: Buffer): Buffer {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const pkg = Buffer.alloc(unsigned.length + 104);
  unsigned.copy(pkg);
  pkg.writeUInt32LE((pkg.readUInt32LE(32) | 1) >>> 0, 32);
  const bytecode = pkg.readUInt32LE(24);
  const digest = crypto.createHash('sha256').update(pkg.subarray(0, 36)).update(pkg.subarray(40, 40 + bytecode)).digest();
  const off = unsigned.length;
  pkg.write('BSIG', off, 'latin1');
  pkg.writeUInt16LE(1, off + 4);
  pkg.writeUInt16LE(104, off + 6);
  publicKey.export({ type: 'spki', format: 'der' }).subarray(12).copy(pkg, off + 8);
  crypto.sign(null, digest, privateKey).copy(pkg, off + 40);
  pkg.writeUInt32LE(zlib.crc32(pkg.subarray(40), zlib.crc32(pkg.subarray(0, 36))) >>> 0, 36);
  return pkg;
}

/** RESIGN_MESSAGE as a regular expression's source, to match within a longer line. */
export const RESIGN_PATTERN = RESIGN_MESSAGE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

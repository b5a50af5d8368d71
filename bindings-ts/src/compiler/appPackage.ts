// Reading the header of an app package (.bapp). The layout is defined in
// src/runtime/core/rt_package.h; the firmware does the full check (CRC, engine configuration), this
// only reads what the tools need to choose, e.g. which simulator runs a package.
import { Engine } from './hostTools';

export const PACKAGE_MAGIC = 'BAPP';
export const PACKAGE_HEADER_SIZE = 40;

/** Engine ids of the header (ENG_ID_* in src/engine/engine.h). */
const ENGINE_IDS: ReadonlyMap<number, Engine> = new Map<number, Engine>([
  [1, 'duktape'],
  [2, 'jerryscript'],
]);

export interface PackageHeader {
  format: number;
  headerSize: number;
  /** "major.minor.patch". */
  apiVersion: string;
  engineId: number;
  /** Undefined for an engine id this tool does not know. */
  engine: Engine | undefined;
  engineVersion: number;
  bytecodeSize: number;
  sourceSize: number;
  flags: number;
}

/** Parse the header, or return a message saying why `buf` is not a package. */
export function readPackageHeader(buf: Uint8Array): PackageHeader | string {
  if (buf.length < PACKAGE_HEADER_SIZE) return `too short for a package (${buf.length} bytes)`;
  const magic = String.fromCharCode(buf[0], buf[1], buf[2], buf[3]);
  if (magic !== PACKAGE_MAGIC) return 'not an app package (bad magic)';
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const u32 = (off: number): number => view.getUint32(off, true);
  const api = u32(8);
  const engineId = u32(12);
  return {
    format: view.getUint16(4, true),
    headerSize: view.getUint16(6, true),
    apiVersion: `${(api >>> 16) & 0xff}.${(api >>> 8) & 0xff}.${api & 0xff}`,
    engineId,
    engine: ENGINE_IDS.get(engineId),
    engineVersion: u32(16),
    bytecodeSize: u32(24),
    sourceSize: u32(28),
    flags: u32(32),
  };
}

export const FLAG_SIGNED = 0x1;
/** Built for engine parity (src/runtime/core/rt_package.h): beacon-pack sets it on every package. */
export const FLAG_PARITY = 0x2;
/** The signature block of algorithm 2 (ECDSA P-256, SHA-256), the one devices verify. */
export const SIGNATURE_BLOCK_SIZE = 136;
export const SIGNATURE_ALG_ECDSA_P256_SHA256 = 2;
/** The retired Ed25519 block (algorithm 1, 104 bytes): refused, with a message to sign again. */
export const SIGNATURE_ALG_ED25519 = 1;

export interface SignatureBlock {
  algorithm: number;
  /** The signer's P-256 public key: X || Y (64 bytes). */
  publicKey: Uint8Array;
  /** r || s (64 bytes). */
  signature: Uint8Array;
}

/** The signature block of a signed package, undefined for an unsigned one, or why it is unreadable. */
export function readSignatureBlock(buf: Uint8Array): SignatureBlock | undefined | string {
  const header = readPackageHeader(buf);
  if (typeof header === 'string') return header;
  if (!(header.flags & FLAG_SIGNED)) return undefined;
  const off = PACKAGE_HEADER_SIZE + header.bytecodeSize;
  if (buf.length < off + 8) return 'the signature block is missing';
  if (String.fromCharCode(buf[off], buf[off + 1], buf[off + 2], buf[off + 3]) !== 'BSIG') return 'the signature block is damaged';
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const algorithm = view.getUint16(off + 4, true);
  if (algorithm === SIGNATURE_ALG_ED25519) return "the package is signed with Ed25519, which devices no longer accept: re-sign it with a new P-256 key ('beacon keygen', then 'beacon build --sign')";
  if (algorithm !== SIGNATURE_ALG_ECDSA_P256_SHA256) return `the package is signed with algorithm ${algorithm}, which this tool does not know`;
  if (buf.length !== off + SIGNATURE_BLOCK_SIZE || view.getUint16(off + 6, true) !== SIGNATURE_BLOCK_SIZE) return 'the signature block is the wrong size';
  return {
    algorithm,
    publicKey: buf.subarray(off + 8, off + 72),
    signature: buf.subarray(off + 72, off + 136),
  };
}

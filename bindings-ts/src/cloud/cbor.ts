// CBOR for the cloud protocol: encoding and strict decoding of the subset the protocol allows.
//
// cbor-x (a maintained, fast RFC 8949 codec) does the encoding and decoding. Around it sit the
// two rules the protocol adds and cbor-x has no switch for: (1) integers are always CBOR
// integers in their shortest form (cbor-x writes integers of 2^32 and above as float64 unless
// they are BigInts), so the device's C encoder and this one produce the same bytes; (2) a
// received frame must be plain CBOR: no tags (cbor-x would turn tag 1 into a Date, tag 28 into
// a shared reference, ...), no indefinite lengths, no simple values other than false, true and
// null, nesting at most MAX_DEPTH. `checkWellFormed` scans the bytes for that before cbor-x
// sees them, so nothing exotic ever reaches the decoder.
import { Decoder, Encoder } from 'cbor-x';
import { LIMITS } from './limits';

/** A value an app may send: what JSON can hold (finite numbers only). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Deepest nesting of arrays and maps accepted in a frame (the protocol's own maps count). */
export const MAX_DEPTH: number = LIMITS.frameDepth;

export class CborError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborError';
  }
}

const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: false,
  variableMapSize: true, // shortest map headers, not cbor-x's fixed 16-bit ones
  pack: false,
  structuredClone: false,
  tagUint8Array: false,
});
const decoder = new Decoder({ useRecords: false, mapsAsObjects: false, pack: false, structuredClone: false });

/** Protocol structures: maps with small integer keys, arrays, and JSON-like leaves. */
/** Uint8Array: a byte string, which only deployments use (hashes, package chunks). */
export type CborValue = null | boolean | number | bigint | string | Uint8Array | CborValue[] | Map<number | string, CborValue> | { [key: string]: CborValue };

function prepare(v: unknown): unknown {
  if (typeof v === 'number') {
    // Integers outside 32 bits as BigInt: cbor-x then writes a CBOR integer, not a float64.
    if (Number.isInteger(v) && (v > 0xffffffff || v < -0x100000000)) return BigInt(v);
    return v;
  }
  if (Array.isArray(v)) return v.map(prepare);
  if (v instanceof Uint8Array) return v;
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    for (const [k, x] of v) out.set(k, prepare(x));
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out.set(k, prepare(x));
    return out;
  }
  return v;
}

/** Encode with the protocol's rules: shortest integers, float64 for other numbers, maps in insertion order. */
export function encodeCbor(value: CborValue): Buffer {
  return Buffer.from(encoder.encode(prepare(value)));
}

/**
 * Check that `buf` is exactly one well-formed CBOR item of the protocol's subset (see the file
 * comment). Throws CborError naming what is wrong and where.
 */
export function checkWellFormed(buf: Uint8Array): void {
  let pos = 0;
  const need = (n: number): void => {
    if (pos + n > buf.length) throw new CborError(`truncated CBOR at byte ${pos}`);
  };
  const readArg = (info: number): number => {
    if (info < 24) return info;
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) throw new CborError(`indefinite length or reserved value at byte ${pos - 1}`);
    need(size);
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + buf[pos + i];
    pos += size;
    return n;
  };
  const item = (depth: number): void => {
    need(1);
    const start = pos;
    const ib = buf[pos++];
    const major = ib >> 5;
    const info = ib & 0x1f;
    switch (major) {
      case 0:
      case 1:
        readArg(info);
        return;
      case 2:
      case 3: {
        const n = readArg(info);
        need(n);
        pos += n;
        return;
      }
      case 4:
      case 5: {
        if (depth >= MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH} at byte ${start}`);
        const n = readArg(info);
        const items = major === 4 ? n : n * 2;
        if (items > buf.length - pos) throw new CborError(`truncated CBOR at byte ${start}`);
        if (major === 4) {
          for (let i = 0; i < items; i++) item(depth + 1);
          return;
        }
        // A map's keys must differ: cbor-x keeps the last of two equal keys and drops the
        // first without a word, so {"a": 1, "a": 2} would arrive as {"a": 2}.
        const keys = new Set<string>();
        for (let i = 0; i < n; i++) {
          const keyStart = pos;
          item(depth + 1);
          const key = keyIdentity(buf, keyStart, pos);
          if (keys.has(key)) throw new CborError(`duplicate map key at byte ${keyStart}`);
          keys.add(key);
          item(depth + 1);
        }
        return;
      }
      case 6:
        throw new CborError(`CBOR tag at byte ${start} (tags are not allowed)`);
      default:
        // false, true, null; half, single and double floats.
        if (info === 20 || info === 21 || info === 22) return;
        if (info === 25 || info === 26 || info === 27) {
          const size = info === 25 ? 2 : info === 26 ? 4 : 8;
          need(size);
          pos += size;
          return;
        }
        throw new CborError(`simple value or break at byte ${start} (not allowed)`);
    }
  };
  item(0);
  if (pos !== buf.length) throw new CborError(`${buf.length - pos} bytes after the CBOR item`);
}

/**
 * What a map key stands for, so that two encodings of one value (an integer written long and
 * short, a text with a longer length header) count as the same key.
 */
function keyIdentity(buf: Uint8Array, start: number, end: number): string {
  const major = buf[start] >> 5;
  const info = buf[start] & 0x1f;
  if (major > 1 && major !== 3) return `x:${Buffer.from(buf.subarray(start, end)).toString('hex')}`;
  const size = info < 24 ? 0 : 1 << (info - 24);
  let n = info < 24 ? BigInt(info) : 0n;
  for (let i = 0; i < size; i++) n = n * 256n + BigInt(buf[start + 1 + i]);
  if (major === 3) return `t:${Buffer.from(buf.subarray(start + 1 + size, end)).toString('utf8')}`;
  return `${major === 0 ? 'u' : 'n'}:${n}`;
}

/** Decode one strict CBOR item (checked by checkWellFormed first). Maps come back as Map. */
export function decodeCbor(buf: Uint8Array): unknown {
  checkWellFormed(buf);
  let v: unknown;
  try {
    v = decoder.decode(buf);
  } catch (err) {
    throw new CborError(`malformed CBOR: ${(err as Error).message}`);
  }
  return safeIntegers(v);
}

// cbor-x returns every 64-bit integer as a BigInt; those within 2^53 become numbers again
// (the rest stay BigInt, and every check refuses them as out of range).
function safeIntegers(v: unknown): unknown {
  if (typeof v === 'bigint') {
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = safeIntegers(v[i]);
    return v;
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    for (const [k, x] of v) out.set(safeIntegers(k), safeIntegers(x));
    return out;
  }
  return v;
}

/**
 * A decoded value as an app payload: maps with text keys become objects, and anything JSON
 * cannot hold (byte strings, non-finite numbers, integers beyond 2^53, non-text keys) is refused.
 */
export function toJson(v: unknown, where: string): JsonValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new CborError(`${where}: number is not finite`);
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => toJson(x, `${where}[${i}]`));
  if (v instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, x] of v) {
      if (typeof k !== 'string') throw new CborError(`${where}: map key ${String(k)} is not text`);
      if (Object.prototype.hasOwnProperty.call(out, k)) throw new CborError(`${where}: duplicate key '${k}'`);
      // defineProperty, not assignment: a key named __proto__ stays an ordinary key.
      Object.defineProperty(out, k, { value: toJson(x, `${where}.${k}`), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (typeof v === 'bigint') throw new CborError(`${where}: integer out of range`);
  if (v === undefined) throw new CborError(`${where}: undefined is not allowed`);
  throw new CborError(`${where}: byte strings and other non-JSON values are not allowed`);
}

/**
 * Check that a value is JSON-like (what an app may send), nested at most `maxDepth` arrays and
 * objects (a payload's limit, as the device counts it), and return it typed. The depth is
 * checked on the way down, so a value nested thousands deep (an HTTP body) is refused before
 * the recursion could exhaust the stack.
 */
export function checkJson(v: unknown, where: string, maxDepth: number = LIMITS.payloadDepth): JsonValue {
  return checkJsonAt(v, where, maxDepth, 0);
}

function checkJsonAt(v: unknown, where: string, maxDepth: number, depth: number): JsonValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new CborError(`${where}: number is not finite`);
    // An integer-valued number travels as a CBOR integer, and the protocol stops at 2^53 - 1
    // (the device refuses more): 2^53 or 1e300 could be sent but never decoded.
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) throw new CborError(`${where}: integer beyond ±(2^53 - 1)`);
    return v;
  }
  const container = Array.isArray(v) || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);
  if (container && depth >= maxDepth) throw new CborError(`${where}: nested deeper than ${maxDepth} arrays and objects`);
  if (Array.isArray(v)) return v.map((x, i) => checkJsonAt(x, `${where}[${i}]`, maxDepth, depth + 1));
  if (container) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      Object.defineProperty(out, k, { value: checkJsonAt(x, `${where}.${k}`, maxDepth, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  throw new CborError(`${where}: not a JSON value`);
}

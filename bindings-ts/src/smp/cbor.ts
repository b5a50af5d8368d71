// CBOR for SMP bodies. cbor-x (npm) does the work: a maintained, fast RFC 8949 codec that
// handles every type MCUmgr uses; it is configured here once so that every body is encoded the
// way a Zephyr device (zcbor) and our C server (rt_cbor) expect: plain maps with text keys in the
// shortest length form, byte strings untagged, no cbor-x record extensions.
import { Encoder } from 'cbor-x';

const codec = new Encoder({
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
});

/** A decoded SMP body: a CBOR map read into a plain object. */
export type SmpBody = Record<string, unknown>;

export function encodeCbor(value: unknown): Uint8Array {
  const out = codec.encode(value);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Decode one CBOR item; throws on malformed input or trailing bytes. */
export function decodeCbor(bytes: Uint8Array): unknown {
  return codec.decode(bytes);
}

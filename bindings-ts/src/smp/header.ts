// SMP (MCUmgr) packets: the 8-byte header and a CBOR body (Zephyr's
// doc/services/device_mgmt/smp_protocol.rst). Shared with the C server in src/runtime/smp/rt_smp.h.
import { decodeCbor, encodeCbor, SmpBody } from './cbor';

export const SMP_HEADER_SIZE = 8;

export const Op = { READ: 0, READ_RSP: 1, WRITE: 2, WRITE_RSP: 3 } as const;
/** Header version field: 0 is SMP version 1, 1 is SMP version 2. */
export const SmpVersion = { V1: 0, V2: 1 } as const;

export const Group = { OS: 0, FS: 8, BEACON: 77 } as const;
export const OsCommand = { ECHO: 0, PARAMS: 6 } as const;
export const FsCommand = { FILE: 0, STATUS: 1, HASH: 2, HASH_TYPES: 3 } as const;
export const BeaconCommand = { STATUS: 0, INSTALL: 1 } as const;

/** The one file name the device accepts uploads to. */
export const STAGING_NAME = '/app/staged.bapp';

export interface SmpHeader {
  version: number;
  op: number;
  flags: number;
  /** Length of the body in bytes. */
  length: number;
  group: number;
  seq: number;
  command: number;
}

export interface SmpPacket {
  header: SmpHeader;
  body: SmpBody;
}

export function encodeHeader(h: SmpHeader): Uint8Array {
  const b = new Uint8Array(SMP_HEADER_SIZE);
  b[0] = ((h.version & 3) << 3) | (h.op & 7);
  b[1] = h.flags & 0xff;
  b[2] = (h.length >> 8) & 0xff;
  b[3] = h.length & 0xff;
  b[4] = (h.group >> 8) & 0xff;
  b[5] = h.group & 0xff;
  b[6] = h.seq & 0xff;
  b[7] = h.command & 0xff;
  return b;
}

export function decodeHeader(b: Uint8Array): SmpHeader {
  if (b.length < SMP_HEADER_SIZE) throw new RangeError(`an SMP header has 8 bytes, got ${b.length}`);
  if (b[0] & 0xe0) throw new RangeError('reserved bits of the SMP header are set');
  return {
    version: (b[0] >> 3) & 3,
    op: b[0] & 7,
    flags: b[1],
    length: (b[2] << 8) | b[3],
    group: (b[4] << 8) | b[5],
    seq: b[6],
    command: b[7],
  };
}

/** A whole packet: header (with the body's length filled in) and CBOR body. */
export function encodePacket(h: Omit<SmpHeader, 'length' | 'flags'> & { flags?: number }, body: SmpBody): Uint8Array {
  const data = encodeCbor(body);
  if (data.length > 0xffff) throw new RangeError(`SMP body of ${data.length} bytes is over 65535`);
  const head = encodeHeader({ flags: 0, ...h, length: data.length });
  const out = new Uint8Array(SMP_HEADER_SIZE + data.length);
  out.set(head, 0);
  out.set(data, SMP_HEADER_SIZE);
  return out;
}

/** Decode a packet; throws when the length does not match or the body is not a CBOR map. */
export function decodePacket(b: Uint8Array): SmpPacket {
  const header = decodeHeader(b);
  if (b.length - SMP_HEADER_SIZE !== header.length) {
    throw new RangeError(`SMP header says ${header.length} bytes of data, packet has ${b.length - SMP_HEADER_SIZE}`);
  }
  const body = header.length === 0 ? {} : decodeCbor(b.subarray(SMP_HEADER_SIZE));
  if (body === null || typeof body !== 'object' || Array.isArray(body) || body instanceof Uint8Array) {
    throw new RangeError('SMP body is not a CBOR map');
  }
  return { header, body: body as SmpBody };
}

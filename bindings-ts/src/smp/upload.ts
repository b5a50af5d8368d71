// Uploading an app package to a device and switching to it: the file management group's
// upload into the staging file (resumable), then the beacon group's install, which verifies the
// package on the device (rt_smp.h describes the device side).
import * as crypto from 'crypto';
import { SmpBody, encodeCbor } from './cbor';
import { SmpClient } from './client';
import { BeaconRc, FsRc, Rc, SmpError, SmpTimeoutError } from './errors';
import { BeaconCommand, FsCommand, Group, OsCommand, SMP_HEADER_SIZE, STAGING_NAME } from './header';

export interface DeviceParams {
  /** Largest request the device takes, header included. */
  bufSize: number;
  bufCount: number;
}

/** Zephyr's default MCUMGR_TRANSPORT_NETBUF_SIZE, for devices that do not answer the query. */
export const DEFAULT_BUF_SIZE = 384;

export async function deviceParams(client: SmpClient): Promise<DeviceParams> {
  try {
    const rsp = await client.read(Group.OS, OsCommand.PARAMS);
    const bufSize = typeof rsp.buf_size === 'number' ? rsp.buf_size : DEFAULT_BUF_SIZE;
    const bufCount = typeof rsp.buf_count === 'number' ? rsp.buf_count : 1;
    return { bufSize, bufCount };
  } catch (err) {
    if (err instanceof SmpError && err.rc === Rc.NOTSUP) return { bufSize: DEFAULT_BUF_SIZE, bufCount: 1 };
    throw err;
  }
}

/**
 * Bytes of package data per upload request so that the whole request (header, CBOR map with
 * off, data, name, len and sha) fits in bufSize.
 */
export function chunkSizeFor(bufSize: number, total: number, name = STAGING_NAME): number {
  const overhead = encodeCbor({ off: total, data: new Uint8Array(0), name, len: total, sha: new Uint8Array(32) }).length;
  // The data's own length prefix grows with the data: 3 bytes covers up to 65535.
  const room = bufSize - SMP_HEADER_SIZE - overhead - 2;
  if (room < 16) throw new RangeError(`the device's buffer (${bufSize} bytes) is too small for uploads`);
  return Math.min(room, 0xffff);
}

export interface UploadOptions {
  name?: string;
  /** Data per request; default from the device's parameters. */
  chunkSize?: number;
  onProgress?: (acknowledged: number, total: number) => void;
  onNote?: (line: string) => void;
}

export interface UploadResult {
  total: number;
  /** Where the device told us to go on, when it already held part of this package. */
  resumedAt: number;
  chunkSize: number;
  requests: number;
}

/** The upload stopped: `acknowledged` bytes are on the device and a new upload resumes there. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly acknowledged: number,
    readonly total: number,
    readonly reason?: Error,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

export function packageSha(data: Uint8Array): Uint8Array {
  return new Uint8Array(crypto.createHash('sha256').update(data).digest());
}

/**
 * Upload `data` into the device's staging file. The first request carries the length and the
 * package's SHA-256: a device that holds part of the same package answers with the offset it
 * has, and the upload goes on from there. Every answer names the offset the device expects next,
 * so a lost answer or a retried chunk costs nothing but the retry.
 */
export async function uploadPackage(client: SmpClient, data: Uint8Array, opts: UploadOptions = {}): Promise<UploadResult> {
  const total = data.length;
  const name = opts.name ?? STAGING_NAME;
  const sha = packageSha(data);
  const chunkSize = opts.chunkSize ?? chunkSizeFor((await deviceParams(client)).bufSize, total, name);
  const requestsBefore = client.requests;
  let off = 0;
  let resumedAt = 0;
  let stalls = 0;
  let writeFailures = 0;
  opts.onProgress?.(0, total);
  while (off < total) {
    const piece = data.subarray(off, Math.min(total, off + chunkSize));
    const body: SmpBody = off === 0 ? { off, data: piece, name, len: total, sha } : { off, data: piece, name };
    let rsp: SmpBody;
    try {
      rsp = await client.write(Group.FS, FsCommand.FILE, body);
    } catch (err) {
      if (err instanceof SmpError && err.is(Group.FS, FsRc.WRITE_FAILED) && writeFailures < 3) {
        writeFailures++;
        opts.onNote?.(`the device could not write at byte ${off}; sending it again`);
        continue;
      }
      const why = err instanceof Error ? err.message : String(err);
      const resume = err instanceof SmpTimeoutError && off > 0 ? ': run the same command again to resume' : '';
      throw new UploadError(`${why} (${off} of ${total} bytes acknowledged)${resume}`, off, total, err instanceof Error ? err : undefined);
    }
    const next = rsp.off;
    if (typeof next !== 'number' || !Number.isInteger(next) || next < 0 || next > total) {
      throw new UploadError(`the device answered with an invalid offset (${String(next)})`, off, total);
    }
    if (off === 0 && next > piece.length) {
      resumedAt = next;
      opts.onNote?.(`the device holds ${next} bytes of this package already: resuming at byte ${next}`);
    }
    stalls = next === off ? stalls + 1 : 0;
    if (stalls > 3) throw new UploadError(`the device does not take data at byte ${off}`, off, total);
    off = next;
    opts.onProgress?.(off, total);
  }
  return { total, resumedAt, chunkSize, requests: client.requests - requestsBefore };
}

export interface DeviceStatus {
  installed: boolean;
  /** CRC-32 field of the installed package's header. */
  crc: number;
  api: string;
  engineId: number;
  engineVersion: number;
  state: string;
  upload: string;
  staged: number;
  total: number;
}

export async function deviceStatus(client: SmpClient): Promise<DeviceStatus> {
  const r = await client.read(Group.BEACON, BeaconCommand.STATUS);
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  const api = num(r.api);
  return {
    installed: r.installed === true,
    crc: num(r.crc),
    api: `${(api >> 16) & 0xff}.${(api >> 8) & 0xff}.${api & 0xff}`,
    engineId: num(r.engine),
    engineVersion: num(r.engine_version),
    state: typeof r.state === 'string' ? r.state : 'unknown',
    upload: typeof r.upload === 'string' ? r.upload : 'unknown',
    staged: num(r.staged),
    total: num(r.total),
  };
}

/** The device refused to switch to the package; `message` is its reason. */
export class InstallRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallRefused';
  }
}

/**
 * Ask the device to verify the staged package and switch to it; returns the device's message.
 * The device checks header, CRC, signature, engine and API before it touches the running app,
 * which may take a while: the timeout is longer than for chunks.
 */
export async function installPackage(client: SmpClient, data: Uint8Array, timeoutMs = 10_000): Promise<string> {
  try {
    const rsp = await client.write(Group.BEACON, BeaconCommand.INSTALL, {}, { timeoutMs });
    return typeof rsp.msg === 'string' ? rsp.msg : 'installed';
  } catch (err) {
    if (!(err instanceof SmpError)) throw err;
    if (err.is(Group.BEACON, BeaconRc.NOTHING_STAGED) && data.length >= 40) {
      // The answer to an install that worked may be lost; the retry then finds nothing staged.
      // The device's status says whether this package is the one running.
      const st = await deviceStatus(client);
      const crc = Buffer.from(data.subarray(36, 40)).readUInt32LE(0);
      if (st.installed && st.crc === crc) return `installed (package CRC ${crc.toString(16).padStart(8, '0')} is running)`;
    }
    if (err.is(Group.BEACON, BeaconRc.REFUSED)) throw new InstallRefused(err.deviceMessage ?? err.message);
    throw err;
  }
}

// Apps deployed from the cloud (docs/cloud-protocol.md §3.8): the packages the cloud holds, the
// deployments that assign one to devices, and each device's state in its deployment. Behind one
// interface with a SQLite (sqliteDeployments.ts) and a PostgreSQL (pgDeployments.ts) version.
import { createHash } from 'crypto';
import { DEPLOY_MAX_PACKAGE, DeployOutcome, ProtocolError } from './protocol';

/** A device's state in a deployment: the offer is pending until it fetches, then the outcome. */
export type DeviceDeployState = 'pending' | 'downloading' | DeployOutcome;

export interface PackageInfo {
  /** SHA-256 of the .bapp, lowercase hex: the package's name in the protocol. */
  hash: string;
  size: number;
  /** API version, major << 16 | minor << 8 | patch. */
  api: number;
  signed: boolean;
  /** The file name it was deployed from (for people). */
  name: string;
}

export interface DeviceDeployment {
  deviceId: string;
  state: DeviceDeployState;
  /** Bytes of the package the device asked for so far (the end of its last chunk). */
  fetched: number;
  reason?: string;
  /** Last change, UTC ms. */
  updated: number;
}

export interface DeploymentRecord {
  id: number;
  package: PackageInfo;
  created: number;
  devices: DeviceDeployment[];
}

/** What the cloud offers a device at its sync: its latest deployment. */
export interface Assignment {
  deploymentId: number;
  package: PackageInfo;
  state: DeviceDeployState;
}

export interface DeploymentStore {
  /** Keep a package (once per hash) and assign it to the devices; returns the deployment's id. */
  createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number): Promise<number>;
  /** The device's latest deployment, if it has one. */
  assignment(deviceId: string): Promise<Assignment | undefined>;
  /** A package's bytes (hash in hex); undefined when the cloud does not hold it. */
  packageBytes(hash: string): Promise<Buffer | undefined>;
  /** Record a device's state in a deployment (reason: why refused or rolled back). */
  setDeviceState(deploymentId: number, deviceId: string, state: DeviceDeployState, fetched: number, reason: string | undefined, now: number): Promise<void>;
  listDeployments(): Promise<DeploymentRecord[]>;
  deployment(id: number): Promise<DeploymentRecord | undefined>;
}

/**
 * Read what the cloud needs to know of a .bapp from its header (src/runtime/core/rt_package.h):
 * the device checks it all again, this only refuses what could never install anywhere.
 */
export function packageInfo(bytes: Buffer, name: string): PackageInfo {
  const bad = (why: string): never => {
    throw new ProtocolError(`${name}: not an app package: ${why}`);
  };
  if (bytes.length < 40) bad(`${bytes.length} bytes, less than its 40-byte header`);
  if (bytes.subarray(0, 4).toString('latin1') !== 'BAPP') bad('no BAPP magic');
  if (bytes.length > DEPLOY_MAX_PACKAGE) bad(`${bytes.length} bytes, more than ${DEPLOY_MAX_PACKAGE}`);
  return {
    hash: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    api: bytes.readUInt32LE(8),
    signed: (bytes.readUInt32LE(32) & 1) !== 0,
    name,
  };
}

/** Summary counts of a deployment's devices by state. */
export function stateCounts(devices: readonly DeviceDeployment[]): Record<DeviceDeployState, number> {
  const out: Record<DeviceDeployState, number> = { pending: 0, downloading: 0, installed: 0, refused: 0, 'rolled back': 0 };
  for (const d of devices) out[d.state]++;
  return out;
}

export function apiText(api: number): string {
  return `${api >> 16}.${(api >> 8) & 0xff}.${api & 0xff}`;
}

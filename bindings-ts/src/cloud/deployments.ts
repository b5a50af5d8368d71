// Apps deployed from the cloud (docs/cloud-protocol.md §3.8): the packages the cloud holds, the
// deployments that assign one to devices, and each device's state in its deployment. Behind one
// interface with a SQLite (sqliteDeployments.ts) and a PostgreSQL (pgDeployments.ts) version.
import { createHash } from 'crypto';
import { DEPLOY_MAX_PACKAGE, DeployOutcome, normalizeDeviceId, ProtocolError } from './protocol';
import type { CloudStore } from './store';

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
  /** The rollout stage the device is in (0: the first). */
  stage: number;
  state: DeviceDeployState;
  /** Bytes of the package the device asked for so far (the end of its last chunk). */
  fetched: number;
  reason?: string;
  /** Last change, UTC ms. */
  updated: number;
}

/**
 * A rollout in stages: each stage's share of the devices, in percent (increasing, the last 100);
 * a stage goes on when every device of the stages so far has run the new app for minHealthy ms.
 * A device that refuses the package or rolls it back stops the rollout, and the devices that had
 * installed it get their previous app back (when the cloud holds that package).
 */
export interface Rollout {
  stages: number[];
  minHealthy: number;
}

export type RolloutStatus = 'running' | 'complete' | 'stopped';

export interface DeploymentRecord {
  id: number;
  package: PackageInfo;
  created: number;
  rollout: Rollout;
  /** The stage offered now (index into rollout.stages). */
  stage: number;
  status: RolloutStatus;
  /** Why the rollout stopped. */
  stopped?: string;
  devices: DeviceDeployment[];
}

/** What the cloud offers a device at its sync: its latest deployment. */
export interface Assignment {
  deploymentId: number;
  package: PackageInfo;
  state: DeviceDeployState;
  /** The device's stage, and the deployment's stage and status. */
  deviceStage: number;
  stage: number;
  status: RolloutStatus;
}

export const SINGLE_STAGE: Rollout = { stages: [100], minHealthy: 0 };

/** Check a rollout's stages (RangeError with the reason). */
export function checkRollout(r: Rollout): Rollout {
  const ok = r.stages.length >= 1 && r.stages.every((p, i) => Number.isInteger(p) && p >= 1 && p <= 100 && (i === 0 || p > r.stages[i - 1])) && r.stages[r.stages.length - 1] === 100;
  if (!ok) throw new RangeError(`stages must be whole percentages that increase and end at 100 (e.g. 10%,50%,100%), not ${r.stages.map((p) => `${p}%`).join(',')}`);
  if (!Number.isSafeInteger(r.minHealthy) || r.minHealthy < 0) throw new RangeError('the healthy time must be a duration from 0');
  return r;
}

/** The stage of each of n devices, in order: stage s takes them up to its share (rounded up). */
export function stageOf(rollout: Rollout, n: number): number[] {
  const out: number[] = [];
  let s = 0;
  for (let i = 0; i < n; i++) {
    while (i + 1 > Math.ceil((rollout.stages[s] * n) / 100)) s++;
    out.push(s);
  }
  return out;
}

export interface DeploymentStore {
  /** Keep a package (once per hash) and assign it to the devices, in the rollout's stages (in
   * the order given); returns the deployment's id. */
  createDeployment(pkg: PackageInfo, bytes: Buffer, devices: readonly string[], now: number, rollout?: Rollout): Promise<number>;
  /** The rollout goes on to this stage (the last one done: complete). */
  setStage(deploymentId: number, stage: number, status: RolloutStatus): Promise<void>;
  /** The rollout stops; no device of it is offered the package any more. */
  stopDeployment(deploymentId: number, why: string): Promise<void>;
  /** The package hash (hex) a device ran when it was first offered this one. */
  setPrevious(deploymentId: number, deviceId: string, hash: string): Promise<void>;
  previous(deploymentId: number): Promise<{ deviceId: string; hash: string; state: DeviceDeployState }[]>;
  /** A package the cloud holds, by hash (hex). */
  packageInfo(hash: string): Promise<PackageInfo | undefined>;
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

/** Which devices a deployment goes to: a list of public ids, or every device with credentials. */
export type DeployTargets = { devices: readonly string[] } | { all: true };

/**
 * Assign a package to devices: every named device must be known to the cloud and not revoked
 * (a revoked device cannot sync; a deployment for it would stay pending for ever). Throws
 * RangeError with the reason; nothing is stored then.
 */
export async function deploy(store: CloudStore, bytes: Buffer, name: string, targets: DeployTargets, now: number, rollout: Rollout = SINGLE_STAGE): Promise<DeploymentRecord> {
  checkRollout(rollout);
  let pkg: PackageInfo;
  try {
    pkg = packageInfo(bytes, name);
  } catch (err) {
    if (err instanceof ProtocolError) throw new RangeError(err.message);
    throw err;
  }
  let ids: string[];
  if ('all' in targets) {
    ids = (await store.listDevices()).filter((d) => !d.revoked).map((d) => d.id);
    if (ids.length === 0) throw new RangeError('no device has credentials: nothing to deploy to');
  } else {
    if (targets.devices.length === 0) throw new RangeError('no device named: give their public ids, or all');
    ids = [];
    for (const text of targets.devices) {
      let id: string;
      try {
        id = normalizeDeviceId(text);
      } catch (err) {
        throw new RangeError((err as Error).message);
      }
      const d = await store.device(id);
      if (!d) throw new RangeError(`device ${id} is not known to the cloud (beacon cloud device add ${id})`);
      if (d.revoked) throw new RangeError(`device ${id} is revoked: it cannot sync, so it cannot take a deployment`);
      if (!ids.includes(id)) ids.push(id);
    }
  }
  const id = await store.deployments.createDeployment(pkg, bytes, ids, now, rollout);
  return (await store.deployments.deployment(id)) as DeploymentRecord;
}

/** A deployment as the API and `beacon cloud deploy status --json` show it. */
export function deploymentView(d: DeploymentRecord): Record<string, unknown> {
  return {
    id: d.id,
    package: { ...d.package, apiVersion: apiText(d.package.api) },
    created: d.created,
    status: d.status,
    ...(d.stopped ? { stopped: d.stopped } : {}),
    rollout: d.rollout,
    stage: d.stage,
    counts: stateCounts(d.devices),
    stages: d.rollout.stages.map((percent, i) => ({ percent, counts: stateCounts(d.devices.filter((x) => x.stage === i)) })),
    devices: d.devices,
  };
}

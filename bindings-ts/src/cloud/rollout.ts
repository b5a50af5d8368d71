// Staged rollouts of a deployment (deployments.ts, `beacon cloud deploy --stage 10%,50%,100%
// --min-healthy 30m`). Decided when devices sync, not by a timer: the cloud acts only when a
// device of the deployment comes, and what it decides is in the store, so several workers agree.
//
// - A device is offered the package only when its stage has been reached.
// - A stage goes on when every device of the stages so far has run the new app for the healthy
//   time (its state 'installed' that long: the cloud sees the package's hash in its sync starts).
// - A device that runs the new app and reports ERROR_STORM errors or more since it started (sync
//   start key 3) stops the rollout too, as a refusal does.
// - A device that refuses the package or rolls it back stops the rollout: no device of it is
//   offered the package any more, and those that had installed it are assigned the app they ran
//   before, when the cloud holds that package (it was deployed from here before).
import type { Log } from './core';
import type { Assignment } from './deployments';
import type { CloudStore } from './store';

/** Errors since the new app started (uncaught exceptions, unhandled rejections) that stop a rollout. */
export const ERROR_STORM = 10;

/** Move the rollout on as far as its devices allow; returns the stage offered now. */
export async function advance(store: CloudStore, a: Assignment, now: number, log: Log): Promise<number> {
  const d = await store.deployments.deployment(a.deploymentId);
  if (!d || d.status !== 'running') return a.stage;
  let stage = d.stage;
  const last = d.rollout.stages.length - 1;
  while (stage < last) {
    const so_far = d.devices.filter((x) => x.stage <= stage);
    const healthy = so_far.every((x) => x.state === 'installed' && now - x.updated >= d.rollout.minHealthy);
    if (!healthy) break;
    stage++;
    log(`deployment ${d.id}: stage ${stage + 1} of ${last + 1} (${d.rollout.stages[stage]}%)`);
  }
  const complete = stage === last && d.devices.every((x) => x.state === 'installed');
  if (stage !== d.stage || complete) await store.deployments.setStage(d.id, stage, complete ? 'complete' : 'running');
  return stage;
}

/** Stop the rollout and give the devices that installed the package their previous app back. */
export async function stop(store: CloudStore, deploymentId: number, why: string, now: number, log: Log): Promise<void> {
  const d = await store.deployments.deployment(deploymentId);
  if (!d || d.status === 'stopped') return;
  await store.deployments.stopDeployment(deploymentId, why);
  log(`deployment ${deploymentId} stopped: ${why}`);
  // Devices that run (or may run) the new package, grouped by the package they ran before.
  const back = new Map<string, string[]>();
  for (const p of await store.deployments.previous(deploymentId)) {
    if (p.state !== 'installed' && p.state !== 'downloading') continue;
    if (p.hash === d.package.hash) continue;
    back.set(p.hash, [...(back.get(p.hash) ?? []), p.deviceId]);
  }
  for (const [hash, devices] of back) {
    const info = await store.deployments.packageInfo(hash);
    const bytes = info && (await store.deployments.packageBytes(hash));
    if (!info || !bytes) {
      log(`deployment ${deploymentId}: the app ${devices.length} devices ran before (${hash.slice(0, 16)}) is not in the cloud: they keep the new one`);
      continue;
    }
    const id = await store.deployments.createDeployment(info, bytes, devices, now);
    log(`deployment ${id}: ${info.name} back on ${devices.length} devices after deployment ${deploymentId} stopped`);
  }
}

// `beacon cloud deploy APP.bapp --devices ID,... | --all` and `beacon cloud deploy status [id]`:
// apps deployed to devices over their syncs (docs/cloud-protocol.md §3.8), written in the store
// itself (--db). A running cloud offers the package at each device's next sync.
import * as fs from 'fs';
import * as path from 'path';
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { CliIo } from './io';

type Store = import('../cloud/store').CloudStore;

/** --stage 10%,50%,100% and --min-healthy 30m (default: one stage, no wait). */
async function rolloutOptions(args: ParsedArgs): Promise<import('../cloud/deployments').Rollout> {
  const { checkRollout, SINGLE_STAGE } = await import('../cloud/deployments');
  const stageText = stringOption(args, 'stage');
  const healthyText = stringOption(args, 'min-healthy');
  if (stageText === undefined) {
    if (healthyText !== undefined) throw new UsageError('--min-healthy goes with --stage');
    return SINGLE_STAGE;
  }
  const stages = stageText.split(',').map((p) => {
    if (!/^[0-9]{1,3}%$/.test(p)) throw new UsageError(`--stage: '${p}' is not a percentage (e.g. 10%)`);
    return Number(p.slice(0, -1));
  });
  let minHealthy = 0;
  if (healthyText !== undefined) {
    const { parseInterval } = await import('./interval');
    try {
      minHealthy = parseInterval(healthyText);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--min-healthy: ${err.message}`);
      throw err;
    }
  }
  try {
    return checkRollout({ stages, minHealthy });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--stage: ${err.message}`);
    throw err;
  }
}

async function create(args: ParsedArgs, io: CliIo, store: Store, file: string): Promise<number> {
  const { deploy, deploymentView, apiText } = await import('../cloud/deployments');
  const rollout = await rolloutOptions(args);
  const list = stringOption(args, 'devices');
  const all = flagOption(args, 'all');
  if ((list === undefined) === !all) throw new UsageError('deploy needs either --devices ID,... or --all');
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`, false);
  }
  const targets = all ? { all: true as const } : { devices: (list as string).split(',').filter((s) => s !== '') };
  let d;
  try {
    d = await deploy(store, bytes, path.basename(file), targets, Date.now(), rollout);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message, false);
    throw err;
  }
  if (flagOption(args, 'json')) io.out(JSON.stringify(deploymentView(d)) + '\n');
  else {
    const p = d.package;
    io.out(`deployment ${d.id}: ${p.name}, ${p.size} bytes, API ${apiText(p.api)}, ${p.signed ? 'signed' : 'unsigned'}, sha256 ${p.hash}\n`);
    io.out(`to ${d.devices.length} device${d.devices.length === 1 ? '' : 's'}: offered at each one's next sync\n`);
    if (rollout.stages.length > 1) io.out(`in stages of ${rollout.stages.map((p) => `${p}%`).join(', ')}, each after ${rollout.minHealthy / 60_000} min healthy\n`);
  }
  return 0;
}

async function status(args: ParsedArgs, io: CliIo, store: Store, idText: string | undefined): Promise<number> {
  const { deploymentView, stateCounts, apiText } = await import('../cloud/deployments');
  let list;
  if (idText !== undefined) {
    if (!/^[1-9][0-9]{0,14}$/.test(idText)) throw new UsageError(`'${idText.slice(0, 80)}' is not a deployment id (a number from 1)`);
    const d = await store.deployments.deployment(Number(idText));
    if (!d) {
      io.err(`beacon cloud: no deployment ${idText}\n`);
      return 1;
    }
    list = [d];
  } else list = await store.deployments.listDeployments();
  if (flagOption(args, 'json')) {
    io.out(JSON.stringify(list.map(deploymentView)) + '\n');
    return 0;
  }
  for (const d of list) {
    const c = stateCounts(d.devices);
    const counts = Object.entries(c)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
    const staged = d.rollout.stages.length > 1 ? `, stage ${d.stage + 1} of ${d.rollout.stages.length}` : '';
    io.out(`deployment ${d.id}: ${d.package.name} (API ${apiText(d.package.api)}, ${d.package.size} bytes) ${new Date(d.created).toISOString()}: ${d.status}${staged}${d.stopped ? ` (${d.stopped})` : ''}: ${counts}\n`);
    for (const x of d.devices) {
      const progress = x.state === 'downloading' ? ` ${x.fetched} of ${d.package.size} bytes` : '';
      const stage = d.rollout.stages.length > 1 ? `  stage ${x.stage + 1}` : '';
      io.out(`  ${x.deviceId}${stage}  ${x.state}${progress}${x.reason ? `: ${x.reason}` : ''}\n`);
    }
  }
  return 0;
}

export async function deployCommand(args: ParsedArgs, io: CliIo, withStore: <T>(fn: (store: Store) => Promise<T>) => Promise<T>): Promise<number> {
  const [, first, second] = args.positionals;
  if (first === undefined) throw new UsageError('deploy needs the package (APP.bapp), or status');
  if (first === 'status') return withStore((store) => status(args, io, store, second));
  if (second !== undefined) throw new UsageError(`unexpected argument '${second}'`);
  return withStore((store) => create(args, io, store, first));
}

// The two apps the deployment tests hand a device (cloudDeploy.test.ts against the simulator,
// cloudDeployFirmware.test.ts against the firmware on nrf52_bsim), and how both tests assign a
// package and read what became of it.
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { toolsRoot } from '../src/codegen/versions';
import type { Cloud } from '../src/cloud';
import { runChild } from './childProcess';

const cli = path.join(toolsRoot(), 'bin', 'beacon.js');

/** Assign a package to one device with \`beacon cloud deploy\` on the store at db; the deployment's id. */
export async function deployToDevice(db: string, deviceId: string, pkg: string): Promise<number> {
  const r = await runChild(process.execPath, [cli, 'cloud', 'deploy', pkg, '--devices', deviceId, '--db', db, '--json'], 180_000);
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { id: number }).id;
}

/** The device's state in a deployment, as the cloud's HTTP API gives it. */
export async function deploymentState(cloud: Pick<Cloud, 'httpUrl' | 'token'>, deployment: number, deviceId: string): Promise<{ state: string; reason?: string; fetched: number }> {
  const res = await fetch(`${cloud.httpUrl}/api/deployments/${deployment}`, { headers: { authorization: `Bearer ${cloud.token}` } });
  assert.equal(res.status, 200);
  const d = (await res.json()) as { devices: { deviceId: string; state: string; reason?: string; fetched: number }[] };
  const mine = d.devices.find((x) => x.deviceId === deviceId);
  assert.ok(mine, 'the device is in the deployment');
  return mine;
}

/** A syncs, and once more after each sync that ended (three at most): the second sync is the
 * one that reports what became of a package the first one fetched. */
export const APP_A = `let syncs = 0;
print('A running');
cloud.enqueue('hello', { from: 'A' }, { volatile: false });
sync.setEndHandler((error) => {
  print('A sync ' + (error === undefined ? 'ok' : error.message));
  if (++syncs < 3) sync.now();
});
sync.now();
`;

/** B's bytecode carries a text of `padRepeats` x 16 characters, so that its package takes more
 * than one chunk (read in a loop, so that the compiler cannot fold it away); it prints their sum. */
export const appBSource = (padRepeats: number): string => `const pad = '${'0123456789abcdef'.repeat(padRepeats)}';
let sum = 0;
for (let i = 0; i < pad.length; i++) sum += pad.charCodeAt(i);
print('B running ' + sum);
sync.setEndHandler((error) => print('B sync ' + (error === undefined ? 'ok' : error.message)));
sync.now();
`;

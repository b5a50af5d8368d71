// The energy model's radio against the firmware's (issue: "checked against the firmware's radio"):
// each app of tests/apps and examples/ that advertises or scans runs on the simulator with
// --energy and on the firmwares on BabbleSim's air with --air-dump; the radio time and TX charge
// the model gives each device must be within 5% of what BabbleSim's phy recorded that device's
// radio doing (firmware/airDump.ts), with the TX currents of the model's own table.
// Skipped, saying why, without Zephyr, JerryScript or BabbleSim (scripts/lib/workspace.sh).
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, test } from 'node:test';
import { beacon, readSpec, repo } from './boardRuns';
import type { DeviceEnergy } from '../src/cli/energyReport';
import { readEnergyFile } from '../src/codegen/energyTable';
import { airFigures, txChargeUc } from '../src/firmware/airDump';
import { workspaceMissing } from '../src/firmware/workspace';

const missing = workspaceMissing('zephyr', 'jerryscript', 'bsim');
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-energy-air-'));
after(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** The apps, each for a time long enough for a few hundred radio events. */
const APPS: { file: string; forTime: string; world?: string }[] = [
  { file: 'tests/apps/ble-advertiser-states.ts', forTime: '20s' },
  { file: 'tests/apps/ble-scan-options.ts', forTime: '20s' },
  { file: 'tests/apps/maker-advertising.js', forTime: '30s' },
  { file: 'examples/telemetry.ts', forTime: '60s' },
  // The LTE beacon's two chips: the scans are the controller chip's.
  { file: 'examples/asset-tracker.ts', forTime: '6 min', world: 'tests/examples/asset-tracker.world.json' },
];

const within = (model: number, dump: number, what: string, slack = 0): void => {
  assert.ok(Math.abs(model - dump) <= Math.max(0.05 * Math.max(model, dump), slack), `${what}: the model ${model.toFixed(0)}, BabbleSim ${dump.toFixed(0)}`);
};
/** A SCAN_REQ's air time, us. */
const SCAN_REQ_US = 176;

for (const { file, forTime, world } of APPS) {
  test(`${file}: radio time and TX charge, the model against BabbleSim's phy within 5%`, { skip: missing }, async () => {
    const spec = readSpec(path.join(repo, file));
    const worldArg = spec.args.indexOf('--world');
    const worldArgs = world !== undefined ? ['--world', path.join(repo, world)] : worldArg >= 0 ? ['--world', spec.args[worldArg + 1]] : [];
    const pkg = path.join(tempDir, `${path.basename(file)}.bapp`);
    assert.equal((await beacon(['build', path.join(repo, file), '--engine', 'jerryscript', ...spec.buildArgs, '-o', pkg])).status, 0);
    const common = [pkg, ...worldArgs, '--for', forTime, '--utc', '1767225600000', '--cloud', 'loopback'];
    const sim = await beacon(['run', ...common, '--energy', '--json']);
    assert.equal(sim.status, 0, sim.stderr);
    const model = (JSON.parse(sim.stdout) as { devices: DeviceEnergy[] }).devices;
    const dump = path.join(tempDir, path.basename(file));
    const fw = await beacon(['run', ...common, '--target', 'bsim', '--air', 'radio', '--air-dump', dump]);
    assert.equal(fw.status, 0, fw.stderr);
    const air = airFigures(dump);
    let compared = 0;
    for (const d of model) {
      const radio = air.find((a) => a.name === d.device);
      assert.ok(radio !== undefined, `${d.device} is not in the dump (${air.map((a) => a.name).join(', ')})`);
      const tx = readEnergyFile(path.join(repo, 'src', 'world', 'energy', `${d.profile}.json`)).figures.radio_tx_ma.value as Record<string, number>;
      if (d.radio.advTxUs > 0) {
        within(d.radio.advTxUs, radio.txUs, `${d.device}: advertising TX time, us`);
        within(d.radio.advTxUc, txChargeUc(radio, tx), `${d.device}: advertising TX charge, uC`);
        compared++;
      }
      if (d.radio.advTxUs > 0 && d.radio.scanRxUs === 0) {
        // An advertiser that does not scan listens only for scan requests after its packets.
        within(d.radio.advRxUs, radio.rxAfterTxUs, `${d.device}: scan-request listening, us`);
      }
      if (d.radio.scanTxUs > 0 && d.radio.advTxUs === 0) {
        // An active scanner's scan requests are all it sends: one per advertisement heard. A
        // scan of a few seconds hears a packet or two more or fewer at its windows' edges on the
        // firmware than in the model (docs/firmware.md, "The LTE beacon in simulation": 12
        // against 14 for maker-advertising.js), so two requests either way are within too.
        within(d.radio.scanTxUs, radio.txUs, `${d.device}: scan requests sent, us`, 2 * SCAN_REQ_US);
        compared++;
      }
      if (d.radio.scanRxUs > 0) {
        // The scanner's windows: what the receiver listened outside its own packets' replies.
        within(d.radio.scanRxUs, radio.rxUs - radio.rxAfterTxUs, `${d.device}: scanning RX time, us`);
        compared++;
      }
    }
    assert.ok(compared > 0, 'no device of the app advertised or scanned');
  });
}

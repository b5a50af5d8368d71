// Deployments in `beacon studio`: a scenario's `cloudDeploy` events run in the studio's
// WebAssembly world (in node, as the page's worker runs it). The server builds each deployed app
// as `beacon run` builds it (api/build-deploy), the world takes the packages before it opens
// (WasmWorld.open's deploys, studio_deploy_package), the device runs app B from its install on,
// and the output and trace equal `beacon run`'s byte for byte on every engine built. The cloud
// panel's model (CloudModel.deployments) shows each deployment's state from the trace records.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../src/compiler/hostTools';
import { CloudModel, deploymentState, TraceRecord } from '../src/studio/records';
import { buildScenarioApp, buildScenarioDeploy, ensureWasm, lowerScenarioText } from '../src/studio/server';
import { Pacer, SimFactory, WasmWorld } from '../src/studio/world';
import { runChild } from './childProcess';

const ROOT = repoRoot();
const BEACON = path.join(ROOT, 'bindings-ts', 'bin', 'beacon.js');
const HAS_EMCC = spawnSync('sh', ['-c', 'command -v emcc'], { encoding: 'utf8' }).status === 0;

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-deploy-'));
  fs.writeFileSync(
    path.join(dir, 'a.ts'),
    `sync.setEndHandler((error) => print('A synced ' + (error === undefined ? 'ok' : error.message)));
sync.setSyncPeriod('2 min');
print('app A starts');
`,
  );
  fs.writeFileSync(
    path.join(dir, 'b.ts'),
    `sync.setEndHandler((error) => print('B synced ' + (error === undefined ? 'ok' : error.message)));
sync.setSyncPeriod('2 min');
print('app B starts');
`,
  );
  // Out of memory in its top level: a reboot loop, rolled back to A.
  fs.writeFileSync(
    path.join(dir, 'c.ts'),
    `print('C starting');
const keep = [];
for (;;) keep.push([1, 2, 3, 4, 5, 6, 7, 8]);
`,
  );
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** d0 is deployed B (installed), d1 C (rolled back), both running A before. */
const SCENARIO = {
  utc: '2026-01-01T00:00:00Z',
  duration: '12m',
  devices: [
    { name: 'd0', app: 'a.ts' },
    { name: 'd1', app: 'a.ts' },
  ],
  events: [
    { at: '3m', device: 'd0', cloudDeploy: { app: 'b.ts' } },
    { at: '3m', device: 'd1', cloudDeploy: { app: 'c.ts' } },
  ],
};

const parse = (trace: string): TraceRecord[] =>
  trace
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TraceRecord);

/** The cloud panel's model of each device, fed the trace as the page feeds it. */
function panels(records: TraceRecord[]): Map<string, CloudModel> {
  const out = new Map<string, CloudModel>();
  for (const r of records) {
    if (r.dev === undefined) continue;
    if (!out.has(r.dev)) out.set(r.dev, new CloudModel());
    out.get(r.dev)!.add(r);
  }
  return out;
}

describe("the cloud panel's deployments", () => {
  test('offered, fetched, the verdict, the report', () => {
    const m = new CloudModel();
    assert.equal(m.add({ t: 180_000, dev: 'd0', ev: 'cloud-deploy-offer', package: 'aa11', size: 9000, api: 0x206 }), true);
    const d = m.deployments.get('aa11')!;
    assert.equal(deploymentState(d), 'offered 1×');
    m.add({ t: 180_500, dev: 'd0', ev: 'cloud-deploy-fetch', package: 'aa11', chunks: 2, bytes: 8192, from: 0, to: 8192 });
    assert.equal(deploymentState(d), 'fetching: 8192 of 9000 bytes');
    m.add({ t: 300_000, dev: 'd0', ev: 'cloud-deploy-offer', package: 'aa11', size: 9000, api: 0x206 });
    m.add({ t: 300_500, dev: 'd0', ev: 'cloud-deploy-fetch', package: 'aa11', chunks: 1, bytes: 808, from: 8192, to: 9000 });
    m.add({ t: 300_600, dev: 'd0', ev: 'cloud-deploy', package: 'aa11', outcome: 'refused', reason: 'CRC mismatch' });
    assert.equal(deploymentState(d), 'refused: CRC mismatch (not reported yet)');
    m.add({ t: 420_000, dev: 'd0', ev: 'cloud-deploy-report', package: 'aa11', outcome: 'refused', reason: 'CRC mismatch' });
    assert.deepEqual({ offers: d.offers, fetches: d.fetches, bytes: d.bytesFetched, size: d.size, first: d.firstOffer }, { offers: 2, fetches: 2, bytes: 9000, size: 9000, first: 180_000 });
    assert.equal(deploymentState(d), 'refused: CRC mismatch (reported)');
    assert.equal(m.version, 6);
  });
});

describe('server: the apps a scenario deploys', () => {
  test('built as beacon run builds them; a missing one is named by its key', async () => {
    const text = JSON.stringify(SCENARIO);
    const lowered = await lowerScenarioText(text, 'w.json', dir);
    assert.ok(!('error' in lowered));
    assert.deepEqual(lowered.deploys, ['b.ts', 'c.ts']);
    const b = await buildScenarioDeploy(text, 'w.json', 0, '0.2.6', 'duktape', dir);
    assert.equal(b.ok, true, JSON.stringify(b.diagnostics));
    assert.equal(b.name, 'b.bapp');
    const none = await buildScenarioDeploy(text, 'w.json', 2, '0.2.6', 'duktape', dir);
    assert.equal(none.ok, false);
    assert.equal(none.diagnostics[0].text, 'beacon run: w.json: the scenario deploys no app 2');
    const missing = JSON.stringify({ ...SCENARIO, events: [{ at: '3m', device: 'd0', cloudDeploy: { app: 'gone.ts' } }] });
    const r = await buildScenarioDeploy(missing, 'w.json', 0, '0.2.6', 'duktape', dir);
    assert.equal(r.ok, false);
    assert.match(r.diagnostics[0].text, /^beacon run: w\.json: events\[0\]\.cloudDeploy\.app: cannot read gone\.ts/);
  });
});

describe('deployments in the WebAssembly world', { skip: HAS_EMCC ? false : 'emscripten is not installed (bash scripts/setup.sh installs it)' }, () => {
  async function worldOf(engine: string): Promise<WasmWorld | undefined> {
    const js = path.join(await ensureWasm(), `beacon-sim-${engine}.js`);
    if (!fs.existsSync(js)) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return WasmWorld.create(require(js) as SimFactory, fs.readFileSync(js.replace(/\.js$/, '.wasm')));
  }

  for (const engine of ['duktape', 'jerryscript'] as const) {
    test(`${engine}: B installed on d0, C rolled back on d1, as beacon run runs them`, async (t) => {
      const world = await worldOf(engine);
      if (!world) {
        t.skip(`no ${engine} module (JerryScript is built when JERRYSCRIPT_DIR is set)`);
        return;
      }
      const text = JSON.stringify(SCENARIO);
      fs.writeFileSync(path.join(dir, 'w.json'), text);
      const run = await runChild(process.execPath, [BEACON, 'run', '--world', 'w.json', '--engine', engine, '--trace', `t-${engine}.jsonl`], 300_000, dir);
      assert.equal(run.status, 0, run.stderr);

      // What the page does: lower, build each device's app and each deployed app, open, run.
      const lowered = await lowerScenarioText(text, 'w.json', dir);
      assert.ok(!('error' in lowered));
      const device = await buildScenarioApp(text, 'w.json', 0, '0.2.6', engine, dir);
      assert.ok(device.ok, JSON.stringify(device.diagnostics));
      const deploys: Uint8Array[] = [];
      for (const k of lowered.deploys.keys()) {
        const r = await buildScenarioDeploy(text, 'w.json', k, '0.2.6', engine, dir);
        assert.ok(r.ok, JSON.stringify(r.diagnostics));
        deploys.push(Buffer.from(r.package!, 'base64'));
      }
      let out = '';
      let trace = '';
      world.listen({ output: (l) => (out += l.stream === 'stdout' ? l.text : ''), trace: (j) => (trace += j) });
      const devices = world.open(lowered.script, 1, Date.now(), deploys);
      for (const d of devices) world.setPackage(d.index, Buffer.from(device.package!, 'base64'));
      assert.deepEqual(world.start(), []);
      let clock = 0;
      const pacer = new Pacer(world, () => clock);
      pacer.until = lowered.durationMs!;
      pacer.setSpeed('max');
      while (pacer.ended === undefined) {
        clock += 16;
        pacer.tick();
      }
      world.close();

      assert.equal(out, run.stdout);
      assert.equal(trace, fs.readFileSync(path.join(dir, `t-${engine}.jsonl`), 'utf8'));
      const d0 = out.split('\n').filter((l) => l.startsWith('[d0] '));
      const bStarts = d0.indexOf('[d0] app B starts');
      assert.ok(bStarts > 0 && d0.slice(bStarts).includes('[d0] B synced ok'), out);
      assert.ok(out.includes('[d1] C starting'), out);

      const cloud = panels(parse(trace));
      const [b] = [...cloud.get('d0')!.deployments.values()];
      assert.equal(cloud.get('d0')!.deployments.size, 1);
      assert.ok(b.offers >= 1 && b.firstOffer >= 180_000);
      assert.equal(b.bytesFetched, b.size);
      assert.equal(b.size, deploys[0].length);
      assert.equal(deploymentState(b), 'installed (reported)');
      const [c] = [...cloud.get('d1')!.deployments.values()];
      assert.equal(c.outcome, 'rolled back');
      assert.equal(c.reported?.outcome, 'rolled back');
      assert.match(deploymentState(c), /^rolled back: ESR0002 Reboot loop detected.* \(reported\)$/);
    });
  }

  test('bad input: a package that is none, a deployment with no package', async () => {
    const world = await worldOf('duktape');
    assert.ok(world);
    const lowered = await lowerScenarioText(JSON.stringify(SCENARIO), 'w.json', dir);
    assert.ok(!('error' in lowered));
    assert.throws(() => world.open(lowered.script, 1, 0, [Buffer.from('not a package')]), { message: 'deployed package 0: not an app package (no BAPP header)' });
    // The studio before its deployments were passed: the world says what is missing.
    assert.throws(() => world.open(lowered.script, 1, 0), /no package 0 to deploy/);
  });
});

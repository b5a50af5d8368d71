// The test library's world: devices, the apps they run, what happens to them, and what they did.
//
// A test describes a world (devices and timed stimuli) and runs it for a while, then asserts on
// each device's console, LEDs and trace. On the simulator the world becomes a scenario
// (docs/world.md), checked by the scenario schema and run by beacon-sim in virtual time; the
// stimuli are the scenario's event objects, so every input kind the scenario language has (and
// any it gets later: BLE beacons, GNSS tracks, cloud messages) is usable here without a change to
// this file. On a rig (`beacon test --device ...`) the app is installed over SMP and the console
// read over serial; a stimulus or an observation the rig cannot make skips the test, never fakes it.
import { spawn } from 'child_process';
import { AssertionError } from 'node:assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiVersion, DEFAULT_API_VERSION } from '../codegen/versions';
import type { Engine } from '../compiler/hostTools';
import { Interval, intervalMs, lowerScenario, parseScenario, Position, Scenario, ScenarioDevice, ScenarioEvent } from '../world/scenario';
import { describeMatcher, LineMatcher, lineMatches, showLines } from './console';
import { openRig } from './rig';

/** The part of node's TestContext the library uses. */
export interface TestContextLike {
  skip(message?: string): void;
  /** The test's name (node's TestContext has it): names recorded traces. */
  readonly name?: string;
}

/** Thrown after the test was marked skipped: what it needs cannot be done here. rigTest() and
 * deviceTest() end the test quietly on it. */
export class Skipped extends Error {
  constructor(reason: string) {
    super(`skipped: ${reason}`);
    this.name = 'Skipped';
  }
}

/** An app: a path to a .ts/.js source or a .bapp package, or the source text itself. */
export type AppInput = string | { source: string; name?: string };

export interface DeviceOptions extends Omit<ScenarioDevice, 'name' | 'app'> {
  app: AppInput;
}

/** A stimulus: one scenario event without its time and device, e.g. { press: { hold: '1s' } },
 * { move: { x: 10, y: 0 } }, { temperature: 31 }. */
export type Stimulus = Omit<ScenarioEvent, 'at' | 'device'> & Record<string, unknown>;

export interface WorldOptions {
  /** Engine of the simulated devices (default: $BEACON_TEST_ENGINE, else duktape). */
  engine?: Engine;
  /** API version apps from source are built for (default: $BEACON_TEST_API, else the newest). */
  api?: ApiVersion;
  /** UTC at the start (ISO 8601 or ms; null: the devices are not synced). Default: fixed, 2026-01-01. */
  utc?: string | number | null;
  origin?: { lat: number; long: number };
  /** A rig device address (udp:..., serial:...); default $BEACON_TEST_DEVICE; null: simulate. */
  device?: string | null;
  /**
   * On the firmware on nrf52_bsim (device 'bsim'), the air the world runs on: 'radio' puts it on
   * BabbleSim's air alone, every device a firmware and a device whose profile is lte-beacon the
   * LTE beacon's two chips (the firmware with Bluetooth over H:4 beside the HCI UART controller,
   * docs/firmware.md); 'model' (the default) runs a world of one device with the firmware's model
   * of the air. Elsewhere the air is the simulator's model. Default $BEACON_TEST_AIR.
   */
  air?: 'model' | 'radio';
  /**
   * On bsim: keep BabbleSim's record of the air of each run (the physical layer's dumps and
   * air.pcap, firmware/airDump.ts) in <airDump>/<test name>/ (<test name>.2 and on for later
   * runs; run-<n> without a test context). Default $BEACON_TEST_AIR_DUMP (beacon test --air-dump).
   */
  airDump?: string;
}

export interface TraceRecord {
  t: number;
  dev: string;
  ev: string;
  [key: string]: unknown;
}

export interface LedState {
  on: boolean;
  rgb: number[];
  brightness: number;
}

function partialMatch(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected as Record<string, unknown>).every(([k, v]) => partialMatch((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, expected);
}

/** What one device did during a run. */
export class DeviceResult {
  constructor(
    readonly name: string,
    private readonly lines: string[] | undefined,
    private readonly records: TraceRecord[] | undefined,
    private readonly skip: (reason: string) => never,
    private readonly where: string,
  ) {}

  /** The lines the app printed. */
  get console(): string[] {
    if (this.lines === undefined) this.skip(`${this.where} carries no console (use a serial: device)`);
    return this.lines;
  }

  /** The device's trace records (the simulator only). */
  get trace(): TraceRecord[] {
    if (this.records === undefined) this.skip(`${this.where} gives no trace (LEDs, buttons and app events are seen on the simulator only)`);
    return this.records;
  }

  /** The first printed line that matches; fails with the expected line and what was printed. */
  printed(m: LineMatcher): string {
    const found = this.console.find((l) => lineMatches(l, m));
    if (found === undefined) this.fail(`expected ${this.name} to print ${describeMatcher(m)}; it printed:\n${showLines(this.console)}`, describeMatcher(m), this.console);
    return found;
  }

  /** Lines matching each matcher, in this order (others may come between them). */
  printedInOrder(ms: LineMatcher[]): string[] {
    const out: string[] = [];
    let at = 0;
    for (const m of ms) {
      const i = this.console.findIndex((l, k) => k >= at && lineMatches(l, m));
      if (i < 0) {
        const done = out.length ? ` after ${JSON.stringify(out[out.length - 1])}` : '';
        this.fail(`expected ${this.name} to print ${describeMatcher(m)}${done}; it printed:\n${showLines(this.console)}`, ms.map(describeMatcher), this.console);
      }
      out.push(this.console[i]);
      at = i + 1;
    }
    return out;
  }

  notPrinted(m: LineMatcher): void {
    const found = this.console.find((l) => lineMatches(l, m));
    if (found !== undefined) this.fail(`expected ${this.name} not to print ${describeMatcher(m)}; it printed ${JSON.stringify(found)} in:\n${showLines(this.console)}`, `no ${describeMatcher(m)}`, this.console);
  }

  /** The first trace record containing `expected` (a partial record: { ev: 'led', led: 0, on: true }). */
  traced(expected: Partial<TraceRecord> & Record<string, unknown>): TraceRecord {
    const found = this.trace.find((r) => partialMatch(r, expected));
    if (found === undefined) {
      const kind = typeof expected.ev === 'string' ? this.trace.filter((r) => r.ev === expected.ev) : this.trace;
      this.fail(`expected ${this.name}'s trace to hold ${JSON.stringify(expected)}; it holds:\n${showLines(kind.map((r) => JSON.stringify(r)))}`, expected, kind);
    }
    return found;
  }

  /** Each LED's state at the end of the run (from the trace). */
  leds(): Map<number, LedState> {
    const m = new Map<number, LedState>();
    for (const r of this.trace) {
      if (r.ev === 'led' && typeof r.led === 'number') m.set(r.led, { on: r.on === true, rgb: r.rgb as number[], brightness: r.brightness as number });
    }
    return m;
  }

  /** LED `index` ends the run as expected (a partial state: { on: true }, { rgb: [1, 0, 0] }). */
  led(index: number, expected: Partial<LedState>): void {
    const actual = this.leds().get(index) ?? { on: false, rgb: [0, 0, 0], brightness: 1 };
    if (!partialMatch(actual, expected)) {
      this.fail(`expected LED ${index} of ${this.name} to end ${JSON.stringify(expected)}; it ended ${JSON.stringify(actual)}`, expected, actual);
    }
  }

  private fail(message: string, expected: unknown, actual: unknown): never {
    throw new AssertionError({ message, expected, actual, operator: 'beacon' });
  }
}

export interface WorldResult {
  device(name: string): DeviceResult;
  /** beacon-sim's exit status (0: ended normally) and its messages; on a rig, 0 and the verdict. */
  exitCode: number;
  stderr: string;
  /** On bsim with airDump: the directory this run's record of the air is in (airFigures() of
   * firmware/airDump.ts reads it). */
  airDump?: string;
}

/** One device of a world; stimuli are scheduled at world times. */
export class Device {
  constructor(private readonly w: World, readonly name: string) {}

  /** Any scenario event, at a time: the general form every helper below uses. */
  at(time: Interval, stimulus: Stimulus): this {
    this.w.schedule(this.name, time, stimulus);
    return this;
  }
  press(at: Interval, opts: { button?: 'main' | 'side'; hold?: Interval } = {}): this {
    return this.at(at, { press: { button: opts.button ?? 'main', hold: opts.hold ?? '100ms' } });
  }
  move(at: Interval, to: Position): this {
    return this.at(at, { move: to });
  }
  motion(at: Interval, moving: boolean, intensity?: number): this {
    return this.at(at, { motion: intensity === undefined ? moving : { moving, intensity } });
  }
  /** External power on or off. */
  externalPower(at: Interval, external: boolean, charging = external): this {
    return this.at(at, { power: { external, charging } });
  }
  /** The device loses power (and boots again, as a real one with a battery would). */
  cutPower(at: Interval, afterFlashOps?: number): this {
    return this.at(at, { powerCut: afterFlashOps === undefined ? true : { afterFlashOps } });
  }
  temperature(at: Interval, celsius: number): this {
    return this.at(at, { temperature: celsius });
  }
  battery(at: Interval, percent: number): this {
    return this.at(at, { battery: percent });
  }
}

interface DeviceEntry {
  name: string;
  options: DeviceOptions;
}

export class World {
  private readonly devices: DeviceEntry[] = [];
  private readonly events: ScenarioEvent[] = [];
  private readonly opts: WorldOptions;

  constructor(
    private readonly t?: TestContextLike,
    opts: WorldOptions = {},
  ) {
    this.opts = opts;
  }

  /** The rig address this world runs on, or undefined on the simulator. */
  get rig(): string | undefined {
    if (this.opts.device === null) return undefined;
    return this.opts.device ?? (process.env.BEACON_TEST_DEVICE || undefined);
  }

  /** Whether the world runs on BabbleSim's air alone (on bsim only). */
  private get radioAir(): boolean {
    return (this.opts.air ?? process.env.BEACON_TEST_AIR) === 'radio';
  }

  /** The engine asked for (option, then $BEACON_TEST_ENGINE), or undefined. */
  private get engineAsked(): Engine | undefined {
    const e = this.opts.engine ?? process.env.BEACON_TEST_ENGINE;
    return e === 'jerryscript' || e === 'duktape' ? e : undefined;
  }

  /** Engine apps are built for: the one asked for; on a rig, else the engine of the app the
   * device runs; else duktape. */
  private engineFound: Engine | undefined;
  get engine(): Engine {
    return this.engineAsked ?? this.engineFound ?? 'duktape';
  }

  device(name: string, options: DeviceOptions): Device {
    if (this.devices.some((d) => d.name === name)) throw new Error(`a world has one device named '${name}'`);
    this.devices.push({ name, options });
    return new Device(this, name);
  }

  /** @internal */
  schedule(device: string, at: Interval, stimulus: Stimulus): void {
    this.events.push({ at, device, ...stimulus } as ScenarioEvent);
  }

  /** The scenario the simulator runs (for a look at it in a failing test). */
  scenario(packages: Map<string, string>, durationMs: number): Scenario {
    const utc = this.opts.utc === undefined ? '2026-01-01T00:00:00Z' : this.opts.utc;
    const s: Scenario = {
      utc,
      duration: durationMs,
      devices: this.devices.map((d) => {
        const { app: _app, ...rest } = d.options;
        return { name: d.name, ...rest, app: packages.get(d.name) };
      }),
      events: [...this.events].sort((a, b) => intervalMs(a.at) - intervalMs(b.at)),
    };
    if (this.opts.origin) s.origin = this.opts.origin;
    return s;
  }

  /** Mark the test skipped and end it (rigTest/deviceTest end it quietly). */
  skip(reason: string): never {
    this.t?.skip(reason);
    throw new Skipped(reason);
  }

  /** Run the world for `duration` of device time; then assert on the result. */
  async run(duration: Interval): Promise<WorldResult> {
    if (this.devices.length === 0) throw new Error('the world has no device: add one with world.device(name, { app })');
    const ms = intervalMs(duration);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-test-'));
    try {
      if (this.rig === undefined) return await this.simulate(dir, await this.build(dir), ms);
      if (this.rig === 'bsim' || this.rig === 'zephyr-qemu') return await this.simulate(dir, await this.build(dir), ms, this.rig);
      return await this.runOnRig(this.rig, dir, ms);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  private async build(dir: string): Promise<Map<string, string>> {
    const compiler = await import('../compiler/light');
    const api = (this.opts.api ?? process.env.BEACON_TEST_API ?? DEFAULT_API_VERSION) as ApiVersion;
    const out = new Map<string, string>();
    for (const [i, d] of this.devices.entries()) {
      const app = d.options.app;
      let entry: string;
      if (typeof app === 'string') {
        if (app.endsWith('.bapp')) {
          out.set(d.name, path.resolve(app));
          continue;
        }
        entry = path.resolve(app);
      } else {
        entry = path.join(dir, `${i}-${(app.name ?? d.name).replace(/[^\w.-]/g, '_')}.ts`);
        fs.writeFileSync(entry, app.source);
      }
      const pkg = path.join(dir, `${i}.bapp`);
      await compiler.compileApp({ entry, apiVersion: api, engine: this.engine, outFile: pkg });
      out.set(d.name, pkg);
    }
    return out;
  }

  /** Runs of this world so far (names the recorded traces). */
  private runs = 0;

  /**
   * With $BEACON_TEST_RECORD set to a directory, keep each simulated run's trace there, named by
   * the test and the run: CI runs the suite on each engine and compares the two directories byte
   * for byte (scripts/compare-traces.js), so the conformance apps behave the same on both.
   */
  private record(traceFile: string): void {
    const dir = process.env.BEACON_TEST_RECORD;
    if (!dir || !fs.existsSync(traceFile)) return;
    // The test file (each runs in a process of its own) and the test name.
    const file = path.basename(process.argv[1] ?? 'test').replace(/\.[jt]s$/, '');
    const test = `${file}--${this.t?.name ?? 'world'}`.replace(/[^\w.-]+/g, '_').slice(0, 180);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(traceFile, path.join(dir, `${test}.${++this.runs}.jsonl`));
  }

  /**
   * The world on the simulator, or (firmware: 'bsim', 'zephyr-qemu') on the firmware built by
   * Zephyr for nrf52_bsim or mps2/an521, whose test configuration runs the same world's models of
   * the device's parts (docs/firmware.md, "Test boards"): the same scenario, the app installed
   * into its app store at boot, its console and trace read back. One device per firmware.
   */
  private async simulate(dir: string, packages: Map<string, string>, ms: number, firmware?: 'bsim' | 'zephyr-qemu'): Promise<WorldResult> {
    const { ensureHostTools } = await import('../compiler/light');
    // On bsim a world of several devices is several firmwares on one air (firmware/bsimWorld.ts);
    // the an521 under QEMU is one device.
    if (firmware === 'zephyr-qemu' && this.devices.length !== 1) {
      this.skip(`the firmware on ${firmware} is one device; this world has ${this.devices.length}`);
    }
    const scenarioFile = path.join(dir, 'world.json');
    const text = JSON.stringify(this.scenario(packages, ms), null, 2);
    fs.writeFileSync(scenarioFile, text);
    // The scenario checks (schema and meaning) give the JSON path of a bad stimulus.
    const lowered = lowerScenario(parseScenario(text, scenarioFile), scenarioFile);
    const script = path.join(dir, 'world.script');
    fs.writeFileSync(script, lowered.script);
    const traceFile = path.join(dir, 'trace.jsonl');
    const args = ['--for', String(ms), '--world', script, '--trace', traceFile, ...this.devices.map((d) => packages.get(d.name)!)];
    const airDump = firmware === 'bsim' ? this.airDumpDir() : undefined;
    const { code, stderr } = firmware === 'bsim' && (this.devices.length > 1 || this.radioAir)
      ? await this.runFirmwares(lowered.script, this.devices.map((d) => packages.get(d.name)!), ms, traceFile, airDump)
      : firmware !== undefined
      ? await this.runFirmware(firmware, args, airDump)
      : await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
          void ensureHostTools(['beacon-sim'], this.engine).then(([sim]) => {
            const child = spawn(sim, args, { stdio: ['ignore', 'ignore', 'pipe'] });
            let err = '';
            child.stderr.on('data', (b: Buffer) => (err += b.toString()));
            child.on('error', reject);
            child.on('close', (c) => resolve({ code: c ?? 1, stderr: err }));
          }, reject);
        });
    this.record(traceFile);
    const records: TraceRecord[] = fs.existsSync(traceFile)
      ? fs
          .readFileSync(traceFile, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as TraceRecord)
      : [];
    const skip = (reason: string): never => this.skip(reason);
    return {
      exitCode: code,
      stderr,
      ...(airDump !== undefined ? { airDump } : {}),
      device: (name) => {
        if (!this.devices.some((d) => d.name === name)) throw new Error(`no device '${name}' in this world (${this.devices.map((d) => d.name).join(', ')})`);
        const mine = records.filter((r) => r.dev === name);
        const lines = mine.filter((r) => r.ev === 'print').map((r) => String(r.text));
        const where = firmware === undefined ? 'the simulator' : `the firmware on ${firmware}${firmware === 'bsim' && this.radioAir ? ' (radio air)' : ''}`;
        return new DeviceResult(name, lines, mine, skip, where);
      },
    };
  }

  /** The firmware's run with the simulator's arguments (world_main_zephyr.c takes them). */
  private async runFirmware(target: 'bsim' | 'zephyr-qemu', args: string[], airDump?: string): Promise<{ code: number; stderr: string }> {
    const fw = await import('../firmware/zephyr');
    const image = await fw.ensureZephyrImage(target, this.engine);
    // The scenario script says the UTC (or none), as to beacon-sim; paths absolute for the board.
    const r = await fw.runZephyrFirmware(target, image, args.map((a) => (a.endsWith('.bapp') || a.endsWith('.script') || a.endsWith('.jsonl') ? path.resolve(a) : a)), { dumpDir: airDump });
    // One firmware: BabbleSim's device 0.
    if (airDump !== undefined) (await import('../firmware/airDump')).finishAirDump(airDump, [this.devices[0].name]);
    return { code: r.status, stderr: r.stderr };
  }

  /** This run's directory under airDump ($BEACON_TEST_AIR_DUMP), made here: named by the test (a
   * test file runs in a process of its own, so a name taken is another file's or an earlier
   * run's, and the next free <name>.<n> is used instead of overwriting it). */
  private airDumpDir(): string | undefined {
    const root = this.opts.airDump ?? process.env.BEACON_TEST_AIR_DUMP;
    if (!root) return undefined;
    const base = (this.t?.name ?? `run-${++airDumpRuns}`).replace(/[^\w.-]+/g, '_').slice(0, 180);
    fs.mkdirSync(root, { recursive: true });
    for (let n = 1; ; n++) {
      const dir = path.join(path.resolve(root), n === 1 ? base : `${base}.${n}`);
      try {
        fs.mkdirSync(dir);
        return dir;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  /** A world of several devices on nrf52_bsim: a firmware per device, their radios on one air;
   * on the radio air alone, an LTE beacon as its two chips. */
  private async runFirmwares(script: string, packages: string[], ms: number, trace: string, airDump?: string): Promise<{ code: number; stderr: string }> {
    const fw = await import('../firmware/zephyr');
    const { runBsimWorld, scriptProfiles, PAIR_PROFILE } = await import('../firmware/bsimWorld');
    const image = await fw.ensureZephyrImage('bsim', this.engine);
    const radio = this.radioAir;
    const pair = radio && scriptProfiles(script).includes(PAIR_PROFILE) ? await fw.ensurePairImages(this.engine) : undefined;
    const r = await runBsimWorld(image, { pair, tagsOnAir: radio, script, packages, args: ['--for', String(ms)], lengthMs: ms + 1000, trace, dumpDir: airDump });
    if (airDump !== undefined) (await import('../firmware/airDump')).finishAirDump(airDump, r.airDevices);
    return { code: r.status, stderr: r.stderr };
  }

  private async runOnRig(address: string, dir: string, ms: number): Promise<WorldResult> {
    if (this.devices.length !== 1) this.skip(`the rig ${address} is one device; this world has ${this.devices.length}`);
    const [d] = this.devices;
    const { app: _app, profile: _profile, ...state } = d.options;
    const set = Object.keys(state).filter((k) => (state as Record<string, unknown>)[k] !== undefined);
    if (set.length > 0) this.skip(`the rig cannot set the device's ${set.join(', ')}`);
    if (this.events.length > 0) {
      const kinds = [...new Set(this.events.flatMap((e) => Object.keys(e).filter((k) => k !== 'at' && k !== 'device')))];
      this.skip(`the rig cannot produce ${kinds.join(', ')}`);
    }
    const rig = await openRig(address);
    try {
      if (this.engineAsked === undefined) {
        // ENG_ID_* of the package header: 1 Duktape, 2 JerryScript.
        const st = await rig.status();
        if (st.installed) this.engineFound = st.engineId === 2 ? 'jerryscript' : 'duktape';
      }
      const packages = await this.build(dir);
      const mark = rig.console?.lines.length ?? 0;
      const verdict = await rig.install(fs.readFileSync(packages.get(d.name)!));
      // Device time is real time on a rig.
      await new Promise((r) => setTimeout(r, ms));
      const lines = rig.console?.lines.slice(mark);
      const skip = (reason: string): never => this.skip(reason);
      return {
        exitCode: 0,
        stderr: verdict,
        device: (name) => {
          if (name !== d.name) throw new Error(`no device '${name}' in this world (${d.name})`);
          return new DeviceResult(name, lines, undefined, skip, `the rig ${address}`);
        },
      };
    } finally {
      await rig.close();
    }
  }
}

/** Runs without a test name so far, which name their air dumps (run-<n>). */
let airDumpRuns = 0;

/** A world for a test; pass the test's context so that what a rig cannot do is reported skipped. */
export function world(t?: TestContextLike, opts?: WorldOptions): World {
  return new World(t, opts);
}

// The simulated world of the studio page, in a Web Worker: the WebAssembly module runs here,
// paced against the clock (world.ts's Pacer), and hands the page its output and trace in one
// message per slice. So the world never waits for the page to draw (the page draws at most once
// per animation frame, on its own thread, from the latest state), and a click still reaches the
// world within one slice: a fast run costs little more than the module's own work.
import { DeviceInfo, OutputLine, Pacer, SimFactory, Speed, SpeedMeter, WasmWorld, WorldEnd } from '../src/studio/world';
import type { ProgressFigures } from '../src/world/progress';
import { ENERGY_PERIOD_MS, isEnergyRecord, WorldEnergy } from './energyWorld';

/** The state a device's controls start from. */
export interface DeviceStart {
  battery: number;
  external: boolean;
  charging: boolean;
  temperature: number;
  moving: boolean;
  /** The battery's capacity, mAh (the energy gauge's time left). */
  capacityMah: number;
}

export type ToWorker =
  | { op: 'load'; engine: string; wasm: ArrayBuffer }
  | { op: 'open'; id: number; run: number; script?: string; devices: number; utc: number; packages: Uint8Array[]; deploys?: Uint8Array[]; speed: Speed; until: number }
  | { op: 'speed'; speed: Speed }
  | { op: 'input'; run: number; device: number; kind: number; values: number[]; releaseAfter?: number }
  | { op: 'stop'; run: number }
  | { op: 'warm'; bytes: Uint8Array; forMs: number }
  | { op: 'check'; id: number; bytes: Uint8Array }
  | { op: 'install'; id: number; run: number; index: number; bytes: Uint8Array };

export type FromWorker =
  | { op: 'loaded' }
  | { op: 'reply'; id: number; error?: string; devices?: DeviceInfo[]; starts?: DeviceStart[]; failed?: { index: number; reason: string }[] }
  /** energy: the world's energy records (energyWorld.ts), beside the trace; also in the last
   *  batch of a run the page stopped, which has nothing else. */
  | { op: 'batch'; run: number; now: number; output: OutputLine[]; trace: string[]; energy: string[]; end?: WorldEnd; busyMs: number; progress?: ProgressFigures };

interface WorkerScope {
  postMessage(m: FromWorker): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  [name: string]: unknown;
}
const scope = self as unknown as WorkerScope;

let world: WasmWorld | undefined;
let pacer: Pacer | undefined;
let run = -1;
let output: OutputLine[] = [];
let trace: string[] = [];
let energy: string[] = [];
const worldEnergy = new WorldEnergy();
let lastNow = -1;
/** Real time the world's work took in this run (the benchmark compares it with the whole Run). */
let busyMs = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
// The run's progress for the page's readout: measured here, where the world's work is timed, at
// most PROGRESS_EVERY_MS apart (as beacon-sim's line), and at the run's end or Stop.
const PROGRESS_EVERY_MS = 250;
const meter = new SpeedMeter();
let progress: ProgressFigures | undefined;
let progressAt = 0;
// Back-to-back slices as fast as possible: a message to ourselves is a task, so the page's
// messages (Stop, a click) are handled between two slices; setTimeout(0) would be clamped to 4 ms.
const slices = new MessageChannel();

/** The run that warms the engine's code up after loading (its output goes nowhere). */
const WARM_RUN = -2;

/** The progress figures, when their time has come (or `now`, before the world is closed). */
function measure(now = false): void {
  const t = performance.now();
  if (!world || (!now && t < progressAt)) return;
  progressAt = t + PROGRESS_EVERY_MS;
  const deviceMs = world.now();
  progress = { deviceMs, speed: meter.sample(t, deviceMs), alive: world.alive(), devices: world.deviceCount() };
}

function flush(end?: WorldEnd, now = world?.now() ?? 0): void {
  if (!world) return;
  if (run === WARM_RUN) {
    output = [];
    trace = [];
    energy = [];
    progress = undefined;
    return;
  }
  // New figures go out even when nothing else changed: the speed falls while the clock stands.
  if (output.length === 0 && trace.length === 0 && energy.length === 0 && now === lastNow && end === undefined && !progress) return;
  lastNow = now;
  scope.postMessage({ op: 'batch', run, now, output, trace, energy, busyMs, ...(end !== undefined ? { end } : {}), ...(progress ? { progress } : {}) });
  output = [];
  trace = [];
  energy = [];
  progress = undefined;
}

let warmUntil = 0;

function step(forRun: number): void {
  timer = undefined;
  if (!pacer || forRun !== run) return;
  if (run === WARM_RUN && performance.now() >= warmUntil) {
    world!.close();
    flush();
    pacer = undefined;
    return;
  }
  const t0 = performance.now();
  const end = pacer.tick(run === WARM_RUN ? 10 : pacer.speed === 'max' ? 30 : 12);
  busyMs += performance.now() - t0;
  if (pacer.ended !== undefined) {
    // beacon-sim frees the world when the run ends, and the apps' ends (advertisers stopping,
    // the NFC tag's message) are in its trace: so they are in the page's.
    const now = world!.now();
    // The figures where the run ended: a closed world has no devices to count.
    measure(true);
    worldEnergy.finish();
    world!.close();
    flush(end, now);
    pacer = undefined;
    return;
  }
  measure();
  flush();
  if (pacer.speed === 'max') slices.port2.postMessage(forRun);
  // At a factor of real time, a slice per display frame or so: the Pacer runs the world to
  // where the clock says, however late the timer fires.
  else timer = setTimeout(() => step(forRun), 15);
}

slices.port1.onmessage = (e: MessageEvent<number>) => step(e.data);

function reply(id: number, r: Omit<Extract<FromWorker, { op: 'reply' }>, 'op' | 'id'> = {}): void {
  scope.postMessage({ op: 'reply', id, ...r });
}

/*
 * The page made this worker from one blob: emscripten's glue for the engine, then this script,
 * and sends the module's bytes; so the worker itself asks the network for nothing.
 */
async function load(engine: string, bytes: ArrayBuffer): Promise<void> {
  const factory = scope[`createBeaconSim_${engine}`] as SimFactory;
  world = await WasmWorld.create(worldEnergy.wrap(factory), bytes);
  world.listen({ output: (l) => output.push(l), trace: (json) => (isEnergyRecord(json) ? energy : trace).push(json) });
  scope.postMessage({ op: 'loaded' });
}

function open(m: Extract<ToWorker, { op: 'open' }>): void {
  const w = world!;
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  pacer = undefined;
  // The world of the last run (or of the warm-up) ends before this one's output begins.
  w.close();
  run = m.run;
  output = [];
  trace = [];
  energy = [];
  lastNow = -1;
  busyMs = 0;
  const t0 = performance.now();
  let devices: DeviceInfo[];
  try {
    devices = w.open(m.script, m.devices, m.utc, m.deploys ?? []);
  } catch (err) {
    reply(m.id, { error: (err as Error).message });
    return;
  }
  // On before the devices boot: a device's first period starts when it powers on.
  worldEnergy.start(ENERGY_PERIOD_MS);
  for (const d of devices) w.setPackage(d.index, m.packages[Math.min(d.index, m.packages.length - 1)]);
  const starts = devices.map((d) => ({
    battery: w.value(d.index, 'battery'),
    external: w.value(d.index, 'external') !== 0,
    charging: w.value(d.index, 'charging') !== 0,
    temperature: w.value(d.index, 'temperature'),
    moving: w.value(d.index, 'moving') !== 0,
    capacityMah: worldEnergy.capacityMah(d.index),
  }));
  const failed = w.start();
  busyMs = performance.now() - t0;
  // Measured from here, where the world starts to run; the first figures a moment later.
  progress = undefined;
  meter.start(performance.now(), w.now());
  progressAt = performance.now() + PROGRESS_EVERY_MS;
  reply(m.id, { devices, starts, failed });
  pacer = new Pacer(w, () => performance.now());
  pacer.until = m.until;
  pacer.setSpeed(m.speed);
  step(run);
}

/*
 * WebAssembly code starts in the engine's baseline tier and is optimised as it gets hot, so the
 * first Run after loading would be several times slower than the next. The page sends a small
 * app that works the JS engine, timers and the event loop hard; it runs here for forMs of real
 * time, in slices, and any request of the page (a Run) ends it at once.
 */
function warm(bytes: Uint8Array, forMs: number): void {
  const w = world;
  if (!w || pacer) return;
  run = WARM_RUN;
  try {
    w.open(undefined, 1, 0);
  } catch {
    return;
  }
  w.setPackage(0, bytes);
  w.start();
  warmUntil = performance.now() + forMs;
  pacer = new Pacer(w, () => performance.now());
  pacer.setSpeed('max');
  step(run);
}

scope.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  switch (m.op) {
    case 'load':
      load(m.engine, m.wasm).catch((err: unknown) => scope.postMessage({ op: 'reply', id: 0, error: (err as Error).message }));
      break;
    case 'open':
      open(m);
      break;
    case 'warm':
      warm(m.bytes, m.forMs);
      break;
    case 'speed':
      if (pacer) {
        const was = pacer.speed;
        pacer.setSpeed(m.speed);
        // From real time to as fast as possible, start now rather than at the next timer.
        if (was !== 'max' && m.speed === 'max' && timer !== undefined) {
          clearTimeout(timer);
          timer = undefined;
          step(run);
        }
      }
      break;
    case 'input': {
      // The world time an input belongs to is the present of the world's clock when it arrives.
      if (!pacer || !world || m.run !== run) break;
      const at = pacer.present();
      world.input(m.device, m.kind, at, m.values);
      if (m.releaseAfter !== undefined) world.input(m.device, m.kind, at + m.releaseAfter, [m.values[0], 0]);
      break;
    }
    case 'stop':
      if (m.run === run) {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        if (pacer && world) {
          // The page stopped the run: its output and trace end with the click, but the energy
          // panel still gets each device's last period and summary, as at the end of a run.
          worldEnergy.finish();
          const now = world.now();
          measure(true);
          world.close();
          // What closing traced (the apps' ends) is not sent: the page's output ended at Stop.
          output = [];
          trace = [];
          flush(undefined, now);
        }
        output = [];
        trace = [];
        pacer = undefined;
      }
      break;
    case 'check': {
      const why = world!.check(m.bytes);
      reply(m.id, why === undefined ? {} : { error: why });
      break;
    }
    case 'install': {
      const why = m.run === run && pacer ? world!.install(m.index, m.bytes) : 'the run has ended';
      flush();
      reply(m.id, why === undefined ? {} : { error: why });
      break;
    }
  }
};

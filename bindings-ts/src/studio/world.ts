// The simulated world in the page: the WebAssembly build of beacon-sim's world
// (src/port/wasm/studio_main.c) behind a small class, and the pacing that lets world time pass
// at a chosen speed. Nothing here touches the DOM, so node runs it too (bench/studio.sh).
//
// Output is formatted exactly as beacon-sim's host port writes it (src/port/host/host_io.c):
// one line per print, "[device] " in front when the world has several devices; runtime messages
// as "[beacon <level>] ..."; trace records one per line. So the page's output and trace can be
// compared with `beacon run`'s byte for byte.

/** What the emscripten module gives (see src/port/wasm/wasm.cmake for the exports). */
export interface SimModule {
  HEAPU8: Uint8Array;
  cwrap(name: string, ret: string | null, args: string[]): (...args: unknown[]) => unknown;
  UTF8ToString(ptr: number): string;
  _malloc(n: number): number;
  _free(p: number): void;
}

export interface SimCallbacks {
  wasmBinary: ArrayBuffer | Uint8Array;
  onPrint(device: string, several: boolean, text: string): void;
  onLog(device: string, several: boolean, level: number, text: string): void;
  onTrace(json: string): void;
  onFatal?(reason: string): void;
}

export type SimFactory = (module: SimCallbacks) => Promise<SimModule>;

/** The kinds of src/world/world_inputs.h (world_input_kind_t). */
export const INPUT = {
  BUTTON: 1,
  MOTION: 2,
  ACCEL: 3,
  GYRO: 4,
  IMU_EVENT: 5,
  BATTERY: 6,
  CURRENT: 7,
  POWER: 8,
  TEMPERATURE: 9,
  TIME_SYNC: 10,
  IMU_FAULT: 11,
  FAULT: 12,
  MOVE: 13,
} as const;

/** world_end_t */
export enum WorldEnd {
  TimeUp = 0,
  Idle = 1,
  Stopped = 2,
}

const LOG_LEVELS = ['error', 'warning', 'info', 'debug'];

/** A line of output, as beacon-sim writes it: on stdout (app) or stderr (runtime). */
export interface OutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
  device: string;
  level?: string;
}

export interface WorldListener {
  output(line: OutputLine): void;
  trace(json: string): void;
}

export interface DeviceInfo {
  index: number;
  name: string;
  profile: string;
  leds: number;
}

/** Named values of studio_device_value(). */
export const DEVICE_VALUE = {
  battery: 0,
  external: 1,
  charging: 2,
  temperature: 3,
  accelX: 4,
  accelY: 5,
  accelZ: 6,
  moving: 7,
  hasImu: 8,
  lat: 9,
  lon: 10,
  alt: 11,
  features: 12,
} as const;

type Fn = (...args: unknown[]) => unknown;

/** One world in one module instance; open() replaces the previous one. */
export class WasmWorld {
  private readonly fn: Record<string, Fn> = {};
  private listener: WorldListener = { output: () => {}, trace: () => {} };

  private constructor(private readonly mod: SimModule) {
    const sig: Record<string, [string | null, string[]]> = {
      studio_open: ['number', ['number', 'number', 'number', 'number', 'number']],
      studio_close: [null, []],
      studio_message: ['string', []],
      studio_device_package: ['number', ['number', 'number', 'number']],
      studio_device_heap: [null, ['number', 'number']],
      studio_start: ['number', []],
      studio_failure: ['string', ['number']],
      studio_run_until: ['number', ['number']],
      studio_idle_until: ['number', ['number']],
      studio_now: ['number', []],
      studio_next: ['number', []],
      studio_input: ['number', ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'string']],
      studio_check_package: ['number', ['number', 'number']],
      studio_install: ['number', ['number', 'number', 'number']],
      studio_device_count: ['number', []],
      studio_device_name: ['string', ['number']],
      studio_device_profile: ['string', ['number']],
      studio_device_leds: ['number', ['number']],
      studio_device_resets: ['number', ['number']],
      studio_device_value: ['number', ['number', 'number']],
      studio_devices_alive: ['number', []],
      studio_deploy_package: ['number', ['number', 'number']],
      studio_deploy_clear: [null, []],
    };
    for (const [name, [ret, args]] of Object.entries(sig)) this.fn[name] = mod.cwrap(name, ret, args);
  }

  /** Instantiate a module (the engine's factory and its .wasm bytes). */
  static async create(factory: SimFactory, wasmBinary: ArrayBuffer | Uint8Array): Promise<WasmWorld> {
    let world: WasmWorld | undefined;
    const mod = await factory({
      wasmBinary,
      onPrint: (device, several, text) => world?.listener.output({ stream: 'stdout', device, text: `${several ? `[${device}] ` : ''}${text}\n` }),
      onLog: (device, several, level, text) => {
        const name = LOG_LEVELS[Math.min(level, 3)];
        world?.listener.output({ stream: 'stderr', device, level: name, text: `[beacon ${name}] ${several ? `${device}: ` : ''}${text}\n` });
      },
      onTrace: (json) => world?.listener.trace(json + '\n'),
      onFatal: (reason) => world?.listener.output({ stream: 'stderr', device: '', level: 'fatal', text: `[beacon fatal] ${reason}\n` }),
    });
    world = new WasmWorld(mod);
    return world;
  }

  listen(listener: WorldListener): void {
    this.listener = listener;
  }

  private withBytes<T>(bytes: Uint8Array, f: (ptr: number, len: number) => T): T {
    const ptr = this.mod._malloc(Math.max(bytes.length, 1));
    try {
      this.mod.HEAPU8.set(bytes, ptr);
      return f(ptr, bytes.length);
    } finally {
      this.mod._free(ptr);
    }
  }

  /**
   * A new world: the devices of a world script (from lowerScenario), or `devices` devices of
   * the default profile. utcMs null: no device has the time. `deploys`: the packages the
   * script's `cloud-deploy K` lines deploy through the loopback cloud, K in this order (beacon
   * run's --deploy). Throws with the world's reason.
   */
  open(script: string | undefined, devices: number, utcMs: number | null, deploys: readonly Uint8Array[] = []): DeviceInfo[] {
    this.fn.studio_deploy_clear();
    try {
      for (const [k, pkg] of deploys.entries()) {
        if (this.withBytes(pkg, (ptr, len) => this.fn.studio_deploy_package(ptr, len) as number) < 0) throw new Error(`deployed package ${k}: ${this.fn.studio_message() as string}`);
      }
      const bytes = new TextEncoder().encode(script ?? '');
      const n = this.withBytes(bytes, (ptr, len) => this.fn.studio_open(ptr, len, devices, utcMs ?? 0, utcMs === null ? 0 : 1) as number);
      if (n < 0) throw new Error(this.fn.studio_message() as string);
    } finally {
      // The world has its copies now.
      this.fn.studio_deploy_clear();
    }
    return this.devices();
  }

  close(): void {
    this.fn.studio_close();
  }

  devices(): DeviceInfo[] {
    const n = this.fn.studio_device_count() as number;
    const out: DeviceInfo[] = [];
    for (let i = 0; i < n; i++) {
      out.push({
        index: i,
        name: this.fn.studio_device_name(i) as string,
        profile: this.fn.studio_device_profile(i) as string,
        leds: this.fn.studio_device_leds(i) as number,
      });
    }
    return out;
  }

  setPackage(index: number, pkg: Uint8Array): void {
    const rc = this.withBytes(pkg, (ptr, len) => this.fn.studio_device_package(index, ptr, len) as number);
    if (rc !== 0) throw new Error(`no device ${index}`);
  }

  setHeap(index: number, bytes: number): void {
    this.fn.studio_device_heap(index, bytes);
  }

  /** Boot the devices and start their apps; the reasons of those that could not start. */
  start(): { index: number; reason: string }[] {
    const failed = this.fn.studio_start() as number;
    const out: { index: number; reason: string }[] = [];
    if (failed === 0) return out;
    const n = this.fn.studio_device_count() as number;
    for (let i = 0; i < n; i++) {
      const reason = this.fn.studio_failure(i) as string;
      if (reason) out.push({ index: i, reason });
    }
    return out;
  }

  runUntil(until: number): WorldEnd {
    return this.fn.studio_run_until(until) as WorldEnd;
  }

  /** A run with a set duration that went idle lasts it (world_idle_until), as beacon run's. */
  idleUntil(until: number): WorldEnd {
    return this.fn.studio_idle_until(until) as WorldEnd;
  }

  now(): number {
    return this.fn.studio_now() as number;
  }

  /** World time of the next thing scheduled, or undefined when only an input can wake it. */
  next(): number | undefined {
    const t = this.fn.studio_next() as number;
    return t < 0 ? undefined : t;
  }

  /** Queue an input for a device at world time `at` (not before now()). */
  input(device: number, kind: number, at: number, values: readonly number[] = [], text = ''): boolean {
    const v = [0, 0, 0, 0].map((z, i) => values[i] ?? z);
    return (this.fn.studio_input(device, kind, at, v[0], v[1], v[2], v[3], text) as number) === 0;
  }

  /** Why the device would refuse this package, or undefined when it would run it. */
  check(pkg: Uint8Array): string | undefined {
    const rc = this.withBytes(pkg, (ptr, len) => this.fn.studio_check_package(ptr, len) as number);
    return rc === 0 ? undefined : (this.fn.studio_message() as string);
  }

  /** Upload a package to a running device; the reason when it was refused or failed. */
  install(index: number, pkg: Uint8Array): string | undefined {
    const rc = this.withBytes(pkg, (ptr, len) => this.fn.studio_install(index, ptr, len) as number);
    return rc === 0 ? undefined : (this.fn.studio_message() as string);
  }

  deviceCount(): number {
    return this.fn.studio_device_count() as number;
  }

  /** Devices powered whose app runs (world_devices_alive): one pass over the devices. */
  alive(): number {
    return this.fn.studio_devices_alive() as number;
  }

  resets(index: number): number {
    return this.fn.studio_device_resets(index) as number;
  }

  value(index: number, what: keyof typeof DEVICE_VALUE): number {
    return this.fn.studio_device_value(index, DEVICE_VALUE[what]) as number;
  }
}

/** How fast world time passes: a factor of real time, or as fast as the host can run it. */
export type Speed = number | 'max';

/**
 * World time paced against a real clock. tick() is called from animation frames (or a loop in
 * node): at a factor of real time it runs the world to where the clock says; 'max' runs as much
 * as fits in a time budget per tick, so the page stays responsive.
 */
export class Pacer {
  private anchorReal = 0;
  private anchorWorld = 0;
  private speedValue: Speed = 1;
  ended: WorldEnd | undefined;
  /** World time the run stops at (the scenario's duration), or Infinity. */
  until = Infinity;

  constructor(
    private readonly world: WasmWorld,
    private readonly clock: () => number,
  ) {}

  get speed(): Speed {
    return this.speedValue;
  }

  /** Restart pacing from the world's present (at start, and when the speed changes). */
  setSpeed(speed: Speed): void {
    this.speedValue = speed;
    this.anchorReal = this.clock();
    this.anchorWorld = this.world.now();
  }

  /** The world time an input from the user belongs to now. */
  present(): number {
    const now = this.world.now();
    if (this.speedValue === 'max') return now;
    const t = Math.floor(this.anchorWorld + (this.clock() - this.anchorReal) * this.speedValue);
    return Math.max(now, Math.min(t, this.until));
  }

  /**
   * Run the world up to the present. Returns how it stopped: TimeUp while time remains (or
   * when `until` was reached), Idle when only an input can wake it, Stopped when no app runs
   * any more. Sets `ended` when the run is over: no app runs, `until` is reached, or (with an
   * `until`) nothing more can happen by the time it comes, which is where `beacon run` ends too.
   */
  tick(budgetMs = 12): WorldEnd {
    if (this.ended !== undefined) return this.ended;
    let end: WorldEnd;
    if (this.speedValue === 'max') {
      const start = this.clock();
      const slice = 60_000;
      do {
        const target = Math.min(this.world.now() + slice, this.until);
        end = this.world.runUntil(target === Infinity ? -1 : target);
        // A run with an end passes its idle time slice by slice too: the energy records (and the
        // gauges) follow it rather than jumping to the end at once.
        if (end === WorldEnd.Idle && this.until !== Infinity) end = this.world.idleUntil(target);
      } while (end === WorldEnd.TimeUp && this.world.now() < this.until && this.clock() - start < budgetMs);
    } else {
      end = this.world.runUntil(this.present());
    }
    if (end === WorldEnd.Stopped || (end === WorldEnd.TimeUp && this.world.now() >= this.until)) this.ended = end;
    // Idle: the page waits for the user's input, but not past the run's end, where the run's
    // time passes to its end as beacon run's does.
    else if (end === WorldEnd.Idle && this.until !== Infinity && (this.speedValue === 'max' || this.present() >= this.until)) {
      this.ended = end = this.world.idleUntil(this.until);
    } else if (end === WorldEnd.Idle && this.speedValue !== 'max') {
      // Nothing will happen before an input, but the devices' time passes all the same: what
      // their batteries count, and what the energy gauges show.
      this.world.idleUntil(this.present());
    }
    return end;
  }
}

/**
 * The speed a run goes at, measured: device time advanced per real time elapsed over the last
 * few seconds (windowMs), or since the start when the run is younger. Measured rather than the
 * speed asked for because a world may not keep up with it (a fleet at ×10), and as fast as
 * possible has no number; over a window rather than the whole run so that a change of speed, or
 * a world that slows as its apps get busy, shows within seconds.
 */
export class SpeedMeter {
  private samples: { real: number; device: number }[] = [];

  constructor(private readonly windowMs = 2000) {}

  /** A new run, at real time `real` with the world's clock at `device`. */
  start(real: number, device: number): void {
    this.samples = [{ real, device }];
  }

  /** The world's clock is at `device` at real time `real`: the speed over the window. */
  sample(real: number, device: number): number {
    this.samples.push({ real, device });
    // Drop the oldest while the next one still leaves a full window behind the newest.
    while (this.samples.length > 2 && real - this.samples[1].real >= this.windowMs) this.samples.shift();
    const first = this.samples[0];
    return real > first.real ? (device - first.device) / (real - first.real) : 0;
  }
}

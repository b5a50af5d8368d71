// `beacon run [<app.ts|app.js|app.bapp>...] [--world scenario.json | scenario.json] [--trace FILE] [--verbose]
//  [--heap N] [--flash DIR] [--for I] [--api V] [--engine E] [--realtime] [--utc T] [--trust key.pub]...
//  [--cloud loopback|none|embedded|mqtt://HOST:PORT [--cloud-secret S]] [--cloud-db FILE] [--cloud-port P] [--cloud-code handlers.js]
//  [--target sim|qemu|bsim|zephyr-qemu] [--air model|radio] [--air-dump DIR]`
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { PackageMap } from '../compiler/light';
import { flagOption, listOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { parseInterval, parseUtc } from './interval';
import { CliIo } from './io';
import { ProgressLine } from './progress';
import { cloudChoice, packageUsesCloud, RunCloud, startRunCloud, summaryLines } from './runCloud';
import type { LoweredWorld } from '../world/scenario';

/** Where `beacon run` runs apps: the host simulator, or the firmware image on QEMU's Cortex-M. */
// sim: the host simulator; qemu: the bare-metal image on an emulated Cortex-M4F; bsim and
// zephyr-qemu: the firmware built by Zephyr on nrf52_bsim and on mps2/an521 (src/firmware/zephyr.ts).
export type RunTarget = 'sim' | 'qemu' | 'bsim' | 'zephyr-qemu';
export const RUN_TARGETS: readonly RunTarget[] = ['sim', 'qemu', 'bsim', 'zephyr-qemu'];
const ON_BOARD: readonly RunTarget[] = ['qemu', 'bsim', 'zephyr-qemu'];

export interface SimOptions {
  forMs?: number;
  realtime: boolean;
  utcMs?: number;
  /** Public key files the simulated device trusts. */
  trust?: string[];
  /** World script file (lowered scenario). */
  world?: string;
  trace?: string;
  /** The energy model's records (beacon-sim --energy). */
  energy?: string;
  verbose?: boolean;
  /** JS heap of every device, bytes. */
  heap?: number;
  /** --memory-limit: megabytes the world may take. */
  memoryLimitMb?: number;
  /** Directory keeping each device's flash between runs. */
  flash?: string;
  /** The cloud devices sync with: the world's loopback cloud (default), none (no network), or
   * a broker's mqtt://HOST:PORT. */
  cloud?: string;
  /** The devices' password at that broker (issued by `beacon cloud device add`). */
  cloudSecret?: string;
  /** With mqtts:// (the firmware on bsim): the PEM file of the CA that signs the broker's
   * certificate. */
  cloudCa?: string;
  /** Packages the world script's cloud-deploy lines deploy through the loopback cloud. */
  deploy?: string[];
}

/** Arguments of beacon-sim for packages (one per device, or one for all). */
export function simArgs(pkgs: string | string[], o: SimOptions): string[] {
  const args: string[] = [];
  if (o.forMs !== undefined) args.push('--for', String(o.forMs));
  if (o.realtime) args.push('--realtime');
  if (o.utcMs !== undefined) args.push('--utc', String(o.utcMs));
  for (const key of o.trust ?? []) args.push('--trust', key);
  if (o.world !== undefined) args.push('--world', o.world);
  if (o.trace !== undefined) args.push('--trace', o.trace);
  if (o.energy !== undefined) args.push('--energy', o.energy);
  if (o.verbose) args.push('--verbose');
  if (o.heap !== undefined) args.push('--heap', String(o.heap));
  if (o.flash !== undefined) args.push('--flash', o.flash);
  if (o.memoryLimitMb !== undefined) args.push('--memory-limit', String(o.memoryLimitMb));
  if (o.cloud !== undefined) args.push('--cloud', o.cloud);
  if (o.cloudSecret !== undefined) args.push('--cloud-secret', o.cloudSecret);
  if (o.cloudCa !== undefined) args.push('--cloud-ca', o.cloudCa);
  for (const pkg of o.deploy ?? []) args.push('--deploy', pkg);
  args.push(...(Array.isArray(pkgs) ? pkgs : [pkgs]));
  return args;
}

function optionValue<T>(option: string, text: string | undefined, parse: (t: string) => T): T | undefined {
  if (text === undefined) return undefined;
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`${option}: ${err.message}`);
    throw err;
  }
}

function simOptions(args: ParsedArgs): SimOptions {
  const o: SimOptions = { realtime: flagOption(args, 'realtime') };
  const forMs = optionValue('--for', stringOption(args, 'for'), parseInterval);
  const utcMs = optionValue('--utc', stringOption(args, 'utc'), parseUtc);
  if (forMs !== undefined) o.forMs = forMs;
  if (utcMs !== undefined) o.utcMs = utcMs;
  const trust = listOption(args, 'trust').map((k) => existingFile(k));
  if (trust.length > 0) o.trust = trust;
  const trace = stringOption(args, 'trace');
  if (trace !== undefined) o.trace = path.resolve(trace);
  if (flagOption(args, 'verbose')) o.verbose = true;
  const heap = stringOption(args, 'heap');
  if (heap !== undefined) o.heap = parseHeap(heap);
  const memory = stringOption(args, 'memory-limit');
  if (memory !== undefined) {
    if (!/^[1-9]\d{0,7}$/.test(memory)) throw new UsageError(`--memory-limit: '${memory}' is not a number of megabytes`);
    o.memoryLimitMb = Number(memory);
  }
  const flash = stringOption(args, 'flash');
  if (flash !== undefined) o.flash = path.resolve(flash);
  const cloud = stringOption(args, 'cloud');
  if (cloud !== undefined && cloud !== 'embedded') {
    if (cloud !== 'loopback' && cloud !== 'none' && !/^mqtts?:\/\/[^:/\s]+:\d+$/.test(cloud)) {
      throw new UsageError(`--cloud: '${cloud}' is not a cloud (embedded: one started for the run, the default for apps that use the cloud; loopback: the simulator's model cloud; none: no network; mqtt://HOST:PORT: a broker; mqtts://HOST:PORT: a broker on TLS, for --target bsim)`);
    }
    o.cloud = cloud;
  }
  const secret = stringOption(args, 'cloud-secret');
  if (secret !== undefined) o.cloudSecret = secret;
  const ca = stringOption(args, 'cloud-ca');
  if (ca !== undefined) {
    if (!o.cloud?.startsWith('mqtts://')) throw new UsageError('--cloud-ca: only with --cloud mqtts://HOST:PORT');
    o.cloudCa = existingFile(ca);
  }
  return o;
}

/** Bytes of a heap size: a number, or a number of KB ('64k', '96KB'). */
export function parseHeap(text: string): number {
  const m = /^(\d+)\s*(k|kb|KB|K)?$/.exec(text);
  const bytes = m ? Number(m[1]) * (m[2] ? 1024 : 1) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 16384 || bytes > 524288) {
    throw new UsageError(`--heap: '${text}' is not a heap size from 16K to 512K (bytes, or KB as '64K')`);
  }
  return bytes;
}

/**
 * The package map each line of the simulator's stderr belongs to. Every package's script has the
 * same name, so with several apps a location is mapped with the package the line names: its
 * path (a package refused or failing at start), else its device ("[beacon error] k0: ..."). A
 * line that names neither is mapped with the one package there is, or left as it is.
 */
export interface StderrMaps {
  byPackage: Map<string, PackageMap>;
  byDevice: Map<string, PackageMap>;
}

/** The maps of the packages, and of each device's package ([name, package] pairs). */
export function stderrMaps(load: (pkg: string) => PackageMap | string, pkgs: Iterable<string>, devices: Array<[string, string]> = []): StderrMaps {
  const maps: StderrMaps = { byPackage: new Map(), byDevice: new Map() };
  for (const pkg of new Set(pkgs)) {
    const m = load(pkg);
    if (typeof m !== 'string') maps.byPackage.set(pkg, m);
  }
  for (const [name, pkg] of devices) {
    const m = maps.byPackage.get(pkg);
    if (m) maps.byDevice.set(name, m);
  }
  return maps;
}

function mapOfLine(line: string, maps: StderrMaps): PackageMap | undefined {
  const device = /^\[beacon \w+\] ([^:\s]+): /.exec(line);
  if (device) {
    const m = maps.byDevice.get(device[1]);
    if (m) return m;
  }
  for (const [pkg, m] of maps.byPackage) if (line.includes(pkg)) return m;
  return maps.byPackage.size === 1 ? maps.byPackage.values().next().value : undefined;
}

/**
 * The simulator's stderr, line by line, with error locations in the minified script shown in
 * the app's source. Lines are passed on as soon as they are complete.
 */
function mappedStderr(maps: StderrMaps, rewrite: (text: string, map: PackageMap) => string): (chunk: Buffer | null) => void {
  let pending = '';
  const emit = (text: string): void => {
    const lines = text.split(/(?<=\n)/);
    process.stderr.write(lines.map((line) => {
      const m = mapOfLine(line, maps);
      return m ? rewrite(line, m) : line;
    }).join(''));
  };
  return (chunk) => {
    if (chunk === null) {
      if (pending) emit(pending);
      pending = '';
      return;
    }
    pending += chunk.toString('utf8');
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    emit(pending.slice(0, end + 1));
    pending = pending.slice(end + 1);
  };
}

/**
 * Run the simulator with the terminal as its stdout, so output streams as it comes; its stderr
 * passes through mappedStderr. An interrupt from the terminal reaches the simulator (same
 * process group); this process waits for it to finish and then cleans up.
 */
function runSimulator(sim: string, args: string[], onStderr: (chunk: Buffer | null) => void, quiet = false, progress?: ProgressLine): Promise<number> {
  return new Promise((resolve, reject) => {
    // With a progress line, stdout comes through here too, so that the line is wiped first.
    const child = progress
      ? spawn(sim, ['--progress-fd', '3', ...args], { stdio: ['inherit', quiet ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
      : spawn(sim, args, { stdio: ['inherit', quiet ? 'ignore' : 'inherit', 'pipe'] });
    if (progress) {
      child.stdout?.on('data', (b: Buffer) => {
        progress.clear();
        process.stdout.write(b);
      });
    }
    child.stderr?.on('data', (b: Buffer) => {
      progress?.clear();
      onStderr(b);
    });
    (child.stdio[3] as NodeJS.ReadableStream | undefined)?.on('data', (b: Buffer) => progress?.feed(b));
    const ignore = (): void => {};
    const forward = (sig: NodeJS.Signals) => (): void => {
      child.kill(sig);
    };
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', ignore);
    process.on('SIGTERM', onTerm);
    const done = (): void => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', onTerm);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      done();
      if (err.code === 'ENOENT') {
        reject(new UsageError(`'${sim}' was not found on PATH${sim === 'qemu-system-arm' ? ' (apt-get install qemu-system-arm)' : ''}`, false));
      } else {
        reject(err);
      }
    });
    child.on('close', (code, signal) => {
      done();
      progress?.clear();
      onStderr(null);
      if (code !== null) resolve(code);
      else resolve(128 + (signal ? os.constants.signals[signal] ?? 0 : 0));
    });
  });
}

/** The package of each device: built from a source (once per source) or given as a package. */
interface AppInput {
  file: string;
}

/** Whether the simulator here can reach a real broker: it links libmosquitto when the host
 * build found it (CMakeLists.txt), which the build's cache records. */
function simHasMosquitto(simTool: string): boolean {
  try {
    const cache = fs.readFileSync(path.join(path.dirname(simTool), 'CMakeCache.txt'), 'utf8');
    return /^MOSQUITTO_FOUND:INTERNAL=1$/m.test(cache);
  } catch {
    return true; // a simulator built elsewhere: let it give its own refusal
  }
}

export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  // A scenario may come first among the files (`beacon run warehouse.world.json`): a scenario that
  // names its apps needs nothing else.
  const scenarios = args.positionals.filter((p) => p.endsWith('.json'));
  if (scenarios.length > 1 || (scenarios.length === 1 && stringOption(args, 'world') !== undefined)) {
    throw new UsageError(`one scenario per run (got ${[...scenarios, ...(stringOption(args, 'world') !== undefined ? [`--world ${stringOption(args, 'world')}`] : [])].join(', ')})`);
  }
  const inputs: AppInput[] = args.positionals.filter((p) => !p.endsWith('.json')).map((p) => {
    const file = existingFile(p);
    if (!isSource(file) && !file.endsWith('.bapp')) {
      throw new UsageError(`${p}: expected a .ts or .js source or a .bapp package`);
    }
    return { file };
  });
  const sim = simOptions(args);
  const cloudWanted = cloudChoice(args, sim);
  const targetText = stringOption(args, 'target') ?? 'sim';
  if (!(RUN_TARGETS as readonly string[]).includes(targetText)) {
    throw new UsageError(`--target: '${targetText}' is not one of ${RUN_TARGETS.join(', ')}`);
  }
  const target = targetText as RunTarget;
  const onBoard = ON_BOARD.includes(target);
  // --energy: the simulator's energy model, reported after the run (energyReport.ts).
  const energy = flagOption(args, 'energy');
  const energyJson = flagOption(args, 'json');
  if (energyJson && !energy) throw new UsageError('--json: with --energy (the report as JSON)');
  if (sim.memoryLimitMb !== undefined && target !== 'sim') throw new UsageError(`--memory-limit: the simulator's (--target sim)`);
  if (energy && target !== 'sim') throw new UsageError(`--energy: the simulator's energy model (--target sim); on ${target} the battery is the firmware's`);
  // --air radio (bsim): the whole scenario on BabbleSim's air, every device a firmware (an LTE
  // beacon as its two chips) and every scripted beacon a tag firmware; --air model, the default
  // for one device, keeps the scenario's air in the firmware's model.
  const airText = stringOption(args, 'air');
  if (airText !== undefined && airText !== 'model' && airText !== 'radio') throw new UsageError(`--air: '${airText}' is not model or radio`);
  if (airText === 'radio' && target !== 'bsim') throw new UsageError('--air radio: only the firmwares on BabbleSim share a radio air (--target bsim)');
  const airRadio = airText === 'radio';
  // --air-dump (bsim): BabbleSim's physical layer records every packet and every listen; the
  // files, and air.pcap made from them, stay in DIR (firmware/airDump.ts).
  const airDumpText = stringOption(args, 'air-dump');
  if (airDumpText !== undefined && target !== 'bsim') throw new UsageError('--air-dump: only BabbleSim records the air (--target bsim)');
  const airDump = airDumpText !== undefined ? path.resolve(airDumpText) : undefined;
  if (sim.cloud?.startsWith('mqtts://') && target !== 'bsim') {
    throw new UsageError(`--cloud mqtts://: TLS is the firmware's (--target bsim); ${target === 'sim' ? 'the simulator reaches a broker on plain mqtt:// (loopback)' : `the firmware on ${target} has no network`}`);
  }
  if (sim.cloud?.startsWith('mqtts://') && sim.cloudCa === undefined) throw new UsageError('--cloud mqtts://: give --cloud-ca, the PEM file of the CA that signs the broker\'s certificate');
  // The firmware on bsim reaches the host's network (the board's socket provider); the other
  // boards sync with the loopback cloud only.
  const networked = target === 'sim' || target === 'bsim';
  if (onBoard && target !== 'bsim' && sim.cloud?.startsWith('mqtt')) throw new UsageError(`--cloud ${sim.cloud}: the firmware on ${target} has no network; it syncs with the loopback cloud`);
  if (onBoard && target !== 'bsim') {
    if (cloudWanted.mode === 'embedded' || cloudWanted.db !== undefined || cloudWanted.port !== undefined) {
      throw new UsageError(`${cloudWanted.mode === 'embedded' ? '--cloud embedded' : cloudWanted.db !== undefined ? '--cloud-db' : '--cloud-port'}: the emulated image has no network to reach a cloud; it syncs with the loopback cloud`);
    }
    if (sim.realtime) throw new UsageError('--realtime: the emulated core runs in virtual time only');
    if (sim.trust !== undefined) throw new UsageError(target === 'qemu' ? '--trust: the emulated image cannot verify signatures (it has no ECDSA P-256)' : `--trust: the firmware on ${target} takes no trusted keys from a run yet (CONFIG_BEACON_TRUSTED_KEYS is a device's)`);
    if (target !== 'qemu' && sim.flash !== undefined) throw new UsageError(`--flash: the firmware on ${target} keeps its flash in the board`);
  }
  const apiGiven = stringOption(args, 'api') !== undefined;
  const apiVersion = apiOption(args);
  let engine = engineOption(args);
  const engineAsked = engine !== undefined;
  const worldFile = stringOption(args, 'world') ?? scenarios[0];
  // Only what this run needs is loaded: the scenario checks with a world, TypeScript with a source
  // to build (and only when the build cache has nothing current).
  const scenario = worldFile !== undefined ? await import('../world/scenario') : undefined;
  const compiler = await import('../compiler/light');

  let workDir: string | undefined;
  let runCloud: RunCloud | undefined;
  try {
    // The world: from the scenario, or one default device per app.
    let apps: string[];
    let script: string | undefined;
    let deviceNames: string[] | undefined;
    let cloudMessages: LoweredWorld['cloudMessages'] = [];
    let deployApps: LoweredWorld['deployApps'] = [];
    // Where the scenario names each of its apps (its first key): a build error says it.
    const appAt = new Map<string, string>();
    if (worldFile !== undefined) {
      const lowered = scenario!.lowerScenario(scenario!.loadScenario(existingFile(worldFile)), worldFile);
      script = lowered.script;
      deviceNames = lowered.devices.map((d) => d.name);
      cloudMessages = lowered.cloudMessages;
      deployApps = lowered.deployApps;
      if (sim.forMs === undefined && lowered.durationMs !== undefined) sim.forMs = lowered.durationMs;
      const n = lowered.devices.length;
      if (inputs.length === 0) {
        const missing = lowered.devices.findIndex((d) => d.app === undefined);
        if (missing >= 0) {
          throw new UsageError(`${worldFile}: devices[${missing}] ('${lowered.devices[missing].name}') has no app: give one there or on the command line`, false);
        }
        apps = lowered.devices.map((d) => existingFile(d.app!));
        lowered.devices.forEach((d, i) => {
          if (d.appAt !== undefined && !appAt.has(apps[i])) appAt.set(apps[i], d.appAt);
        });
      } else if (inputs.length === 1 || inputs.length === n) {
        apps = inputs.map((i) => i.file);
      } else {
        throw new UsageError(`${worldFile} has ${n} devices: give one app for all of them or one per device (got ${inputs.length})`, false);
      }
    } else {
      if (inputs.length === 0) throw new UsageError('missing app');
      apps = inputs.map((i) => i.file);
    }

    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-run-'));
    const packages = new Map<string, string>();
    // Whether any app uses the cloud API: only then does a run start a cloud of its own.
    let usesCloud = false;
    for (const app of apps) {
      if (packages.has(app)) continue;
      if (isSource(app)) {
        engine ??= compiler.DEFAULT_ENGINE;
        const pkg = path.join(workDir, `${packages.size}-${path.basename(app).replace(/\.[^.]+$/, '')}.bapp`);
        let r: Awaited<ReturnType<typeof compiler.compileApp>>;
        try {
          r = await compiler.compileApp({
            entry: app,
            apiVersion,
            engine,
            outFile: pkg,
            onNote: (line) => io.err(`beacon: ${line}\n`),
          });
        } catch (err) {
          const at = appAt.get(app);
          if (at === undefined || !(err instanceof Error) || err.name !== 'BuildError' || !scenario) throw err;
          // A fleet's app that does not build: its errors, then which key of the scenario names it.
          const failure = err as Error & { diagnostics: Parameters<typeof compiler.formatDiagnostic>[0][]; errorCount: number };
          printDiagnostics(io, failure.diagnostics, (d) => compiler.formatDiagnostic(d));
          const n = failure.errorCount;
          throw new scenario.ScenarioError(worldFile!, at, `${path.relative(process.cwd(), app)} does not build (${n} error${n === 1 ? '' : 's'}); nothing was run`);
        }
        printDiagnostics(io, r.warnings, (d) => compiler.formatDiagnostic(d));
        usesCloud ||= r.usesCloud;
        packages.set(app, pkg);
      } else {
        const bytes = fs.readFileSync(app);
        usesCloud ||= packageUsesCloud(bytes);
        const header = compiler.readPackageHeader(bytes);
        if (typeof header !== 'string') {
          if (apiGiven && header.apiVersion !== apiVersion) {
            throw new UsageError(`${path.relative(process.cwd(), app)} was built for API ${header.apiVersion}, not ${apiVersion}`, false);
          }
          // Asked for another engine, the simulator gives the refusal; packages of two
          // engines in one world cannot run at all.
          if (!engineAsked && engine !== undefined && header.engine !== engine) {
            throw new UsageError(`${path.relative(process.cwd(), app)} was built for ${header.engine}, and the other apps for ${engine}: one world runs one engine`, false);
          }
          // The simulator of the package's engine, unless another was asked for.
          engine ??= header.engine;
        }
        // A package the header reader cannot make sense of still goes to the simulator,
        // which gives the authoritative refusal.
        packages.set(app, app);
      }
    }
    engine ??= compiler.DEFAULT_ENGINE;
    if (deployApps.length > 0) {
      const { checkDeployTarget, deployPackages } = await import('./runDeploy');
      checkDeployTarget(worldFile!, target, sim.cloud, cloudWanted.mode === 'embedded');
      sim.deploy = await deployPackages(compiler, deployApps, { engine, apiVersion, workDir, worldFile: worldFile!, io });
    }
    // Several devices: on bsim each is a firmware of its own on one simulated air; the other
    // boards are one device.
    const severalDevices = (deviceNames?.length ?? 0) > 1 || new Set(apps).size > 1;
    if (onBoard && severalDevices && target !== 'bsim') {
      throw new UsageError(`--target ${target}: the emulated board is one device; run several devices on the simulator or on bsim`, false);
    }
    // The emulated image runs what the simulator would: same packages, world script and options.
    // It has no clock of the host's, so the UTC the simulator would take from it is passed.
    // A scenario's own utc stands, as on the simulator.
    if (onBoard && sim.utcMs === undefined && !/^utc /m.test(script ?? '')) sim.utcMs = Date.now();
    // The image's cloud is the loopback one, which it has without the option.
    if (onBoard && sim.cloud === 'loopback') delete sim.cloud;
    // The cloud of the run: its own for apps that use the cloud (or a scenario that sends them
    // messages), unless --cloud names one; the emulated images without a network keep the
    // loopback cloud.
    // A scenario's deployments keep the loopback cloud, which has them.
    const embeddedWanted = cloudWanted.mode === 'embedded' || (cloudWanted.mode === 'auto' && networked && deployApps.length === 0 && (usesCloud || cloudMessages.length > 0));
    const startEmbedded = async (tls: boolean): Promise<void> => {
      const names = deviceNames ?? apps.map((_, i) => `d${i}`);
      // Cloud code follows the trace (simulated time) and needs a fixed clock for enqueuedAt.
      if (cloudWanted.code !== undefined) {
        sim.trace ??= path.join(workDir!, 'trace.jsonl');
        if (sim.utcMs === undefined && !/^utc /m.test(script ?? '')) sim.utcMs = Date.UTC(2026, 0, 1);
      }
      runCloud = await startRunCloud({
        devices: names,
        db: cloudWanted.db,
        port: cloudWanted.port,
        workDir: workDir!,
        messages: cloudMessages,
        tls,
        code: cloudWanted.code,
        log: (line) => {
          if (sim.verbose || /^refused|^error|^warning/.test(line)) io.err(`cloud: ${line}\n`);
        },
      });
      sim.cloud = runCloud.mqttUrl;
      sim.cloudSecret = runCloud.secret;
      if (runCloud.ca !== undefined) sim.cloudCa = runCloud.ca;
      // The cloud has the scenario's messages; the loopback cloud does not run.
      if (script !== undefined) script = scenario!.withoutCloudMessages(script);
    };
    /** What the run's cloud stored, added to the trace and summed up on stderr. */
    const reportCloud = async (): Promise<void> => {
      if (runCloud === undefined) return;
      if (sim.trace !== undefined && fs.existsSync(sim.trace)) for (const line of await runCloud.mergeTrace(sim.trace)) io.out(line + '\n');
      for (const line of summaryLines(await runCloud.summary())) io.err(line + '\n');
    };
    if (target === 'bsim' || target === 'zephyr-qemu') {
      const fw = await import('../firmware/zephyr');
      const image = await fw.ensureZephyrImage(target, engine, { onNote: (line) => io.err(`beacon: ${line}\n`) });
      // The firmware on bsim syncs over TLS, as a device does, with the cloud's certificate.
      if (target === 'bsim' && embeddedWanted) await startEmbedded(true);
      const airDumpFiles = airDump !== undefined ? await import('../firmware/airDump') : undefined;
      airDumpFiles?.clearAirDump(airDump!);
      // What the firmware printed: its output as it is, its messages with the apps' locations.
      const report = (r: { status: number; stdout: string; stderr: string }, pkgs: string[]): number => {
        io.out(r.stdout);
        const stderr = mappedStderr(stderrMaps(compiler.loadPackageMap, pkgs), compiler.rewriteLocations);
        stderr(Buffer.from(r.stderr));
        stderr(null);
        return r.status;
      };
      if (severalDevices || airRadio) {
        if ((sim.deploy?.length ?? 0) > 0) {
          throw new UsageError(`${worldFile}: cloudDeploy: on bsim a scenario deploys to one device, on the model's air (several firmwares on one air sync with a real cloud: deploy with \`beacon cloud deploy\`)`, false);
        }
        // Without a scenario, one default device per app, as the simulator makes them.
        const names = deviceNames ?? apps.map((_, i) => `d${i}`);
        const worldScript = script ?? `beacon-world 1\n${names.map((n, i) => `device ${i} ${n} ble-beacon\n`).join('')}`;
        const { runBsimWorld, scriptProfiles, PAIR_PROFILE } = await import('../firmware/bsimWorld');
        const perDevice = names.map((_, i) => path.resolve(packages.get(apps[apps.length === 1 ? 0 : i])!));
        // On the radio air an LTE beacon is its two chips (src/firmware/zephyr.ts,
        // ensurePairImages); otherwise every device is one nrf52_bsim firmware.
        const pair = airRadio && scriptProfiles(worldScript).includes(PAIR_PROFILE)
          ? await fw.ensurePairImages(engine, { onNote: (line) => io.err(`beacon: ${line}\n`) })
          : undefined;
        const r = await runBsimWorld(image, {
          pair,
          tagsOnAir: airRadio,
          script: worldScript,
          packages: perDevice,
          // The firmwares leave BabbleSim's air together, at --for (60 s unless given).
          args: simArgs([], { ...sim, forMs: sim.forMs ?? 60_000, trace: undefined }),
          lengthMs: (sim.forMs ?? 60_000) + 1_000,
          trace: sim.trace,
          dumpDir: airDump,
        });
        const status = report(r, perDevice);
        if (airDumpFiles) io.err(`beacon: ${airDumpFiles.finishAirDump(airDump!, r.airDevices)}\n`);
        await reportCloud();
        return status;
      }
      if (script !== undefined) {
        sim.world = path.join(workDir, 'world.script');
        fs.writeFileSync(sim.world, script);
      }
      const pkgs = [...new Set(apps)].map((a) => path.resolve(packages.get(a)!));
      const r = await fw.runZephyrFirmware(target, image, simArgs(pkgs, sim), { forMs: sim.forMs, dumpDir: airDump });
      const status = report(r, pkgs);
      // One firmware: BabbleSim's device 0 (on the model's air its radio carries only the upload
      // service's advertising; the app's packets stay in the model).
      if (airDumpFiles) io.err(`beacon: ${airDumpFiles.finishAirDump(airDump!, [deviceNames?.[0] ?? 'd0'])}\n`);
      await reportCloud();
      return status;
    }
    const [simTool] = target === 'qemu'
      ? [await (await import('../compiler/qemuImage')).ensureQemuImage(engine, {
          onNote: (line) => io.err(`beacon: ${line}\n`),
        })]
      : await compiler.ensureHostTools(['beacon-sim'], engine, {
          onNote: (line) => io.err(`beacon: ${line}\n`),
        });
    let embedded = embeddedWanted && target === 'sim';
    if (embedded && !simHasMosquitto(simTool)) {
      if (cloudWanted.mode === 'embedded') {
        throw new UsageError('--cloud embedded: this simulator was built without libmosquitto (apt-get install libmosquitto-dev, then build again)', false);
      }
      io.err('beacon run: this simulator was built without libmosquitto, so the devices sync with the loopback cloud (apt-get install libmosquitto-dev, then build again)\n');
      embedded = false;
    }
    if (embedded) await startEmbedded(false);
    if (!embedded && cloudWanted.mode === 'auto' && (cloudWanted.db ?? cloudWanted.port ?? cloudWanted.code) !== undefined && target === 'sim' && !usesCloud) {
      io.err('beacon run: no app uses the cloud, so no cloud was started (--cloud embedded starts one all the same)\n');
    }
    if (script !== undefined) {
      sim.world = path.join(workDir, 'world.script');
      fs.writeFileSync(sim.world, script);
    }
    // A package without its map (copied alone) runs all the same, with unmapped locations.
    const maps = stderrMaps(compiler.loadPackageMap, packages.values(), apps.map((app, i) => [deviceNames?.[i] ?? `d${i}`, packages.get(app)!]));
    const stderr = mappedStderr(maps, compiler.rewriteLocations);
    // One app for a world of several devices goes to all of them; without a world, each app
    // named is a device of its own, the same app named twice included.
    const distinct = new Set(apps).size;
    const pkgArgs = script !== undefined && distinct === 1 ? [packages.get(apps[0])!] : apps.map((a) => packages.get(a)!);
    if (target === 'qemu') {
      const { qemuArgs } = await import('../compiler/qemuImage');
      return await runSimulator('qemu-system-arm', qemuArgs(simTool, simArgs(pkgArgs.map((p) => path.resolve(p)), sim)), stderr);
    }
    if (energy) sim.energy = path.join(workDir, 'energy.jsonl');
    // In a terminal a long run shows how far it is (stdout may be a terminal too: the line is
    // wiped before each message on stderr, and stdout's lines come between updates).
    const progress = process.stderr.isTTY ? new ProgressLine(process.stderr) : undefined;
    const status = await runSimulator(simTool, simArgs(pkgArgs, sim), stderr, energyJson, progress);
    await reportCloud();
    if (energy) {
      const { readEnergy, formatEnergy } = await import('./energyReport');
      const report = readEnergy(sim.energy!);
      if (energyJson) io.out(JSON.stringify({ devices: report }) + '\n');
      else for (const line of formatEnergy(report)) io.err(line + '\n');
    }
    return status;
  } catch (err) {
    if (scenario && err instanceof scenario.ScenarioError) {
      io.err(`beacon run: ${err.message}\n`);
      return 1;
    }
    return reportFailure(io, 'run', err);
  } finally {
    await runCloud?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

// The firmware built by Zephyr (scripts/firmware.sh) on the two boards CI runs it on, and how an
// app runs there: nrf52_bsim (the nRF52 simulated for BabbleSim: the firmware is a process of the
// host, its radio on BabbleSim's simulated air) and mps2/an521 (Cortex-M33 under QEMU). On both,
// the firmware's test configuration gives the device the simulated world's models of a beacon's
// parts (CONFIG_BEACON_SIMULATED_WORLD), so a run prints what `beacon run` prints on the host.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Engine, HostToolsError, repoRoot, runCaptured, withBuildLock } from '../compiler/hostTools';
import { workspace, WorkspacePart, workspaceMissing } from './workspace';

export type ZephyrTarget = 'bsim' | 'zephyr-qemu';
export const ZEPHYR_TARGETS: readonly ZephyrTarget[] = ['bsim', 'zephyr-qemu'];
export const ZEPHYR_BOARD: Record<ZephyrTarget, string> = { bsim: 'nrf52_bsim', 'zephyr-qemu': 'mps2/an521/cpu0' };

/** The environment of the workspace (scripts/lib/workspace.sh's rules: ZEPHYR_BASE and the like
 * when set, else the west workspace around the repository, else ~/zephyrproject), with the parts
 * a board and engine need checked: a missing one is a HostToolsError with the line that says what
 * is missing, where it was looked for and how to get it. */
export function zephyrEnv(parts: WorkspacePart[] = ['zephyr']): Record<string, string> {
  const why = workspaceMissing(...parts);
  if (why) throw new HostToolsError(why);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...workspace().env };
}

/** The parts a board's image needs: Zephyr; JerryScript for a JerryScript image; BabbleSim on
 * nrf52_bsim. */
export function partsFor(board: string, engine?: Engine): WorkspacePart[] {
  return ['zephyr', ...(engine === 'jerryscript' ? ['jerryscript' as const] : []), ...(board.includes('_bsim') ? ['bsim' as const] : [])];
}

/** Where scripts/firmware.sh builds a board's image for an engine. */
export function zephyrBuildDir(target: ZephyrTarget, engine: Engine): string {
  const board = ZEPHYR_BOARD[target].replace(/[/@]/g, '_');
  return path.join(repoRoot(), 'build', 'zephyr', `${board}-${engine}`);
}

/** The built image: the bsim device's executable or the QEMU board's ELF. */
export function zephyrImagePath(target: ZephyrTarget, engine: Engine): string {
  return path.join(zephyrBuildDir(target, engine), 'zephyr', target === 'bsim' ? 'zephyr.exe' : 'zephyr.elf');
}

const ensured = new Set<string>();

/** Build the image (once per process; ninja makes a rebuild of an unchanged tree cheap). */
export async function ensureZephyrImage(target: ZephyrTarget, engine: Engine, opts: { onNote?: (line: string) => void } = {}): Promise<string> {
  return ensureBuilt(zephyrBuildDir(target, engine), zephyrImagePath(target, engine), ZEPHYR_BOARD[target], ['--engine', engine], opts);
}

/** The rig's phone (tests/rig-bsim): the central firmware that uploads to and scans a beacon on
 * BabbleSim's air. */
export async function ensureRigImage(opts: { onNote?: (line: string) => void } = {}): Promise<string> {
  const dir = path.join(repoRoot(), 'build', 'zephyr', 'nrf52_bsim-rig-bsim');
  return ensureBuilt(dir, path.join(dir, 'zephyr', 'zephyr.exe'), 'nrf52_bsim', ['--app-dir', path.join(repoRoot(), 'tests', 'rig-bsim')], opts);
}

/** The LTE beacon's two chips on BabbleSim (scripts/firmware.sh nrf52_bsim --hci-uart and
 * --controller): the beacon firmware with Bluetooth over H:4 on uart1, and the chip that runs the
 * workspace's HCI UART controller on the air, joined by src/port/zephyr/runner/uart_link_runner.c. */
export interface PairImages {
  host: string;
  controller: string;
}

export async function ensurePairImages(engine: Engine, opts: { onNote?: (line: string) => void } = {}): Promise<PairImages> {
  const zephyrDir = path.join(repoRoot(), 'build', 'zephyr');
  const hostDir = path.join(zephyrDir, `nrf52_bsim-${engine}-hci-uart`);
  const controllerDir = path.join(zephyrDir, 'nrf52_bsim-hci-controller');
  const host = await ensureBuilt(hostDir, path.join(hostDir, 'zephyr', 'zephyr.exe'), 'nrf52_bsim', ['--engine', engine, '--hci-uart'], opts);
  const controller = await ensureBuilt(controllerDir, path.join(controllerDir, 'zephyr', 'zephyr.exe'), 'nrf52_bsim', ['--controller'], opts);
  return { host, controller };
}

async function ensureBuilt(dir: string, image: string, board: string, extra: string[], opts: { onNote?: (line: string) => void }): Promise<string> {
  if (ensured.has(dir)) return image;
  const engine = extra[0] === '--engine' ? (extra[1] as Engine) : undefined;
  const env = zephyrEnv(partsFor(board, engine));
  await withBuildLock(dir, async () => {
    if (!fs.existsSync(image)) opts.onNote?.(`building the firmware for ${board} in ${dir}`);
    const r = await runWithEnv('bash', [path.join(repoRoot(), 'scripts', 'firmware.sh'), board, ...extra, '--build-dir', dir], env);
    if (r.code !== 0) throw new HostToolsError(`building the firmware for ${board} failed`, r.output);
  });
  ensured.add(dir);
  return image;
}

function runWithEnv(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stderr.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/**
 * qemu-system-arm's arguments for the an521 image with the firmware's run options. -icount
 * shift=0 makes virtual time one nanosecond per instruction (runs are deterministic and the
 * firmware counts instructions from its cycle counter); sleep=off lets the idle kernel jump to its
 * next timer instead of waiting in real time, so a day of device time takes seconds.
 */
export function zephyrQemuArgs(elf: string, imageArgs: string[]): string[] {
  const semihosting = ['enable=on', 'target=native', 'arg=beacon', ...imageArgs.map((a) => {
    if (/\s/.test(a)) throw new HostToolsError(`'${a}': the firmware's arguments cannot hold spaces`);
    return `arg=${a.replace(/,/g, ',,')}`;
  })].join(',');
  return [
    '-machine', 'mps2-an521', '-cpu', 'cortex-m33', '-nographic', '-monitor', 'none', '-serial', 'null',
    '-icount', 'shift=0,align=off,sleep=off', '-semihosting-config', semihosting, '-kernel', elf,
  ];
}

export interface FirmwareRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the firmware once with the given run options (world_main_zephyr.c's; paths absolute) and
 * collect what it printed. On bsim the device runs beside BabbleSim's 2.4 GHz physical layer,
 * which ends with it; its output goes to files (the process's own stdout carries the simulator's
 * traces).
 */
/** Whether an exit status is the firmware's own: beacon-sim's (0, 1, 2), 70 for a fatal error, 75
 * for a power cut it was asked to make (world_zephyr.h). Anything else is the simulator's or the
 * emulator's own failure, whose message goes along with the firmware's output. */
export function firmwareStatus(code: number): boolean {
  return [0, 1, 2, 70, 75].includes(code);
}

export async function runZephyrFirmware(
  target: ZephyrTarget,
  image: string,
  imageArgs: string[],
  // dumpDir (bsim): keep BabbleSim's dumps of the air there (runBsim), for --air-dump.
  opts: { forMs?: number; flashFile?: string; dumpDir?: string } = {},
): Promise<FirmwareRun> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-firmware-'));
  try {
    const out = path.join(work, 'stdout');
    const err = path.join(work, 'stderr');
    const args = ['--stdout', out, '--stderr', err, ...imageArgs];
    let child: ChildResult;
    if (target === 'zephyr-qemu') {
      child = await runChild('qemu-system-arm', zephyrQemuArgs(image, args), {});
    } else {
      // The physical layer ends when its device does; its own limit is only a backstop. (Device
      // time is the world's; the kernel's runs ahead of it while the nRF52's flash erases and
      // writes, 85 ms a page: a run that rewrites its storage spends minutes of simulated time.)
      [child] = await runBsim([{ image, args, flashFile: opts.flashFile }], 100 * 24 * 3600 * 1000, { dumpDir: opts.dumpDir });
    }
    const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    return { status: child.code, stdout: read(out), stderr: read(err) + (firmwareStatus(child.code) ? '' : child.stderr) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export interface ChildResult {
  code: number;
  stderr: string;
}

/** One nrf52_bsim device of a simulation: its executable and its run options (-beacon_args). */
export interface BsimDevice {
  image: string;
  args: string[];
  /** The board's flash in this file (the NVMC model maps it), kept across runs. */
  flashFile?: string;
  /** Off the air (-nosim): the LTE beacon's host chip, whose radio is unused; its clock is kept
   * in step by its link to the controller chip instead. */
  offAir?: boolean;
  /** The board's own options besides -beacon_args (the link's FIFOs). */
  boardArgs?: string[];
}

/**
 * Run nrf52_bsim devices on one simulated air: BabbleSim's 2.4 GHz physical layer and every
 * device, the i-th on the air as -d=i (and the attenuations' index i). The simulation ends when the devices have left, or after lengthMs of
 * simulated time (when it ends, BabbleSim ends every device still in it). Resolves with each
 * device's exit status and stderr.
 */
/** What a BabbleSim run keeps besides the devices' output. */
export interface BsimRunOptions {
  /** Where the physical layer's dumps of every packet on the air go (Tx/Rx CSV per device);
   * without it the phy dumps nothing, which keeps a run from leaving files behind. */
  dumpDir?: string;
  /** Path loss between the devices, dB, [transmitter][receiver]: the air is then BabbleSim's
   * `multiatt` channel with these attenuations and the `BLE_simple` modem (which drops packets
   * that arrive too weak or among interference); without it, the `NtNcable` channel and the
   * `Magic` modem (every packet arrives, 60 dB down). */
  attenuations?: number[][];
}

export async function runBsim(devices: BsimDevice[], lengthMs: number, options: BsimRunOptions = {}): Promise<ChildResult[]> {
  const env = zephyrEnv(['zephyr', 'bsim']);
  const bin = path.join(env.BSIM_OUT_PATH, 'bin');
  const phy = path.join(bin, 'bs_2G4_phy_v1');
  const id = `beacon${process.pid}x${Math.floor(Math.random() * 1e9)}`;
  // The phy writes its dumps under $BSIM_OUT_PATH/results/<simulation id>; they are moved out or
  // removed after the run so that repeated runs do not fill the workspace.
  const results = path.join(env.BSIM_OUT_PATH ?? '', 'results', id);
  const dump = options.dumpDir !== undefined ? ['-dump'] : ['-nodump'];
  const channel: string[] = [];
  let attFile: string | undefined;
  if (options.attenuations !== undefined) {
    attFile = path.join(os.tmpdir(), `${id}.att`);
    const lines: string[] = [];
    options.attenuations.forEach((row, tx) => row.forEach((att, rx) => {
      if (tx !== rx) lines.push(`${tx} ${rx} : ${att.toFixed(2)}`);
    }));
    fs.writeFileSync(attFile, `${lines.join('\n')}\n`);
    // Devices beyond the matrix (a rig's scanner) are 60 dB from everyone, as on NtNcable.
    channel.push('-channel=multiatt', '-defmodem=BLE_simple', '-argschannel', '-at=60', `-file=${attFile}`, '-argsmain');
  }
  const onAir = devices.filter((d) => !d.offAir).length;
  const phyDone = runChild(phy, [`-s=${id}`, `-D=${onAir}`, `-sim_length=${Math.round(lengthMs * 1000)}`, ...dump, ...channel], { cwd: bin, env });
  // The devices on the air are the phy's 0 to onAir - 1, in order; the others are numbered after.
  let air = 0;
  let off = onAir;
  const runs = devices.map((d) => {
    const flash = d.flashFile !== undefined ? [`-flash=${path.resolve(d.flashFile)}`] : [];
    const where = d.offAir ? [`-d=${off++}`, '-nosim'] : [`-d=${air++}`];
    const args = d.args.length > 0 ? [`-beacon_args=${d.args.join(' ')}`] : [];
    return runChild(d.image, [`-s=${id}`, ...where, ...flash, ...(d.boardArgs ?? []), ...args], { cwd: bin, env });
  });
  try {
    const out = await Promise.all(runs);
    await phyDone;
    if (options.dumpDir !== undefined && fs.existsSync(results)) {
      fs.mkdirSync(options.dumpDir, { recursive: true });
      for (const f of fs.readdirSync(results)) fs.copyFileSync(path.join(results, f), path.join(options.dumpDir, f));
    }
    return out;
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
    if (attFile !== undefined) fs.rmSync(attFile, { force: true });
  }
}

function runChild(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string> }): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: opts.cwd, env: opts.env });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
    });
    child.on('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new HostToolsError(`'${cmd}' was not found on PATH`) : e));
    child.on('close', (code, signal) => {
      resolve({ code: code ?? 128 + (signal ? os.constants.signals[signal] ?? 0 : 0), stderr });
    });
  });
}

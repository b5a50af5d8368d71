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

export type ZephyrTarget = 'bsim' | 'zephyr-qemu';
export const ZEPHYR_TARGETS: readonly ZephyrTarget[] = ['bsim', 'zephyr-qemu'];
export const ZEPHYR_BOARD: Record<ZephyrTarget, string> = { bsim: 'nrf52_bsim', 'zephyr-qemu': 'mps2/an521/cpu0' };

/** The environment of the Zephyr workspace: the caller's (ZEPHYR_BASE set), or the offline
 * workspace beside the repository, which its setup script lays out and describes. */
let workspaceEnv: Record<string, string> | undefined;
export async function zephyrEnv(): Promise<Record<string, string>> {
  if (workspaceEnv !== undefined) return workspaceEnv;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  if (!env.ZEPHYR_BASE) {
    const setup = path.join(repoRoot(), '..', 'shared', 'zephyr', 'setup.sh');
    if (!fs.existsSync(setup)) {
      throw new HostToolsError('the firmware needs a Zephyr 3.7 workspace: set ZEPHYR_BASE (west init -l . && west update)');
    }
    const r = await runCaptured('bash', ['-c', `bash '${setup}' 2>/dev/null`]);
    if (r.code !== 0) throw new HostToolsError(`setting up the Zephyr workspace failed (${setup})`, r.output);
    for (const line of r.output.split('\n')) {
      const m = /^export (\w+)=(.*)$/.exec(line);
      if (m) env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
    }
  }
  workspaceEnv = env;
  return env;
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
  const dir = zephyrBuildDir(target, engine);
  const image = zephyrImagePath(target, engine);
  if (ensured.has(dir)) return image;
  const env = await zephyrEnv();
  await withBuildLock(dir, async () => {
    if (!fs.existsSync(image)) opts.onNote?.(`building the firmware for ${ZEPHYR_BOARD[target]} (${engine}) in ${dir}`);
    const r = await runWithEnv('bash', [path.join(repoRoot(), 'scripts', 'firmware.sh'), ZEPHYR_BOARD[target], '--engine', engine, '--build-dir', dir], env);
    if (r.code !== 0) throw new HostToolsError(`building the firmware for ${ZEPHYR_BOARD[target]} failed`, r.output);
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
export async function runZephyrFirmware(
  target: ZephyrTarget,
  image: string,
  imageArgs: string[],
  opts: { forMs?: number; flashFile?: string } = {},
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
      const env = await zephyrEnv();
      const bin = path.join(env.BSIM_OUT_PATH ?? '', 'bin');
      const phy = path.join(bin, 'bs_2G4_phy_v1');
      if (!fs.existsSync(phy)) throw new HostToolsError(`BabbleSim's physical layer is not built (${phy}): run ../shared/zephyr/setup.sh`);
      const id = `beacon${process.pid}x${Math.floor(Math.random() * 1e9)}`;
      // The physical layer ends when its device does; its own limit is only a backstop. (Device
      // time is the world's; the kernel's runs ahead of it while the nRF52's flash erases and
      // writes, 85 ms a page: a run that rewrites its storage spends minutes of simulated time.)
      const lengthUs = 100 * 24 * 3600 * 1e6;
      const phyDone = runChild(phy, [`-s=${id}`, '-D=1', `-sim_length=${lengthUs}`], { cwd: bin, env });
      // The board's flash in a file (the NVMC model maps it): the app store and the storage
      // outlive the run. Otherwise it is in RAM and erased at each start.
      const flash = opts.flashFile !== undefined ? [`-flash=${path.resolve(opts.flashFile)}`] : [];
      child = await runChild(image, [`-s=${id}`, '-d=0', ...flash, `-beacon_args=${args.join(' ')}`], { cwd: bin, env });
      await phyDone;
    }
    const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    // The firmware's exit statuses are beacon-sim's (0, 1, 2; 70 for a fatal error; 75 for a
    // power cut it was asked to make: world_zephyr.h). Anything
    // else is the simulator's or the emulator's own failure: its message goes along.
    const own = [0, 1, 2, 70, 75].includes(child.code);
    return { status: child.code, stdout: read(out), stderr: read(err) + (own ? '' : child.stderr) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

interface ChildResult {
  code: number;
  stderr: string;
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

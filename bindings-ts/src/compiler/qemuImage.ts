// The bare-metal firmware image for QEMU's emulated Cortex-M4F (src/port/qemu): built on demand
// with the Arm cross toolchain, and the qemu-system-arm command line that runs it with an app.
import * as fs from 'fs';
import * as path from 'path';
import { Engine, HostToolsError, repoRoot, runCaptured, withBuildLock } from './hostTools';
import { jerryscriptDir, workspaceMissing } from '../firmware/workspace';

/** The board the image is built for: the nRF52840's core, a Cortex-M4F, which no QEMU board of
 * Zephyr 3.7 has. (The nRF9160's Cortex-M33 runs the Zephyr firmware itself, on mps2/an521:
 * `beacon run --target zephyr-qemu`.) */
export const QEMU_BOARD = 'mps2-an386';
const QEMU_CPU = 'cortex-m4';

/** Build directory of the image for an engine (BEACON_QEMU_BUILD overrides its root). */
export function qemuBuildDir(engine: Engine): string {
  const root = process.env.BEACON_QEMU_BUILD ? path.resolve(process.env.BEACON_QEMU_BUILD) : path.join(repoRoot(), 'build');
  return path.join(root, `qemu-${engine}`);
}

const ensured = new Set<string>();

/** Configure (once) and build the image; returns the ELF's path. */
export async function ensureQemuImage(
  engine: Engine,
  opts: { onNote?: (line: string) => void } = {},
): Promise<string> {
  const root = repoRoot();
  const buildDir = qemuBuildDir(engine);
  const elf = path.join(buildDir, 'beacon-qemu.elf');
  if (ensured.has(buildDir)) return elf;
  await withBuildLock(buildDir, async () => {
    const generated = ['Makefile', 'build.ninja'].some((f) => fs.existsSync(path.join(buildDir, f)));
    if (!generated) {
      const args = [
        '-S', path.join(root, 'src/port/qemu'), '-B', buildDir,
        `-DCMAKE_TOOLCHAIN_FILE=${path.join(root, 'src/port/qemu/toolchain-arm.cmake')}`,
        `-DBEACON_ENGINE=${engine}`,
      ];
      if (engine === 'jerryscript') {
        const jerry = jerryscriptDir();
        if (!jerry) throw new HostToolsError(`the JerryScript image cannot be built: ${workspaceMissing('jerryscript')}`);
        args.push(`-DJERRYSCRIPT_DIR=${jerry}`);
      }
      opts.onNote?.(`configuring the ${engine} image for ${QEMU_BOARD} in ${buildDir}`);
      const r = await runCaptured('cmake', args);
      if (r.code !== 0) throw new HostToolsError(`configuring the QEMU image failed (cmake ${args.join(' ')})`, r.output);
    }
    const r = await runCaptured('cmake', ['--build', buildDir, '-j2']);
    if (r.code !== 0) throw new HostToolsError(`building the QEMU image in ${buildDir} failed`, r.output);
  });
  if (!fs.existsSync(elf)) throw new HostToolsError(`the QEMU build finished but ${elf} is missing`);
  ensured.add(buildDir);
  return elf;
}

/**
 * qemu-system-arm's arguments to run the image with the given beacon-qemu arguments (paths must
 * be absolute: the image opens them on the host over semihosting). -icount shift=0 makes virtual
 * time one nanosecond per instruction, so runs are deterministic and SysTick counts instructions.
 * serial 'pty' connects UART0 to a new pseudo-terminal, which QEMU names on its stdout
 * ("char device redirected to /dev/pts/N (label serial0)"): the image's SMP server
 * (beacon-qemu --listen) is there.
 */
export function qemuArgs(
  elf: string,
  imageArgs: string[],
  opts: { serial?: 'none' | 'pty' } = {},
): string[] {
  // In QEMU's option syntax a comma inside a value is written twice.
  const semihosting = ['enable=on', 'target=native', 'arg=beacon-qemu', ...imageArgs.map((a) => {
    if (/\s/.test(a)) throw new HostToolsError(`'${a}': the emulated image's arguments cannot hold spaces`);
    return `arg=${a.replace(/,/g, ',,')}`;
  })].join(',');
  return [
    '-machine', QEMU_BOARD, '-cpu', QEMU_CPU, '-nographic', '-monitor', 'none', '-serial', opts.serial ?? 'none',
    '-icount', 'shift=0', '-semihosting-config', semihosting, '-kernel', elf,
  ];
}

/** The pseudo-terminal QEMU says it connected UART0 to, from one line of its stdout. */
export function qemuPtyOf(line: string): string | undefined {
  return /^char device redirected to (\S+) \(label serial0\)/.exec(line)?.[1];
}

// The firmware image as a long-lived device on QEMU's emulated core, taking apps over SMP on its
// UART (beacon-qemu --listen, src/port/qemu/qemu_listen.h), for tests and `beacon sim --listen
// --target qemu`: the image's own SMP server and serial framing behind a pseudo-terminal.
import { ChildProcess, spawn } from 'child_process';
import * as readline from 'readline';
import { Engine } from '../compiler/hostTools';
import { ensureQemuImage, qemuArgs, qemuPtyOf } from '../compiler/qemuImage';
import { ConsoleLines } from './console';
import { ListenDevice, processControls } from './listen';

export interface StartQemuListenOptions {
  engine: Engine;
  /** A package (.bapp, absolute path) flashed into the app slot and started. */
  pkg?: string;
  /** UTC the device clock starts at (default: now). */
  utcMs?: number;
  /** A trace file (absolute path), flushed record by record. */
  trace?: string;
  /** Lines of QEMU's stdout before "ready" (its pseudo-terminal) and the console after it. */
  onLine?: (line: string) => void;
  /** What the image writes on stderr (installs, refusals), as it comes. */
  onStderr?: (text: string) => void;
  /** QEMU ended. */
  onExit?: () => void;
}

/** Image arguments of a listening device. */
export function qemuListenImageArgs(o: StartQemuListenOptions): string[] {
  const args = ['--listen', '--utc', String(o.utcMs ?? Date.now())];
  if (o.trace !== undefined) args.push('--trace', o.trace);
  if (o.pkg !== undefined) args.push(o.pkg);
  return args;
}

export async function startQemuListen(o: StartQemuListenOptions): Promise<ListenDevice> {
  const elf = await ensureQemuImage(o.engine);
  const proc: ChildProcess = spawn('qemu-system-arm', qemuArgs(elf, qemuListenImageArgs(o), { serial: 'pty' }), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
    o.onStderr?.(b.toString());
  });
  const consoleLines = new ConsoleLines();
  const lines = readline.createInterface({ input: proc.stdout! });
  let pty: string | undefined;
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      o.onLine?.(line);
      if (ready) {
        consoleLines.push(line);
        return;
      }
      pty ??= qemuPtyOf(line);
      if (line === 'ready') {
        ready = true;
        if (pty === undefined) reject(new Error(`qemu-system-arm named no pseudo-terminal: ${err.trim()}`));
        else resolve();
      }
    });
    proc.on('exit', (code, signal) => {
      o.onExit?.();
      consoleLines.close(`qemu-system-arm ended (${signal ?? `status ${code}`})`);
      if (!ready) reject(new Error(`the image did not start listening (${signal ?? `status ${code}`}): ${err.trim()}`));
    });
    proc.on('error', reject);
  });
  return {
    pty,
    console: consoleLines,
    stderr: () => err,
    command: () => {
      throw new Error('the emulated device has no control channel');
    },
    ...processControls(proc),
  };
}

// A `beacon-sim --listen` device started by a test or a tool: its SMP addresses, its console and
// its control channel (src/port/host/sim_listen.h).
import { ChildProcess, spawn } from 'child_process';
import * as readline from 'readline';
import { listenArgs, ListenOptions } from '../cli/sim';
import { DEFAULT_ENGINE, Engine, ensureHostTools } from '../compiler/hostTools';
import { ConsoleLines } from './console';

export interface StartListenOptions extends ListenOptions {
  engine?: Engine;
  /** A package (.bapp) to start with. */
  pkg?: string;
}

export interface ListenDevice {
  /** UDP port on 127.0.0.1, when UDP is served. */
  readonly udpPort?: number;
  /** The pseudo-terminal, when one is served. */
  readonly pty?: string;
  /** The app's print() lines. */
  readonly console: ConsoleLines;
  /** What the simulator wrote on stderr so far (installs, refusals, errors). */
  stderr(): string;
  /** A control command (needs control: true). */
  command(line: string): void;
  /** End the device (it saves its flash) and wait for it. */
  stop(): Promise<void>;
  /** End it at once (cleanup after a failure). */
  kill(): void;
}

export async function startListen(o: StartListenOptions = {}): Promise<ListenDevice> {
  const [tool] = await ensureHostTools(['beacon-sim'], o.engine ?? DEFAULT_ENGINE);
  // stdin is a pipe either way: with --control the device ends when this process goes away.
  const proc: ChildProcess = spawn(tool, listenArgs(o, o.pkg), { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const consoleLines = new ConsoleLines();
  const lines = readline.createInterface({ input: proc.stdout! });
  let udpPort: number | undefined;
  let pty: string | undefined;
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (ready) {
        consoleLines.push(line);
        return;
      }
      if (line.startsWith('udp: ')) udpPort = Number(line.slice(line.lastIndexOf(':') + 1));
      else if (line.startsWith('pty: ')) pty = line.slice(5);
      else if (line === 'ready') {
        ready = true;
        resolve();
      }
    });
    proc.on('exit', (code) => {
      consoleLines.close(`the simulator ended with status ${code}`);
      if (!ready) reject(new Error(`beacon-sim --listen did not start (status ${code}): ${err.trim()}`));
    });
    proc.on('error', reject);
  });
  return {
    udpPort,
    pty,
    console: consoleLines,
    stderr: () => err,
    command: (line) => {
      proc.stdin!.write(line + '\n');
    },
    ...processControls(proc),
  };
}

/** stop (SIGTERM, resolved at exit) and kill (SIGKILL) of a listening device's process. */
export function processControls(proc: ChildProcess): Pick<ListenDevice, 'stop' | 'kill'> {
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
}

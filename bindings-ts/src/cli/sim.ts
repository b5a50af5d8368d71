// `beacon sim --listen [app.ts|app.js|app.bapp] [--port N] [--no-udp] [--no-pty] [--baud N]
//  [--flash DIR] [--trust key.pub]... [--trace FILE] [--heap N] [--utc T] [--virtual] [--control]
//  [--api V] [--engine E]`
//
// A long-lived simulated device that takes apps over SMP (beacon-sim --listen, see
// src/port/host/sim_listen.h). This command builds the app given, if any, builds the simulator
// of the engine and hands the terminal to it: the addresses and "ready", then the console.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { flagOption, listOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { parseUtc } from './interval';
import { CliIo } from './io';
import { parseHeap } from './run';

export interface ListenOptions {
  /** UDP port on 127.0.0.1 (default 1337; 0: any free one); false: no UDP. */
  port?: number | false;
  /** false: no pseudo-terminal. */
  pty?: boolean;
  /** Simulated serial line rate on the pseudo-terminal, baud. */
  baud?: number;
  flash?: string;
  trust?: string[];
  trace?: string;
  heap?: number;
  utcMs?: number;
  /** Device time stands still until the control channel advances it. */
  virtual?: boolean;
  /** Commands on stdin (input, advance, sync, quit); the device ends at EOF. */
  control?: boolean;
}

/** Arguments of `beacon-sim --listen`. */
export function listenArgs(o: ListenOptions, pkg?: string): string[] {
  const args = ['--listen'];
  if (o.port === false) args.push('--no-udp');
  else if (o.port !== undefined) args.push('--udp-port', String(o.port));
  if (o.pty === false) args.push('--no-pty');
  if (o.baud !== undefined) args.push('--baud', String(o.baud));
  if (o.flash !== undefined) args.push('--flash', o.flash);
  for (const k of o.trust ?? []) args.push('--trust', k);
  if (o.trace !== undefined) args.push('--trace', o.trace);
  if (o.heap !== undefined) args.push('--heap', String(o.heap));
  if (o.utcMs !== undefined) args.push('--utc', String(o.utcMs));
  if (o.virtual) args.push('--virtual');
  if (o.control) args.push('--control');
  if (pkg !== undefined) args.push(pkg);
  return args;
}

function wholeNumber(option: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${option} takes a whole number from ${min} to ${max}, not '${text}'`);
  }
  return Number(text);
}

export async function simCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (!flagOption(args, 'listen')) {
    throw new UsageError("beacon sim serves a device over SMP: give --listen (to run an app to its end, use 'beacon run')");
  }
  const o: ListenOptions = {};
  const port = wholeNumber('--port', stringOption(args, 'port'), 0, 65535);
  if (flagOption(args, 'no-udp')) o.port = false;
  else if (port !== undefined) o.port = port;
  if (flagOption(args, 'no-pty')) o.pty = false;
  if (o.port === false && o.pty === false) throw new UsageError('--no-udp and --no-pty leave nothing to serve');
  const baud = wholeNumber('--baud', stringOption(args, 'baud'), 300, 10_000_000);
  if (baud !== undefined) o.baud = baud;
  const flash = stringOption(args, 'flash');
  if (flash !== undefined) o.flash = path.resolve(flash);
  const trust = listOption(args, 'trust').map((k) => existingFile(k));
  if (trust.length > 0) o.trust = trust;
  const trace = stringOption(args, 'trace');
  if (trace !== undefined) o.trace = path.resolve(trace);
  const heap = stringOption(args, 'heap');
  if (heap !== undefined) o.heap = parseHeap(heap);
  const utc = stringOption(args, 'utc');
  if (utc !== undefined) {
    try {
      o.utcMs = parseUtc(utc);
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--utc: ${err.message}`);
      throw err;
    }
  }
  if (flagOption(args, 'virtual')) o.virtual = true;
  if (flagOption(args, 'control')) o.control = true;
  if (o.virtual && !o.control) throw new UsageError('--virtual needs --control: nothing else can advance the time');
  // --target qemu: the firmware image on an emulated core serves SMP on its UART, which QEMU puts
  // behind a pseudo-terminal; the host simulator's other transports and options are not there.
  const target = stringOption(args, 'target') ?? 'sim';
  if (target !== 'sim' && target !== 'qemu') throw new UsageError(`--target: '${target}' is not one of sim, qemu`);
  if (target === 'qemu') {
    const unsupported = ['port', 'no-udp', 'no-pty', 'baud', 'flash', 'trust', 'heap', 'control', 'virtual']
      .filter((name) => stringOption(args, name) !== undefined || flagOption(args, name) || listOption(args, name).length > 0);
    if (unsupported.length > 0) {
      throw new UsageError(`--target qemu serves SMP on the emulated UART only: --${unsupported[0]} is the host simulator's`);
    }
  }

  const input = args.positionals[0] === undefined ? undefined : existingFile(args.positionals[0]);
  if (input !== undefined && !isSource(input) && !input.endsWith('.bapp')) {
    throw new UsageError(`${args.positionals[0]}: expected a .ts or .js source or a .bapp package`);
  }
  const compiler = await import('../compiler/light');
  let engine = engineOption(args);
  let workDir: string | undefined;
  try {
    let pkg = input;
    if (input !== undefined && isSource(input)) {
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-sim-'));
      pkg = path.join(workDir, path.basename(input).replace(/\.[^.]+$/, '') + '.bapp');
      const r = await compiler.compileApp({
        entry: input,
        apiVersion: apiOption(args),
        engine: engine ?? compiler.DEFAULT_ENGINE,
        outFile: pkg,
        onNote: (line) => io.err(`beacon: ${line}\n`),
      });
      printDiagnostics(io, r.warnings, (d) => compiler.formatDiagnostic(d));
    } else if (input !== undefined && engine === undefined) {
      // A package picks the simulator of its engine unless another was asked for (which then
      // refuses it, as a device of that engine would).
      const header = compiler.readPackageHeader(fs.readFileSync(input));
      if (typeof header !== 'string') engine = header.engine;
    }
    if (target === 'qemu') {
      const { startQemuListen } = await import('../testing/qemuListen');
      const { qemuPtyOf } = await import('../compiler/qemuImage');
      return await new Promise<number>((resolve, reject) => {
        startQemuListen({
          engine: engine ?? compiler.DEFAULT_ENGINE,
          pkg: pkg === undefined ? undefined : path.resolve(pkg),
          utcMs: o.utcMs,
          trace: o.trace,
          // QEMU names the pseudo-terminal in its own words: said as the host simulator says it.
          onLine: (line) => {
            const pty = qemuPtyOf(line);
            io.out(pty !== undefined ? `pty: ${pty}\n` : `${line}\n`);
          },
          onStderr: (text) => io.err(text),
          onExit: () => resolve(0),
        }).then((device) => {
          const stop = (): void => void device.stop();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        }, reject);
      });
    }
    const [simTool] = await compiler.ensureHostTools(['beacon-sim'], engine ?? compiler.DEFAULT_ENGINE, {
      onNote: (line) => io.err(`beacon: ${line}\n`),
    });
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(simTool, listenArgs(o, pkg), { stdio: 'inherit' });
      const ignore = (): void => {};
      const onTerm = (): void => {
        child.kill('SIGTERM');
      };
      // The terminal's interrupt reaches the simulator too (same process group): it saves its
      // flash and ends; this process waits for that.
      process.on('SIGINT', ignore);
      process.on('SIGTERM', onTerm);
      const done = (): void => {
        process.off('SIGINT', ignore);
        process.off('SIGTERM', onTerm);
      };
      child.on('error', (err) => {
        done();
        reject(err);
      });
      child.on('close', (code, signal) => {
        done();
        resolve(code ?? 128 + (signal ? os.constants.signals[signal] ?? 0 : 0));
      });
    });
  } catch (err) {
    return reportFailure(io, 'sim', err);
  } finally {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

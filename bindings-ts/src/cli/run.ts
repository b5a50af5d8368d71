// `beacon run <app.ts|app.js|app.bapp> [--for I] [--api V] [--engine E] [--realtime] [--utc T]`
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { flagOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { parseInterval, parseUtc } from './interval';
import { CliIo } from './io';

export interface SimOptions {
  forMs?: number;
  realtime: boolean;
  utcMs?: number;
}

/** Arguments of beacon-sim for a package. */
export function simArgs(pkg: string, o: SimOptions): string[] {
  const args: string[] = [];
  if (o.forMs !== undefined) args.push('--for', String(o.forMs));
  if (o.realtime) args.push('--realtime');
  if (o.utcMs !== undefined) args.push('--utc', String(o.utcMs));
  args.push(pkg);
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
  return o;
}

/**
 * Run the simulator with the terminal as its stdio, so output streams as it comes. An interrupt
 * from the terminal reaches the simulator (same process group); this process waits for it to
 * finish and then cleans up.
 */
function runSimulator(sim: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(sim, args, { stdio: 'inherit' });
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
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('close', (code, signal) => {
      done();
      if (code !== null) resolve(code);
      else resolve(128 + (signal ? os.constants.signals[signal] ?? 0 : 0));
    });
  });
}

export async function runCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const input = existingFile(args.positionals[0]);
  if (!isSource(input) && !input.endsWith('.bapp')) {
    throw new UsageError(`${args.positionals[0]}: expected a .ts or .js source or a .bapp package`);
  }
  const sim = simOptions(args);
  const apiGiven = stringOption(args, 'api') !== undefined;
  const apiVersion = apiOption(args);
  let engine = engineOption(args);
  const compiler = await import('../compiler');

  let workDir: string | undefined;
  try {
    let pkg: string;
    if (isSource(input)) {
      engine ??= compiler.DEFAULT_ENGINE;
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-run-'));
      pkg = path.join(workDir, path.basename(input).replace(/\.[^.]+$/, '') + '.bapp');
      const r = await compiler.compileApp({
        entry: input,
        apiVersion,
        engine,
        outFile: pkg,
        onNote: (line) => io.err(`beacon: ${line}\n`),
      });
      printDiagnostics(io, r.warnings, (d) => compiler.formatDiagnostic(d));
    } else {
      pkg = input;
      const header = compiler.readPackageHeader(fs.readFileSync(input));
      if (typeof header !== 'string') {
        if (apiGiven && header.apiVersion !== apiVersion) {
          throw new UsageError(`${args.positionals[0]} was built for API ${header.apiVersion}, not ${apiVersion}`, false);
        }
        // The simulator of the package's engine, unless another was asked for.
        engine ??= header.engine;
      }
      // A package the header reader cannot make sense of still goes to the simulator, which
      // gives the authoritative refusal.
      engine ??= compiler.DEFAULT_ENGINE;
    }
    const [simTool] = await compiler.ensureHostTools(['beacon-sim'], engine, {
      onNote: (line) => io.err(`beacon: ${line}\n`),
    });
    return await runSimulator(simTool, simArgs(pkg, sim));
  } catch (err) {
    return reportFailure(io, 'run', err);
  } finally {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

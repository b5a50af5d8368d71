// `beacon run <app.ts|app.js|app.bapp> [--for I] [--api V] [--engine E] [--realtime] [--utc T]
//  [--trust key.pub]...`
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { PackageMap } from '../compiler';
import { flagOption, listOption, ParsedArgs, stringOption, UsageError } from './args';
import { apiOption, engineOption, existingFile, isSource, printDiagnostics, reportFailure } from './common';
import { parseInterval, parseUtc } from './interval';
import { CliIo } from './io';

export interface SimOptions {
  forMs?: number;
  realtime: boolean;
  utcMs?: number;
  /** Public key files the simulated device trusts. */
  trust?: string[];
}

/** Arguments of beacon-sim for a package. */
export function simArgs(pkg: string, o: SimOptions): string[] {
  const args: string[] = [];
  if (o.forMs !== undefined) args.push('--for', String(o.forMs));
  if (o.realtime) args.push('--realtime');
  if (o.utcMs !== undefined) args.push('--utc', String(o.utcMs));
  for (const key of o.trust ?? []) args.push('--trust', key);
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
  const trust = listOption(args, 'trust').map((k) => existingFile(k));
  if (trust.length > 0) o.trust = trust;
  return o;
}

/**
 * The simulator's stderr, line by line, with error locations in the minified script shown in
 * the app's source. Lines are passed on as soon as they are complete.
 */
function mappedStderr(map: PackageMap | undefined, rewrite: (text: string, map: PackageMap) => string): (chunk: Buffer | null) => void {
  let pending = '';
  const emit = (text: string): void => {
    process.stderr.write(map ? rewrite(text, map) : text);
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
function runSimulator(sim: string, args: string[], onStderr: (chunk: Buffer | null) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(sim, args, { stdio: ['inherit', 'inherit', 'pipe'] });
    child.stderr?.on('data', (b: Buffer) => onStderr(b));
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
      onStderr(null);
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
    // A package without its map (copied alone) runs all the same, with unmapped locations.
    const map = compiler.loadPackageMap(pkg);
    const stderr = mappedStderr(typeof map === 'string' ? undefined : map, compiler.rewriteLocations);
    return await runSimulator(simTool, simArgs(pkg, sim), stderr);
  } catch (err) {
    return reportFailure(io, 'run', err);
  } finally {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

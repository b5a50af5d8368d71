// Option checks and error reporting shared by the commands.
import * as fs from 'fs';
import * as path from 'path';
import { API_VERSIONS, ApiVersion, DEFAULT_API_VERSION, isApiVersion } from '../codegen/versions';
import type { BuildError, Diagnostic, Engine, HostToolsError } from '../compiler/light';
import { ParsedArgs, stringOption, UsageError } from './args';
import { CliIo } from './io';

export const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

export function apiOption(args: ParsedArgs): ApiVersion {
  const v = stringOption(args, 'api');
  if (v === undefined) return DEFAULT_API_VERSION;
  if (!isApiVersion(v)) throw new UsageError(`unknown API version '${v}' (known: ${API_VERSIONS.join(', ')})`);
  return v;
}

/** The engine asked for, or undefined when the option was not given. */
export function engineOption(args: ParsedArgs): Engine | undefined {
  const v = stringOption(args, 'engine');
  if (v === undefined) return undefined;
  if (v !== 'duktape' && v !== 'jerryscript') {
    throw new UsageError(`unknown engine '${v}' (known: duktape, jerryscript)`);
  }
  return v;
}

/** An existing regular file, resolved; otherwise a usage error. */
export function existingFile(file: string): string {
  const abs = path.resolve(file);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`no such file: ${file}`, false);
  }
  if (!st.isFile()) throw new UsageError(`not a file: ${file}`, false);
  return abs;
}

export function isSource(file: string): boolean {
  return SOURCE_EXTENSIONS.includes(path.extname(file)) && !file.endsWith('.d.ts');
}

export function printDiagnostics(io: CliIo, list: readonly Diagnostic[], format: (d: Diagnostic) => string): void {
  for (const d of list) io.err(format(d) + '\n');
}

function isBuildError(err: unknown): err is BuildError {
  return err instanceof Error && err.name === 'BuildError';
}

function isHostToolsError(err: unknown): err is HostToolsError {
  return err instanceof Error && err.name === 'HostToolsError';
}

/**
 * Report a failed build or tool run and return the exit status (1). Anything that is not an
 * expected failure is rethrown: that is a bug, and its stack is worth seeing.
 */
export async function reportFailure(io: CliIo, command: string, err: unknown): Promise<number> {
  if (isBuildError(err)) {
    const { formatDiagnostic } = await import('../compiler/diagnostics');
    printDiagnostics(io, err.diagnostics, (d) => formatDiagnostic(d));
    const n = err.errorCount;
    const outcome = command === 'build' ? 'no package written' : 'nothing was run';
    io.err(`beacon ${command}: ${n} error${n === 1 ? '' : 's'}; ${outcome}\n`);
    return 1;
  }
  if (isHostToolsError(err)) {
    if (err.output) io.err(err.output.endsWith('\n') ? err.output : err.output + '\n');
    io.err(`beacon ${command}: ${err.message}\n`);
    return 1;
  }
  throw err;
}

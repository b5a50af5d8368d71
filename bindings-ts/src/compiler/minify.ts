// The minifying stage: terser on the ES5 bundle, ES5 in and out, no unsafe transforms, with the
// source map carried through (TypeScript -> ES5 -> minified, composed by terser).
//
// Every statement starts a line ('lines', the default): Duktape reports errors by line only, and
// a line that is one statement maps back to that statement in the TypeScript source. Only the
// bytecode goes into the package, and whitespace does not reach the bytecode (JerryScript's
// snapshots carry no line table; Duktape's grows by a few bytes), so the cost is near nothing:
// bench/compiler.sh measures it against 'dense', terser's usual one-line output with statements
// joined into comma sequences.
import type { MinifyOptions } from 'terser';
import { BuildError } from './diagnostics';
import { RawSourceMap } from './sourceMap';

export type MinifyMode = 'lines' | 'dense' | 'none';
export const MINIFY_MODES: readonly MinifyMode[] = ['lines', 'dense', 'none'];

export interface MinifyResult {
  code: string;
  /** Composed map: minified positions -> original sources. */
  map: RawSourceMap & { sources: string[]; sourcesContent?: (string | null)[]; names?: string[] };
}

export async function minifyScript(
  code: string,
  map: object,
  opts: { fileName: string; mode: Exclude<MinifyMode, 'none'> },
): Promise<MinifyResult> {
  const { minify } = await import('terser');
  const lines = opts.mode === 'lines';
  const options: MinifyOptions = {
    ecma: 5,
    module: false,
    toplevel: false,
    compress: {
      ecma: 5,
      unsafe: false,
      passes: 2,
      // Keep statements apart so each starts a line (see above).
      sequences: !lines,
      join_vars: !lines,
    },
    mangle: true,
    // beautify with no indentation: a line per statement, braces around every body, so a
    // statement under an `if` gets its own line too.
    format: lines ? { ecma: 5, comments: false, beautify: true, indent_level: 0, braces: true } : { ecma: 5, comments: false },
    sourceMap: { content: JSON.stringify(map), filename: opts.fileName, asObject: true, includeSources: true },
  };
  let result;
  try {
    result = await minify(code, options);
  } catch (err) {
    const e = err as { message?: string; line?: number; col?: number };
    throw new BuildError([
      {
        severity: 'error',
        message: `the minifier could not read the ES5 script: ${e.message ?? String(err)}`,
        ...(e.line !== undefined ? { line: e.line } : {}),
        ...(e.col !== undefined ? { column: e.col + 1 } : {}),
      },
    ]);
  }
  if (typeof result.code !== 'string' || result.map === undefined || typeof result.map === 'string') {
    throw new BuildError('the minifier produced no output');
  }
  const out = result.map as unknown as MinifyResult['map'];
  return { code: result.code, map: { ...out, mappings: out.mappings } };
}

// The bytecode stage: beacon-pack compiles the ES5 script with the engine and writes the app
// package (layout in src/runtime/core/rt_package.h).
import { spawn } from 'child_process';
import { BuildError, Diagnostic } from './diagnostics';

export interface PackReport {
  /** Engine name as the tool reports it, e.g. "Duktape". */
  engine: string;
  /** major*10000 + minor*100 + patch. */
  engineVersion: number;
  /** Sizes in bytes. */
  source: number;
  bytecode: number;
  package: number;
}

export interface PackOptions {
  packTool: string;
  apiVersion: string;
  es5File: string;
  /** Name the engine gives the script (error locations carry it); default: the file's path. */
  scriptName?: string;
  outFile: string;
}

export function formatEngineVersion(v: number): string {
  return `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;
}

function parseReport(stdout: string): PackReport | undefined {
  const line = stdout.trim().split('\n').pop();
  if (!line) return undefined;
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof obj !== 'object' || obj === null) return undefined;
  const o = obj as Record<string, unknown>;
  const num = (k: string): number | undefined => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
  const engine = typeof o.engine === 'string' ? o.engine : undefined;
  const engineVersion = num('engineVersion');
  const source = num('source');
  const bytecode = num('bytecode');
  const pkg = num('package');
  if (engine === undefined || engineVersion === undefined || source === undefined || bytecode === undefined || pkg === undefined) {
    return undefined;
  }
  return { engine, engineVersion, source, bytecode, package: pkg };
}

/** The tool reports engine syntax errors as `file:line: message`. */
function toDiagnostics(stderr: string): Diagnostic[] {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l.length > 0);
  return lines.map((l): Diagnostic => {
    const m = /^(.+?):(\d+): (.*)$/.exec(l);
    if (m) return { severity: 'error', file: m[1], line: Number(m[2]), message: m[3] };
    return { severity: 'error', message: l };
  });
}

export function packApp(opts: PackOptions): Promise<PackReport> {
  const args = ['--api', opts.apiVersion, '-o', opts.outFile];
  if (opts.scriptName) args.push('--name', opts.scriptName);
  args.push(opts.es5File);
  return new Promise((resolve, reject) => {
    const child = spawn(opts.packTool, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new BuildError(`cannot run ${opts.packTool}: ${e.message}`)));
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0) {
        const diags = toDiagnostics(stderr);
        if (diags.length === 0) {
          diags.push({ severity: 'error', message: `${opts.packTool} failed (${signal ?? `exit ${code}`})` });
        }
        reject(new BuildError(diags));
        return;
      }
      const report = parseReport(stdout);
      if (!report) {
        reject(new BuildError(`${opts.packTool} gave no report (expected one JSON line, got: ${stdout.trim() || 'nothing'})`));
        return;
      }
      resolve(report);
    });
  });
}
